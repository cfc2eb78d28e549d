// A user's notifications as they are pushed, followed with one of the user's developer keys for as long as that
// key is unrevoked: its revocation, by this instance or by another one (which broadcasts it on
// `key-revocations`, as it does for the key caches), stops the following. A broadcast this instance missed (its
// link to the others down) is made up for by reading the followed keys again when the link is back (app.ts) and
// every `recheckMs`.
import type { Pusher } from '../proactive/push';
import type { Repositories } from '../store';
import type { Notification } from '../store/notifications';

export interface NotificationFollower {
  /** Called with each notification pushed to the key's user from now on. */
  notify(notification: Notification): void;
  /** Called once the key is found revoked; nothing is notified after it. */
  revoked(): void;
}

export function notificationStreams(
  { users }: Pick<Repositories, 'users'>,
  pusher: Pusher,
  recheckMs: number,
) {
  let followed = 0;
  let recheck: NodeJS.Timeout | null = null;

  // Runs only while something is followed. A database out of reach is tried again at the next tick: the streams
  // stay open meanwhile, as they do while the broadcast is down.
  function followingOneMore(): void {
    followed += 1;
    recheck ??= setInterval(() => void users.recheckWatchedKeys().catch(() => undefined), recheckMs);
    recheck.unref();
  }
  function followingOneLess(): void {
    followed -= 1;
    if (followed > 0 || !recheck) return;
    clearInterval(recheck);
    recheck = null;
  }

  return {
    /** Follows the notifications of the user of key `keyId`, `userId`; returns what stops following them. */
    follow(keyId: string, userId: string, follower: NotificationFollower): () => void {
      let active = true;
      const unsubscribe = pusher.subscribe(userId, (notification) => follower.notify(notification));
      const stop = () => {
        if (!active) return;
        active = false;
        unsubscribe();
        unwatch();
        followingOneLess();
      };
      const revoked = () => {
        if (!active) return;
        stop();
        follower.revoked();
      };
      const unwatch = users.watchRevocation(keyId, revoked);
      followingOneMore();
      // The key cache may have let the request in after the key was revoked, and a revocation told before the
      // watch began went unnoticed: the key is read again now that it is watched. Unread (the database out of
      // reach), it counts as revoked: a key that may be revoked reads nothing more.
      users.isKeyActive(keyId).then(
        (unrevoked) => {
          if (!unrevoked) revoked();
        },
        () => revoked(),
      );
      return stop;
    },
  };
}

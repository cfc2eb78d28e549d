// A user's notifications as they are pushed, followed with one of the user's developer keys for as long as that
// key is unrevoked: its revocation, by this instance or by another one (which broadcasts it on
// `key-revocations`, as it does for the key caches), stops the following.
import type { Pusher } from '../proactive/push';
import type { Repositories } from '../store';
import type { Notification } from '../store/notifications';

export interface NotificationFollower {
  /** Called with each notification pushed to the key's user from now on. */
  notify(notification: Notification): void;
  /** Called once the key is found revoked; nothing is notified after it. */
  revoked(): void;
}

export function notificationStreams({ users }: Pick<Repositories, 'users'>, pusher: Pusher) {
  return {
    /** Follows the notifications of the user of key `keyId`, `userId`; returns what stops following them. */
    follow(keyId: string, userId: string, follower: NotificationFollower): () => void {
      let following = true;
      const unsubscribe = pusher.subscribe(userId, (notification) => follower.notify(notification));
      const stop = () => {
        following = false;
        unsubscribe();
        unwatch();
      };
      const revoked = () => {
        if (!following) return;
        stop();
        follower.revoked();
      };
      const unwatch = users.watchRevocation(keyId, revoked);
      // The key cache may have let the request in after the key was revoked, and a revocation told before the
      // watch began went unnoticed: the key is read again now that it is watched. Unread (the database out of
      // reach), it counts as revoked: a key that may be revoked reads nothing more.
      users.isKeyActive(keyId).then(
        (active) => {
          if (!active) revoked();
        },
        () => revoked(),
      );
      return stop;
    },
  };
}

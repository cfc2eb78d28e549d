import { EventEmitter } from 'node:events';
import axios from 'axios';
import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from '../cluster/bus';
import type { OutboundPolicy } from '../outbound/policy';
import type { NewNotification, Notification, NotificationsRepository } from '../store/notifications';

/** A pushed notification as the other instances are told of it: whole, or by id when it is too big to send. */
type Announcement = { userId: string; notification: Notification } | { userId: string; id: string };

/**
 * Past this, an announcement carries the id and each instance reads the row: PostgreSQL's NOTIFY (the bus without
 * Redis) refuses payloads of 8000 bytes or more, and the bus's envelope adds its own fields.
 */
const ANNOUNCEMENT_MAX_BYTES = 7_000;

/**
 * Delivers notifications: into the inbox, to the notification streams open in every instance (this one's
 * through an in-process event emitter, the others' through the bus), and to the configured ntfy-compatible
 * push URL (failures there are logged, never thrown).
 */
export class Pusher {
  private readonly events = new EventEmitter();
  private readonly forwards = new Set<Promise<void>>();
  /** Announcements from other instances, streamed one after the other so each stream keeps their order. */
  private announced: Promise<void> = Promise.resolve();

  constructor(
    /** The users' inboxes. */
    private readonly inbox: NotificationsRepository,
    private readonly pushUrl: string | null,
    private readonly outbound: OutboundPolicy,
    private readonly log: FastifyBaseLogger,
    private readonly bus: Bus,
  ) {
    this.events.setMaxListeners(0);
    bus.subscribe('notifications', (message) => {
      this.announced = this.announced.then(() => this.streamAnnounced(message as Announcement));
    });
  }

  /** Stores the notification in the user's inbox (read by the inbox endpoints), then streams and forwards it. */
  async push(push: NewNotification): Promise<Notification> {
    const notification = await this.inbox.create(push);
    await this.pushed(push.userId, notification);
    return notification;
  }

  /** Streams and forwards a notification already stored in the inbox of `userId` (by a change it goes with). */
  async pushed(userId: string, notification: Notification): Promise<void> {
    this.events.emit(`user:${userId}`, notification);
    await this.announce({ userId, notification });
    if (this.pushUrl) {
      const forward = this.forward(this.pushUrl, userId, notification).finally(() =>
        this.forwards.delete(forward),
      );
      this.forwards.add(forward);
    }
  }

  /** Tells the other instances, whose streams may be open for this user too. */
  private async announce(announcement: { userId: string; notification: Notification }): Promise<void> {
    const whole = Buffer.byteLength(JSON.stringify(announcement)) <= ANNOUNCEMENT_MAX_BYTES;
    await this.bus.publish(
      'notifications',
      whole ? announcement : { userId: announcement.userId, id: announcement.notification.id },
    );
  }

  private async streamAnnounced(announcement: Announcement): Promise<void> {
    if (this.events.listenerCount(`user:${announcement.userId}`) === 0) return;
    try {
      const notification =
        'notification' in announcement ? announcement.notification : await this.inbox.get(announcement.id);
      if (notification) this.events.emit(`user:${announcement.userId}`, notification);
    } catch (error) {
      this.log.warn({ err: error }, 'could not read a notification another instance pushed');
    }
  }

  /** Calls `listener` with every notification pushed to this user from now on; returns the unsubscriber. */
  subscribe(userId: string, listener: (notification: Notification) => void): () => void {
    this.events.on(`user:${userId}`, listener);
    return () => this.events.off(`user:${userId}`, listener);
  }

  /** Waits for the forwards to the push URL still under way. */
  async settle(): Promise<void> {
    await Promise.all([...this.forwards]);
  }

  private async forward(url: string, userId: string, notification: Notification): Promise<void> {
    try {
      this.outbound.assertCallable(url);
      await axios.post(url, notification.text, {
        ...this.outbound.axiosOptions(),
        timeout: 10_000,
        signal: AbortSignal.timeout(10_000),
        maxContentLength: 64 * 1024,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          // Header values must be Latin-1; keep the title readable and safe.
          title: notification.title.replace(/[^\x20-\x7e]/g, '?'),
          'x-devdata-user': userId,
          'x-devdata-app': notification.app_id,
        },
      });
    } catch (error) {
      // What failed, not the error itself: axios's carries the request (the URL with any password in it, the
      // Authorization header made of that, the notification's text), which a log must not hold.
      const status = axios.isAxiosError(error) ? error.response?.status : undefined;
      const { code, message } = error as { code?: string; message?: string };
      this.log.warn(
        { notification: notification.id, status, code, reason: status ? `HTTP ${status}` : message },
        'push forward failed',
      );
    }
  }
}

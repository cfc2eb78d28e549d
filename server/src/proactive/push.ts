import { EventEmitter } from 'node:events';
import axios from 'axios';
import type { FastifyBaseLogger } from 'fastify';
import type { Selectable } from 'kysely';
import type { Store } from '../store/db';
import type { NotificationsTable } from '../store/schema';
import { newId } from '../ids';

export interface Push {
  userId: string;
  appId: string;
  kind: 'direct' | 'proactive';
  title: string;
  text: string;
  generated: boolean;
}

/**
 * Delivers notifications: into the inbox, to the notification streams open in this process (an in-process
 * event emitter: with several instances each streams the pushes it made itself), and to the configured
 * ntfy-compatible push URL (failures there are logged, never thrown).
 */
export class Pusher {
  private readonly events = new EventEmitter();
  private readonly forwards = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly pushUrl: string | null,
    private readonly log: FastifyBaseLogger,
  ) {
    this.events.setMaxListeners(0);
  }

  async push(notification: Push): Promise<Selectable<NotificationsTable>> {
    const row = await this.save(notification);
    this.events.emit(`user:${row.user_id}`, row);
    if (this.pushUrl) {
      const forward = this.forward(this.pushUrl, row).finally(() => this.forwards.delete(forward));
      this.forwards.add(forward);
    }
    return row;
  }

  /** Calls `listener` with every notification pushed to this user from now on; returns the unsubscriber. */
  subscribe(userId: string, listener: (row: Selectable<NotificationsTable>) => void): () => void {
    this.events.on(`user:${userId}`, listener);
    return () => this.events.off(`user:${userId}`, listener);
  }

  /** Waits for the forwards to the push URL still under way. */
  async settle(): Promise<void> {
    await Promise.all([...this.forwards]);
  }

  /** Stores the notification in the user's inbox, where the inbox endpoints read it. */
  private async save(notification: Push): Promise<Selectable<NotificationsTable>> {
    const row = {
      id: newId(),
      user_id: notification.userId,
      app_id: notification.appId,
      kind: notification.kind,
      title: notification.title,
      text: notification.text,
      generated: notification.generated ? 1 : 0,
      created_at: Date.now(),
    };
    await this.store.db.insertInto('notifications').values(row).execute();
    return row;
  }

  private async forward(url: string, row: Selectable<NotificationsTable>): Promise<void> {
    try {
      await axios.post(url, row.text, {
        timeout: 10_000,
        signal: AbortSignal.timeout(10_000),
        maxContentLength: 64 * 1024,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          // Header values must be Latin-1; keep the title readable and safe.
          title: row.title.replace(/[^\x20-\x7e]/g, '?'),
          'x-devdata-user': row.user_id,
          'x-devdata-app': row.app_id,
        },
      });
    } catch (error) {
      this.log.warn({ err: error, notification: row.id }, 'push forward failed');
    }
  }
}

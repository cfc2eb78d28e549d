// Notifications, the user's inbox: every query, and how a row reads back.
import type { Kysely } from 'kysely';
import type { Position } from '../contract/cursor';
import { newId } from '../ids';
import { outboxTransaction, recordEvents } from './db/outbox';
import { newestBefore } from './db/paging';
import type { Row } from './db/records';
import { fromFlag, iso, toFlag } from './db/rows';
import type { Database } from './db/schema';

export type NotificationKind = 'direct' | 'proactive';

export interface Notification {
  id: string;
  app_id: string;
  kind: NotificationKind;
  title: string;
  text: string;
  generated: boolean;
  created_at: string;
}

export interface NewNotification {
  userId: string;
  appId: string;
  kind: NotificationKind;
  title: string;
  text: string;
  /** Whether a model wrote the text (false: the filled prompt itself). */
  generated: boolean;
}

function decodeNotification(row: Row<'notifications'>): Notification {
  return {
    id: row.id,
    app_id: row.app_id,
    kind: row.kind as NotificationKind,
    title: row.title,
    text: row.text,
    generated: fromFlag(row.generated),
    created_at: iso(row.created_at),
  };
}

/**
 * Stores a notification in its user's inbox, with its `notification.pushed` event, in the transaction `trx` (run by
 * outboxTransaction): for a change that the notification must be committed with.
 */
export async function insertNotification(
  trx: Kysely<Database>,
  notification: NewNotification,
): Promise<Notification> {
  const row = {
    id: newId(),
    user_id: notification.userId,
    app_id: notification.appId,
    kind: notification.kind,
    title: notification.title,
    text: notification.text,
    generated: toFlag(notification.generated),
    created_at: Date.now(),
  };
  const created = decodeNotification(row);
  await trx.insertInto('notifications').values(row).execute();
  await recordEvents(trx, notification.userId, 'notification.pushed', [created], row.created_at);
  return created;
}

export function notificationsRepository(db: Kysely<Database>) {
  return {
    /** Newest first: up to `take`, before the position `before` (created_at in epoch ms and id) when given. */
    async list(userId: string, before: Position | undefined, take: number): Promise<Notification[]> {
      const query = db.selectFrom('notifications').selectAll().where('user_id', '=', userId);
      const rows = await newestBefore(query, before, take).execute();
      return rows.map(decodeNotification);
    },

    /** One notification by id, if it exists. */
    async get(id: string): Promise<Notification | undefined> {
      const row = await db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
      return row && decodeNotification(row);
    },

    /** Stores a notification in its user's inbox, with its `notification.pushed` event. */
    async create(notification: NewNotification): Promise<Notification> {
      return outboxTransaction(db, (trx) => insertNotification(trx, notification));
    },
  };
}

export type NotificationsRepository = ReturnType<typeof notificationsRepository>;

import type { Kysely } from 'kysely';
import { createIndex } from './schema-steps';

// The proactive pipeline: live transcript sessions (a flag on the session's conversation) and the log of
// webhook calls (deliveries).
export async function up(db: Kysely<unknown>): Promise<void> {
  // 1 while a live transcript session (POST /v1/dev/user/transcripts/{session_id}/segments) is still open.
  await db.schema
    .alterTable('conversations')
    .addColumn('live', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('notification_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'deliveries_app_created', 'deliveries', ['app_id', 'created_at', 'id']);
  await createIndex(db, 'deliveries_created', 'deliveries', ['created_at', 'id']);

  // user_chat reads the latest notifications of one app to one user.
  await createIndex(db, 'notifications_user_app_created', 'notifications', [
    'user_id',
    'app_id',
    'created_at',
    'id',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('notifications_user_app_created').ifExists().execute();
  await db.schema.dropTable('deliveries').ifExists().execute();
  await db.schema.alterTable('conversations').dropColumn('live').execute();
}

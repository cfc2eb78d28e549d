import type { Kysely } from 'kysely';
import { userRecordColumns, timestampColumns, createIndex } from './schema-steps';

// Event webhooks: a user's subscriptions, the events their writes caused (written in the write's transaction:
// the outbox), and one delivery per event and subscription, which the delivery worker claims and retries.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_subscriptions')
    .$call(userRecordColumns)
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event types, or ["*"].
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    // The secret before the last rotation, which still signs until previous_secret_until.
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'bigint')
    // When its deliveries started failing (null while they succeed): a day of it disables the subscription.
    .addColumn('failing_since', 'bigint')
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'webhook_subscriptions_user', 'webhook_subscriptions', [
    'user_id',
    'created_at',
    'id',
  ]);

  await db.schema
    .createTable('webhook_events')
    .$call(userRecordColumns)
    .addColumn('type', 'text', (c) => c.notNull())
    // The record as its repository returned it (JSON), mapped to the wire form when sent.
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'webhook_events_created', 'webhook_events', ['created_at']);

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) =>
      c.notNull().references('webhook_subscriptions.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    // Pending: when the next attempt is due (while one is under way, when its lease ends). Null otherwise.
    .addColumn('next_attempt_at', 'bigint')
    // The claim of the attempt under way: only its claimer may record its outcome.
    .addColumn('lease', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  // The worker's claim: pending deliveries that are due.
  await createIndex(db, 'webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at']);
  // A subscription's deliveries, newest first.
  await createIndex(db, 'webhook_deliveries_subscription', 'webhook_deliveries', [
    'subscription_id',
    'created_at',
    'id',
  ]);
  await createIndex(db, 'webhook_deliveries_event', 'webhook_deliveries', ['event_id']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhook_events').ifExists().execute();
  await db.schema.dropTable('webhook_subscriptions').ifExists().execute();
}

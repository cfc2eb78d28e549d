import { type Kysely, sql } from 'kysely';
import { createIndex } from './schema-steps';

// The delivery worker claims subscription by subscription (store/webhooks.ts): it finds the subscriptions with
// pending deliveries by skipping through this index, then takes each one's oldest due. The old index ordered every
// pending delivery by when it was due, so a claim walked past the whole backlog of a dead or slow endpoint, which
// stays due while its subscription is busy. Only pending rows are in the index: delivered ones are most of the table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries')
    .columns(['subscription_id', 'next_attempt_at'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createIndex(db, 'webhook_deliveries_due', 'webhook_deliveries', ['status', 'next_attempt_at']);
  await db.schema.dropIndex('webhook_deliveries_pending').execute();
}

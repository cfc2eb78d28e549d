import type { Kysely } from 'kysely';
import { createIndex } from './schema-steps';

// The change feed: a per-user write clock that gives every write a unique, increasing `updated_at`, tombstones
// for deleted records, and the (user_id, updated_at, id) indexes that `updated_since` / `order=updated_at` walk.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per user that has written anything: the last write stamp handed out (epoch ms). Taking a stamp
  // updates this row, so a user's writes are serialized and their stamps increase in commit order.
  await db.schema
    .createTable('change_clock')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('last_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tombstones')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tombstones_pk', ['user_id', 'type', 'id'])
    .execute();
  // GET /deleted without a type (and pruning, which deletes a user's oldest ones).
  await createIndex(db, 'tombstones_user_deleted', 'tombstones', ['user_id', 'deleted_at', 'id']);
  // GET /deleted?type=…
  await createIndex(db, 'tombstones_user_type_deleted', 'tombstones', [
    'user_id',
    'type',
    'deleted_at',
    'id',
  ]);

  for (const table of ['action_items', 'conversations', 'memories', 'goals']) {
    await createIndex(db, `${table}_user_updated`, table, ['user_id', 'updated_at', 'id']);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['action_items', 'conversations', 'memories', 'goals']) {
    await db.schema.dropIndex(`${table}_user_updated`).ifExists().execute();
  }
  await db.schema.dropTable('tombstones').ifExists().execute();
  await db.schema.dropTable('change_clock').ifExists().execute();
}

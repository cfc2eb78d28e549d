import type { Kysely } from 'kysely';
import { userRecordColumns, timestampColumns, createIndex } from './schema-steps';

// Instants are epoch milliseconds in bigint columns; the pg driver is told to parse int8 as a number.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('admin_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .$call(userRecordColumns)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await createIndex(db, 'api_keys_user', 'api_keys', ['user_id', 'created_at']);

  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('external_integration', 'text')
    .addColumn('proactive_notification', 'text')
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .$call(timestampColumns)
    .execute();

  await db.schema
    .createTable('app_installs')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('granted_scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_installs_pk', ['app_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('screen_activity')
    .$call(userRecordColumns)
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('app_name', 'text', (c) => c.notNull())
    .addColumn('window_title', 'text', (c) => c.notNull())
    .addColumn('ocr_text', 'text', (c) => c.notNull())
    .execute();
  await createIndex(db, 'screen_activity_user_time', 'screen_activity', ['user_id', 'timestamp', 'id']);
  await createIndex(db, 'screen_activity_user_app_time', 'screen_activity', [
    'user_id',
    'app_name',
    'timestamp',
    'id',
  ]);

  await db.schema
    .createTable('folders')
    .$call(userRecordColumns)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'text')
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'folders_user', 'folders', ['user_id', 'created_at']);

  await db.schema
    .createTable('conversations')
    .$call(userRecordColumns)
    .addColumn('client_session_id', 'text')
    .addColumn('folder_id', 'text', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('structured', 'text', (c) => c.notNull())
    .addColumn('transcript_segments', 'text', (c) => c.notNull())
    .addColumn('geolocation', 'text')
    .addColumn('discarded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint', (c) => c.notNull())
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'conversations_user_started', 'conversations', ['user_id', 'started_at', 'id']);
  await db.schema
    .createIndex('conversations_client_session')
    .on('conversations')
    .columns(['user_id', 'client_session_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('action_items')
    .$call(userRecordColumns)
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conversation_id', 'text', (c) => c.references('conversations.id').onDelete('set null'))
    .addColumn('due_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'action_items_user_created', 'action_items', ['user_id', 'created_at', 'id']);

  await db.schema
    .createTable('memories')
    .$call(userRecordColumns)
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'memories_user_created', 'memories', ['user_id', 'created_at', 'id']);

  await db.schema
    .createTable('goals')
    .$call(userRecordColumns)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('desired_outcome', 'text', (c) => c.notNull())
    .addColumn('goal_type', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_value', 'double precision', (c) => c.notNull())
    .addColumn('target_value', 'double precision', (c) => c.notNull())
    .addColumn('min_value', 'double precision', (c) => c.notNull())
    .addColumn('max_value', 'double precision', (c) => c.notNull())
    .addColumn('unit', 'text')
    .addColumn('focus_rank', 'integer')
    .addColumn('horizon_at', 'bigint')
    .addColumn('success_criteria', 'text', (c) => c.notNull())
    .addColumn('why_it_matters', 'text')
    .$call(timestampColumns)
    .execute();
  await createIndex(db, 'goals_user_created', 'goals', ['user_id', 'created_at', 'id']);

  await db.schema
    .createTable('goal_history')
    .addColumn('goal_id', 'text', (c) => c.notNull().references('goals.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('goal_history_pk', ['goal_id', 'day'])
    .execute();

  await db.schema
    .createTable('people')
    .$call(userRecordColumns)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('speech_sample_transcripts', 'text', (c) => c.notNull())
    .$call(timestampColumns)
    .addUniqueConstraint('people_user_name', ['user_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('notifications')
    .$call(userRecordColumns)
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('generated', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await createIndex(db, 'notifications_user_created', 'notifications', ['user_id', 'created_at', 'id']);

  await db.schema
    .createTable('rate_counters')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'rate_counters',
    'notifications',
    'people',
    'goal_history',
    'goals',
    'memories',
    'action_items',
    'conversations',
    'folders',
    'screen_activity',
    'app_installs',
    'apps',
    'api_keys',
    'admin_tokens',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

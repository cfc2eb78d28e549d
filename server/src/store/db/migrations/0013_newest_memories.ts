import type { Kysely } from 'kysely';
import { isPostgres, raw } from './postgres';

// PostgreSQL only: the user's memory search rows in the order they were stored, so that a broad memory search
// (a word in most of the user's memories) finds its newest matches by testing the newest rows one by one, in
// their heap rows, instead of reading and sorting every match the GIN index gives (store/db/search.ts).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await raw(db, 'create index memories_search_user_stored on memories_search (user_id, stored)');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await raw(db, 'drop index if exists memories_search_user_stored');
}

import { type Kysely, PostgresAdapter, sql } from 'kysely';

// PostgreSQL only: the planner keeps no statistics of the search documents. With them (gathered by ANALYZE, which
// autovacuum runs), a word found in most of a user's conversations makes it read the whole search table instead
// of the GIN index, and that reads every conversation's TOASTed tsvector to test it: 60 ms instead of 10 ms for a
// word in all of 10,000 conversations. Without them it prices a match as rare, and every search takes the index.
// The column's statistics are set to 0 (none gathered from now on); the no-op change of type drops those already
// gathered, without rewriting the table or its indexes.

const TABLES = ['conversations', 'memories', 'action_items'];

const raw = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);
const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    await raw(db, `alter table ${table}_search alter column document set statistics 0`);
    await raw(db, `alter table ${table}_search alter column document type tsvector`);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES)
    await raw(db, `alter table ${table}_search alter column document set statistics -1`);
}

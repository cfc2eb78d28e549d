import { type Kysely, PostgresAdapter, sql } from 'kysely';

// What the PostgreSQL-only steps of migrations from 0011 on share. Like a migration, never change what these do:
// a migration that has shipped runs them as they were when it shipped.

/** Runs one statement of SQL as written. */
export const raw = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);

export const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

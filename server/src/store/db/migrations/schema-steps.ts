import type { CreateTableBuilder, Kysely } from 'kysely';

// What the schema steps of migrations share. Like a migration, never change what these do: a migration that has
// shipped runs them as they were when it shipped (test/server/migrations-frozen.test.ts holds every migration to
// the statements it ran then).

/** A record's own id and the user it belongs to, gone with the user: the first columns of a user's records. */
export const userRecordColumns = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) =>
  table
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'));

/** When a record was made and last changed: the last columns of a table whose rows change. */
export const timestampColumns = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) =>
  table
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull());

/** A (non-unique) index on these columns of the table, in this order. */
export const createIndex = (db: Kysely<unknown>, name: string, table: string, columns: string[]) =>
  db.schema.createIndex(name).on(table).columns(columns).execute();

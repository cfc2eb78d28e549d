// A migration run that stops part way (a failed statement, a killed process) must leave nothing of itself, so the
// next start migrates the database whole: on SQLite as on PostgreSQL, each run of migrations is one transaction.
// The run is stopped for certain by a table that the last statements of 0008_search want to create; once it is
// gone, the next run must bring the database to the schema a new database gets, keeping every record.
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from '../../server/src/store/db/migrations';
import { runCli, serveCli } from '../helpers/cli';
import { previousInit, previousSeed } from '../helpers/previous-version';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/server';

/** A table 0008_search creates after it has made the search tables of conversations and memories. */
const BLOCKER = 'action_items_search';
/** The last migration before search: the upgrade test's database is brought back to it. */
const BEFORE_SEARCH = '0007_event_webhooks';

/** Runs `work` with a connection of its own to the database at `url`. */
async function withDatabase<T>(
  url: string,
  work: (query: (text: string) => Promise<unknown[]>) => Promise<T>,
) {
  if (url.startsWith('sqlite:')) {
    const sqlite = new SQLite(url.slice('sqlite:'.length));
    try {
      return await work(async (text) => {
        const statement = sqlite.prepare(text);
        return statement.reader ? statement.all() : (statement.run(), []);
      });
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(async (text) => (await client.query(text)).rows);
  } finally {
    await client.end();
  }
}

/** The tables, columns, indexes and triggers of the database, each as one line, sorted. */
async function schemaOf(dialect: Dialect, url: string): Promise<string[]> {
  const queries =
    dialect === 'sqlite'
      ? ["select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%'"]
      : [
          `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
             where table_schema = 'public'`,
          `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public'`,
          `select event_object_table, trigger_name, event_manipulation, action_statement
             from information_schema.triggers where trigger_schema = 'public'`,
        ];
  return withDatabase(url, async (query) => {
    const lines: string[] = [];
    for (const text of queries) lines.push(...(await query(text)).map((row) => JSON.stringify(row)));
    return lines.sort();
  });
}

/** The names of the tables in the database. */
async function tablesOf(dialect: Dialect, url: string): Promise<string[]> {
  const text =
    dialect === 'sqlite'
      ? "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'"
      : "select table_name as name from information_schema.tables where table_schema = 'public'";
  const rows = await withDatabase(url, (query) => query(text));
  return rows.map((row) => (row as { name: string }).name).sort();
}

/** Every row of each of these tables, as sorted JSON lines. */
async function rowsOf(dialect: Dialect, url: string, tables: string[]): Promise<Record<string, string[]>> {
  return withDatabase(url, async (query) => {
    const rows: Record<string, string[]> = {};
    for (const table of tables) {
      const text =
        dialect === 'sqlite'
          ? `select * from ${table}`
          : `select row_to_json(t)::text as row from ${table} t`;
      rows[table] = (await query(text))
        .map((row) => (dialect === 'sqlite' ? JSON.stringify(row) : (row as { row: string }).row))
        .sort();
    }
    return rows;
  });
}

async function migrationsRecorded(url: string): Promise<number> {
  const [row] = await withDatabase(url, (query) => query('select count(*) as n from kysely_migration'));
  return Number((row as { n: number | string }).n);
}

/** The schema `init` gives a new database of this kind. */
async function newDatabaseSchema(dialect: Dialect): Promise<string[]> {
  const fresh = await createDatabase(dialect);
  try {
    expect(runCli(['init', '--database', fresh.url]).status).toBe(0);
    return await schemaOf(dialect, fresh.url);
  } finally {
    await fresh.drop();
  }
}

/** Migrates the database at `url` down to `target` with the migrations' own `down`. */
async function migrateDownTo(dialect: Dialect, url: string, target: string): Promise<void> {
  const db = new Kysely<unknown>({
    dialect:
      dialect === 'sqlite'
        ? new SqliteDialect({ database: new SQLite(url.slice('sqlite:'.length)) })
        : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo(target);
    if (error) throw error;
  } finally {
    await db.destroy();
  }
}

/** Runs `init` with BLOCKER in place: it must fail on it, in 0008_search. */
async function failingInit(url: string) {
  await withDatabase(url, (query) => query(`create table ${BLOCKER} (id text)`));
  const failed = runCli(['init', '--database', url]);
  expect(failed.status).toBe(1);
  expect(failed.stderr).toContain(BLOCKER);
  await withDatabase(url, (query) => query(`drop table ${BLOCKER}`));
}

describe.each(DIALECTS)('an interrupted migration on %s', (dialect) => {
  test('leaves nothing of its run, and the next init migrates the new database whole', async () => {
    const expected = await newDatabaseSchema(dialect);
    const database = await createDatabase(dialect);
    try {
      await failingInit(database.url);
      // Nothing of the failed run: no migration recorded, none of their tables.
      expect(await migrationsRecorded(database.url)).toBe(0);
      expect(await tablesOf(dialect, database.url)).toEqual(['kysely_migration', 'kysely_migration_lock']);

      const retried = runCli(['init', '--database', database.url]);
      expect(retried.stderr).toBe('');
      expect(retried.status).toBe(0);
      expect(await migrationsRecorded(database.url)).toBe(Object.keys(migrations).length);
      expect(await schemaOf(dialect, database.url)).toEqual(expected);
    } finally {
      await database.drop();
    }
  }, 120_000);

  test('on an upgrade keeps every record, and the next start finishes the upgrade', async () => {
    const expected = await newDatabaseSchema(dialect);
    const database = await createDatabase(dialect);
    try {
      // A database with every kind of record, written by the previous version, as it stood before search.
      previousInit(database.url);
      previousSeed(database.url);
      await migrateDownTo(dialect, database.url, BEFORE_SEARCH);
      const tables = (await tablesOf(dialect, database.url)).filter((t) => !t.startsWith('kysely_'));
      const before = await rowsOf(dialect, database.url, tables);
      expect(before.conversations.length).toBeGreaterThan(0);
      const recorded = await migrationsRecorded(database.url);

      await failingInit(database.url);
      expect(await migrationsRecorded(database.url)).toBe(recorded);
      expect(await tablesOf(dialect, database.url)).toEqual(
        [...tables, 'kysely_migration', 'kysely_migration_lock'].sort(),
      );
      expect(await rowsOf(dialect, database.url, tables)).toEqual(before);

      const server = await serveCli(database.url);
      await server.stop();
      expect(await migrationsRecorded(database.url)).toBe(Object.keys(migrations).length);
      expect(await schemaOf(dialect, database.url)).toEqual(expected);
      expect(await rowsOf(dialect, database.url, tables)).toEqual(before);
    } finally {
      await database.drop();
    }
    // The first run builds the previous version.
  }, 300_000);
});

// A migration that has shipped must never change: databases that ran it will not run it again, so a changed one
// would leave them with another schema than a new database gets. Each migration's statements, run on an empty
// database of each kind, are pinned in migrations.sql.json. A new migration is recorded with
// RECORD_MIGRATION_SQL=1 (which adds what is missing and never rewrites what is there); one that changes fails.
// Statements a migration runs only for rows it finds (none here) are not seen; the upgrade test covers those.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from '../../server/src/store/db/migrations';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/server';

const PINNED_FILE = join(__dirname, 'migrations.sql.json');
type Pinned = Partial<Record<Dialect, Record<string, string[]>>>;

/** Each migration's statements, in the order they ran, on a new database of this kind. */
async function statementsOf(dialect: Dialect): Promise<Record<string, string[]>> {
  const database = await createDatabase(dialect);
  let current: string[] = [];
  const log = (event: { level: string; query: { sql: string; parameters: readonly unknown[] } }) => {
    const { sql, parameters } = event.query;
    current.push(parameters.length ? `${sql} -- ${JSON.stringify(parameters)}` : sql);
  };
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  // The drop below ends the connection a closing pool may still hold (DROP DATABASE … WITH FORCE), as the
  // server's own pool expects of a dropped database: reported as an error event, which without a listener fails
  // the suite though every statement was read.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<unknown>({
    dialect:
      dialect === 'sqlite'
        ? new SqliteDialect({ database: new SQLite(database.url.slice('sqlite:'.length)) })
        : new PostgresDialect({ pool }),
    log,
  });
  const ran: Record<string, string[]> = {};
  try {
    for (const name of Object.keys(migrations).sort()) {
      current = [];
      await migrations[name].up(db);
      ran[name] = current;
    }
  } finally {
    await db.destroy();
    await database.drop();
  }
  return ran;
}

describe.each(DIALECTS)('migrations on %s', (dialect) => {
  test('every migration runs exactly the statements it ran when it shipped', async () => {
    const ran = await statementsOf(dialect);
    const pinned: Pinned = existsSync(PINNED_FILE) ? JSON.parse(readFileSync(PINNED_FILE, 'utf8')) : {};
    const known = pinned[dialect] ?? {};
    const unrecorded = Object.keys(ran).filter((name) => !(name in known));
    if (unrecorded.length && process.env.RECORD_MIGRATION_SQL === '1') {
      // Re-read: the other dialect's run may have recorded its own in the meantime.
      const latest: Pinned = existsSync(PINNED_FILE) ? JSON.parse(readFileSync(PINNED_FILE, 'utf8')) : {};
      latest[dialect] = {
        ...latest[dialect],
        ...Object.fromEntries(unrecorded.map((name) => [name, ran[name]])),
      };
      writeFileSync(PINNED_FILE, `${JSON.stringify(latest, null, 2)}\n`);
      Object.assign(known, latest[dialect]);
    }
    expect({ unrecorded: Object.keys(ran).filter((name) => !(name in known)) }).toEqual({ unrecorded: [] });
    for (const name of Object.keys(known)) expect({ [name]: ran[name] }).toEqual({ [name]: known[name] });
  });
});

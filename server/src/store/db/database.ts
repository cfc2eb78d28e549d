import SQLite from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type CompiledQuery,
} from 'kysely';
import pg from 'pg';
import { withoutPassword } from '../../without-password';
import { PG_CONNECT_TIMEOUT_MS } from './defaults';
import type { Database } from './schema';
import { migrations } from './migrations';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The URL it was opened with. */
  url: string;
  /** Resolves when the database answers a trivial query: the health check. */
  ping(): Promise<void>;
  /**
   * A token that changes with every commit to the database, or undefined when this process cannot tell: on
   * PostgreSQL (other instances commit without it knowing), and on SQLite while a transaction is open. Two
   * equal tokens read around a read mean it saw the data exactly as it stood at both.
   */
  dataVersion(): string | undefined;
  close(): Promise<void>;
}

const ping = async (db: Kysely<Database>) => {
  await sql`select 1`.execute(db);
};

const INT8_OID = 20;
const STATEMENT_CACHE_SIZE = 500;

/**
 * The pool's clients, each connect bounded by PG_CONNECT_TIMEOUT_MS. Set on the clients rather than the pool: the
 * pool's own option would also bound a request's wait for a free connection under load.
 */
class BoundedConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig = {}) {
    super({ ...config, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
  }
}

/**
 * better-sqlite3 keeping its prepared statements: Kysely's driver prepares every query it runs, and preparing
 * (parsing and planning the SQL) cost more than running a lookup by key. The same SQL text reuses its
 * statement; past `size` statements the least recently used is dropped (SQL with a varying number of rows or
 * values makes new texts).
 */
function withStatementCache(sqlite: SQLite.Database, size: number): StatementSource {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    get inTransaction() {
      return sqlite.inTransaction;
    },
    bookkeepingChanges: 0,
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text);
      } else {
        statement = sqlite.prepare(text);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

interface StatementSource {
  prepare(text: string): SQLite.Statement;
  close(): void;
  readonly inTransaction: boolean;
  /** Rows changed by writeBookkeeping, which the data version leaves out. */
  bookkeepingChanges: number;
}

/** The SQLite connection under each Kysely instance openStore made on SQLite. */
const sqliteUnder = new WeakMap<Kysely<Database>, StatementSource>();

/**
 * The rows of a compiled read. On SQLite, when no transaction is open on the connection, it runs at once on
 * the statement prepared for its SQL, skipping the queue of Kysely's driver (better-sqlite3 runs it to the end
 * before anything else can, and outside a transaction it sees only committed rows). Inside a transaction
 * (`db` a Transaction, or one open on the connection), and on PostgreSQL, it goes through Kysely.
 */
export async function selectRows<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<R[]> {
  const sqlite = sqliteUnder.get(db);
  if (sqlite && !sqlite.inTransaction) return sqlite.prepare(query.sql).all(query.parameters) as R[];
  return (await db.executeQuery(query)).rows;
}

/**
 * Runs a compiled write of bookkeeping that no answer of the developer API shows (a key's last use). On SQLite
 * outside a transaction it runs at once and its rows are left out of the data version, so it does not drop
 * the response cache; anywhere else it is a write like any other.
 */
export async function writeBookkeeping(db: Kysely<Database>, query: CompiledQuery): Promise<void> {
  const sqlite = sqliteUnder.get(db);
  if (sqlite && !sqlite.inTransaction) {
    sqlite.bookkeepingChanges += sqlite.prepare(query.sql).run(query.parameters).changes;
    return;
  }
  await db.executeQuery(query);
}

/**
 * Creates a database file that does not exist yet readable by its owner only: it holds the webhook signing
 * secrets as they are and every user's data. SQLite gives its -wal and -shm files the database file's mode. An
 * existing file keeps the mode its operator gave it.
 */
function createOwnerOnly(file: string): void {
  if (file === '' || file === ':memory:') return;
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch {
    // There already, or not creatable: then SQLite says why, naming the file.
  }
}

/** Opens `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…` / `postgresql://…`. */
export function openStore(url: string): Store {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      Client: BoundedConnectClient,
      types: {
        // Instants and counts are bigint; every value we store fits a double exactly.
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle pooled connection that the server ends (restart, terminated backend, a dropped database) is
    // reported here; without a listener that event would crash the process. The pool just drops the client.
    pool.on('error', () => undefined);
    // A connection lost while checked out (mid-query or mid-transaction) is also emitted on its client, which
    // then has no listener of the pool's: that would crash the process too. The query itself still fails (the
    // request answers 503), and the pool discards the broken client when it is released.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      url,
      ping: () => ping(db),
      dataVersion: () => undefined,
      close: () => db.destroy(),
    };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    createOwnerOnly(file);
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const statements = withStatementCache(sqlite, STATEMENT_CACHE_SIZE);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    sqliteUnder.set(db, statements);
    // total_changes(): the rows this connection has changed, counted as each statement completes, less those of
    // bookkeeping; data_version: moves when another connection (another process on the same file) commits.
    // Neither goes back. Inside a transaction the changes counted may not be committed yet, so there is no token
    // then. A schema change on this connection would not count: the server changes the schema only when
    // migrating, before it serves. Two statements, as the pragma_data_version table would prepare its PRAGMA
    // again on every read.
    const changes = sqlite.prepare('select total_changes()').pluck();
    const version = sqlite.prepare('pragma data_version').pluck();
    const dataVersion = () =>
      sqlite.inTransaction
        ? undefined
        : `${(changes.get() as number) - statements.bookkeepingChanges}:${version.get() as number}`;
    return { db, dialect: 'sqlite', url, ping: () => ping(db), dataVersion, close: () => db.destroy() };
  }
  throw new Error(`Unsupported database URL "${withoutPassword(url)}": use sqlite:<path> or postgres://…`);
}

/**
 * Fails now rather than at the first write on a SQLite file this process may read but not write (a served
 * database already migrated writes nothing until a request does). Setting the schema version it has changes nothing.
 */
export async function assertWritable(store: Pick<Store, 'db' | 'dialect'>): Promise<void> {
  if (store.dialect !== 'sqlite') return;
  const { rows } = await sql<{ user_version: number }>`pragma user_version`.execute(store.db);
  await sql.raw(`pragma user_version = ${Number(rows[0].user_version)}`).execute(store.db);
}

/** Any one number of our own: the advisory lock that lets one instance at a time migrate a PostgreSQL database. */
const MIGRATION_LOCK = 0x64657664;

/**
 * Brings the schema to the latest migration. On PostgreSQL several instances may start at the same moment on
 * an empty database: each takes the same session advisory lock first, so one migrates and the others, once it
 * is done, find nothing left to do (Kysely's own lock comes after it creates its tables, which itself races).
 */
export async function migrateToLatest({ db, dialect }: Pick<Store, 'db' | 'dialect'>): Promise<void> {
  if (dialect === 'sqlite') {
    const sqlite = sqliteUnder.get(db);
    return runMigrations(
      sqlite ? new Kysely<Database>({ dialect: new MigratingSqliteDialect({ database: sqlite }) }) : db,
    );
  }
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      await runMigrations(connection);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
    }
  });
}

/**
 * Kysely's SQLite adapter says SQLite has no transactional DDL, so its Migrator would run each statement on its
 * own and a process stopped mid-migration would leave a schema half made that no later start can finish. SQLite
 * does roll DDL back (none of our migrations sets a PRAGMA, the one thing a transaction cannot hold): declared
 * here, the Migrator runs all pending migrations, and records them, in one transaction.
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * The SQLite dialect the migrations run on, over the store's own connection. The Kysely made with it is never
 * destroyed: that would close the connection the store goes on using.
 */
class MigratingSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new TransactionalSqliteAdapter();
  }
}

async function runMigrations(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

// Starts the real devdata-server for a test: in this process, on a free loopback port, over a real SQLite
// file or a PostgreSQL database created for the test and dropped afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp, type App, type AppOptions } from '../../server/src/app';
import type { ServerConfig } from '../../server/src/config';
import type { Resolve } from '../../server/src/outbound/policy';
import { instanceInit, type InitResult } from '../../server/src/scripts/init';
import { migrateToLatest, openStore, type Dialect, type Store } from '../../server/src/store/db/database';
import type { Database } from '../../server/src/store/db/schema';

export type { Dialect };

/** The dialects every server suite runs on; TEST_DIALECTS=sqlite narrows it while iterating locally. */
export const DIALECTS: Dialect[] = (process.env.TEST_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is Dialect => d === 'sqlite' || d === 'postgres');

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestServer {
  dialect: Dialect;
  baseUrl: string;
  /** The database the server uses (for SQLite, `sqlite:<path>`). */
  databaseUrl: string;
  app: App;
  /** Direct access to the database, for asserting what was (or was not) stored. */
  store: Store;
  /** What `devdata-server init` made: a user, a key with every scope, an admin token, an installed app. */
  init: InitResult;
  /** Rows in `table`, optionally only those whose columns equal `where`: to show what a request stored. */
  count(table: keyof Database, where?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/** Creates an empty database and returns its URL and a function that drops it. */
export async function createDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'devdata-test-'));
    return {
      url: `sqlite:${join(dir, 'devdata.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `devdata_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface StartOptions {
  /** Runs on the built app before it listens, e.g. to add a hook that observes requests. */
  beforeListen?: (app: App) => void | Promise<void>;
  /** Rewrites the database URL the server connects to, e.g. through a proxy the test controls. */
  connectVia?: (url: string) => string;
  /** Resolves outbound host names; by default only `localhost` (to 127.0.0.1), so tests never ask DNS. */
  resolve?: Resolve;
  /** The server's logger (none by default), e.g. a pino logger writing to a stream the test reads. */
  logger?: AppOptions['logger'];
}

/** Outbound name resolution in tests: `localhost` is 127.0.0.1, every other name does not exist. */
export const loopbackOnlyResolve: Resolve = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

export async function startServer(
  dialect: Dialect,
  config: Partial<ServerConfig> = {},
  options: StartOptions = {},
): Promise<TestServer> {
  const database = await createDatabase(dialect);
  const databaseUrl = options.connectVia?.(database.url) ?? database.url;
  const store = openStore(databaseUrl);
  let app: App | undefined;
  let init: InitResult;
  let baseUrl: string;
  try {
    await migrateToLatest(store);
    init = await instanceInit(store, { keyPrefix: config.keyPrefix }).initialize();
    // A generous rate limit and no load shedding, so suites never trip them unless they mean to (a test that
    // holds the event loop on purpose, e.g. SQLite waiting on a lock, would otherwise shed the next request).
    // Webhook receivers in tests listen on 127.0.0.1: the development allowance is on unless a test turns it off.
    app = await buildApp({
      store,
      config: {
        rateLimit: { max: 100_000, windowMs: 60_000 },
        maxEventLoopDelayMs: 0,
        allowLoopbackWebhooks: true,
        ...config,
      },
      resolve: options.resolve ?? loopbackOnlyResolve,
      logger: options.logger,
    });
    await options.beforeListen?.(app);
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    // A failed start leaves nothing open behind it.
    await app?.close();
    await store.close();
    await database.drop();
    throw error;
  }
  return {
    dialect,
    baseUrl,
    databaseUrl,
    app,
    store,
    init,
    count: async (table, where = {}) => {
      let query = store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
      for (const [column, value] of Object.entries(where)) query = query.where(sql.ref(column), '=', value);
      return Number((await query.executeTakeFirstOrThrow()).n);
    },
    close: async () => {
      await app.close();
      await store.close();
      await database.drop();
    },
  };
}

/**
 * What `start` starts, for the enclosing suite (a test file or a describe block): started in its beforeAll,
 * closed in its afterAll. The object is filled in when the suite starts, so read it in tests and hooks, not while
 * defining them.
 */
export function forSuite<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const started = {} as T;
  beforeAll(async () => {
    Object.assign(started, await start());
  });
  // When start failed there is nothing to close, and beforeAll's own error is the one to read.
  afterAll(() => started.close?.());
  return started;
}

// While its database is out of reach (down, refusing connections, gone, or taking them and answering nothing) the server answers 503 with Retry-After
// (never a 500), /healthz says so, nothing is half-written, and once the database is back it serves again without
// a restart.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { runCli, serveCli, type ServeProcess } from '../helpers/cli';
import { client, devClient, type Reply } from '../helpers/http';
import { startDatabaseProxy, type DatabaseProxy } from '../helpers/proxy';
import { DEFAULT_EVENT_SETTINGS } from '../../server/src/events/settings';
import { createDatabase, forSuite, PG_ADMIN_URL, startServer, type TestServer } from '../helpers/server';

const UNAVAILABLE = { detail: 'The database is unavailable right now; retry shortly' };

function expectUnavailable(reply: Reply) {
  expect({ status: reply.status, body: reply.body, retryAfter: reply.headers.get('retry-after') }).toEqual({
    status: 503,
    body: UNAVAILABLE,
    retryAfter: '2',
  });
}

/** Ends every connection to the database `name` but the admin's own. */
async function endConnections(admin: pg.Client, name: string): Promise<void> {
  await admin.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [name],
  );
}

async function health(server: TestServer): Promise<number> {
  const reply = await fetch(`${server.baseUrl}/healthz`);
  await reply.text(); // an unread body keeps the connection, and the test process, busy
  return reply.status;
}

describe('PostgreSQL out of reach', () => {
  let proxy: DatabaseProxy;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await startDatabaseProxy(PG_ADMIN_URL);
    server = await startServer('postgres', {}, { connectVia: proxy.route });
  });
  afterAll(async () => {
    await proxy.up().catch(() => undefined);
    await server.close();
    await proxy.down();
  });

  it('answers 503 with Retry-After, stores nothing, and serves again once it is back', async () => {
    const api = devClient(server);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
    expect(await health(server)).toBe(200);

    await proxy.down();
    expectUnavailable(await api.get('/v1/dev/user/goals'));
    expectUnavailable(await api.get('/v1/dev/key'));
    expectUnavailable(
      await api.post('/v1/dev/user/action-items', { description: 'Written during the outage' }),
    );
    expectUnavailable(
      await api.post('/v1/dev/user/action-items/batch', {
        action_items: [{ description: 'Written during the outage' }, { description: 'Also during it' }],
      }),
    );
    expect(await health(server)).toBe(503);

    await proxy.up();
    expect(await health(server)).toBe(200);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
    expect(await server.count('action_items')).toBe(0);
    expect((await api.post('/v1/dev/user/action-items', { description: 'After the outage' })).status).toBe(
      200,
    );
    expect(await server.count('action_items')).toBe(1);
  });

  it('answers 503 once a new connection goes unanswered, and serves again once it answers', async () => {
    const api = devClient(server);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);

    proxy.silent();
    // The first may meet a pooled connection the cut ended; the next needs a new one, which goes unanswered.
    expectUnavailable(await api.get('/v1/dev/user/goals'));
    expectUnavailable(await api.get('/v1/dev/user/goals'));
    expect(await health(server)).toBe(503);

    await proxy.up();
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
  });
});

describe('PostgreSQL out of reach, as the event delivery worker meets it at every poll', () => {
  const lines: string[] = [];
  let proxy: DatabaseProxy;
  let server: TestServer;
  const said = (message: string) => lines.filter((line) => JSON.parse(line).msg.startsWith(message));

  beforeAll(async () => {
    proxy = await startDatabaseProxy(PG_ADMIN_URL);
    // A poll every 20 ms: an outage of a few hundred milliseconds meets the worker a dozen times and more.
    server = await startServer(
      'postgres',
      { events: { ...DEFAULT_EVENT_SETTINGS, pollMs: 20 } },
      {
        connectVia: proxy.route,
        logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      },
    );
  });
  afterAll(async () => {
    await proxy.up().catch(() => undefined);
    await server.close();
    await proxy.down();
  });

  it('logs once that it cannot claim deliveries, not at every poll, and once that it claims again', async () => {
    await proxy.down();
    while (said('could not claim event deliveries').length === 0) await new Promise((r) => setTimeout(r, 20));
    // Many more polls meet the outage.
    await new Promise((r) => setTimeout(r, 600));
    expect(said('could not claim event deliveries')).toHaveLength(1);
    expect(JSON.parse(said('could not claim event deliveries')[0])).toMatchObject({
      level: 40,
      msg: 'could not claim event deliveries: the database is unavailable; trying again every poll until it is back',
    });

    await proxy.up();
    while (said('claiming event deliveries again').length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(said('could not claim event deliveries')).toHaveLength(1);
  });
});

describe('PostgreSQL refusing new connections (ALLOW_CONNECTIONS false)', () => {
  const server = forSuite(() => startServer('postgres'));

  it('answers 503, not 500, and serves again once it accepts them', async () => {
    const api = devClient(server);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
    const name = decodeURIComponent(new URL(server.databaseUrl).pathname.slice(1));
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`alter database "${name}" allow_connections false`);
      // The pool's connections end, so the next query needs a new one, which the database refuses (55000).
      await endConnections(admin, name);
      for (let i = 0; i < 3; i += 1) expectUnavailable(await api.get('/v1/dev/user/goals'));
    } finally {
      await admin.query(`alter database "${name}" allow_connections true`);
      await admin.end();
    }
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
  });
});

describe('PostgreSQL database gone (renamed away, as a restore swaps databases) and back', () => {
  const server = forSuite(() => startServer('postgres'));

  it('answers 503, not 500, while the database is gone, and serves again once it is back', async () => {
    const api = devClient(server);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
    const name = decodeURIComponent(new URL(server.databaseUrl).pathname.slice(1));
    const away = `${name}_away`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      // A database in use cannot be renamed: end the server's connections, again should one reconnect between.
      for (let attempt = 1; ; attempt += 1) {
        await endConnections(admin, name);
        try {
          await admin.query(`alter database "${name}" rename to "${away}"`);
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== '55006' || attempt === 20) throw error;
        }
      }
      // A new connection now meets 3D000, database "…" does not exist.
      for (let i = 0; i < 3; i += 1) expectUnavailable(await api.get('/v1/dev/user/goals'));
      expectUnavailable(await api.post('/v1/dev/user/action-items', { description: 'While it is gone' }));
      expect(await health(server)).toBe(503);
    } finally {
      // Nothing connects to it under its other name, so it can be renamed back at once.
      await admin.query(`alter database "${away}" rename to "${name}"`).catch(() => undefined);
      await admin.end();
    }
    expect(await health(server)).toBe(200);
    expect((await api.get('/v1/dev/user/goals')).status).toBe(200);
    expect(await server.count('action_items')).toBe(0);
  });
});

describe('SQLite locked by another process', () => {
  let database: { url: string; drop(): Promise<void> };
  let served: ServeProcess;
  let other: SQLite.Database;
  let developerKey: string;

  beforeAll(async () => {
    database = await createDatabase('sqlite');
    const init = runCli(['init', '--json', '--database', database.url]);
    expect(init.status).toBe(0);
    developerKey = JSON.parse(init.stdout).developer_key;
    // Its own process, as in production: a write waiting on the lock blocks that server's event loop for the
    // busy timeout, not the tests'. Load shedding is off, so the answer after such a wait is the database's.
    served = await serveCli(database.url, { DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0' });
    other = new SQLite(database.url.slice('sqlite:'.length));
  });
  afterAll(async () => {
    other.close();
    await served.stop();
    await database.drop();
  });

  it('answers a write 503 once the busy timeout passes, still serves reads, and writes again when released', async () => {
    const api = client(served.baseUrl, developerKey);
    const stored = () => (other.prepare('select count(*) as n from action_items').get() as { n: number }).n;
    // Another process holds the write lock (a backup, a migration, a sqlite3 shell left in a transaction).
    other.exec('BEGIN IMMEDIATE');
    // The key's first use cannot be recorded now; that bookkeeping must not fail the read.
    expect((await api.get('/v1/dev/user/action-items')).status).toBe(200);
    expectUnavailable(await api.post('/v1/dev/user/action-items', { description: 'Blocked write' }));
    other.exec('ROLLBACK');
    expect(stored()).toBe(0);

    expect((await api.post('/v1/dev/user/action-items', { description: 'After the lock' })).status).toBe(200);
    expect(stored()).toBe(1);
  });
});

// Several `devdata-server serve` processes on one PostgreSQL database: what they share is shared through the
// database, and through Redis when DEVDATA_REDIS_URL is set (else PostgreSQL LISTEN/NOTIFY), never through
// one process's memory. Each suite starts its instances with the settings server/README.md documents.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrations } from '../../server/src/store/db/migrations';
import { SERVE_CLI_ENV, serveCli } from '../helpers/cli';
import {
  errorsLogged,
  liveSegments,
  logged,
  newTenant,
  openStream,
  ownRedis,
  promptingWebhook,
  startPair,
  tcpProxy,
  type Pair,
  type Tenant,
} from '../helpers/instances';
import { clearOfBoundary, HOUR_MS, MINUTE_MS } from '../helpers/clock';
import { client } from '../helpers/http';
import { createDatabase } from '../helpers/server';

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const REDIS_URL = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS_URL;
/** What every instance in these suites runs with (beside --database, and DEVDATA_REDIS_URL where used). */
const INSTANCE_ENV = {
  DEVDATA_RATE_LIMIT: '100/60',
  // A minute: a revocation refused elsewhere before it runs out can only be the broadcast's doing.
  DEVDATA_KEY_CACHE_TTL_MS: '60000',
  DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1',
};

test("server/README.md's settings for several instances are the ones these suites start them with", () => {
  const manual = readFileSync(join(__dirname, '..', '..', 'server', 'README.md'), 'utf8');
  const section = manual.split('\n## Running several instances\n')[1].split('\n## ')[0];
  const block = section.match(/```text\n([\s\S]*?)```/)![1];
  expect(block.split('\n')[0]).toBe(
    'devdata-server serve --port <its own port> --database postgres://postgres@127.0.0.1:5432/<database>',
  );
  const documented = Object.fromEntries(
    [...block.matchAll(/^(DEVDATA_\w+)=(\S+)/gm)].map(([, name, value]) => [name, value]),
  );
  expect(documented).toEqual({ ...SERVE_CLI_ENV, ...INSTANCE_ENV, DEVDATA_REDIS_URL: DEFAULT_REDIS_URL });
});

test('10 instances starting at once on an empty database all serve; the schema is migrated once', async () => {
  const database = await createDatabase('postgres');
  const servers = await Promise.allSettled(Array.from({ length: 10 }, () => serveCli(database.url)));
  try {
    const started = servers.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(servers.filter((s) => s.status === 'rejected')).toEqual([]);
    for (const server of started) {
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      expect(errorsLogged(server)).toEqual([]);
    }
    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const applied = await check.query<{ name: string }>('select name from kysely_migration order by name');
      expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    } finally {
      await check.end();
    }
  } finally {
    await Promise.all(servers.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    await database.drop();
  }
});

/**
 * Pushes through B, direct and proactive, reach a stream open on A: once each, in order. How soon is measured in
 * bench/ (group `instances`), not here: a busy machine must not fail this.
 */
async function expectFanOut(pair: Pair, tenant: Tenant) {
  const stream = await openStream(pair.a, tenant.key);
  try {
    const sent: { kind: string; text: string }[] = [];
    for (let i = 1; i <= 3; i += 1) {
      const reply = await tenant
        .app(pair.b)
        .post(`/v2/integrations/${tenant.appId}/notification`, undefined, {
          uid: tenant.userId,
          message: `Direct ${i}`,
        });
      expect(reply.status).toBe(200);
      sent.push({ kind: 'direct', text: `Direct ${i}` });
      await stream.waitFor(sent.length);
    }
    expect(await liveSegments(tenant.user(pair.b), 'fan-out')).toBe(202);
    sent.push({ kind: 'proactive', text: 'Proactive fan-out' });
    await stream.waitFor(sent.length);
    // A moment more, for any duplicate to show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.received.map(({ kind, text }) => ({ kind, text }))).toEqual(sent);
  } finally {
    await stream.close();
  }
}

/**
 * A key revoked through A is refused by B before B's cached copy of it expires (a minute), which only the
 * broadcast can do. How soon is measured in bench/ (group `instances`).
 */
async function expectRevocationReachesB(pair: Pair, tenant: Tenant) {
  const created = await pair.admin(pair.a).post(`/v1/admin/users/${tenant.userId}/keys`, { name: 'revoked' });
  expect(created.status).toBe(201);
  const onB = {
    get: () =>
      fetch(`${pair.b.baseUrl}/v1/dev/key`, { headers: { authorization: `Bearer ${created.body.key}` } }),
  };
  const cachedUntil = performance.now() + Number(INSTANCE_ENV.DEVDATA_KEY_CACHE_TTL_MS);
  expect((await onB.get()).status).toBe(200);
  expect((await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(204);
  let status = 200;
  // Stop short of the expiry: an answer after it could be the cache's doing.
  while (status === 200 && performance.now() < cachedUntil - 5_000) {
    status = (await onB.get()).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(status).toBe(401);
}

/** GET /v1/dev/key on `server` with `key`. */
const askWithKey = (server: Pair['a'], key: string) =>
  fetch(`${server.baseUrl}/v1/dev/key`, { headers: { authorization: `Bearer ${key}` } });

/** What `server`'s /healthz says of Redis. */
const redisOf = async (server: Pair['a']): Promise<string> =>
  ((await (await fetch(`${server.baseUrl}/healthz`)).json()) as { redis: string }).redis;

/** Waits, asking every 50 ms, until `condition` holds; fails after `timeoutMs`. */
async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A new key of `tenant`'s user, made through A and since taken by B (so B holds it in its key cache), with the time
 * (performance.now()) until which B's cached copy would still accept it.
 */
async function keyCachedOnB(pair: Pair, tenant: Tenant) {
  const created = await pair.admin(pair.a).post(`/v1/admin/users/${tenant.userId}/keys`, { name: 'revoked' });
  expect(created.status).toBe(201);
  const cachedUntil = performance.now() + Number(INSTANCE_ENV.DEVDATA_KEY_CACHE_TTL_MS);
  expect((await askWithKey(pair.b, created.body.key)).status).toBe(200);
  return { created, cachedUntil };
}

/**
 * The first answer other than 200 that `server` gives `key`, asked once a second (within the key's request limit)
 * until `until` (performance.now()); 200 when there was none by then. Callers stop short of the key's cache expiry:
 * a refusal after it could be the expiry's doing.
 */
async function refusedBefore(server: Pair['a'], key: string, until: number): Promise<number> {
  let status = 200;
  while (status === 200 && performance.now() < until) {
    status = (await askWithKey(server, key)).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return status;
}

describe('two instances with Redis', () => {
  let pair: Pair;
  let webhook: Awaited<ReturnType<typeof promptingWebhook>>;

  beforeAll(async () => {
    webhook = await promptingWebhook();
    pair = await startPair({ ...INSTANCE_ENV, DEVDATA_REDIS_URL: REDIS_URL });
  });
  afterAll(async () => {
    await pair?.close();
    await webhook?.close();
  });

  it('report Redis on /healthz', async () => {
    for (const server of [pair.a, pair.b]) {
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok', redis: 'ok' });
    }
  });

  it('give a key 100 requests a minute between them, then 429 with Retry-After from either', async () => {
    const tenant = await newTenant(pair, webhook.url);
    // The window is the clock's minute: start well inside one.
    await clearOfBoundary(MINUTE_MS, 15_000);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => tenant.user(i % 2 ? pair.a : pair.b).get('/v1/dev/key')),
    );
    expect(answers.map((reply) => reply.status)).toEqual(Array(100).fill(200));
    for (const server of [pair.a, pair.b]) {
      const refused = await tenant.user(server).get('/v1/dev/key');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });

  it('stream on A the pushes made through B, once each, in order', async () => {
    await expectFanOut(pair, await newTenant(pair, webhook.url));
  });

  it('refuse on B a key revoked through A before its cached copy expires', async () => {
    await expectRevocationReachesB(pair, await newTenant(pair, webhook.url));
  }, 90_000);

  it('push once for 100 proactive replies for one user and app arriving at both at once', async () => {
    const tenant = await newTenant(pair, webhook.url);
    // A second key for the requests through B: each key may make 100 requests a minute.
    const second = await pair.admin(pair.a).post(`/v1/admin/users/${tenant.userId}/keys`, {
      name: 'b',
      scopes: ['conversations:write', 'notifications:read'],
    });
    expect(second.status).toBe(201);
    const through = [tenant.user(pair.a), client(pair.b.baseUrl, second.body.key)];
    const callsBefore = webhook.calls();
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => liveSegments(through[i % 2], `race-${i}`)),
    );
    expect(statuses).toEqual(Array(100).fill(202));
    const deliveries = async () =>
      (await tenant.app(pair.a).get(`/v2/integrations/${tenant.appId}/deliveries`, { limit: 100 })).body
        .deliveries as { outcome: string }[];
    const deadline = Date.now() + 20_000;
    while ((await deliveries()).length < 100 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(webhook.calls() - callsBefore).toBe(100);
    const outcomes = (await deliveries()).map((d) => d.outcome);
    expect(outcomes.filter((o) => o === 'pushed')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(99);
    const inbox = await tenant.user(pair.b).get('/v1/dev/user/notifications', { limit: 100 });
    expect(inbox.body.notifications.map((n: { kind: string }) => n.kind)).toEqual(['proactive']);
  });

  it('accept exactly 10 of 15 direct notifications for one user made through both in one hour', async () => {
    const tenant = await newTenant(pair, webhook.url);
    await clearOfBoundary(HOUR_MS, 10_000);
    const statuses = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        tenant
          .app(i % 2 ? pair.a : pair.b)
          .post(`/v2/integrations/${tenant.appId}/notification`, undefined, {
            uid: tenant.userId,
            message: `N${i}`,
          })
          .then((reply) => reply.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const inbox = await tenant.user(pair.a).get('/v1/dev/user/notifications', { limit: 100 });
    expect(inbox.body.notifications).toHaveLength(10);
  });

  it('log no error', () => {
    expect([...errorsLogged(pair.a), ...errorsLogged(pair.b)]).toEqual([]);
  });
});

describe('two instances on PostgreSQL without Redis (LISTEN/NOTIFY)', () => {
  let pair: Pair;
  let webhook: Awaited<ReturnType<typeof promptingWebhook>>;

  beforeAll(async () => {
    webhook = await promptingWebhook();
    pair = await startPair(INSTANCE_ENV);
  });
  afterAll(async () => {
    await pair?.close();
    await webhook?.close();
  });

  it('report the LISTEN connection on /healthz', async () => {
    const health = await fetch(`${pair.a.baseUrl}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', listen: 'ok' });
  });

  it('stream on A the pushes made through B, once each, in order', async () => {
    await expectFanOut(pair, await newTenant(pair, webhook.url));
  });

  it('refuse on B a key revoked through A before its cached copy expires', async () => {
    await expectRevocationReachesB(pair, await newTenant(pair, webhook.url));
  }, 90_000);

  it('refuse on B a key revoked through A while their LISTEN connections were lost, once B listens again', async () => {
    const { created, cachedUntil } = await keyCachedOnB(pair, await newTenant(pair, webhook.url));

    // Both instances' LISTEN connections end; each opens a new one a second later. The revocation's NOTIFY, sent
    // meanwhile, reaches neither.
    const admin = new pg.Client({ connectionString: pair.databaseUrl });
    await admin.connect();
    try {
      const ended = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN %'",
      );
      expect(ended.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    expect((await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(204);

    expect(await refusedBefore(pair.b, created.body.key, cachedUntil - 5_000)).toBe(401);
  }, 90_000);

  it('log no error', () => {
    expect([...errorsLogged(pair.a), ...errorsLogged(pair.b)]).toEqual([]);
  });
});

describe('two instances while their Redis stops and comes back', () => {
  let pair: Pair;
  let webhook: Awaited<ReturnType<typeof promptingWebhook>>;
  let redis: Awaited<ReturnType<typeof ownRedis>>;

  beforeAll(async () => {
    webhook = await promptingWebhook();
    // A Redis of this suite's own: the machine's shared one is never stopped.
    redis = await ownRedis();
    await redis.start();
    pair = await startPair({ ...INSTANCE_ENV, DEVDATA_REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await pair?.close();
    await redis?.stop();
    await webhook?.close();
  });

  /** What each instance's /healthz says of Redis. */
  const health = async (): Promise<string[]> => Promise.all([pair.a, pair.b].map(redisOf));

  it('answer without waiting for a slow Redis, counting the limit in each instance meanwhile', async () => {
    const tenant = await newTenant(pair, webhook.url);
    // Asleep longer than any wait for it could hide: answers that came only after it woke would have waited.
    let awake = false;
    const sleeping = redis.sleep(10).then(() => (awake = true));
    await until(() => redis.unresponsive(), 5_000);
    const replies = await Promise.all(
      [pair.a, pair.b].map((server) => tenant.user(server).get('/v1/dev/key')),
    );
    expect({ awake, statuses: replies.map((reply) => reply.status) }).toEqual({
      awake: false,
      statuses: [200, 200],
    });
    expect(replies.map((reply) => reply.headers.get('x-ratelimit-remaining'))).toEqual(['99', '99']);
    await sleeping;
    await until(async () => (await health()).every((state) => state === 'ok'), 20_000);
  }, 60_000);

  it('keep serving without it, report it, log it once, and recover the streams once it is back', async () => {
    const loggedBefore = [pair.a, pair.b].map((server) => logged(server, 'Redis unavailable').length);
    const tenant = await newTenant(pair, webhook.url);
    const stream = await openStream(pair.a, tenant.key);
    const direct = (message: string) =>
      tenant.app(pair.b).post(`/v2/integrations/${tenant.appId}/notification`, undefined, {
        uid: tenant.userId,
        message,
      });
    try {
      expect((await direct('Before')).status).toBe(200);
      await stream.waitFor(1);

      await redis.stop();
      await until(async () => (await health()).every((state) => state === 'unavailable'), 20_000);
      // Requests go on: reads on both instances (the limit counted in each), and pushes through B.
      const statuses: number[] = [];
      const acknowledged: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        for (const server of [pair.a, pair.b])
          statuses.push((await tenant.user(server).get('/v1/dev/key')).status);
        const pushed = await direct(`During ${i}`);
        statuses.push(pushed.status);
        if (pushed.status === 200) acknowledged.push(`During ${i}`);
      }
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      expect(acknowledged).toHaveLength(4);
      expect([pair.a, pair.b].map((server) => logged(server, 'Redis unavailable').length)).toEqual(
        loggedBefore.map((count) => count + 1),
      );

      await redis.start();
      await until(async () => (await health()).every((state) => state === 'ok'), 20_000);
      expect((await direct('After')).status).toBe(200);
      await until(async () => stream.received.some((n) => n.text === 'After'), 30_000);

      // Nothing acknowledged is lost: every push answered 200 is in the inbox.
      const inbox = await tenant.user(pair.a).get('/v1/dev/user/notifications', { limit: 100 });
      expect(inbox.body.notifications.map((n: { text: string }) => n.text).reverse()).toEqual([
        'Before',
        ...acknowledged,
        'After',
      ]);
      expect([...errorsLogged(pair.a), ...errorsLogged(pair.b)]).toEqual([]);
    } finally {
      await stream.close();
    }
  }, 120_000);

  it('refuse on B, once Redis is back, a key revoked through A while it was down, before its cached copy expires', async () => {
    const { created, cachedUntil } = await keyCachedOnB(pair, await newTenant(pair, webhook.url));

    await redis.stop();
    await until(async () => (await health()).every((state) => state === 'unavailable'), 20_000);
    // The broadcast of this revocation reaches no one.
    expect((await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(204);
    await redis.start();
    await until(async () => (await health()).every((state) => state === 'ok'), 20_000);

    expect(await refusedBefore(pair.b, created.body.key, cachedUntil - 5_000)).toBe(401);
  }, 120_000);

  it('end on B, once Redis is back, a stream opened with a key revoked through A while it was down', async () => {
    const tenant = await newTenant(pair, webhook.url);
    const created = await pair
      .admin(pair.a)
      .post(`/v1/admin/users/${tenant.userId}/keys`, { name: 'streaming', scopes: ['notifications:read'] });
    expect(created.status).toBe(201);
    // B reads the keys its streams follow again every 30 s: an end before that is the reconnection's doing.
    const recheckedAt = performance.now() + 30_000;
    const stream = await openStream(pair.b, created.body.key);
    try {
      await redis.stop();
      await until(async () => (await health()).every((state) => state === 'unavailable'), 20_000);
      expect((await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(204);
      await redis.start();
      await until(async () => (await health()).every((state) => state === 'ok'), 20_000);
      await stream.ended(Math.max(0, recheckedAt - 5_000 - performance.now()));
    } finally {
      await stream.close();
    }
  }, 120_000);
});

describe('two instances, one of which loses its Redis for a while', () => {
  let pair: Pair;
  let webhook: Awaited<ReturnType<typeof promptingWebhook>>;
  let proxy: Awaited<ReturnType<typeof tcpProxy>>;

  beforeAll(async () => {
    webhook = await promptingWebhook();
    // A reaches Redis through a proxy, B directly: stopping the proxy takes Redis from A alone.
    proxy = await tcpProxy(Number(new URL(REDIS_URL).port || 6379));
    const aRedis = new URL(REDIS_URL);
    aRedis.hostname = '127.0.0.1';
    aRedis.port = String(proxy.port);
    pair = await startPair(
      { ...INSTANCE_ENV, DEVDATA_REDIS_URL: REDIS_URL },
      { a: { DEVDATA_REDIS_URL: aRedis.toString() } },
    );
  });
  afterAll(async () => {
    await pair?.close();
    await proxy?.stop();
    await webhook?.close();
  });

  it('refuse on B a key revoked through A while A could not reach Redis, once A can again', async () => {
    const { created, cachedUntil } = await keyCachedOnB(pair, await newTenant(pair, webhook.url));

    await proxy.stop();
    await until(async () => (await redisOf(pair.a)) === 'unavailable', 20_000);
    expect(await redisOf(pair.b)).toBe('ok');
    // A cannot announce it, and B's link never went down: nothing tells B.
    expect((await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(204);
    await proxy.start();
    await until(async () => (await redisOf(pair.a)) === 'ok', 20_000);

    expect(await refusedBefore(pair.b, created.body.key, cachedUntil - 5_000)).toBe(401);
  }, 120_000);
});

describe('two instances started while their Redis is down', () => {
  let pair: Pair;
  let webhook: Awaited<ReturnType<typeof promptingWebhook>>;
  let redis: Awaited<ReturnType<typeof ownRedis>>;

  beforeAll(async () => {
    webhook = await promptingWebhook();
    // Never started until the instances serve: their first attempts to subscribe fail.
    redis = await ownRedis();
    pair = await startPair({ ...INSTANCE_ENV, DEVDATA_REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await pair?.close();
    await redis?.stop();
    await webhook?.close();
  });

  it('subscribe once it comes up: pushes and revocations reach the other instance', async () => {
    await redis.start();
    // Until both report it, what is published meanwhile reaches no one (the degraded mode the manual describes).
    for (const server of [pair.a, pair.b]) {
      for (;;) {
        const health = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as { redis: string };
        if (health.redis === 'ok') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const tenant = await newTenant(pair, webhook.url);
    await expectFanOut(pair, tenant);
    await expectRevocationReachesB(pair, tenant);
  }, 90_000);
});

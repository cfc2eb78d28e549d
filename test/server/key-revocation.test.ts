// Developer keys are cached in each server process for a short while. A revoked key must still be refused
// at once by the instance that revoked it, and soon after by every other instance sharing the database (how
// soon is measured in bench/, group `instances`): two `devdata-server serve` processes on one PostgreSQL database.
// A notification stream opened with a key ends once its revocation reaches the instance holding it.
import type { InitResult } from '../../server/src/scripts/init';
import { runCli, serveCli, type ServeProcess } from '../helpers/cli';
import { client } from '../helpers/http';
import { openStream } from '../helpers/instances';
import { createDatabase, startServer } from '../helpers/server';

let database: { url: string; drop(): Promise<void> };
let first: ServeProcess;
let second: ServeProcess;
let adminToken: string;
let userId: string;
let init: InitResult;

beforeAll(async () => {
  database = await createDatabase('postgres');
  const made = runCli(['init', '--database', database.url, '--json']);
  expect(made.status).toBe(0);
  init = JSON.parse(made.stdout);
  ({ admin_token: adminToken, user_id: userId } = init);
  first = await serveCli(database.url);
  second = await serveCli(database.url);
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await database?.drop();
});

test('a revoked key is refused at once where it was revoked, and from then on by another instance', async () => {
  const created = await client(first.baseUrl, adminToken).post(`/v1/admin/users/${userId}/keys`, {
    name: 'soon revoked',
  });
  expect(created.status).toBe(201);
  const onFirst = client(first.baseUrl, created.body.key);
  const onSecond = client(second.baseUrl, created.body.key);
  // Both instances have read (and cached) the key, and keep reading it until the revocation.
  expect((await onFirst.get('/v1/dev/key')).status).toBe(200);
  expect((await onSecond.get('/v1/dev/key')).status).toBe(200);
  let polling = true;
  const warm = (async () => {
    while (polling) await onSecond.get('/v1/dev/key');
  })();

  expect((await client(first.baseUrl, adminToken).delete(`/v1/admin/keys/${created.body.id}`)).status).toBe(
    204,
  );
  polling = false;
  await warm;
  const refused = await onFirst.get('/v1/dev/key');
  expect({ status: refused.status, body: refused.body }).toEqual({
    status: 401,
    body: { detail: 'Invalid API Key' },
  });

  // The other instance: once it refuses the key, every answer after that is a 401 too.
  const statuses: number[] = [];
  while (statuses.filter((status) => status === 401).length < 20) {
    statuses.push((await onSecond.get('/v1/dev/key')).status);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(statuses.slice(statuses.indexOf(401))).toEqual(Array(20).fill(401));
  expect(statuses.every((status) => status === 200 || status === 401)).toBe(true);
});

/**
 * Opens a notification stream on `server` with each of two new keys of the user `made` by init, has `revoke`
 * revoke the first (answering its status), and checks that its stream ends while the other one goes on receiving.
 */
async function streamEndsWithItsKey(
  server: Pick<ServeProcess, 'baseUrl'>,
  made: InitResult,
  revoke: (keyId: string) => Promise<number>,
) {
  const keys: { id: string; key: string }[] = [];
  for (const name of ['A', 'B']) {
    const created = await client(server.baseUrl, made.admin_token).post(
      `/v1/admin/users/${made.user_id}/keys`,
      {
        name,
        scopes: ['notifications:read'],
      },
    );
    expect(created.status).toBe(201);
    keys.push(created.body);
  }
  const notify = async (message: string) => {
    const reply = await client(server.baseUrl, made.app_secret).post(
      `/v2/integrations/${made.app_id}/notification`,
      undefined,
      { uid: made.user_id, message },
    );
    expect(reply.status).toBe(200);
  };
  const [revoked, kept] = [await openStream(server, keys[0].key), await openStream(server, keys[1].key)];
  try {
    await notify('before');
    await Promise.all([revoked.waitFor(1), kept.waitFor(1)]);
    expect(await revoke(keys[0].id)).toBe(204);
    await revoked.ended();
    await notify('after');
    await kept.waitFor(2);
    expect(revoked.received.map((n) => n.text)).toEqual(['before']);
    expect(kept.received.map((n) => n.text)).toEqual(['before', 'after']);
  } finally {
    await revoked.close();
    await kept.close();
  }
}

test('a stream opened with a key revoked on another instance ends; one with another key keeps receiving', async () => {
  await streamEndsWithItsKey(first, init, async (keyId) => {
    return (await client(second.baseUrl, adminToken).delete(`/v1/admin/keys/${keyId}`)).status;
  });
});

// The developer API's revoke takes the same path. Here the key cache trusts a key for an hour, so the other
// instance can only learn of the revocation from the broadcast: no expiry would do it within the test.
describe('revoked through DELETE /v1/dev/keys/{key_id}', () => {
  let pairDatabase: { url: string; drop(): Promise<void> };
  let a: ServeProcess;
  let b: ServeProcess;
  let initKey: string;

  beforeAll(async () => {
    pairDatabase = await createDatabase('postgres');
    const init = runCli(['init', '--database', pairDatabase.url, '--json']);
    expect(init.status).toBe(0);
    initKey = JSON.parse(init.stdout).developer_key;
    const env = { DEVDATA_KEY_CACHE_TTL_MS: String(60 * 60 * 1000) };
    a = await serveCli(pairDatabase.url, env);
    b = await serveCli(pairDatabase.url, env);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await pairDatabase?.drop();
  });

  /** Asks `server` with `key` until it answers 401, then checks that the next answers are 401 too. */
  async function refusedFromThenOn(server: ServeProcess, key: string) {
    const statuses: number[] = [];
    while (!statuses.includes(401)) {
      statuses.push((await client(server.baseUrl, key).get('/v1/dev/key')).status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let n = 0; n < 5; n += 1)
      statuses.push((await client(server.baseUrl, key).get('/v1/dev/key')).status);
    expect(statuses.slice(statuses.indexOf(401))).toEqual(Array(6).fill(401));
    expect(statuses.every((status) => status === 200 || status === 401)).toBe(true);
  }

  test('by another key of the user: refused at once where revoked, and by the other instance', async () => {
    const created = await client(a.baseUrl, initKey).post('/v1/dev/keys', { name: 'soon revoked' });
    expect(created.status).toBe(200);
    // Both instances have read, and cached, the key.
    expect((await client(a.baseUrl, created.body.key).get('/v1/dev/key')).status).toBe(200);
    expect((await client(b.baseUrl, created.body.key).get('/v1/dev/key')).status).toBe(200);

    expect((await client(a.baseUrl, initKey).delete(`/v1/dev/keys/${created.body.id}`)).status).toBe(204);
    expect(await client(a.baseUrl, created.body.key).get('/v1/dev/key')).toMatchObject({
      status: 401,
      body: { detail: 'Invalid API Key' },
    });
    await refusedFromThenOn(b, created.body.key);
  });

  test('by itself: its next request is refused on both instances', async () => {
    const created = await client(b.baseUrl, initKey).post('/v1/dev/keys', {
      name: 'revokes itself',
      scopes: ['keys:write'],
    });
    const self = created.body as { id: string; key: string };
    expect((await client(a.baseUrl, self.key).get('/v1/dev/key')).status).toBe(200);
    expect((await client(b.baseUrl, self.key).delete(`/v1/dev/keys/${self.id}`)).status).toBe(204);
    expect((await client(b.baseUrl, self.key).get('/v1/dev/key')).status).toBe(401);
    await refusedFromThenOn(a, self.key);
  });
});

test('on one instance (SQLite), a stream opened with a key revoked through DELETE /v1/dev/keys/{key_id} ends', async () => {
  const sqlite = await createDatabase('sqlite');
  const made = runCli(['init', '--database', sqlite.url, '--json']);
  expect(made.status).toBe(0);
  const local: InitResult = JSON.parse(made.stdout);
  const server = await serveCli(sqlite.url);
  try {
    await streamEndsWithItsKey(server, local, async (keyId) => {
      return (await client(server.baseUrl, local.developer_key).delete(`/v1/dev/keys/${keyId}`)).status;
    });
  } finally {
    await server.stop();
    await sqlite.drop();
  }
});

// Another instance revoked the key while this one's link to the others was down, so its broadcast never came:
// here the revocation is written straight into the database, with no broadcast at all. The streams opened with
// the key end when their keys are next read again (every 100 ms here; 30 s by default).
describe.each(['sqlite', 'postgres'] as const)(
  'on %s, a revocation whose broadcast was missed',
  (dialect) => {
    test('ends the stream opened with the key; one with another key keeps receiving', async () => {
      const server = await startServer(dialect, { streamKeyRecheckMs: 100 });
      try {
        await streamEndsWithItsKey(server, server.init, async (keyId) => {
          const revoked = await server.store.db
            .updateTable('api_keys')
            .set({ revoked_at: Date.now() })
            .where('id', '=', keyId)
            .executeTakeFirst();
          expect(revoked.numUpdatedRows).toBe(1n);
          return 204;
        });
      } finally {
        await server.close();
      }
    });
  },
);

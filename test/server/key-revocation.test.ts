// Developer keys are cached in each server process for a short while. A revoked key must still be refused
// at once by the instance that revoked it, and within a second by every other instance sharing the
// database: two `devdata-server serve` processes on one PostgreSQL database.
import { runCli, serveCli, type ServeProcess } from '../helpers/cli';
import { client } from '../helpers/http';
import { createDatabase } from '../helpers/server';

let database: { url: string; drop(): Promise<void> };
let first: ServeProcess;
let second: ServeProcess;
let adminToken: string;
let userId: string;

beforeAll(async () => {
  database = await createDatabase('postgres');
  const init = runCli(['init', '--database', database.url, '--json']);
  expect(init.status).toBe(0);
  ({ admin_token: adminToken, user_id: userId } = JSON.parse(init.stdout));
  first = await serveCli(database.url);
  second = await serveCli(database.url);
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await database?.drop();
});

test('a revoked key is refused at once where it was revoked, and within 1 s on another instance', async () => {
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
  const revokedAt = performance.now();
  polling = false;
  await warm;
  const refused = await onFirst.get('/v1/dev/key');
  expect({ status: refused.status, body: refused.body }).toEqual({
    status: 401,
    body: { detail: 'Invalid API Key' },
  });

  // The other instance: the first 401 comes within a second, and every answer after it is a 401 too.
  let refusedAfter = Infinity;
  const statuses: number[] = [];
  while (performance.now() - revokedAt < 1500) {
    const reply = await onSecond.get('/v1/dev/key');
    statuses.push(reply.status);
    if (reply.status === 401 && refusedAfter === Infinity) refusedAfter = performance.now() - revokedAt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(refusedAfter).toBeLessThan(1000);
  expect(statuses.slice(statuses.indexOf(401)).every((status) => status === 401)).toBe(true);
  expect(statuses.every((status) => status === 200 || status === 401)).toBe(true);
});

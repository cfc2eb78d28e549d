// Developer keys are cached in each server process for a short while. A revoked key must still be refused
// at once by the instance that revoked it, and soon after by every other instance sharing the database (how
// soon is measured in bench/, group `instances`): two `devdata-server serve` processes on one PostgreSQL database.
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

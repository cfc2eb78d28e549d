import { MAX_RETRY_AFTER_SECONDS } from '../../nodes/shared';
import { directNotificationResponse, notification } from '../../server/src/contract/notifications';
import { clearOfBoundary, HOUR_MS } from '../helpers/clock';
import { adminClient, expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

const path = () => `/v2/integrations/${server.init.app_id}/notification`;

test('Notification → Send pushes one notification per item with the app credential', async () => {
  const before = server.requestsTo('POST', path()).length;
  const result = await runDevData(
    server,
    {
      resource: 'notification',
      operation: 'send',
      uid: server.init.user_id,
      message: '={{ $json.text }}',
    },
    { items: [{ text: 'Standup in 5 minutes' }, { text: 'Lunch?' }] },
  );
  const out = jsonOut(result);
  out.forEach((json) => expectShape(directNotificationResponse, json));
  expect(result.output(NODE).map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
  const sent = server.requestsTo('POST', path()).slice(before);
  expect(sent.map((r) => [r.query.get('uid'), r.query.get('message'), r.status])).toEqual([
    [server.init.user_id, 'Standup in 5 minutes', 200],
    [server.init.user_id, 'Lunch?', 200],
  ]);
  // The user's inbox holds them (read with the developer key).
  const inbox = await fetch(`${server.baseUrl}/v1/dev/user/notifications`, {
    headers: { authorization: `Bearer ${server.init.developer_key}` },
  }).then((r) => r.json() as Promise<{ notifications: Array<{ text: string }> }>);
  expect(inbox.notifications.map((n) => n.text)).toEqual(['Lunch?', 'Standup in 5 minutes']);
});

// Among many items sent to many users, the message says which User ID the server did not find, or for which the
// app is not installed, as the other operations' 404s name the ID they did not find.
test("an unknown user, or one without the app, is a 404 with the server's message naming the User ID", async () => {
  const send = (uid: string) =>
    runDevData(server, { resource: 'notification', operation: 'send', uid, message: 'Hello' });
  expect((await send('no-such-user')).error?.message).toBe('User not found (User ID "no-such-user")');
  const { id } = await newUser(server);
  expect((await send(id)).error?.message).toBe(`App is not installed for this user (User ID "${id}")`);
});

test('a wrong app secret is a 401 that points at the app credential', async () => {
  const credentials = { ...credentialsFor(server) };
  credentials.devDataAppApi = {
    ...credentials.devDataAppApi,
    appSecret: 'sk_00000000000000000000000000000000',
  };
  const result = await runDevData(
    server,
    { resource: 'notification', operation: 'send', uid: server.init.user_id, message: 'Hello' },
    { credentials },
  );
  expect(result.error?.message).toBe(
    'Authorization failed: check the App ID and App Secret of the DevData App API credential',
  );
  expect(result.error?.description).toBe('Invalid app ID or secret');
});

test('over the hourly cap (10 per user per app), the 429 fails without a retry: its Retry-After is too long to wait', async () => {
  // A user of its own, so only this test counts; and one clock hour for all 11 sends, far enough from its end that
  // the cap's Retry-After is longer than the node will wait.
  const admin = adminClient(server);
  const user = await admin.post('/v1/admin/users', { name: 'capped' });
  expect(
    (await admin.post(`/v1/admin/apps/${server.init.app_id}/installs`, { user_id: user.body.id })).status,
  ).toBe(201);
  // Near the end of an hour that means waiting for the next one (up to 70 s: hence this test's timeout).
  await clearOfBoundary(HOUR_MS, (MAX_RETRY_AFTER_SECONDS + 10) * 1_000);

  const params = { resource: 'notification', operation: 'send', uid: user.body.id, message: 'ping' };
  jsonOut(await runDevData(server, params, { items: Array.from({ length: 10 }, () => ({})) }));
  const before = server.requestsTo('POST', path()).length;
  const result = await runDevData(server, params);
  expect(result.error?.message).toBe('Rate limit exceeded');
  // It says how long to wait, from the answer's Retry-After: the rest of the clock hour.
  expect(result.error?.description).toMatch(
    /^Rate limit exceeded: this app may send this user at most 10 notifications per hour\. Run the workflow again in \d+ (seconds|minutes) \(the server's Retry-After\), not before\.$/,
  );
  expect(
    server
      .requestsTo('POST', path())
      .slice(before)
      .map((r) => r.status),
  ).toEqual([429]);
}, 90_000);

test('Notification → Get Many reads the inbox with the developer credential, newest first', async () => {
  const user = server.init.user_id;
  const send = { resource: 'notification', operation: 'send', uid: user, message: '={{ $json.text }}' };
  jsonOut(await runDevData(server, send, { items: [{ text: 'inbox one' }, { text: 'inbox two' }] }));
  const inbox = '/v1/dev/user/notifications';
  const before = server.requestsTo('GET', inbox).length;

  const two = jsonOut(await runDevData(server, { resource: 'notification', operation: 'getAll', limit: 2 }));
  expect(two.map((n) => n.text)).toEqual(['inbox two', 'inbox one']);
  two.forEach((json) => expectShape(notification, json));
  const all = jsonOut(
    await runDevData(server, { resource: 'notification', operation: 'getAll', returnAll: true }),
  );
  expect(all.length).toBeGreaterThan(2);
  expect(all.slice(0, 2)).toEqual(two);
  expect(
    server
      .requestsTo('GET', inbox)
      .slice(before)
      .map((r) => [r.query.get('limit'), r.status]),
  ).toEqual([
    ['2', 200],
    ['100', 200],
  ]);
});

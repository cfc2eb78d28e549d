import { errorBody, validationErrorBody } from '../../server/src/contract/common';
import {
  app as appSchema,
  directNotificationResponse,
  notificationsPage,
} from '../../server/src/contract/notifications';
import { clearOfBoundary, HOUR_MS } from '../helpers/clock';
import { adminClient, client, devClient, expectShape, keyWithScopes, newUser } from '../helpers/http';
import { DIALECTS, startServer, type TestServer } from '../helpers/server';

describe.each(DIALECTS)('direct notifications and the inbox on %s', (dialect) => {
  let server: TestServer;
  let notify: (
    query: Record<string, string>,
    secret?: string,
  ) => ReturnType<ReturnType<typeof client>['post']>;

  beforeAll(async () => {
    server = await startServer(dialect);
    notify = (query, secret = server.init.app_secret) =>
      client(server.baseUrl, secret).post(
        `/v2/integrations/${server.init.app_id}/notification`,
        undefined,
        query,
      );
  });
  afterAll(() => server.close());

  it('proves the app secret with GET /v2/integrations/{app_id}/app', async () => {
    const reply = await client(server.baseUrl, server.init.app_secret).get(
      `/v2/integrations/${server.init.app_id}/app`,
    );
    expect(reply.status).toBe(200);
    expect(expectShape(appSchema, reply.body).id).toBe(server.init.app_id);
    const wrong = await client(server.baseUrl, 'sk_wrong').get(`/v2/integrations/${server.init.app_id}/app`);
    expect(wrong.status).toBe(401);
  });

  it('pushes a message into the user inbox, newest first, with cursor pages', async () => {
    // X-RateLimit-Reset: the seconds left of the UTC clock hour when the server answered (the real service's).
    const secondsLeftOfHour = () => Math.ceil((HOUR_MS - (Date.now() % HOUR_MS)) / 1000);
    await clearOfBoundary(HOUR_MS, 10_000);
    for (const message of ['first', 'second', 'third']) {
      const before = secondsLeftOfHour();
      const reply = await notify({ uid: server.init.user_id, message });
      const after = secondsLeftOfHour();
      expect(reply.status).toBe(200);
      expect(expectShape(directNotificationResponse, reply.body)).toEqual({ status: 'Ok' });
      expect(reply.headers.get('x-ratelimit-limit')).toBe('10');
      const reset = Number(reply.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(after);
      expect(reset).toBeLessThanOrEqual(before);
    }
    const inbox = devClient(server);
    const first = expectShape(
      notificationsPage,
      (await inbox.get('/v1/dev/user/notifications', { limit: 2 })).body,
    );
    expect(first.notifications.map((n) => n.text)).toEqual(['third', 'second']);
    expect(first.notifications[0]).toMatchObject({
      app_id: server.init.app_id,
      kind: 'direct',
      generated: false,
    });
    expect(first.has_more).toBe(true);
    const second = expectShape(
      notificationsPage,
      (await inbox.get('/v1/dev/user/notifications', { limit: 2, cursor: first.next_cursor! })).body,
    );
    expect(second.notifications.map((n) => n.text)).toEqual(['first']);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });

    const noScope = await keyWithScopes(server, ['memories:read']);
    expect((await noScope.get('/v1/dev/user/notifications')).status).toBe(403);
    const bad = await inbox.get('/v1/dev/user/notifications', { cursor: 'garbage' });
    expect(bad.status).toBe(422);
    expect(expectShape(validationErrorBody, bad.body).detail[0].loc).toEqual(['query', 'cursor']);
    // limit 1–100, as the manual says.
    for (const limit of [0, 101]) {
      const outside = await inbox.get('/v1/dev/user/notifications', { limit });
      expect({ limit, status: outside.status }).toEqual({ limit, status: 422 });
      expect(expectShape(validationErrorBody, outside.body).detail[0].loc).toEqual(['query', 'limit']);
    }
    expect((await inbox.get('/v1/dev/user/notifications', { limit: 100 })).status).toBe(200);
  });

  it('answers 401 for a wrong, malformed or other app secret', async () => {
    const other = await adminClient(server).post('/v1/admin/apps', { name: 'Other', capabilities: [] });
    for (const secret of ['sk_00000000000000000000000000000000', other.body.app_secret]) {
      const reply = await notify({ uid: server.init.user_id, message: 'hi' }, secret);
      expect(reply.status).toBe(401);
      expectShape(errorBody, reply.body);
    }
    const malformed = await client(server.baseUrl).raw(
      'POST',
      `/v2/integrations/${server.init.app_id}/notification?uid=x&message=y`,
      {
        headers: { authorization: 'Token abc', 'content-type': 'application/json' },
      },
    );
    expect(malformed.status).toBe(401);
  });

  it('answers 404 for an unknown user and for a user without the app', async () => {
    const unknown = await notify({ uid: 'nobody', message: 'hi' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'User not found' });
    const stranger = await newUser(server);
    const notInstalled = await notify({ uid: stranger.id, message: 'hi' });
    expect(notInstalled.status).toBe(404);
    expect(notInstalled.body).toEqual({ detail: 'App is not installed for this user' });
  });

  it('pushes the exact text sent, spaces and line breaks around it kept', async () => {
    // The interface: "The caller sends exact text for one user; it is pushed immediately."
    const user = await newUser(server);
    await adminClient(server).post(`/v1/admin/apps/${server.init.app_id}/installs`, { user_id: user.id });
    const message = '  Today:\n  - stand-up at 10\n  - review at 3\n';
    const reply = await notify({ uid: user.id, message });
    expect(reply.status).toBe(200);
    const inbox = expectShape(notificationsPage, (await user.client.get('/v1/dev/user/notifications')).body);
    expect(inbox.notifications.map((n) => n.text)).toEqual([message]);
  });

  it('answers 422 for a missing uid or message', async () => {
    for (const [query, field] of [
      [{ message: 'hi' }, 'uid'],
      [{ uid: server.init.user_id }, 'message'],
      [{ uid: server.init.user_id, message: '   ' }, 'message'],
    ] as const) {
      const reply = await notify(query);
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', field]);
    }
  });

  it('allows 10 per user per app per hour and answers the 11th with 429 and Retry-After', async () => {
    const user = await newUser(server);
    await adminClient(server).post(`/v1/admin/apps/${server.init.app_id}/installs`, { user_id: user.id });
    await clearOfBoundary(HOUR_MS, 10_000);
    const statuses: number[] = [];
    let last;
    for (let i = 1; i <= 11; i += 1) {
      last = await notify({ uid: user.id, message: `n${i}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    const inbox = await server.store.db
      .selectFrom('notifications')
      .select('text')
      .where('user_id', '=', user.id)
      .execute();
    expect(inbox).toHaveLength(10);
  });
});

// Responses are written by serializers compiled from the contract (fast-json-stringify). Every response a
// realistic session gets, across every resource and the error statuses, must be byte for byte what the zod
// contract defines: JSON.stringify(schema.parse(body)).
import { adminClient, client, devClient, keyWithScopes } from '../helpers/http';
import { DIALECTS, startServer, type TestServer } from '../helpers/server';

describe.each(DIALECTS)('compiled response serializers (%s)', (dialect) => {
  let server: TestServer;
  const checked = new Map<string, number>();
  const differences: string[] = [];

  beforeAll(async () => {
    server = await startServer(
      dialect,
      {},
      {
        beforeListen: (app) => {
          const sent = new WeakMap<object, unknown>();
          app.addHook('preSerialization', async (request, _reply, payload) => {
            sent.set(request, payload);
            return payload;
          });
          app.addHook('onSend', async (request, reply, payload) => {
            // The route's zod 4 schema (the server's zod, not the root's zod 3 this file would import).
            const responses = request.routeOptions.schema?.response as Record<number, any> | undefined;
            const schema = responses?.[reply.statusCode];
            if (typeof schema?.parse !== 'function' || !sent.has(request)) return payload;
            const expected = JSON.stringify(schema.parse(sent.get(request)));
            const route = `${request.method} ${request.routeOptions.url} ${reply.statusCode}`;
            checked.set(route, (checked.get(route) ?? 0) + 1);
            if (payload !== expected)
              differences.push(`${route}\n  sent     ${String(payload)}\n  contract ${expected}`);
            return payload;
          });
        },
      },
    );
  });
  afterAll(async () => server.close());

  test('every response of a session over every resource is the contract’s bytes', async () => {
    const api = devClient(server);
    const admin = adminClient(server);
    const ok = async (reply: Promise<{ status: number; body: any }>, status = 200) => {
      const { status: got, body } = await reply;
      expect({ status: got, body }).toEqual({ status, body: expect.anything() });
      return body;
    };

    await ok(api.get('/v1/dev/key'));
    // Goals: the optional metric.unit absent and present, nullable fields null and set, history.
    const goal = await ok(api.post('/v1/dev/user/goals', { title: 'Run', target_value: 5 }), 200);
    const withUnit = await ok(
      api.post('/v1/dev/user/goals', {
        title: 'Read "books" \u2028 \ud83d\udcda',
        goal_type: 'scale',
        unit: 'pages',
        focus_rank: 3,
        horizon_at: '2026-12-31T00:00:00Z',
        success_criteria: ['a', 'b\n"c"'],
        why_it_matters: 'because',
      }),
      200,
    );
    await ok(api.get(`/v1/dev/user/goals/${goal.id}`));
    await ok(api.get(`/v1/dev/user/goals/${withUnit.id}`));
    await ok(
      api.patch(`/v1/dev/user/goals/${goal.id}`, { unit: 'km', horizon_at: null, current_value: 2.5 }),
    );
    await ok(api.patch(`/v1/dev/user/goals/${goal.id}/progress`, undefined, { current_value: 3 }));
    await ok(api.get(`/v1/dev/user/goals/${goal.id}/history`));
    await ok(api.get('/v1/dev/user/goals', { include_inactive: true, limit: 100 }));
    // Action items: one, a batch, due_at and completed_at set and null, lists.
    const item = await ok(
      api.post('/v1/dev/user/action-items', { description: 'Call', due_at: '2026-11-21T09:30:00-05:00' }),
      200,
    );
    await ok(
      api.post('/v1/dev/user/action-items/batch', {
        action_items: [{ description: 'a' }, { description: 'b', completed: true }],
      }),
      200,
    );
    await ok(api.patch(`/v1/dev/user/action-items/${item.id}`, { completed: true, due_at: null }));
    await ok(api.get('/v1/dev/user/action-items', { limit: 100 }));
    await ok(api.get('/v1/dev/user/action-items', { order: 'updated_at' }));
    // Conversations, folders, memories, people, screen activity, notifications, tombstones.
    const folder = await ok(api.post('/v1/dev/user/folders', { name: 'Work', color: '#4f46e5' }), 200);
    const conversation = await ok(
      api.post('/v1/dev/user/conversations', { text: 'We agreed to ship on Friday.', folder_id: folder.id }),
      200,
    );
    await ok(
      api.post('/v1/dev/user/conversations/from-segments', {
        transcript_segments: [{ text: 'Hello there', speaker: 'SPEAKER_00', start: 0, end: 1.5 }],
      }),
      200,
    );
    await ok(api.get(`/v1/dev/user/conversations/${conversation.id}`, { include_transcript: true }));
    await ok(api.get('/v1/dev/user/conversations', { include_transcript: true }));
    await ok(
      api.patch(`/v1/dev/user/conversations/${conversation.id}`, { title: 'Shipping', folder_id: null }),
    );
    await ok(api.get('/v1/dev/user/folders'));
    await ok(api.patch(`/v1/dev/user/folders/${folder.id}`, { description: null }));
    const memory = await ok(
      api.post('/v1/dev/user/memories', { content: 'Likes tea', tags: ['drinks'] }),
      200,
    );
    await ok(api.post('/v1/dev/user/memories/batch', { memories: [{ content: 'Lives in Oslo' }] }), 200);
    await ok(api.patch(`/v1/dev/user/memories/${memory.id}`, { visibility: 'public' }));
    await ok(api.get('/v1/dev/user/memories'));
    const person = await ok(api.post('/v1/dev/user/people', { name: 'Ada' }), 200);
    await ok(api.patch(`/v1/dev/user/people/${person.id}`, { name: 'Ada L' }));
    await ok(api.get('/v1/dev/user/people'));
    await ok(
      api.post('/v1/dev/user/screen-activity', {
        screen_activity: [{ timestamp: '2026-11-21T09:30:00Z', app_name: 'Code', window_title: 'a.ts' }],
      }),
      200,
    );
    await ok(api.get('/v1/dev/user/screen-activity'));
    await ok(api.get('/v1/dev/user/notifications'));
    await ok(api.delete(`/v1/dev/user/action-items/${item.id}`));
    await ok(api.delete(`/v1/dev/user/people/${person.id}`));
    await ok(api.get('/v1/dev/user/deleted'));
    // Admin and integration routes.
    const user = await ok(admin.post('/v1/admin/users', { name: 'Grace' }), 201);
    await ok(admin.get('/v1/admin/users'));
    const key = await ok(admin.post(`/v1/admin/users/${user.id}/keys`, { name: 'k' }), 201);
    await ok(admin.get(`/v1/admin/users/${user.id}/keys`));
    expect((await admin.delete(`/v1/admin/keys/${key.id}`)).status).toBe(204);
    await ok(admin.get('/v1/admin/apps'));
    const app = client(server.baseUrl, server.init.app_secret);
    const appPath = `/v2/integrations/${server.init.app_id}`;
    await ok(app.get(`${appPath}/app`));
    await ok(app.post(`${appPath}/notification`, undefined, { uid: server.init.user_id, message: 'Hi' }));
    await ok(app.get(`${appPath}/deliveries`));
    // Errors: 401, 403, 404, 422.
    await ok(client(server.baseUrl, 'svc_dev_nope').get('/v1/dev/user/goals'), 401);
    await ok((await keyWithScopes(server, ['memories:read'])).get('/v1/dev/user/goals'), 403);
    await ok(api.get('/v1/dev/user/goals/0000000000000000deadbeef'), 404);
    await ok(api.post('/v1/dev/user/goals', { title: '' }), 422);
    await ok(api.get('/v1/dev/user/action-items', { limit: 0 }), 422);

    expect(differences).toEqual([]);
    // The check ran on the responses above, not on none of them.
    expect(checked.size).toBeGreaterThanOrEqual(40);
  });
});

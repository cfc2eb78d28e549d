// Table-driven checks over every developer endpoint: each needs exactly its scope, and no input, however
// wrong, gets a 5xx or changes what is stored.
import { SCOPES, type Scope } from '../../server/src/contract/scopes';
import { adminClient, client, devClient, keyWithScopes } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

type Method = 'get' | 'post' | 'patch' | 'delete';
const ID = '0000000000000000deadbeef';

const ENDPOINTS: [Method, string, Scope][] = [
  ['get', '/v1/dev/user/screen-activity', 'screen_activity:read'],
  ['post', '/v1/dev/user/screen-activity', 'screen_activity:write'],
  ['get', '/v1/dev/user/action-items', 'action_items:read'],
  ['post', '/v1/dev/user/action-items', 'action_items:write'],
  ['post', '/v1/dev/user/action-items/batch', 'action_items:write'],
  ['patch', `/v1/dev/user/action-items/${ID}`, 'action_items:write'],
  ['delete', `/v1/dev/user/action-items/${ID}`, 'action_items:write'],
  ['get', '/v1/dev/user/conversations', 'conversations:read'],
  ['get', '/v1/dev/user/conversations/search', 'conversations:read'],
  ['get', `/v1/dev/user/conversations/${ID}`, 'conversations:read'],
  ['post', '/v1/dev/user/conversations', 'conversations:write'],
  ['post', '/v1/dev/user/conversations/from-segments', 'conversations:write'],
  ['patch', `/v1/dev/user/conversations/${ID}`, 'conversations:write'],
  ['delete', `/v1/dev/user/conversations/${ID}`, 'conversations:write'],
  ['get', '/v1/dev/user/folders', 'conversations:read'],
  ['post', '/v1/dev/user/folders', 'conversations:write'],
  ['patch', `/v1/dev/user/folders/${ID}`, 'conversations:write'],
  ['delete', `/v1/dev/user/folders/${ID}`, 'conversations:write'],
  ['get', '/v1/dev/user/memories', 'memories:read'],
  ['get', '/v1/dev/user/memories/search', 'memories:read'],
  ['post', '/v1/dev/user/memories', 'memories:write'],
  ['post', '/v1/dev/user/memories/batch', 'memories:write'],
  ['patch', `/v1/dev/user/memories/${ID}`, 'memories:write'],
  ['delete', `/v1/dev/user/memories/${ID}`, 'memories:write'],
  ['get', '/v1/dev/user/goals', 'goals:read'],
  ['get', `/v1/dev/user/goals/${ID}`, 'goals:read'],
  ['post', '/v1/dev/user/goals', 'goals:write'],
  ['patch', `/v1/dev/user/goals/${ID}`, 'goals:write'],
  ['patch', `/v1/dev/user/goals/${ID}/progress`, 'goals:write'],
  ['get', `/v1/dev/user/goals/${ID}/history`, 'goals:read'],
  ['delete', `/v1/dev/user/goals/${ID}`, 'goals:write'],
  ['get', '/v1/dev/user/people', 'people:read'],
  ['post', '/v1/dev/user/people', 'people:write'],
  ['patch', `/v1/dev/user/people/${ID}`, 'people:write'],
  ['delete', `/v1/dev/user/people/${ID}`, 'people:write'],
  ['get', '/v1/dev/user/notifications', 'notifications:read'],
  ['get', '/v1/dev/keys', 'keys:read'],
  ['post', '/v1/dev/keys', 'keys:write'],
  ['delete', `/v1/dev/keys/${ID}`, 'keys:write'],
  ['get', '/v1/dev/user/webhooks', 'webhooks:read'],
  ['post', '/v1/dev/user/webhooks', 'webhooks:write'],
  ['get', `/v1/dev/user/webhooks/${ID}`, 'webhooks:read'],
  ['patch', `/v1/dev/user/webhooks/${ID}`, 'webhooks:write'],
  ['delete', `/v1/dev/user/webhooks/${ID}`, 'webhooks:write'],
  ['post', `/v1/dev/user/webhooks/${ID}/rotate-secret`, 'webhooks:write'],
  ['get', `/v1/dev/user/webhooks/${ID}/deliveries`, 'webhooks:read'],
  ['post', `/v1/dev/user/webhooks/${ID}/deliveries/${ID}/redeliver`, 'webhooks:write'],
  ['post', `/v1/dev/user/webhooks/${ID}/ping`, 'webhooks:write'],
];

const GARBAGE_BODIES: unknown[] = [
  null,
  [],
  'text',
  42,
  { description: 1, content: [], name: {}, title: true, text: null, segments: 'x', transcript_segments: {} },
  { action_items: [{}], memories: [null], screen_activity: [{ timestamp: 'yesterday' }] },
  { due_at: '2026-13-45T99:99:99Z', current_value: 'high', folder_id: 12, completed: 'maybe' },
];
const GARBAGE_QUERIES: Record<string, string>[] = [
  { limit: '-1', offset: 'x', start_date: 'tomorrow', end_date: '2026-02-30' },
  {
    limit: '1e3',
    cursor: '%%%',
    include_transcript: 'perhaps',
    completed: 'nah',
    days: '0',
    current_value: '',
  },
  { categories: ',,,', app: '', include_inactive: '2', folder_id: '' },
  // The change feed's parameters: malformed, and well-formed but in combinations that are refused.
  { updated_since: 'yesterday', order: 'sideways', after_id: '', include_discarded: 'sometimes' },
  { updated_since: '2026-01-01T00:00:00Z', order: 'updated_at', after_id: 'x'.repeat(101), offset: '3' },
  { updated_since: '2026-01-01T00:00:00Z', after_id: "' or 1=1 --", offset: '3' },
];

const TABLES = [
  'action_items',
  'conversations',
  'folders',
  'memories',
  'goals',
  'goal_history',
  'people',
  'screen_activity',
  'notifications',
  'api_keys',
  'webhook_subscriptions',
  'webhook_events',
  'webhook_deliveries',
] as const;

describe.each(DIALECTS)('every developer endpoint on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  it('answers 403 naming the scope when the key holds every scope but that one', async () => {
    for (const [method, path, scope] of ENDPOINTS) {
      const lacking = await keyWithScopes(
        server,
        SCOPES.filter((s) => s !== scope),
      );
      const reply =
        method === 'get' || method === 'delete'
          ? await lacking[method](path)
          : await lacking[method](path, {});
      expect({ method, path, status: reply.status, body: reply.body }).toEqual({
        method,
        path,
        status: 403,
        body: { detail: `Insufficient permissions. Required scope: ${scope}` },
      });
    }
  });

  it('never answers 5xx to garbage and never stores any of it', async () => {
    const snapshot = () => Promise.all(TABLES.map((table) => server.count(table)));
    const before = await snapshot();
    for (const [method, path] of ENDPOINTS) {
      for (const query of GARBAGE_QUERIES) {
        const bodies = method === 'get' || method === 'delete' ? [undefined] : GARBAGE_BODIES;
        for (const body of bodies) {
          const reply =
            method === 'get' || method === 'delete'
              ? await api[method](path, query)
              : await api[method](path, body, query);
          if (reply.status >= 500) {
            throw new Error(
              `${method.toUpperCase()} ${path} ${JSON.stringify(query)} ${JSON.stringify(body)} → ${reply.status} ${JSON.stringify(reply.body)}`,
            );
          }
          // Writes with garbage must be refused; a read may ignore query parameters it does not take.
          if (method !== 'get') expect(reply.status).toBeGreaterThanOrEqual(400);
          if (reply.status >= 400) expect(reply.body).toHaveProperty('detail');
        }
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  // PostgreSQL text cannot hold U+0000; both databases refuse it the same way, before any lookup.
  it('answers 422 naming where a NUL character is, in the path, the query or the body, and stores nothing', async () => {
    const snapshot = () => Promise.all(TABLES.map((table) => server.count(table)));
    const before = await snapshot();
    const nul = (loc: (string | number)[]) => ({
      status: 422,
      body: { detail: [{ loc, msg: 'Text must not contain NUL (U+0000) characters', type: 'string_nul' }] },
    });
    for (const [method, path] of ENDPOINTS) {
      const where = `${method.toUpperCase()} ${path}`;
      const send = (target: string, query: Record<string, string>, body?: unknown) =>
        method === 'get' || method === 'delete'
          ? api[method](target, query)
          : api[method](target, body, query);
      const inQuery = await send(path, { folder_id: 'a\u0000b' }, {});
      expect({ where, status: inQuery.status, body: inQuery.body }).toEqual({
        where,
        ...nul(['query', 'folder_id']),
      });
      if (path.includes(ID)) {
        const inPath = await send(path.replace(ID, '%00'), {}, {});
        expect({ where, status: inPath.status, body: inPath.body.detail[0].loc }).toEqual({
          where,
          status: 422,
          body: ['path', expect.any(String)],
        });
      }
      if (method === 'post' || method === 'patch') {
        const inBody = await send(path, {}, { title: 'Weekly sync', tags: ['ok', 'a\u0000b'] });
        expect({ where, status: inBody.status, body: inBody.body }).toEqual({
          where,
          ...nul(['body', 'tags', 1]),
        });
      }
    }

    const admin = adminClient(server);
    expect(await admin.post('/v1/admin/users', { name: 'Ada\u0000' })).toMatchObject(nul(['body', 'name']));
    // Authentication comes first, as for any other bad input; an app id with a NUL is just unknown.
    expect(
      await client(server.baseUrl).get('/v1/dev/user/action-items', { folder_id: '\u0000' }),
    ).toMatchObject({
      status: 401,
    });
    const app = client(server.baseUrl, server.init.app_secret);
    expect(await app.get('/v2/integrations/%00/app')).toMatchObject({
      status: 401,
      body: { detail: 'Invalid app ID or secret' },
    });
    const notification = await app.post(`/v2/integrations/${server.init.app_id}/notification`, undefined, {
      uid: server.init.user_id,
      message: 'Hello\u0000',
    });
    expect(notification).toMatchObject(nul(['query', 'message']));
    expect(await snapshot()).toEqual(before);
  });
});

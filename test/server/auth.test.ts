import { apiKey, createdApiKey } from '../../server/src/contract/keys';
import { errorBody } from '../../server/src/contract/common';
import { clearOfBoundary, MINUTE_MS } from '../helpers/clock';
import { adminClient, client, devClient, expectShape } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const MALFORMED = "Missing or invalid Authorization header. Must be 'Bearer API_KEY'";

describe.each(DIALECTS)('developer keys and authentication on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));

  it('GET /v1/dev/key describes the calling key without revealing it', async () => {
    const reply = await devClient(server).get('/v1/dev/key');
    expect(reply.status).toBe(200);
    const key = expectShape(apiKey, reply.body);
    expect(key.key_prefix).toMatch(/^svc_dev_[0-9a-f]{4}\.\.\.[0-9a-f]{4}$/);
    expect(JSON.stringify(reply.body)).not.toContain(server.init.developer_key);
    expect(key.last_used_at).not.toBeNull();
  });

  it.each([
    ['no header', {}],
    ['a non-Bearer scheme', { authorization: 'Basic abc' }],
    ['Bearer with nothing after it', { authorization: 'Bearer ' }],
    ['a token with spaces', { authorization: 'Bearer a b' }],
  ])('answers 401 for %s', async (_name, headers: Record<string, string>) => {
    const reply = await client(server.baseUrl).raw('GET', '/v1/dev/user/action-items', { headers });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: MALFORMED });
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 401 "Invalid API Key" for an unknown key and for a revoked one', async () => {
    const unknown = await client(server.baseUrl, 'svc_dev_00000000000000000000000000000000').get(
      '/v1/dev/key',
    );
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ detail: 'Invalid API Key' });

    const admin = adminClient(server);
    const created = await admin.post(`/v1/admin/users/${server.init.user_id}/keys`, { name: 'short-lived' });
    expect(created.status).toBe(201);
    const key = expectShape(createdApiKey, created.body);
    expect(key.key).toMatch(/^svc_dev_[0-9a-f]{32}$/);
    // Every read scope but keys:read: a read-only key lists the user's webhooks but never their keys.
    expect([...key.scopes].sort()).toEqual(
      [
        'action_items:read',
        'conversations:read',
        'goals:read',
        'memories:read',
        'notifications:read',
        'people:read',
        'screen_activity:read',
        'webhooks:read',
      ].sort(),
    );
    const revokedClient = client(server.baseUrl, key.key);
    expect((await revokedClient.get('/v1/dev/key')).status).toBe(200);
    expect((await admin.delete(`/v1/admin/keys/${key.id}`)).status).toBe(204);
    const refused = await revokedClient.get('/v1/dev/key');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid API Key' });
    expect((await admin.delete(`/v1/admin/keys/${key.id}`)).status).toBe(404);
  });

  it('checks the key before validating input, and the scope before either', async () => {
    const noKey = await client(server.baseUrl).get('/v1/dev/user/action-items', { limit: 0 });
    expect(noKey.status).toBe(401);
    const readOnly = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'read',
      scopes: ['goals:read'],
    });
    const scoped = client(server.baseUrl, readOnly.body.key);
    const refused = await scoped.post('/v1/dev/user/action-items/batch', { action_items: 'nope' });
    expect(refused.status).toBe(403);
    expect(expectShape(errorBody, refused.body).detail).toBe(
      'Insufficient permissions. Required scope: action_items:write',
    );
  });
});

describe('the per-key rate limit', () => {
  const server = forSuite(() => startServer('sqlite', { rateLimit: { max: 3, windowMs: 60_000 } }));

  it('answers 429 with Retry-After past the limit, per key', async () => {
    const api = devClient(server);
    await clearOfBoundary(MINUTE_MS, 5_000);
    const replies = [];
    for (let i = 0; i < 4; i += 1) replies.push(await api.get('/v1/dev/key'));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(replies[0].headers.get('x-ratelimit-limit')).toBe('3');
    expect(replies[2].headers.get('x-ratelimit-remaining')).toBe('0');
    // The seconds until the minute's window ends, not an epoch time.
    const reset = Number(replies[0].headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    const limited = replies[3];
    expect(expectShape(errorBody, limited.body).detail).toMatch(/^Rate limit exceeded/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const other = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'other',
    });
    expect((await client(server.baseUrl, other.body.key).get('/v1/dev/key')).status).toBe(200);
  });
});

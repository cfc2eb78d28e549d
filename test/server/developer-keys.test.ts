// `/v1/dev/keys`: a user's developer keys listed, created and revoked with a developer key holding keys:read or
// keys:write. A key passes on only scopes it holds, and a revoked key is refused from its next request on.
import { displayKey, hashSecret } from '../../server/src/auth/secrets';
import { apiKey, createdApiKey } from '../../server/src/contract/keys';
import { DEFAULT_SCOPES, SCOPES, type Scope } from '../../server/src/contract/scopes';
import {
  adminClient,
  client,
  devClient,
  expect422,
  expectShape,
  keyWithScopes,
  newUser,
} from '../helpers/http';
import { DIALECTS, forSuite, startServer, type TestServer } from '../helpers/server';

const NOT_FOUND = { status: 404, body: { detail: 'API key not found' } };
const INVALID_KEY = { status: 401, body: { detail: 'Invalid API Key' } };
const lacking = (scope: Scope) => ({
  status: 403,
  body: { detail: `Insufficient permissions. Required scope: ${scope}` },
});
const sorted = (scopes: readonly string[]) => [...scopes].sort();

/** A key of the init user holding `scopes`, made through the admin API: its client and its secret. */
async function scopedKey(server: TestServer, scopes: Scope[]) {
  const made = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
    name: 'scoped',
    scopes,
  });
  expect(made.status).toBe(201);
  return {
    id: made.body.id as string,
    secret: made.body.key as string,
    api: client(server.baseUrl, made.body.key),
  };
}

const keysOfInitUser = (server: TestServer) => server.count('api_keys', { user_id: server.init.user_id });

describe.each(DIALECTS)('/v1/dev/keys on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  it('init makes a key holding every scope, keys:read and keys:write among them', async () => {
    const me = await api.get('/v1/dev/key');
    expect(me.status).toBe(200);
    expect(sorted(me.body.scopes)).toEqual(sorted(SCOPES));
    expect(me.body.scopes).toEqual(expect.arrayContaining(['keys:read', 'keys:write']));
  });

  it('a key made without scopes reads data but cannot see or manage keys', async () => {
    expect(DEFAULT_SCOPES.filter((scope) => scope.startsWith('keys:'))).toEqual([]);
    const made = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'default scopes',
    });
    expect(made.status).toBe(201);
    expect(sorted(made.body.scopes)).toEqual(
      sorted(SCOPES.filter((scope) => scope.endsWith(':read') && scope !== 'keys:read')),
    );
    const readOnly = client(server.baseUrl, made.body.key);
    expect(await readOnly.get('/v1/dev/keys')).toMatchObject(lacking('keys:read'));
    expect(await readOnly.post('/v1/dev/keys', { name: 'x' })).toMatchObject(lacking('keys:write'));
    expect(await readOnly.delete(`/v1/dev/keys/${made.body.id}`)).toMatchObject(lacking('keys:write'));
    expect((await readOnly.get('/v1/dev/key')).status).toBe(200);
  });

  it('creates a key (the secret shown once, in the display form of today) and lists it first', async () => {
    const created = await api.post('/v1/dev/keys', { name: '  Reporting  ', scopes: ['memories:read'] });
    expect(created.status).toBe(200);
    const key = expectShape(createdApiKey, created.body);
    expect(key.key).toMatch(/^svc_dev_[0-9a-f]{32}$/);
    expect(key.key_prefix).toBe(`svc_dev_${key.key.slice(8, 12)}...${key.key.slice(-4)}`);
    expect(key).toMatchObject({ name: 'Reporting', scopes: ['memories:read'], last_used_at: null });

    const reporting = client(server.baseUrl, key.key);
    expect((await reporting.get('/v1/dev/user/memories')).status).toBe(200);
    expect(await reporting.get('/v1/dev/user/goals')).toMatchObject(lacking('goals:read'));

    const listed = await api.get('/v1/dev/keys');
    expect(listed.status).toBe(200);
    const keys = listed.body.map((item: unknown) => expectShape(apiKey, item));
    expect(keys[0].id).toBe(key.id);
    expect(JSON.stringify(listed.body)).not.toContain(key.key);
    expect(listed.body.every((item: object) => !('key' in item))).toBe(true);
    // Newest first; the init key, the oldest, is last.
    const created_at = keys.map((item: { created_at: string }) => item.created_at);
    expect(created_at).toEqual([...created_at].sort().reverse());
    const me = await api.get('/v1/dev/key');
    expect(keys.at(-1).id).toBe(me.body.id);
  });

  it('lists only the calling user’s unrevoked keys', async () => {
    const other = await newUser(server);
    const theirs = await other.client.get('/v1/dev/keys');
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((item: { id: string }) => item.id)).toEqual([
      (await other.client.get('/v1/dev/key')).body.id,
    ]);
    const mine = (await api.get('/v1/dev/keys')).body.map((item: { id: string }) => item.id);
    expect(mine).not.toContain(theirs.body[0].id);
  });

  it('without scopes, gives the :read scopes the creating key holds (keys:read excepted); null alike', async () => {
    const { api: narrow } = await scopedKey(server, [
      'memories:read',
      'goals:write',
      'keys:read',
      'keys:write',
    ]);
    for (const body of [{ name: 'inherits' }, { name: 'inherits', scopes: null }]) {
      const created = await narrow.post('/v1/dev/keys', body);
      expect(created.status).toBe(200);
      expect(created.body.scopes).toEqual(['memories:read']);
    }
    const everything = await api.post('/v1/dev/keys', { name: 'from init' });
    expect(sorted(everything.body.scopes)).toEqual(sorted(DEFAULT_SCOPES));
    const none = await api.post('/v1/dev/keys', { name: 'nothing', scopes: [] });
    expect(none).toMatchObject({ status: 200, body: { scopes: [] } });
  });

  it('never gives a scope the creating key lacks: 403 naming it, and nothing is made', async () => {
    const { api: narrow } = await scopedKey(server, ['memories:read', 'keys:write']);
    const before = await keysOfInitUser(server);
    expect(await narrow.post('/v1/dev/keys', { name: 'escalate', scopes: ['memories:write'] })).toEqual(
      expect.objectContaining(lacking('memories:write')),
    );
    expect(
      await narrow.post('/v1/dev/keys', { name: 'escalate', scopes: ['memories:read', 'keys:read'] }),
    ).toEqual(expect.objectContaining(lacking('keys:read')));
    expect(await keysOfInitUser(server)).toBe(before);

    // What it holds, it may pass on: keys:write too.
    const passed = await narrow.post('/v1/dev/keys', {
      name: 'peer',
      scopes: ['keys:write', 'memories:read'],
    });
    expect(passed.status).toBe(200);
    expect(passed.body.scopes).toEqual(['keys:write', 'memories:read']);
    // And the new key can pass on no more than that either.
    const peer = client(server.baseUrl, passed.body.key);
    expect(await peer.post('/v1/dev/keys', { name: 'x', scopes: ['goals:read'] })).toMatchObject(
      lacking('goals:read'),
    );
    // The default never holds more than the creating key: here only memories:read.
    expect((await peer.post('/v1/dev/keys', { name: 'y' })).body.scopes).toEqual(['memories:read']);
  });

  it('refuses a bad body with 422 naming the field, and stores nothing', async () => {
    const before = await keysOfInitUser(server);
    expect422(await api.post('/v1/dev/keys', { name: '   ' }), ['body', 'name']);
    expect422(await api.post('/v1/dev/keys', {}), ['body', 'name']);
    expect422(await api.post('/v1/dev/keys', { name: 'x'.repeat(101) }), ['body', 'name']);
    expect422(await api.post('/v1/dev/keys', { name: 'x', scopes: ['memories:delete'] }), [
      'body',
      'scopes',
      0,
    ]);
    expect422(await api.post('/v1/dev/keys', { name: 'x', scopes: 'memories:read' }), ['body', 'scopes']);
    expect((await api.post('/v1/dev/keys', { name: 'x', scope: ['memories:read'] })).status).toBe(422);
    expect(await keysOfInitUser(server)).toBe(before);
  });

  it('revokes a key of the same user: 204, refused from its next request, gone from the list', async () => {
    const doomed = await scopedKey(server, ['memories:read']);
    expect((await doomed.api.get('/v1/dev/user/memories')).status).toBe(200);
    const revoked = await api.delete(`/v1/dev/keys/${doomed.id}`);
    expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 204, body: undefined });
    expect(await doomed.api.get('/v1/dev/user/memories')).toMatchObject(INVALID_KEY);
    const ids = (await api.get('/v1/dev/keys')).body.map((item: { id: string }) => item.id);
    expect(ids).not.toContain(doomed.id);
    // Revoked already: there is no such key any more.
    expect(await api.delete(`/v1/dev/keys/${doomed.id}`)).toMatchObject(NOT_FOUND);
  });

  it('answers 404 "API key not found" for another user’s key and for an unknown id, revoking nothing', async () => {
    const other = await newUser(server);
    const theirs = (await other.client.get('/v1/dev/key')).body.id;
    expect(await api.delete(`/v1/dev/keys/${theirs}`)).toMatchObject(NOT_FOUND);
    expect((await other.client.get('/v1/dev/key')).status).toBe(200);
    expect(await api.delete('/v1/dev/keys/0000000000000000deadbeef')).toMatchObject(NOT_FOUND);
    // And the other way round.
    const mine = (await api.get('/v1/dev/key')).body.id;
    expect(await other.client.delete(`/v1/dev/keys/${mine}`)).toMatchObject(NOT_FOUND);
    expect((await api.get('/v1/dev/key')).status).toBe(200);
    // A narrower key of another user gets the same 404, not the 403 that would tell it the key exists.
    const narrow = await newUser(server, ['keys:write']);
    expect(await narrow.client.delete(`/v1/dev/keys/${mine}`)).toMatchObject(NOT_FOUND);
  });

  it('revokes no key holding a scope the revoking key lacks: 403 naming it, and the key keeps working', async () => {
    const narrow = await scopedKey(server, ['memories:read', 'keys:write']);
    const broad = await scopedKey(server, ['memories:read', 'memories:write', 'keys:write']);
    expect(await narrow.api.delete(`/v1/dev/keys/${broad.id}`)).toMatchObject({
      status: 403,
      body: {
        detail: 'Insufficient permissions. Required scope: memories:write (the key to revoke holds it)',
      },
    });
    expect((await broad.api.get('/v1/dev/key')).status).toBe(200);
    // A key with the same scopes or fewer it may revoke.
    const peer = await scopedKey(server, ['memories:read']);
    expect((await narrow.api.delete(`/v1/dev/keys/${peer.id}`)).status).toBe(204);
    expect(await peer.api.get('/v1/dev/key')).toMatchObject(INVALID_KEY);
    expect((await broad.api.delete(`/v1/dev/keys/${narrow.id}`)).status).toBe(204);
  });

  it('lets a key revoke itself: that answer is a 204, its next request a 401', async () => {
    const self = await scopedKey(server, ['keys:write']);
    expect((await self.api.delete(`/v1/dev/keys/${self.id}`)).status).toBe(204);
    expect(await self.api.get('/v1/dev/key')).toMatchObject(INVALID_KEY);
  });
});

describe.each(DIALECTS)("a key revoked elsewhere, still in this instance's key cache, on %s", (dialect) => {
  // A cache that keeps keys a minute, as with Redis; the revocation is written as another instance's would be,
  // past this instance's repository, so nothing tells its cache.
  const server = forSuite(() => startServer(dialect, { keyCacheTtlMs: 60_000 }));

  it('creates no key: the create reads the calling key from the database', async () => {
    const leaked = await scopedKey(server, ['keys:read', 'keys:write']);
    expect((await leaked.api.get('/v1/dev/keys')).status).toBe(200);
    await server.store.db
      .updateTable('api_keys')
      .set({ revoked_at: Date.now() })
      .where('id', '=', leaked.id)
      .execute();
    const before = await keysOfInitUser(server);
    expect(await leaked.api.post('/v1/dev/keys', { name: 'left behind' })).toMatchObject(INVALID_KEY);
    expect(await keysOfInitUser(server)).toBe(before);
  });
});

describe.each(DIALECTS)('DEVDATA_KEY_PREFIX on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect, { keyPrefix: 'omi_dev_' }));

  it('makes every key with the prefix set: init, the developer API and the admin API', async () => {
    expect(server.init.developer_key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    const api = devClient(server);
    expect((await api.get('/v1/dev/key')).body.key_prefix).toMatch(/^omi_dev_[0-9a-f]{4}\.\.\.[0-9a-f]{4}$/);

    const developer = await api.post('/v1/dev/keys', { name: 'dev' });
    expect(developer.body.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    expect(developer.body.key_prefix).toBe(
      `omi_dev_${developer.body.key.slice(8, 12)}...${developer.body.key.slice(-4)}`,
    );
    const admin = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'admin',
    });
    expect(admin.body.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    for (const key of [developer.body.key, admin.body.key]) {
      expect((await client(server.baseUrl, key).get('/v1/dev/user/memories')).status).toBe(200);
    }
  });

  it('keeps answering for a key of any prefix it issued, and refuses one it did not', async () => {
    const scoped = await keyWithScopes(server, ['memories:read']);
    expect((await scoped.get('/v1/dev/user/memories')).status).toBe(200);
    // A key stored under the default prefix before DEVDATA_KEY_PREFIX was set, as that server wrote it.
    const earlier = `svc_dev_${'ab'.repeat(16)}`;
    await server.store.db
      .insertInto('api_keys')
      .values({
        id: 'key-of-the-earlier-prefix',
        user_id: server.init.user_id,
        name: 'earlier',
        key_hash: hashSecret(earlier),
        key_prefix: displayKey(earlier, 'svc_dev_'),
        scopes: JSON.stringify(['memories:read']),
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    expect((await client(server.baseUrl, earlier).get('/v1/dev/user/memories')).status).toBe(200);
    expect(await client(server.baseUrl, `omi_dev_${'0'.repeat(32)}`).get('/v1/dev/key')).toMatchObject(
      INVALID_KEY,
    );
  });
});

import { errorBody, success } from '../../server/src/contract/common';
import { peopleList, person } from '../../server/src/contract/people';
import { newId } from '../../server/src/ids';
import { isUniqueViolation } from '../../server/src/store/db/store-errors';
import { devClient, expect422, expectShape, keyWithScopes, newUser, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/people';

describe.each(DIALECTS)('people on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const countPeople = (userId?: string) =>
    server.count('people', userId === undefined ? {} : { user_id: userId });

  const storedPerson = (id: string) =>
    server.store.db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();

  const createPerson = async (as: Client, name: string, status = 200) => {
    const reply = await as.post(BASE, { name });
    expect(reply.status).toBe(status);
    return expectShape(person, reply.body);
  };

  it('creates, lists by name, renames and deletes people', async () => {
    const user = await newUser(server);
    const bob = await createPerson(user.client, 'bob');
    expect(bob).toMatchObject({ name: 'bob', speech_sample_transcripts: [] });
    expect(bob.created_at).toBe(bob.updated_at);
    const alice = await createPerson(user.client, '  Alice  ');
    expect(alice.name).toBe('Alice');
    const carol = await createPerson(user.client, 'Carol');

    const listed = await user.client.get(BASE);
    expect(listed.status).toBe(200);
    const body = expectShape(peopleList, listed.body);
    expect(body.people.map((p) => p.name)).toEqual(['Alice', 'bob', 'Carol']);
    expect(body.people.find((p) => p.id === bob.id)).toEqual(bob);

    const renamed = await user.client.patch(`${BASE}/${bob.id}`, { name: 'Robert' });
    expect(renamed.status).toBe(200);
    expect(expectShape(person, renamed.body)).toMatchObject({
      id: bob.id,
      name: 'Robert',
      created_at: bob.created_at,
    });
    expect(await storedPerson(bob.id)).toMatchObject({ name: 'Robert', name_key: 'robert' });
    const recased = await user.client.patch(`${BASE}/${carol.id}`, { name: 'CAROL' });
    expect(recased.status).toBe(200);
    expect(recased.body.name).toBe('CAROL');
    const unchanged = await user.client.patch(`${BASE}/${carol.id}`, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.name).toBe('CAROL');
    expect((await user.client.get(BASE)).body.people.map((p: { name: string }) => p.name)).toEqual([
      'Alice',
      'CAROL',
      'Robert',
    ]);

    const deleted = await user.client.delete(`${BASE}/${alice.id}`);
    expect(deleted.status).toBe(200);
    expectShape(success, deleted.body);
    expect(await storedPerson(alice.id)).toBeUndefined();
    expect((await user.client.delete(`${BASE}/${alice.id}`)).status).toBe(404);
    expect(await countPeople(user.id)).toBe(2);
  });

  it('returns the existing person for the same name, whatever its case and spaces', async () => {
    const user = await newUser(server);
    const first = await createPerson(user.client, 'Dana Scully');
    const again = await createPerson(user.client, '  dana SCULLY ', 200);
    expect(again).toEqual(first);
    expect(await countPeople(user.id)).toBe(1);

    const replies = await Promise.all(
      Array.from({ length: 8 }, () => user.client.post(BASE, { name: 'Fox Mulder' })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(await countPeople(user.id)).toBe(2);

    // Names are unique per user, not across users.
    const other = await newUser(server);
    const theirs = await createPerson(other.client, 'Dana Scully');
    expect(theirs.id).not.toBe(first.id);
  });

  it('refuses to rename onto another person’s name with 409', async () => {
    const user = await newUser(server);
    const ann = await createPerson(user.client, 'Ann');
    const ben = await createPerson(user.client, 'Ben');
    const clash = await user.client.patch(`${BASE}/${ben.id}`, { name: ' ann ' });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({
      detail: 'A person named ann already exists: choose another name, or use that person',
    });
    expect(await storedPerson(ben.id)).toMatchObject({ name: 'Ben', name_key: 'ben' });
    expect(await storedPerson(ann.id)).toMatchObject({ name: 'Ann', name_key: 'ann' });
  });

  it('rejects bad names with FastAPI 422s and stores nothing', async () => {
    const existing = await createPerson(api, 'Stable Name');
    const before = await countPeople();
    const missing = await api.post(BASE, {});
    expect422(missing, ['body', 'name']);
    expect(missing.body.detail[0].type).toBe('missing');
    expect422(await api.post(BASE, { name: 'x' }), ['body', 'name']);
    expect422(await api.post(BASE, { name: '  x  ' }), ['body', 'name']);
    expect422(await api.post(BASE, { name: 'x'.repeat(41) }), ['body', 'name']);
    expect422(await api.post(BASE, { name: 42 }), ['body', 'name']);
    expect422(await api.post(BASE, ['Jo']), ['body']);
    expect422(await api.patch(`${BASE}/${existing.id}`, { name: 'y' }), ['body', 'name']);
    expect422(await api.patch(`${BASE}/${existing.id}`, { name: null }), ['body', 'name']);
    expect((await api.post(BASE, { name: 'x'.repeat(40) })).status).toBe(200);
    expect(await countPeople()).toBe(before + 1);
    expect(await storedPerson(existing.id)).toMatchObject({ name: 'Stable Name' });
  });

  it('answers 404 for a missing person and for another user’s', async () => {
    const mine = await createPerson(api, 'Private Person');
    const other = await newUser(server);
    for (const [as, id] of [
      [api, 'no-such-person'],
      [other.client, mine.id],
    ] as const) {
      for (const reply of [
        await as.patch(`${BASE}/${id}`, { name: 'Stolen' }),
        await as.delete(`${BASE}/${id}`),
      ]) {
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ detail: 'Person not found' });
      }
    }
    expect((await other.client.get(BASE)).body).toEqual({ people: [] });
    expect(await storedPerson(mine.id)).toMatchObject({ name: 'Private Person' });
  });

  it('refuses missing credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}${BASE}`);
    expect(anonymous.status).toBe(401);
    expectShape(errorBody, await anonymous.json());

    const existing = await createPerson(api, 'Scoped Person');
    const readOnly = await keyWithScopes(server, ['people:read']);
    const writeOnly = await keyWithScopes(server, ['people:write']);
    const before = await countPeople();
    for (const reply of [
      await readOnly.post(BASE, { name: 'New Person' }),
      await readOnly.patch(`${BASE}/${existing.id}`, { name: 'Renamed' }),
      await readOnly.delete(`${BASE}/${existing.id}`),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: 'Insufficient permissions. Required scope: people:write' });
    }
    const refused = await writeOnly.get(BASE);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions. Required scope: people:read' });
    expect((await readOnly.get(BASE)).status).toBe(200);
    expect(await countPeople()).toBe(before);
    expect(await storedPerson(existing.id)).toMatchObject({ name: 'Scoped Person' });
  });

  it(`recognises ${dialect}'s unique violations and nothing else`, async () => {
    const existing = await storedPerson((await createPerson(api, 'Unique Person')).id);
    const duplicate = server.store.db
      .insertInto('people')
      .values({ ...existing!, id: newId() })
      .execute();
    const uniqueError = await duplicate.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(uniqueError).toBeDefined();
    expect(isUniqueViolation(uniqueError)).toBe(true);

    const foreignKey = server.store.db
      .insertInto('people')
      .values({ ...existing!, id: newId(), user_id: 'no-such-user', name_key: 'someone else' })
      .execute();
    const foreignKeyError = await foreignKey.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(foreignKeyError).toBeDefined();
    expect(isUniqueViolation(foreignKeyError)).toBe(false);
    expect(isUniqueViolation(new Error('boom'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});

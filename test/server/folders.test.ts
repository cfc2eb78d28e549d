import { errorBody, success } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { folder } from '../../server/src/contract/folders';
import { devClient, expect422, expectShape, keyWithScopes, newUser, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/folders';
const CONVERSATIONS = '/v1/dev/user/conversations';

describe.each(DIALECTS)('folders on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const countFolders = () => server.count('folders');

  const storedFolder = (id: string) =>
    server.store.db.selectFrom('folders').selectAll().where('id', '=', id).executeTakeFirst();

  const createFolder = async (as: Client, body: Record<string, unknown>) => {
    const reply = await as.post(BASE, body);
    expect(reply.status).toBe(200);
    return expectShape(folder, reply.body);
  };

  const createConversation = async (as: Client, body: Record<string, unknown>) => {
    const reply = await as.post(CONVERSATIONS, body);
    expect(reply.status).toBe(200);
    return expectShape(conversation, reply.body);
  };

  it('creates, lists with conversation counts, updates and deletes a folder', async () => {
    const user = await newUser(server);
    const created = await createFolder(user.client, {
      name: '  Projects  ',
      description: 'Client work',
      color: '#4f46e5',
    });
    expect(created).toMatchObject({
      name: 'Projects',
      description: 'Client work',
      color: '#4f46e5',
      conversation_count: 0,
    });
    expect(created.created_at).toBe(created.updated_at);
    const bare = await createFolder(user.client, { name: 'Inbox' });
    // Without a color, the real service's default (issue 26, decision 7).
    expect(bare).toMatchObject({ description: null, color: '#6B7280', conversation_count: 0 });

    await createConversation(user.client, { text: 'one', folder_id: created.id });
    await createConversation(user.client, { text: 'two', folder_id: created.id });
    const discarded = await createConversation(user.client, { text: 'three', folder_id: created.id });
    await user.client.patch(`${CONVERSATIONS}/${discarded.id}`, { discarded: true });
    await createConversation(user.client, { text: 'elsewhere' });

    const listed = await user.client.get(BASE);
    expect(listed.status).toBe(200);
    const folders = expectShape(folder.array(), listed.body);
    expect(folders.map((f) => [f.id, f.conversation_count])).toEqual([
      [created.id, 2],
      [bare.id, 0],
    ]);

    const renamed = await user.client.patch(`${BASE}/${created.id}`, { name: 'Archive' });
    expect(renamed.status).toBe(200);
    expect(expectShape(folder, renamed.body)).toMatchObject({
      id: created.id,
      name: 'Archive',
      description: 'Client work',
      color: '#4f46e5',
      conversation_count: 2,
      created_at: created.created_at,
    });
    const cleared = await user.client.patch(`${BASE}/${created.id}`, { color: null, description: 'Old' });
    expect(expectShape(folder, cleared.body)).toMatchObject({
      name: 'Archive',
      description: 'Old',
      color: '#6B7280',
    });
    expect(await storedFolder(created.id)).toMatchObject({
      name: 'Archive',
      description: 'Old',
      color: '#6B7280',
    });
    const noop = await user.client.patch(`${BASE}/${created.id}`, {});
    expect(noop.status).toBe(200);
    expect(noop.body.name).toBe('Archive');

    // Conversations show the new name.
    const inFolder = await user.client.get(CONVERSATIONS, { folder_id: created.id });
    expect(inFolder.body.map((c: { folder_name: string }) => c.folder_name)).toEqual(['Archive', 'Archive']);

    const deleted = await user.client.delete(`${BASE}/${bare.id}`);
    expect(deleted.status).toBe(200);
    expectShape(success, deleted.body);
    expect((await user.client.get(BASE)).body.map((f: { id: string }) => f.id)).toEqual([created.id]);
    expect(await storedFolder(bare.id)).toBeUndefined();
  });

  it('lists folders by their order, then oldest first, as the real service does', async () => {
    // Its GET /v1/dev/user/folders orders by `order`; here the list was oldest first whatever `order` said.
    const user = await newUser(server);
    const names = ['Inbox', 'Work', 'Home', 'Later'];
    const made = [];
    for (const name of names) made.push(await createFolder(user.client, { name }));
    const [inbox, work, home, later] = made;
    for (const [item, order] of [
      [inbox, 2],
      [work, 0],
      [home, 1],
      [later, 1],
    ] as const)
      expect((await user.client.patch(`${BASE}/${item.id}`, { order })).status).toBe(200);
    const listed = await user.client.get(BASE);
    expect(listed.status).toBe(200);
    // Equal orders (Home and Later) keep the order they were made in.
    expect(expectShape(folder.array(), listed.body).map((f) => [f.name, f.order])).toEqual([
      ['Work', 0],
      ['Home', 1],
      ['Later', 1],
      ['Inbox', 2],
    ]);
  });

  it('moves its conversations to no folder when deleted', async () => {
    const user = await newUser(server);
    const doomed = await createFolder(user.client, { name: 'Doomed' });
    const keep = await createFolder(user.client, { name: 'Keep' });
    const a = await createConversation(user.client, { text: 'a', folder_id: doomed.id });
    const b = await createConversation(user.client, { text: 'b', folder_id: doomed.id });
    const c = await createConversation(user.client, { text: 'c', folder_id: keep.id });

    const deleted = await user.client.delete(`${BASE}/${doomed.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });

    for (const id of [a.id, b.id]) {
      const fetched = expectShape(conversation, (await user.client.get(`${CONVERSATIONS}/${id}`)).body);
      expect(fetched).toMatchObject({ folder_id: null, folder_name: null });
    }
    expect((await user.client.get(`${CONVERSATIONS}/${c.id}`)).body).toMatchObject({
      folder_id: keep.id,
      folder_name: 'Keep',
    });
    const rows = await server.store.db
      .selectFrom('conversations')
      .select(['id', 'folder_id'])
      .where('user_id', '=', user.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: a.id, folder_id: null },
      { id: b.id, folder_id: null },
      { id: c.id, folder_id: keep.id },
    ]);
    expect((await user.client.get(BASE)).body.map((f: { id: string }) => f.id)).toEqual([keep.id]);
    expect((await user.client.delete(`${BASE}/${doomed.id}`)).status).toBe(404);
  });

  it('rejects bad bodies with FastAPI 422s and changes nothing', async () => {
    const existing = await createFolder(api, { name: 'Stable', color: '#000000' });
    const before = await countFolders();
    expect422(await api.post(BASE, {}), ['body', 'name']);
    expect422(await api.post(BASE, { name: 42 }), ['body', 'name']);
    expect422(await api.post(BASE, { name: '   ' }), ['body', 'name']);
    expect422(await api.post(BASE, { name: 'x'.repeat(101) }), ['body', 'name']);
    expect422(await api.post(BASE, { name: 'Red', color: 'red' }), ['body', 'color']);
    expect422(await api.post(BASE, { name: 'Desc', description: 5 }), ['body', 'description']);
    expect422(await api.patch(`${BASE}/${existing.id}`, { name: null }), ['body', 'name']);
    expect422(await api.patch(`${BASE}/${existing.id}`, { color: '#12345' }), ['body', 'color']);
    expect(await countFolders()).toBe(before);
    expect(await storedFolder(existing.id)).toMatchObject({ name: 'Stable', color: '#000000' });
  });

  it('answers 404 for a missing folder and for another user’s', async () => {
    const mine = await createFolder(api, { name: 'Mine' });
    const other = await newUser(server);
    for (const [as, id] of [
      [api, 'no-such-folder'],
      [other.client, mine.id],
    ] as const) {
      for (const reply of [
        await as.patch(`${BASE}/${id}`, { name: 'Stolen' }),
        await as.delete(`${BASE}/${id}`),
      ]) {
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ detail: 'Folder not found' });
      }
    }
    expect((await other.client.get(BASE)).body).toEqual([]);
    expect(await storedFolder(mine.id)).toMatchObject({ name: 'Mine' });
  });

  it('refuses missing credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}${BASE}`);
    expect(anonymous.status).toBe(401);
    expectShape(errorBody, await anonymous.json());

    const existing = await createFolder(api, { name: 'Scoped' });
    const readOnly = await keyWithScopes(server, ['conversations:read']);
    const writeOnly = await keyWithScopes(server, ['conversations:write']);
    const before = await countFolders();
    for (const reply of [
      await readOnly.post(BASE, { name: 'x' }),
      await readOnly.patch(`${BASE}/${existing.id}`, { name: 'x' }),
      await readOnly.delete(`${BASE}/${existing.id}`),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: 'Insufficient permissions. Required scope: conversations:write' });
    }
    const refused = await writeOnly.get(BASE);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions. Required scope: conversations:read' });
    expect((await readOnly.get(BASE)).status).toBe(200);
    expect(await countFolders()).toBe(before);
    expect(await storedFolder(existing.id)).toMatchObject({ name: 'Scoped' });
  });
});

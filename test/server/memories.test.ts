import { errorBody, success, validationErrorBody } from '../../server/src/contract/common';
import { memoriesBatch, memory } from '../../server/src/contract/memories';
import { devClient, expectShape, keyWithScopes, newUser } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/memories';

describe.each(DIALECTS)('memories on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const countFor = (userId: string) => server.count('memories', { user_id: userId });

  it('creates, lists, updates and deletes a memory', async () => {
    const created = await api.post(BASE, { content: 'Prefers green tea', tags: ['food'] });
    expect(created.status).toBe(200);
    const item = expectShape(memory, created.body);
    expect(item).toMatchObject({
      content: 'Prefers green tea',
      category: 'manual',
      visibility: 'private',
      tags: ['food'],
    });
    expect(item.created_at).toBe(item.updated_at);

    const listed = await api.get(BASE);
    expect(listed.status).toBe(200);
    expect(expectShape(memory.array(), listed.body).find((m) => m.id === item.id)).toEqual(item);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await api.patch(`${BASE}/${item.id}`, { category: 'interesting', tags: [] });
    expect(updated.status).toBe(200);
    const after = expectShape(memory, updated.body);
    expect(after).toMatchObject({
      id: item.id,
      content: 'Prefers green tea',
      category: 'interesting',
      tags: [],
    });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(item.updated_at));
    expect(after.created_at).toBe(item.created_at);
    // The change was stored, not only echoed.
    const relisted = expectShape(memory.array(), (await api.get(BASE)).body);
    expect(relisted.find((m) => m.id === item.id)).toEqual(after);

    const deleted = await api.delete(`${BASE}/${item.id}`);
    expect(deleted.status).toBe(200);
    expectShape(success, deleted.body);
    const again = await api.delete(`${BASE}/${item.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Memory not found' });
    expect((await api.patch(`${BASE}/${item.id}`, { content: 'x' })).status).toBe(404);
  });

  it('stores a tag sent twice, or again with spaces around it, once (create, batch and PATCH)', async () => {
    const created = await api.post(BASE, {
      content: 'Tagged twice',
      tags: ['work', ' work ', 'home', 'Work'],
    });
    expect(created.status).toBe(200);
    // Case is kept: `Work` is stored as given, a tag of its own.
    expect(expectShape(memory, created.body).tags).toEqual(['work', 'home', 'Work']);

    const batch = await api.post(`${BASE}/batch`, {
      memories: [{ content: 'In a batch', tags: ['a', 'a ', 'b'] }],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.memories[0].tags).toEqual(['a', 'b']);

    const id = created.body.id as string;
    const patched = await api.patch(`${BASE}/${id}`, { tags: ['x', 'x', ' y', 'y'] });
    expect(expectShape(memory, patched.body).tags).toEqual(['x', 'y']);
    // The same tags again, repeated, change nothing: updated_at stays.
    const again = await api.patch(`${BASE}/${id}`, { tags: ['x', ' x', 'y'] });
    expect(again.body).toEqual(patched.body);
    expect((await api.get(BASE, { limit: 1000 })).body.find((m: { id: string }) => m.id === id)).toEqual(
      patched.body,
    );
  });

  it('lists newest first with limit, offset and a categories filter', async () => {
    const user = await newUser(server);
    const made: string[] = [];
    for (const [i, category] of ['manual', 'interesting', 'system', 'interesting', 'manual'].entries()) {
      const reply = await user.client.post(BASE, { content: `fact ${i}`, category });
      expect(reply.status).toBe(200);
      made.push(reply.body.id);
    }
    const newestFirst = [...made].reverse();

    const all = expectShape(memory.array(), (await user.client.get(BASE)).body);
    expect(all.map((m) => m.id)).toEqual(newestFirst);

    const page = expectShape(memory.array(), (await user.client.get(BASE, { limit: 2, offset: 1 })).body);
    expect(page.map((m) => m.id)).toEqual(newestFirst.slice(1, 3));

    const filtered = expectShape(
      memory.array(),
      (await user.client.get(BASE, { categories: 'interesting, system' })).body,
    );
    expect(filtered.map((m) => m.category)).toEqual(['interesting', 'system', 'interesting']);
    expect(filtered.map((m) => m.id)).toEqual([made[3], made[2], made[1]]);

    const unknown = await user.client.get(BASE, { categories: 'interesting,bogus' });
    expect(unknown.status).toBe(422);
    expect(expectShape(validationErrorBody, unknown.body).detail[0].loc).toEqual(['query', 'categories']);
  });

  it('creates a batch in input order, or nothing when one entry is bad', async () => {
    const user = await newUser(server);
    const entries = Array.from({ length: 25 }, (_, i) => ({ content: `batch fact ${i}`, tags: [`t${i}`] }));
    const batch = await user.client.post(`${BASE}/batch`, { memories: entries });
    expect(batch.status).toBe(200);
    const body = expectShape(memoriesBatch.response, batch.body);
    expect(body.created_count).toBe(25);
    expect(body.memories.map((m) => m.content)).toEqual(entries.map((e) => e.content));
    expect(body.memories.map((m) => m.tags)).toEqual(entries.map((e) => e.tags));
    expect(await countFor(user.id)).toBe(25);

    const bad = await user.client.post(`${BASE}/batch`, {
      memories: [{ content: 'fine' }, { content: 'bad category', category: 'nope' }, { content: 'fine too' }],
    });
    expect(bad.status).toBe(422);
    expect(expectShape(validationErrorBody, bad.body).detail[0].loc).toEqual([
      'body',
      'memories',
      1,
      'category',
    ]);

    const tooMany = await user.client.post(`${BASE}/batch`, {
      memories: Array.from({ length: 26 }, (_, i) => ({ content: `x${i}` })),
    });
    expect(tooMany.status).toBe(422);
    expect(expectShape(validationErrorBody, tooMany.body).detail[0].loc).toEqual(['body', 'memories']);

    // An empty batch creates nothing, and is no error (as on the real service).
    const empty = await user.client.post(`${BASE}/batch`, { memories: [] });
    expect(empty.status).toBe(200);
    expect(await countFor(user.id)).toBe(25);
  });

  it('validates bodies and query parameters with FastAPI bodies', async () => {
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const reply = await api.get(BASE, { limit });
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', 'limit']);
    }
    const offset = await api.get(BASE, { offset: -1 });
    expect(offset.status).toBe(422);
    expect(offset.body.detail[0].loc).toEqual(['query', 'offset']);

    const cases: [unknown, (string | number)[]][] = [
      [{ content: 42 }, ['body', 'content']],
      [{}, ['body', 'content']],
      [{ content: '   ' }, ['body', 'content']],
      [{ content: 'ok', tags: 'not-a-list' }, ['body', 'tags']],
      [{ content: 'ok', tags: ['fine', 7] }, ['body', 'tags', 1]],
      [{ content: 'ok', visibility: 'everyone' }, ['body', 'visibility']],
    ];
    for (const [payload, loc] of cases) {
      const reply = await api.post(BASE, payload);
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(loc);
    }

    const mine = await api.post(BASE, { content: 'to patch' });
    const patch = await api.patch(`${BASE}/${mine.body.id}`, { category: 'secret' });
    expect(patch.status).toBe(422);
    expect(patch.body.detail[0].loc).toEqual(['body', 'category']);
    const batchType = await api.post(`${BASE}/batch`, { memories: 'none' });
    expect(batchType.status).toBe(422);
    expect(batchType.body.detail[0].loc).toEqual(['body', 'memories']);
  });

  it('refuses missing and wrong credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}${BASE}`);
    expect(anonymous.status).toBe(401);
    expectShape(errorBody, await anonymous.json());
    const wrong = await fetch(`${server.baseUrl}${BASE}`, {
      headers: { authorization: 'Bearer svc_dev_nope' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ detail: 'Invalid API Key' });

    const existing = await api.post(BASE, { content: 'scoped' });
    const writeOnly = await keyWithScopes(server, ['memories:write']);
    const list = await writeOnly.get(BASE);
    expect(list.status).toBe(403);
    expect(list.body).toEqual({ detail: 'Insufficient permissions. Required scope: memories:read' });

    const readOnly = await keyWithScopes(server, ['memories:read']);
    const writes = [
      readOnly.post(BASE, { content: 'x' }),
      readOnly.post(`${BASE}/batch`, { memories: [{ content: 'x' }] }),
      readOnly.patch(`${BASE}/${existing.body.id}`, { content: 'x' }),
      readOnly.delete(`${BASE}/${existing.body.id}`),
    ];
    for (const reply of await Promise.all(writes)) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: 'Insufficient permissions. Required scope: memories:write' });
    }
    expect((await readOnly.get(BASE)).status).toBe(200);
  });

  it("hides another user's memories", async () => {
    const other = await newUser(server);
    const mine = await api.post(BASE, { content: 'mine only' });
    expect(mine.status).toBe(200);
    const patch = await other.client.patch(`${BASE}/${mine.body.id}`, { content: 'stolen' });
    expect(patch.status).toBe(404);
    expect(patch.body).toEqual({ detail: 'Memory not found' });
    const del = await other.client.delete(`${BASE}/${mine.body.id}`);
    expect(del.status).toBe(404);
    expect(expectShape(memory.array(), (await other.client.get(BASE)).body)).toEqual([]);
    const still = expectShape(memory.array(), (await api.get(BASE, { limit: 1000 })).body);
    expect(still.find((m) => m.id === mine.body.id)?.content).toBe('mine only');
  });
});

import { actionItem, actionItemsBatch } from '../../server/src/contract/action-items';
import { errorBody, success, validationErrorBody } from '../../server/src/contract/common';
import { devClient, expectShape, keyWithScopes, newUser } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

describe.each(DIALECTS)('action items on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const count = () => server.count('action_items');

  it('creates, lists, updates and deletes an action item', async () => {
    const created = await api.post('/v1/dev/user/action-items', {
      description: 'Send the report',
      due_at: '2026-12-01T10:00:00+02:00',
    });
    expect(created.status).toBe(200);
    const item = expectShape(actionItem, created.body);
    expect(item).toMatchObject({ description: 'Send the report', completed: false, completed_at: null });
    expect(item.due_at).toBe('2026-12-01T08:00:00.000Z');

    const listed = await api.get('/v1/dev/user/action-items');
    expect(listed.status).toBe(200);
    expect(expectShape(actionItem.array(), listed.body).map((i) => i.id)).toContain(item.id);

    const completed = await api.patch(`/v1/dev/user/action-items/${item.id}`, { completed: true });
    expect(completed.status).toBe(200);
    expect(expectShape(actionItem, completed.body).completed_at).not.toBeNull();
    expect(completed.body.description).toBe('Send the report');

    const reopened = await api.patch(`/v1/dev/user/action-items/${item.id}`, {
      completed: false,
      due_at: null,
    });
    expect(reopened.body).toMatchObject({ completed: false, completed_at: null, due_at: null });

    const deleted = await api.delete(`/v1/dev/user/action-items/${item.id}`);
    expect(deleted.status).toBe(200);
    expectShape(success, deleted.body);
    expect((await api.delete(`/v1/dev/user/action-items/${item.id}`)).status).toBe(404);
  });

  it('creates a batch in input order, or nothing when one entry is bad', async () => {
    const entries = Array.from({ length: 50 }, (_, i) => ({ description: `task ${i}` }));
    const batch = await api.post('/v1/dev/user/action-items/batch', { action_items: entries });
    expect(batch.status).toBe(200);
    const body = expectShape(actionItemsBatch.response, batch.body);
    expect(body.created_count).toBe(50);
    expect(body.action_items.map((i) => i.description)).toEqual(entries.map((e) => e.description));

    const before = await count();
    const bad = await api.post('/v1/dev/user/action-items/batch', {
      action_items: [{ description: 'fine' }, { description: 'also fine', due_at: 'not a date' }],
    });
    expect(bad.status).toBe(422);
    expectShape(validationErrorBody, bad.body);
    expect(bad.body.detail[0].loc).toEqual(['body', 'action_items', 1, 'due_at']);
    const tooMany = await api.post('/v1/dev/user/action-items/batch', {
      action_items: Array.from({ length: 51 }, (_, i) => ({ description: `x${i}` })),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0].loc).toEqual(['body', 'action_items']);
    expect(await count()).toBe(before);
  });

  it('validates limit with FastAPI bodies', async () => {
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const reply = await api.get('/v1/dev/user/action-items', { limit });
      expect(reply.status).toBe(422);
      const body = expectShape(validationErrorBody, reply.body);
      expect(body.detail[0].loc).toEqual(['query', 'limit']);
    }
  });

  it('refuses missing and wrong credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}/v1/dev/user/action-items`);
    expect(anonymous.status).toBe(401);
    expectShape(errorBody, await anonymous.json());
    const readOnly = await keyWithScopes(server, ['action_items:read']);
    const refused = await readOnly.post('/v1/dev/user/action-items', { description: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'Insufficient permissions. Required scope: action_items:write' });
  });

  it("hides another user's items", async () => {
    const other = await newUser(server);
    const mine = await api.post('/v1/dev/user/action-items', { description: 'mine' });
    const reply = await other.client.patch(`/v1/dev/user/action-items/${mine.body.id}`, { completed: true });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Action item not found' });
    expect(
      expectShape(actionItem.array(), (await other.client.get('/v1/dev/user/action-items')).body),
    ).toEqual([]);
  });
});

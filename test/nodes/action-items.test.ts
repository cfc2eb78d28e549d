import { actionItem, actionItemsBatch, MAX_ACTION_ITEM_BATCH } from '../../server/src/contract/action-items';
import { success } from '../../server/src/contract/common';
import { devClient, expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

/** A user with `count` action items made through the batch API, and credentials for the node. */
async function userWithActionItems(count: number) {
  const user = await newUser(server);
  for (let start = 0; start < count; start += MAX_ACTION_ITEM_BATCH) {
    const size = Math.min(MAX_ACTION_ITEM_BATCH, count - start);
    const reply = await user.client.post('/v1/dev/user/action-items/batch', {
      action_items: Array.from({ length: size }, (_, i) => ({ description: `task ${start + i}` })),
    });
    expect(reply.status).toBe(200);
  }
  return { ...user, credentials: credentialsFor(server, user.key) };
}

describe('Action Item → Create', () => {
  test('creates one action item per input item, with the optional fields converted for the wire', async () => {
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'create',
        description: '={{ $json.task }}',
        additionalFields: { completed: true, dueAt: '2026-11-21T09:30:00' },
      },
      {
        items: [{ task: 'Send the contract' }, { task: 'Book the room' }],
        settings: { timezone: 'Europe/Berlin' },
      },
    );
    const out = jsonOut(result).map((json) => expectShape(actionItem, json));
    expect(out.map((a) => a.description)).toEqual(['Send the contract', 'Book the room']);
    // 09:30 on the workflow's clock in Berlin (UTC+1 in November) is 08:30 UTC.
    expect(out.every((a) => a.due_at === '2026-11-21T08:30:00.000Z')).toBe(true);
    expect(out.every((a) => a.completed && a.completed_at !== null)).toBe(true);
    expect(result.output(NODE).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
  });

  test('a Conversation ID that is empty (an expression finding none) is left out, not refused', async () => {
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'create',
        description: '={{ $json.task }}',
        additionalFields: { conversationId: '={{ $json.conversation ?? "" }}' },
      },
      { items: [{ task: 'Call back' }] },
    );
    expect(result.error).toBeUndefined();
    expect(expectShape(actionItem, jsonOut(result)[0])).toMatchObject({
      description: 'Call back',
      conversation_id: null,
    });
  });

  test('a Conversation ID that does not exist is named as the record not found', async () => {
    const result = await runDevData(server, {
      resource: 'actionItem',
      operation: 'create',
      description: 'Call back',
      additionalFields: { conversationId: 'no-such-conversation' },
    });
    expect(result.error?.message).toBe(
      'Conversation not found: no conversation with ID "no-such-conversation" exists for this user',
    );
  });

  test('keeps the instant of a date-time that has an offset', async () => {
    const result = await runDevData(server, {
      resource: 'actionItem',
      operation: 'create',
      description: 'Call back',
      additionalFields: { dueAt: '2026-11-21T09:30:00-05:00' },
    });
    expect(expectShape(actionItem, jsonOut(result)[0]).due_at).toBe('2026-11-21T14:30:00.000Z');
  });

  test('reads a date-time written otherwise ("11/21/2026 09:30", as a spreadsheet holds it) in the workflow timezone', async () => {
    const due = async (dueAt: string) => {
      const result = await runDevData(
        server,
        {
          resource: 'actionItem',
          operation: 'create',
          description: 'Call back',
          additionalFields: { dueAt },
        },
        { settings: { timezone: 'America/New_York' } },
      );
      return expectShape(actionItem, jsonOut(result)[0]).due_at;
    };
    // 09:30 in New York (UTC-5 in November) is 14:30 UTC, not 09:30 on the clock of the n8n process.
    expect(await due('11/21/2026 09:30')).toBe('2026-11-21T14:30:00.000Z');
    expect(await due('Sat, 21 Nov 2026 09:30:00')).toBe('2026-11-21T14:30:00.000Z');
    // One that names its zone keeps its instant.
    expect(await due('Sat, 21 Nov 2026 09:30:00 GMT')).toBe('2026-11-21T09:30:00.000Z');
    expect(await due('Sat, 21 Nov 2026 09:30:00 +0200')).toBe('2026-11-21T07:30:00.000Z');
  });
});

describe('a date alone as Due At is due at the end of that UTC day, whatever the workflow timezone', () => {
  const END_OF_DAY = '2026-12-01T23:59:59.999Z';

  test('Create', async () => {
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'create',
        description: 'File the report',
        additionalFields: { dueAt: '2026-12-01' },
      },
      { settings: { timezone: 'America/Los_Angeles' } },
    );
    const created = expectShape(actionItem, jsonOut(result)[0]);
    expect(created.due_at).toBe(END_OF_DAY);
    // Stored so: the server lists it back the same.
    const stored = await devClient(server).get('/v1/dev/user/action-items', { limit: 1000 });
    expect(stored.body.find((a: { id: string }) => a.id === created.id)?.due_at).toBe(END_OF_DAY);
  });

  test('Create Many', async () => {
    const user = await newUser(server);
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'createMany',
        description: '={{ $json.task }}',
        additionalFields: { dueAt: '={{ $json.due }}' },
      },
      {
        items: [
          { task: 'first', due: '2026-12-01' },
          { task: 'second', due: '2026-12-02T08:00:00Z' },
        ],
        settings: { timezone: 'Asia/Tokyo' },
        credentials: credentialsFor(server, user.key),
      },
    );
    expect(jsonOut(result).map((json) => expectShape(actionItem, json).due_at)).toEqual([
      END_OF_DAY,
      '2026-12-02T08:00:00.000Z',
    ]);
  });

  test('Update', async () => {
    const { body } = await devClient(server).post('/v1/dev/user/action-items', { description: 'to move' });
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'update',
        actionItemId: body.id,
        updateFields: { dueAt: ' 2026-12-01 ' },
      },
      { settings: { timezone: 'Europe/Berlin' } },
    );
    expect(expectShape(actionItem, jsonOut(result)[0])).toMatchObject({ id: body.id, due_at: END_OF_DAY });
  });

  test('a day that does not exist is refused before anything is sent, by the field’s display name', async () => {
    const before = server.requestsTo('POST', '/v1/dev/user/action-items').length;
    const result = await runDevData(server, {
      resource: 'actionItem',
      operation: 'create',
      description: 'never',
      additionalFields: { dueAt: '2026-02-30' },
    });
    expect(result.error?.message).toBe('Due At: "2026-02-30" is not a valid date and time (input item 0)');
    expect(server.requestsTo('POST', '/v1/dev/user/action-items')).toHaveLength(before);
  });
});

describe('Action Item → Create Many', () => {
  test('120 input items become 120 action items in exactly 3 requests, in input order, each paired with its item', async () => {
    const user = await newUser(server);
    const before = server.requestsTo('POST', '/v1/dev/user/action-items/batch').length;
    const items = Array.from({ length: 120 }, (_, i) => ({ task: `item ${i}`, done: i % 3 === 0 }));
    const result = await runDevData(
      server,
      {
        resource: 'actionItem',
        operation: 'createMany',
        description: '={{ $json.task }}',
        additionalFields: { completed: '={{ $json.done }}' },
      },
      { items, credentials: credentialsFor(server, user.key) },
    );

    const batches = server.requestsTo('POST', '/v1/dev/user/action-items/batch').slice(before);
    expect(batches).toHaveLength(3);
    expect(batches.every((r) => r.status === 200)).toBe(true);

    const output = result.output(NODE);
    expect(output).toHaveLength(120);
    output.forEach((item, i) => {
      const created = expectShape(actionItem, item.json);
      expect(item.pairedItem).toEqual({ item: i });
      expect(created.description).toBe(`item ${i}`);
      expect(created.completed).toBe(i % 3 === 0);
    });
    // The server holds exactly these, once each.
    const stored = await user.client.get('/v1/dev/user/action-items', { limit: 1000 });
    expect(stored.body).toHaveLength(120);
    expect(new Set(stored.body.map((a: { id: string }) => a.id))).toEqual(
      new Set(output.map((i) => i.json.id)),
    );
    // Each batch response matches the contract (checked on one, made the same way as the node's).
    const direct = await user.client.post('/v1/dev/user/action-items/batch', {
      action_items: [{ description: 'x' }],
    });
    expectShape(actionItemsBatch.response, direct.body);
  });

  test('a 422 in a batch names the input item and the field; nothing of that batch is created', async () => {
    const user = await newUser(server);
    const items = Array.from({ length: 60 }, (_, i) => ({ task: i === 55 ? '   ' : `item ${i}` }));
    const result = await runDevData(
      server,
      { resource: 'actionItem', operation: 'createMany', description: '={{ $json.task }}' },
      { items, credentials: credentialsFor(server, user.key) },
    );
    expect(result.error?.message).toMatch(
      /^Invalid input: body\.action_items\[5\]\.description: .+ \(input item 55\)$/,
    );
    expect(result.error?.context.itemIndex).toBe(55);
    // The first batch (items 0–49) was created; the second (50–59) was refused whole. The error says so.
    expect(result.error?.description).toMatch(
      /Input items 0–49 were created before this batch failed, and stay created: running the node again creates them again/,
    );
    const stored = await user.client.get('/v1/dev/user/action-items', { limit: 1000 });
    expect(stored.body).toHaveLength(50);
  });

  test('with Continue On Fail, every item of the refused batch carries the error and the others are created', async () => {
    const user = await newUser(server);
    const items = Array.from({ length: 60 }, (_, i) => ({ task: i === 55 ? '   ' : `item ${i}` }));
    const result = await runDevData(
      server,
      { resource: 'actionItem', operation: 'createMany', description: '={{ $json.task }}' },
      { items, onError: 'continueRegularOutput', credentials: credentialsFor(server, user.key) },
    );
    const output = result.output(NODE);
    expect(result.error).toBeUndefined();
    expect(output).toHaveLength(60);
    output.forEach((item, i) => {
      expect(item.pairedItem).toEqual({ item: i });
      if (i < 50) expectShape(actionItem, item.json);
      else expect(item.json.error).toMatch(/body\.action_items\[5\]\.description: .+ \(input item 55\)$/);
    });
  });
});

describe('Action Item → Get Many', () => {
  let user: Awaited<ReturnType<typeof userWithActionItems>>;
  let all: string[];
  beforeAll(async () => {
    user = await userWithActionItems(2_150);
    const pages = await Promise.all(
      [0, 1000, 2000].map((offset) => user.client.get('/v1/dev/user/action-items', { limit: 1000, offset })),
    );
    all = pages.flatMap((p) => p.body.map((a: { id: string }) => a.id));
    expect(all).toHaveLength(2_150);
  });

  const getMany = (params: Record<string, unknown>) =>
    runDevData(
      server,
      { resource: 'actionItem', operation: 'getAll', ...params },
      { credentials: user.credentials },
    );

  test('Return All reads every page (3 of 1000) and returns every record exactly once, one item each', async () => {
    const before = server.requests.length;
    const out = jsonOut(await getMany({ returnAll: true }));
    expect(out.map((a) => a.id)).toEqual(all);
    out.forEach((json) => expectShape(actionItem, json));
    const pages = server.requests.slice(before).filter((r) => r.path === '/v1/dev/user/action-items');
    expect(pages.map((r) => [r.query.get('limit'), r.query.get('offset')])).toEqual([
      ['1000', '0'],
      ['1000', '1000'],
      ['1000', '2000'],
    ]);
  });

  test('a Limit smaller than a page takes one request for just that many', async () => {
    const before = server.requests.length;
    const out = jsonOut(await getMany({ returnAll: false, limit: 7 }));
    expect(out.map((a) => a.id)).toEqual(all.slice(0, 7));
    const pages = server.requests.slice(before).filter((r) => r.path === '/v1/dev/user/action-items');
    expect(pages.map((r) => [r.query.get('limit'), r.query.get('offset')])).toEqual([['7', '0']]);
  });

  test('a Limit larger than a page reads on into the next page and stops at the limit', async () => {
    const before = server.requests.length;
    const out = jsonOut(await getMany({ returnAll: false, limit: 1_500 }));
    expect(out.map((a) => a.id)).toEqual(all.slice(0, 1_500));
    const pages = server.requests.slice(before).filter((r) => r.path === '/v1/dev/user/action-items');
    expect(pages.map((r) => [r.query.get('limit'), r.query.get('offset')])).toEqual([
      ['1000', '0'],
      ['500', '1000'],
    ]);
  });

  test('filters are sent as query parameters', async () => {
    const client = devClient(server);
    const done = await client.post('/v1/dev/user/action-items', { description: 'done one', completed: true });
    const out = jsonOut(
      await runDevData(server, {
        resource: 'actionItem',
        operation: 'getAll',
        returnAll: true,
        filters: { completed: true, startDate: done.body.created_at },
      }),
    );
    expect(out.map((a) => a.id)).toEqual([done.body.id]);
  });
});

describe('Action Item → Update', () => {
  async function created() {
    const reply = await devClient(server).post('/v1/dev/user/action-items', {
      description: 'original',
      due_at: '2026-12-01T10:00:00Z',
    });
    expect(reply.status).toBe(200);
    return reply.body as { id: string };
  }

  test('sends only the fields set: the others keep their values', async () => {
    const { id } = await created();
    const out = jsonOut(
      await runDevData(server, {
        resource: 'actionItem',
        operation: 'update',
        actionItemId: id,
        updateFields: { completed: true },
      }),
    );
    const updated = expectShape(actionItem, out[0]);
    expect(updated).toMatchObject({
      id,
      description: 'original',
      completed: true,
      due_at: '2026-12-01T10:00:00.000Z',
    });
    expect(updated.completed_at).not.toBeNull();
  });

  test('Clear Due Date removes the due date (due_at: null)', async () => {
    const { id } = await created();
    const out = jsonOut(
      await runDevData(server, {
        resource: 'actionItem',
        operation: 'update',
        actionItemId: id,
        updateFields: { clearDueAt: true, description: 'renamed' },
      }),
    );
    expect(expectShape(actionItem, out[0])).toMatchObject({ id, description: 'renamed', due_at: null });
  });

  test('refuses a due date and Clear Due Date together', async () => {
    const { id } = await created();
    const result = await runDevData(server, {
      resource: 'actionItem',
      operation: 'update',
      actionItemId: id,
      updateFields: { clearDueAt: true, dueAt: '2026-12-24T12:00:00Z' },
    });
    expect(result.error?.message).toBe('Set either "Due At" or "Clear Due Date", not both (input item 0)');
  });

  test('an empty Due At is left out, so one node can set or clear the due date by expression', async () => {
    const { id } = await created();
    const out = jsonOut(
      await runDevData(server, {
        resource: 'actionItem',
        operation: 'update',
        actionItemId: id,
        updateFields: { dueAt: '', clearDueAt: true, completed: true },
      }),
    );
    expect(expectShape(actionItem, out[0])).toMatchObject({ id, completed: true, due_at: null });
  });

  test("a 422 carries the field path and the server's message", async () => {
    const { id } = await created();
    const result = await runDevData(server, {
      resource: 'actionItem',
      operation: 'update',
      actionItemId: id,
      updateFields: { description: 'x'.repeat(2001) },
    });
    expect(result.error?.message).toMatch(/^Invalid input: body\.description: .+/);
    expect((result.error as { httpCode?: string }).httpCode).toBe('422');
  });
});

describe('Action Item → Delete', () => {
  test('deletes, and a second delete is a 404 naming the action item', async () => {
    const { body } = await devClient(server).post('/v1/dev/user/action-items', { description: 'to delete' });
    const params = { resource: 'actionItem', operation: 'delete', actionItemId: body.id };
    expectShape(success, jsonOut(await runDevData(server, params))[0]);

    const again = await runDevData(server, params);
    expect(again.error?.message).toBe(
      `Action item not found: no action item with ID "${body.id}" exists for this user`,
    );
    expect(again.error?.description).toBe('Action item not found');
  });
});

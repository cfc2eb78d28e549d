import { description as conversationSearch } from '../../nodes/DevData/actions/conversation/search.operation';
import { description as memorySearch } from '../../nodes/DevData/actions/memory/search.operation';
import { actionItem } from '../../server/src/contract/action-items';
import { conversationSearchResult, memorySearchResult } from '../../server/src/contract/search';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

async function freshUser() {
  const user = await newUser(server);
  const credentials = credentialsFor(server, user.key);
  const run = (params: Record<string, unknown>) => runDevData(server, params, { credentials });
  return { ...user, run };
}

test('Conversation → Search finds by words and phrases within the dates given, most relevant first', async () => {
  const { client, run } = await freshUser();
  const create = async (title: string, text: string, startedAt: string) =>
    (await client.post('/v1/dev/user/conversations', { text, started_at: startedAt, structured: { title } }))
      .body.id as string;
  const budget = await create('Budget review', 'The budget for travel.', '2026-04-01T09:00:00Z');
  const travel = await create(
    'Trip plans',
    'Anna booked travel; the budget is tight.',
    '2026-04-02T09:00:00Z',
  );
  await (await freshUser()).client.post('/v1/dev/user/conversations', { text: 'budget travel budget' });

  const found = async (params: Record<string, unknown>) =>
    jsonOut(await run({ resource: 'conversation', operation: 'search', simplify: false, ...params })).map(
      (json) => expectShape(conversationSearchResult, json).conversation.id,
    );
  expect(await found({ query: 'budget travel' })).toEqual([budget, travel]);
  expect(await found({ query: '"Anna booked"' })).toEqual([travel]);
  expect(await found({ query: 'budget', limit: 1 })).toEqual([budget]);
  expect(await found({ query: 'budget', filters: { startDate: '2026-04-02' } })).toEqual([travel]);
  expect(await found({ query: 'budget', filters: { endDate: '2026-04-01' } })).toEqual([budget]);
  expect(await found({ query: 'zeppelin' })).toEqual([]);

  const [withTranscript] = jsonOut(
    await run({
      resource: 'conversation',
      operation: 'search',
      query: 'Anna',
      simplify: false,
      options: { includeTranscript: true },
    }),
  );
  expect(withTranscript.conversation.transcript_segments[0].text).toBe(
    'Anna booked travel; the budget is tight.',
  );

  const refused = await run({ resource: 'conversation', operation: 'search', query: '***' });
  expect(refused.error?.message).toMatch(/query/);
});

test('Conversation → Search finds a live session still open only with Include In Progress, as in_progress', async () => {
  const { client, run } = await freshUser();
  const session = await client.post('/v1/dev/user/transcripts/pelican-session/segments', {
    segments: [{ text: 'Pelican migration', start: 0, end: 1 }],
  });
  const id = session.body.conversation_id as string;
  const found = async (options: Record<string, unknown>) =>
    jsonOut(await run({ resource: 'conversation', operation: 'search', query: 'pelican', options })).map(
      ({ id, status }) => ({ id, status }),
    );

  expect(await found({})).toEqual([]);
  expect(await found({ includeInProgress: true })).toEqual([{ id, status: 'in_progress' }]);
  expect(await found({ includeInProgress: false })).toEqual([]);

  expect((await client.post('/v1/dev/user/transcripts/pelican-session/finish')).status).toBe(200);
  expect(await found({})).toEqual([{ id, status: 'completed' }]);
});

test('Memory → Search finds by words within the categories given', async () => {
  const { client, run } = await freshUser();
  const remember = async (content: string, category: string) =>
    (await client.post('/v1/dev/user/memories', { content, category })).body.id as string;
  const coffee = await remember('Drinks black coffee every morning', 'manual');
  const tea = await remember('Drinks green tea in the morning', 'interesting');
  const found = async (params: Record<string, unknown>) =>
    jsonOut(await run({ resource: 'memory', operation: 'search', simplify: false, ...params })).map(
      (json) => expectShape(memorySearchResult, json).memory.id,
    );
  expect(await found({ query: 'coffee' })).toEqual([coffee]);
  expect(await found({ query: 'drinking mornings' })).toEqual(expect.arrayContaining([coffee, tea]));
  expect(await found({ query: 'morning', filters: { categories: ['interesting'] } })).toEqual([tea]);
});

test('Action Item → Get Many with Search Text returns the matching items, most relevant first', async () => {
  const { client, run } = await freshUser();
  const add = async (description: string) =>
    (await client.post('/v1/dev/user/action-items', { description })).body.id as string;
  const one = await add('Send the invoice to Anna');
  const many = await add('Invoice invoices for the invoice run');
  await add('Water the plants');
  const found = jsonOut(
    await run({
      resource: 'actionItem',
      operation: 'getAll',
      returnAll: true,
      filters: { query: 'invoicing' },
    }),
  ).map((json) => expectShape(actionItem, json).id);
  expect(found).toEqual([many, one]);
});

test('a Search the server refuses fails on the item that asked it, named by its index', async () => {
  const { run } = await freshUser();
  const tooLong = 'word '.repeat(120);
  for (const resource of ['conversation', 'memory']) {
    const result = await runDevData(
      server,
      { resource, operation: 'search', query: '={{ $json.q }}' },
      {
        credentials: credentialsFor(server, (await newUser(server)).key),
        items: [{ q: 'fine' }, { q: tooLong }],
      },
    );
    expect({ resource, itemIndex: result.error?.context.itemIndex }).toEqual({ resource, itemIndex: 1 });
    expect(result.error?.message).toMatch(/query/);
  }
  expect(jsonOut(await run({ resource: 'memory', operation: 'search', query: 'fine' }))).toEqual([]);
});

test('the Search parameters tell a model what to fill in', () => {
  for (const property of [...conversationSearch, ...memorySearch]) {
    expect({ name: property.name, description: property.description }).toEqual({
      name: property.name,
      description: expect.stringMatching(/\w{3,}/),
    });
  }
  const query = conversationSearch.find((p) => p.name === 'query')!;
  expect(query).toMatchObject({ required: true, type: 'string' });
  expect(query.description).toMatch(/double quotes/);
});

// The record pickers: each resource locator's "From List" search and the folder dropdowns, run by n8n-core's
// LoadOptionsContext against the real server, and operations run with the locator values n8n saves.
import { NodeApiError } from 'n8n-workflow';
import { goal } from '../../server/src/contract/goals';
import { expectShape, newUser, type Client } from '../helpers/http';
import { forSuite } from '../helpers/server';
import {
  credentialsFor,
  jsonOut,
  listSearch,
  loadOptions,
  runDevData,
  startNodeTestServer,
  type TestCredentials,
} from './helpers';

const server = forSuite(() => startNodeTestServer());
let api: Client;
let credentials: TestCredentials;
beforeAll(async () => {
  const user = await newUser(server);
  api = user.client;
  credentials = credentialsFor(server, user.key);
});

async function created(reply: Promise<{ status: number; body: any }>) {
  const { status, body } = await reply;
  expect(status).toBe(200);
  return body as { id: string };
}

test('goals: every goal, inactive ones too, named with their status; the filter narrows by title', async () => {
  const run = await created(api.post('/v1/dev/user/goals', { title: 'Run 100 km', target_value: 100 }));
  const read = await created(api.post('/v1/dev/user/goals', { title: 'Read 12 books', target_value: 12 }));
  expect((await api.delete(`/v1/dev/user/goals/${read.id}`)).status).toBe(200);

  const all = await listSearch(credentials, 'searchGoals', { resource: 'goal', operation: 'get' });
  expect(all.results).toEqual(
    expect.arrayContaining([
      { name: 'Run 100 km (focused)', value: run.id },
      { name: 'Read 12 books (abandoned)', value: read.id },
    ]),
  );
  const some = await listSearch(credentials, 'searchGoals', { resource: 'goal', operation: 'get' }, 'BOOKS');
  expect(some.results).toEqual([{ name: 'Read 12 books (abandoned)', value: read.id }]);
});

test('action items: pages of 100 newest first, each item once, completed ones marked; a filter reads on', async () => {
  const items = await created(
    api.post('/v1/dev/user/action-items/batch', {
      action_items: Array.from({ length: 50 }, (_, i) => ({ description: `Task ${i}` })),
    }),
  ).then((body) => (body as unknown as { action_items: Array<{ id: string }> }).action_items);
  for (let batch = 1; batch < 5; batch++) {
    await created(
      api.post('/v1/dev/user/action-items/batch', {
        action_items: Array.from({ length: 50 }, (_, i) => ({ description: `Task ${batch * 50 + i}` })),
      }),
    );
  }
  const done = await api.patch(`/v1/dev/user/action-items/${items[0].id}`, { completed: true });
  expect(done.status).toBe(200);

  const parameters = { resource: 'actionItem', operation: 'update' };
  const pages = [];
  let token: string | undefined;
  do {
    const page = await listSearch(credentials, 'searchActionItems', parameters, undefined, token);
    pages.push(page.results);
    token = page.paginationToken;
  } while (token);
  expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
  const ids = pages.flat().map((entry) => entry.value);
  expect(new Set(ids).size).toBe(250);
  const newestFirst = await api.get('/v1/dev/user/action-items', { limit: 1000 });
  expect(ids).toEqual((newestFirst.body as Array<{ id: string }>).map((item) => item.id));
  expect(pages.flat()).toContainEqual({ name: '✓ Task 0', value: items[0].id });

  // No text search on the server: a filter reads on through the pages for its matches.
  const filtered = await listSearch(credentials, 'searchActionItems', parameters, 'task 24');
  expect(filtered.paginationToken).toBeUndefined();
  expect(filtered.results.map((entry) => entry.name).sort()).toEqual([
    'Task 24',
    'Task 240',
    'Task 241',
    'Task 242',
    'Task 243',
    'Task 244',
    'Task 245',
    'Task 246',
    'Task 247',
    'Task 248',
    'Task 249',
  ]);
});

test('conversations, memories, people and folders are listed by what names them', async () => {
  const conversation = await created(
    api.post('/v1/dev/user/conversations', {
      text: 'We planned the launch.',
      started_at: '2026-11-20T09:00:00Z',
      structured: { title: 'Launch planning', overview: 'Dates and owners' },
    }),
  );
  const memory = await created(
    api.post('/v1/dev/user/memories', { content: `Prefers ${'very '.repeat(30)}long walks` }),
  );
  const person = await created(api.post('/v1/dev/user/people', { name: 'Ada Lovelace' }));
  const inbox = await created(api.post('/v1/dev/user/folders', { name: 'Inbox' }));
  const archive = await created(api.post('/v1/dev/user/folders', { name: 'Archive' }));

  const conversations = await listSearch(credentials, 'searchConversations', { resource: 'conversation' });
  expect(conversations.results).toContainEqual({
    name: 'Launch planning (2026-11-20)',
    value: conversation.id,
  });
  const memories = await listSearch(credentials, 'searchMemories', { resource: 'memory' });
  const shown = memories.results.find((entry) => entry.value === memory.id)!;
  expect(shown.name).toHaveLength(80);
  expect(shown.name).toMatch(/^Prefers very very .*…$/);
  expect((await listSearch(credentials, 'searchPeople', { resource: 'person' }, 'ada')).results).toEqual([
    { name: 'Ada Lovelace', value: person.id },
  ]);
  expect((await listSearch(credentials, 'searchFolders', { resource: 'folder' })).results).toEqual(
    expect.arrayContaining([
      { name: 'Inbox', value: inbox.id },
      { name: 'Archive', value: archive.id },
    ]),
  );
  // The folder dropdowns of conversations: by name.
  expect(
    await loadOptions(credentials, 'getFolders', { resource: 'conversation', operation: 'getAll' }),
  ).toEqual([
    { name: 'Archive', value: archive.id },
    { name: 'Inbox', value: inbox.id },
  ]);
});

test('operations take the locator values n8n saves: picked from the list, or by ID from an expression', async () => {
  const picked = await created(api.post('/v1/dev/user/goals', { title: 'Swim 10 km', target_value: 10 }));
  const fromList = { __rl: true, mode: 'list', value: picked.id, cachedResultName: 'Swim 10 km (focused)' };
  const got = expectShape(
    goal,
    jsonOut(
      await runDevData(
        server,
        { resource: 'goal', operation: 'get', goalId: fromList, simplify: false },
        { credentials },
      ),
    )[0],
  );
  expect(got).toMatchObject({ id: picked.id, title: 'Swim 10 km' });

  const byId = { __rl: true, mode: 'id', value: '={{ $json.goal }}' };
  const updated = await runDevData(
    server,
    { resource: 'goal', operation: 'updateProgress', goalId: byId, currentValue: 4 },
    { credentials, items: [{ goal: picked.id }] },
  );
  expect(jsonOut(updated)[0]).toMatchObject({ id: picked.id, current_value: 4 });

  const missing = await runDevData(
    server,
    { resource: 'goal', operation: 'delete', goalId: { __rl: true, mode: 'id', value: 'no-such-goal' } },
    { credentials },
  );
  expect(missing.error?.message).toBe('Goal not found: no goal with ID "no-such-goal" exists for this user');
});

test('a list with a wrong key fails with the credential message the editor shows', async () => {
  const wrong = credentialsFor(server, 'svc_dev_00000000000000000000000000000000');
  const failure = listSearch(wrong, 'searchGoals', { resource: 'goal', operation: 'get' });
  await expect(failure).rejects.toBeInstanceOf(NodeApiError);
  await expect(failure).rejects.toThrow(
    'Authorization failed: check the Developer Key of the DevData Developer API credential',
  );
});

test('an empty record ID (an expression that finds none) fails the item naming the field, rather than reading the list', async () => {
  const goalId = { __rl: true, mode: 'id', value: '={{ $json.goal }}' };
  await created(api.post('/v1/dev/user/goals', { title: 'Read 12 books', target_value: 12 }));
  for (const items of [[{ goal: '' }], [{}], [{ goal: null }]]) {
    const result = await runDevData(
      server,
      { resource: 'goal', operation: 'get', goalId, simplify: false },
      { credentials, items },
    );
    expect(result.error?.message).toBe('Goal ID is empty (input item 0)');
  }
  const conversation = await runDevData(
    server,
    {
      resource: 'conversation',
      operation: 'get',
      conversationId: { __rl: true, mode: 'id', value: '  ' },
    },
    { credentials },
  );
  expect(conversation.error?.message).toBe('Conversation ID is empty (input item 0)');
});

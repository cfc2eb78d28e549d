import { actionItem } from '../../server/src/contract/action-items';
import { apiKey } from '../../server/src/contract/keys';
import { devClient, expectShape, newUser } from '../helpers/http';
import { startDatabaseProxy, type DatabaseProxy } from '../helpers/proxy';
import { forSuite, PG_ADMIN_URL } from '../helpers/server';
import {
  credentialsFor,
  FOREIGN_PAGE,
  jsonOut,
  NODE,
  runDevData,
  startForeignServer,
  startNodeTestServer,
  type ForeignServer,
  type NodeTestServer,
} from './helpers';

const server = forSuite(() => startNodeTestServer());

async function threeItemsOneMissing() {
  const client = devClient(server);
  const a = await client.post('/v1/dev/user/action-items', { description: 'a' });
  const c = await client.post('/v1/dev/user/action-items', { description: 'c' });
  return [{ id: a.body.id }, { id: 'does-not-exist' }, { id: c.body.id }];
}

const completeById = {
  resource: 'actionItem',
  operation: 'update',
  actionItemId: '={{ $json.id }}',
  updateFields: { completed: true },
};

describe('errors from the server', () => {
  test('401: an unknown key says to check the key and carries the detail', async () => {
    const credentials = credentialsFor(server, 'svc_dev_00000000000000000000000000000000');
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error?.message).toBe(
      'Authorization failed: check the Developer Key of the DevData Developer API credential',
    );
    expect(result.error?.description).toBe('Invalid API Key');
    expect((result.error as { httpCode?: string }).httpCode).toBe('401');
  });

  test('403: names the missing scope', async () => {
    const readOnly = await newUser(server, ['action_items:read']);
    const result = await runDevData(
      server,
      { resource: 'actionItem', operation: 'create', description: 'not allowed' },
      { credentials: credentialsFor(server, readOnly.key) },
    );
    expect(result.error?.message).toBe('Forbidden: the developer key lacks the "action_items:write" scope');
    expect(result.error?.description).toBe(
      'Insufficient permissions. Required scope: action_items:write. Create a developer key that holds the action_items:write scope and put it in the credential.',
    );
  });

  test('without Continue On Fail, the first failing item stops the node and the error names that item', async () => {
    const items = await threeItemsOneMissing();
    const result = await runDevData(server, completeById, { items });
    expect(result.error?.message).toBe(
      'Action item not found: no action item with ID "does-not-exist" exists for this user',
    );
    expect(result.error?.context.itemIndex).toBe(1);
    expect(result.nodeError(NODE)).toBeDefined();
  });
});

describe('errors of the node name fields as the user sees them (display names), not parameter names', () => {
  test.each([
    [
      'Action Item → Create: Due At',
      {
        resource: 'actionItem',
        operation: 'create',
        description: 'x',
        additionalFields: { dueAt: '={{ $json.when }}' },
      },
      'Due At',
    ],
    [
      'Goal → Create: Horizon At',
      {
        resource: 'goal',
        operation: 'create',
        title: 'Read more',
        goalType: 'boolean',
        additionalFields: { horizonAt: '={{ $json.when }}' },
      },
      'Horizon At',
    ],
    [
      'Conversation → Create From Text: Started At',
      {
        resource: 'conversation',
        operation: 'createFromText',
        text: 'hello there',
        options: { startedAt: '={{ $json.when }}' },
      },
      'Started At',
    ],
  ])('%s', async (_, parameters, label) => {
    const result = await runDevData(server, parameters, {
      items: [{ when: '2026-12-01T10:00:00Z' }, { when: 'next Friday' }],
    });
    expect(result.error?.message).toBe(`${label}: "next Friday" is not a valid date and time (input item 1)`);
    expect(result.error?.description).toMatch(new RegExp(`^${label} needs an ISO 8601 date-time`));
    // The failing item is still named, as before.
    expect(result.error?.context.itemIndex).toBe(1);
  });

  test('Conversation → Update: a folder and Remove From Folder together', async () => {
    const result = await runDevData(server, {
      resource: 'conversation',
      operation: 'update',
      conversationId: 'any',
      updateFields: { folderId: 'some-folder', removeFromFolder: true },
    });
    expect(result.error?.message).toBe(
      'Set either "Folder Name or ID" or "Remove From Folder", not both (input item 0)',
    );
  });
});

describe('Continue On Fail', () => {
  test('"Continue" puts {error} on the failing item, paired with it, and goes on with the next', async () => {
    const items = await threeItemsOneMissing();
    const result = await runDevData(server, completeById, { items, onError: 'continueRegularOutput' });
    expect(result.error).toBeUndefined();
    const output = result.output(NODE);
    expect(output.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
    expect(expectShape(actionItem, output[0].json)).toMatchObject({ id: items[0].id, completed: true });
    expect(output[1].json).toEqual({
      error: 'Action item not found: no action item with ID "does-not-exist" exists for this user',
      details: 'Action item not found',
    });
    expect(expectShape(actionItem, output[2].json)).toMatchObject({ id: items[2].id, completed: true });
  });

  test('"Continue (using error output)" routes the failing item to the error output, as n8n\'s own nodes do', async () => {
    const items = await threeItemsOneMissing();
    const result = await runDevData(server, completeById, { items, onError: 'continueErrorOutput' });
    expect(result.error).toBeUndefined();
    const success = result.output(NODE, 0);
    const failed = result.output(NODE, 1);
    expect(success.map((i) => [i.json.id, i.pairedItem])).toEqual([
      [items[0].id, { item: 0 }],
      [items[2].id, { item: 2 }],
    ]);
    // n8n merges the input item's fields into the error item.
    expect(failed).toEqual([
      {
        json: {
          id: 'does-not-exist',
          error: 'Action item not found: no action item with ID "does-not-exist" exists for this user',
          details: 'Action item not found',
        },
        pairedItem: { item: 1 },
      },
    ]);
  });
});

test('the error item of a refused field names it as the user sees it, in its details', async () => {
  const result = await runDevData(
    server,
    { resource: 'actionItem', operation: 'create', description: '={{ $json.task }}' },
    { items: [{ task: 'x'.repeat(3000) }], onError: 'continueRegularOutput' },
  );
  const [item] = jsonOut(result);
  expect(item.error).toMatch(/^Invalid input: body\.description: /);
  expect(item.details).toMatch(/^In this node: Description \(description\)\. body\.description: /);
});

test('the error items of a refused Create Many batch name the field as the user sees it, in their details', async () => {
  const result = await runDevData(
    server,
    { resource: 'memory', operation: 'createMany', content: '={{ $json.fact }}' },
    { items: [{ fact: 'Drinks tea' }, { fact: '' }], onError: 'continueRegularOutput' },
  );
  const items = jsonOut(result);
  expect(items).toHaveLength(2);
  for (const item of items) {
    expect(item.error).toMatch(/^Invalid input: body\.memories\[1\]\.content: .+ \(input item 1\)$/);
    expect(item.details).toMatch(/^In this node: Content \(content\)\. body\.memories\[1\]\.content: /);
  }
});

test('the error item of an error without a description is {error} alone, with no details', async () => {
  const result = await runDevData(
    server,
    {
      resource: 'conversation',
      operation: 'update',
      conversationId: 'any',
      updateFields: { folderId: 'some-folder', removeFromFolder: true },
    },
    { onError: 'continueRegularOutput' },
  );
  expect(jsonOut(result)).toEqual([
    { error: 'Set either "Folder Name or ID" or "Remove From Folder", not both (input item 0)' },
  ]);
});

describe('429 and Retry-After', () => {
  // Two developer-API requests per key per second: the third in a second answers 429 with Retry-After: 1.
  const limited = forSuite(() => startNodeTestServer({ rateLimit: { max: 2, windowMs: 1_000 } }));

  test('the node waits Retry-After seconds, retries, and succeeds', async () => {
    const started = Date.now();
    const result = await runDevData(
      limited,
      { resource: 'developerKey', operation: 'getCurrent' },
      { items: Array.from({ length: 5 }, () => ({})) },
    );
    const out = jsonOut(result);
    expect(out).toHaveLength(5);
    out.forEach((json) => expectShape(apiKey, json));

    const requests = limited.requestsTo('GET', '/v1/dev/key');
    const statuses = requests.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    // Each 429 is followed by a wait of its Retry-After (1 s) before the retry (a lower bound only: a busy machine
    // makes the wait longer, never shorter; 50 ms for timer and clock granularity).
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    requests.forEach((request, i) => {
      if (request.status === 429)
        expect(requests[i + 1].answeredAt - request.answeredAt).toBeGreaterThanOrEqual(950);
    });
  });
});

test('a Retry-After given as a date (as a proxy may send it) is waited for as its seconds: two hours, so not at all', async () => {
  const inTwoHours = new Date(Date.now() + 2 * 3600_000).toUTCString();
  const proxy = await startForeignServer(429, 'application/json', '{"detail":"Too Many Requests"}', {
    'retry-after': inTwoHours,
  });
  try {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: proxy.baseUrl };
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    // Not retried after a backoff of its own: given up on at once, saying how long the server asks to wait.
    expect(result.error?.message).toBe('Rate limit exceeded');
    expect(result.error?.description).toMatch(
      /^Too Many Requests\. Run the workflow again in (119|120) minutes \(the server's Retry-After\), not before\.$/,
    );
  } finally {
    await proxy.close();
  }
});

test('a read given up on at once for a long Retry-After on a 503 says how long to wait, not "in a moment"', async () => {
  const maintenance = await startForeignServer(503, 'application/json', '{"detail":"Down for maintenance"}', {
    'retry-after': '600',
  });
  try {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: maintenance.baseUrl };
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error?.message).toBe('The DevData server is temporarily unavailable');
    expect(result.error?.description).toBe(
      "Down for maintenance. Run the workflow again in 10 minutes (the server's Retry-After), not before.",
    );
  } finally {
    await maintenance.close();
  }
});

describe("503 while the server's database is out of reach", () => {
  let proxy: DatabaseProxy;
  let behindProxy: NodeTestServer;
  beforeAll(async () => {
    proxy = await startDatabaseProxy(PG_ADMIN_URL);
    behindProxy = await startNodeTestServer({}, { dialect: 'postgres', connectVia: proxy.route });
  });
  afterAll(async () => {
    await proxy.up().catch(() => undefined);
    await behindProxy.close();
    await proxy.down();
  });

  test('a read waits Retry-After, retries, and succeeds once the database is back', async () => {
    await proxy.down();
    const back = setTimeout(() => void proxy.up(), 1_000);
    try {
      const result = await runDevData(behindProxy, { resource: 'developerKey', operation: 'getCurrent' });
      expectShape(apiKey, jsonOut(result)[0]);
    } finally {
      clearTimeout(back);
    }
    const statuses = behindProxy.requestsTo('GET', '/v1/dev/key').map((r) => r.status);
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(200);
  });

  test('a create is not repeated: it fails at once saying the server is unavailable, and stores nothing', async () => {
    await proxy.down();
    let result;
    try {
      result = await runDevData(behindProxy, {
        resource: 'actionItem',
        operation: 'create',
        description: 'During the outage',
      });
    } finally {
      await proxy.up();
    }
    expect(result.error?.message).toBe('The DevData server is temporarily unavailable');
    expect(result.error?.description).toBe(
      'The database is unavailable right now; retry shortly. The server may have made the change before it lost its database: check whether it did before you run the workflow again.',
    );
    expect((result.error as { httpCode?: string }).httpCode).toBe('503');
    expect(behindProxy.requestsTo('POST', '/v1/dev/user/action-items').map((r) => r.status)).toEqual([503]);
    expect(await behindProxy.count('action_items')).toBe(0);
  });
});

describe("a 409 says what to do, in the server's detail the node keeps", () => {
  test('Person → Update onto a name another person has', async () => {
    const client = devClient(server);
    await client.post('/v1/dev/user/people', { name: 'Taken Name' });
    const other = await client.post('/v1/dev/user/people', { name: 'Free Name' });
    const result = await runDevData(server, {
      resource: 'person',
      operation: 'update',
      personId: other.body.id,
      updateFields: { name: 'Taken Name' },
    });
    expect((result.error as { httpCode?: string }).httpCode).toBe('409');
    expect(result.error?.description).toBe(
      'A person named Taken Name already exists: choose another name, or use that person',
    );
  });

  test('Live Transcript → Add Segments to a finished session', async () => {
    const addSegments = {
      resource: 'liveTranscript',
      operation: 'addSegments',
      sessionId: 'finished-409',
      segmentsInput: 'fields',
      transcriptSegments: { segment: [{ text: 'Hello', start: 0, end: 1 }] },
    };
    jsonOut(await runDevData(server, addSegments));
    jsonOut(
      await runDevData(server, {
        resource: 'liveTranscript',
        operation: 'finish',
        sessionId: 'finished-409',
      }),
    );
    const result = await runDevData(server, addSegments);
    expect((result.error as { httpCode?: string }).httpCode).toBe('409');
    expect(result.error?.description).toBe(
      'Transcript session finished-409 is finished: send further segments under a new session ID',
    );
  });
});

describe('a 422 names the refused fields as the node shows them', () => {
  test('a field of the operation, and one in its Additional Fields, by display name beside the wire name', async () => {
    const { body } = await devClient(server).post('/v1/dev/user/action-items', { description: 'short' });
    const tooLong = await runDevData(server, {
      resource: 'actionItem',
      operation: 'update',
      actionItemId: body.id,
      updateFields: { description: 'x'.repeat(2001) },
    });
    expect(tooLong.error?.message).toMatch(/^Invalid input: body\.description: /);
    expect(tooLong.error?.description).toMatch(
      /^In this node: Description \(description\)\. body\.description: /,
    );

    const green = await runDevData(server, {
      resource: 'folder',
      operation: 'create',
      name: 'Odd',
      additionalFields: { color: 'green' },
    });
    expect(green.error?.description).toBe(
      'In this node: Color (color). body.color: Color must be a hex color like #4f46e5',
    );
  });

  test("a field named alike in two places is named as the one refused: a segment's Start, an option's Title", async () => {
    const segment = await runDevData(server, {
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'fields',
      transcriptSegments: { segment: [{ text: 'Hello', start: -1, end: 1 }] },
      options: { events: { event: [{ title: 'Standup', start: '2026-11-20T09:00:00Z' }] } },
    });
    expect(segment.error?.description).toMatch(/^In this node: Start \(start\)\. /);
    const title = await runDevData(server, {
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'fields',
      transcriptSegments: { segment: [{ text: 'Hello', start: 0, end: 1 }] },
      options: {
        title: 'x'.repeat(1001),
        events: { event: [{ title: 'Standup', start: '2026-11-20T09:00:00Z' }] },
      },
    });
    expect(title.error?.description).toMatch(/^In this node: Title \(title\)\. /);
  });

  test('Create Many: the field of the input item at fault', async () => {
    const user = await newUser(server);
    const result = await runDevData(
      server,
      { resource: 'memory', operation: 'createMany', content: '={{ $json.fact }}' },
      {
        items: [{ fact: 'fine' }, { fact: 'y'.repeat(5001) }],
        credentials: credentialsFor(server, user.key),
      },
    );
    expect(result.error?.message).toMatch(
      /^Invalid input: body\.memories\[1\]\.content: .+ \(input item 1\)$/,
    );
    expect(result.error?.description).toMatch(/^In this node: Content \(content\)\. /);
  });
});

describe('network errors', () => {
  test('an unreachable server fails the node with a NodeApiError that names the Base URL and what to check', async () => {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: 'http://127.0.0.1:9' };
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error?.name).toBe('NodeApiError');
    expect(result.error?.message).toBe('Could not reach the DevData server at http://127.0.0.1:9');
    expect(result.error?.description).toMatch(
      /^Nothing accepted the connection at this address \(ECONNREFUSED\)\. Check the Base URL in the DevData Developer API credential/,
    );
  });
});

describe('a Base URL that is not a DevData server', () => {
  // n8n's own address answers any path with its editor's page (200 text/html); an Express app without the route
  // answers 404 with its "Cannot GET" page.
  const answers: Array<[string, number, string | undefined]> = [
    ['200 text/html', 200, 'text/html; charset=utf-8'],
    ['404 text/html', 404, 'text/html; charset=utf-8'],
    ['200 without a content type', 200, undefined],
    ['502 text/html', 502, 'text/html'],
  ];
  const foreign: Record<string, ForeignServer> = {};
  beforeAll(async () => {
    for (const [name, status, contentType] of answers)
      foreign[name] = await startForeignServer(status, contentType, FOREIGN_PAGE);
  });
  afterAll(async () => Promise.all(Object.values(foreign).map((f) => f.close())));

  function expectNoPage(error: unknown) {
    const text = JSON.stringify(error) + String((error as Error).message);
    expect(text).not.toContain('<');
    expect(text).not.toContain('Cannot GET');
  }

  test.each(answers)(
    'Goal → Get Many, %s: names the Base URL and what it answered, never the page',
    async (name, status, contentType) => {
      const { baseUrl } = foreign[name];
      const credentials = credentialsFor(server);
      credentials.devDataApi = { ...credentials.devDataApi, baseUrl };
      const result = await runDevData(
        server,
        { resource: 'goal', operation: 'getAll', limit: 5 },
        { credentials },
      );
      const what = contentType?.split(';')[0] ?? 'no content type';
      expect(result.error?.name).toBe('NodeApiError');
      expect(result.error?.message).toBe(
        `The server at ${baseUrl} did not answer as a DevData server (HTTP ${status}, ${what})`,
      );
      expect(result.error?.description).toMatch(
        new RegExp(
          `^GET /v1/dev/user/goals answered with ${contentType ? what : 'a body without a content type'} where a DevData server answers with JSON: the Base URL may be the address of another server, such as n8n itself.*\\. Check the Base URL in the DevData Developer API credential: the DevData server's address only, e\\.g\\. http://127\\.0\\.0\\.1:8080`,
        ),
      );
      expect((result.error as { httpCode?: string }).httpCode).toBe(String(status));
      expectNoPage(result.error);
    },
  );

  test('Notification → Send names the DevData App API credential', async () => {
    const { baseUrl } = foreign['200 text/html'];
    const credentials = credentialsFor(server);
    credentials.devDataAppApi = { ...credentials.devDataAppApi, baseUrl };
    const result = await runDevData(
      server,
      { resource: 'notification', operation: 'send', uid: server.init.user_id, message: 'hello' },
      { credentials },
    );
    expect(result.error?.message).toBe(
      `The server at ${baseUrl} did not answer as a DevData server (HTTP 200, text/html)`,
    );
    expect(result.error?.description).toMatch(/Check the Base URL in the DevData App API credential/);
    expectNoPage(result.error);
  });

  test.each([
    ['goal', 'getAll', 'GET /v1/dev/user/goals'],
    ['conversation', 'getAll', 'GET /v1/dev/user/conversations'],
    ['memory', 'getAll', 'GET /v1/dev/user/memories'],
    ['person', 'getAll', 'GET /v1/dev/user/people'],
    ['screenActivity', 'getAll', 'GET /v1/dev/user/screen-activity'],
  ])(
    'a server answering JSON that is no list: %s → %s names the Base URL and the item',
    async (resource, operation, request) => {
      const json = await startForeignServer(200, 'application/json', '{"ok":true}');
      try {
        const credentials = credentialsFor(server);
        credentials.devDataApi = { ...credentials.devDataApi, baseUrl: json.baseUrl };
        const result = await runDevData(server, { resource, operation, limit: 5 }, { credentials });
        expect(result.error?.message).toBe(
          `No DevData developer API at this Base URL: ${request} answered without the list of records (input item 0)`,
        );
        expect(result.error?.description).toMatch(
          new RegExp(`^The server at ${json.baseUrl} answered with JSON`),
        );
        expect(result.error?.context.itemIndex).toBe(0);
      } finally {
        await json.close();
      }
    },
  );

  test('a Base URL with a path (/v1, as API references print it) is named as what to check, for either credential', async () => {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: `${server.baseUrl}/v1/` };
    credentials.devDataAppApi = { ...credentials.devDataAppApi, baseUrl: `${server.baseUrl}/v2` };
    const goals = await runDevData(
      server,
      { resource: 'goal', operation: 'getAll', limit: 5 },
      { credentials },
    );
    expect(goals.error?.description).toBe(
      "Not Found. The Base URL in the DevData Developer API credential ends in the path /v1: it is the DevData server's address only, e.g. http://127.0.0.1:8080 (the node adds /v1/dev/…). Remove the path, unless the server is served below it.",
    );
    const send = await runDevData(
      server,
      { resource: 'notification', operation: 'send', uid: server.init.user_id, message: 'hello' },
      { credentials },
    );
    expect(send.error?.description).toMatch(
      /^Not Found\. The Base URL in the DevData App API credential ends in the path \/v2: .* \(the node adds \/v2\/integrations\/…\)/,
    );
  });

  test('a real DevData server answers as before: a missing endpoint still says the server does not offer it', async () => {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: `${server.baseUrl}/api` };
    const result = await runDevData(
      server,
      { resource: 'goal', operation: 'getAll', limit: 5 },
      { credentials },
    );
    expect(result.error?.message).toBe('The server at the Base URL does not offer this operation (HTTP 404)');
  });
});

describe('an Update with nothing to change fails before sending, naming the item', () => {
  test.each([
    ['Action Item', 'actionItem', 'actionItemId', '/v1/dev/user/action-items', { description: 'a' }, {}],
    ['Conversation', 'conversation', 'conversationId', null, null, { removeFromFolder: false }],
    ['Folder', 'folder', 'folderId', '/v1/dev/user/folders', { name: 'Nothing to change' }, {}],
    ['Goal', 'goal', 'goalId', '/v1/dev/user/goals', { title: 'Run', goal_type: 'boolean' }, {}],
    ['Memory', 'memory', 'memoryId', '/v1/dev/user/memories', { content: 'Likes tea' }, {}],
    ['Person', 'person', 'personId', '/v1/dev/user/people', { name: 'Nobody Changed' }, {}],
  ])('%s → Update', async (_label, resource, idName, path, created, updateFields) => {
    const id =
      path === null
        ? jsonOut(
            await runDevData(server, {
              resource: 'conversation',
              operation: 'createFromText',
              text: 'Nothing changes here.',
            }),
          )[0].id
        : (await devClient(server).post(path, created!)).body.id;
    const result = await runDevData(
      server,
      { resource, operation: 'update', [idName]: '={{ $json.id }}', updateFields },
      { items: [{ id }] },
    );
    expect(result.error?.message).toBe(
      'Nothing to update: add at least one field under Update Fields (input item 0)',
    );
    expect(result.error?.context.itemIndex).toBe(0);
  });

  // The server takes null as not given, so the PATCH it would make changes nothing either.
  test.each([
    [
      'Action Item',
      'actionItem',
      'actionItemId',
      '/v1/dev/user/action-items',
      { description: 'a' },
      'description',
    ],
    [
      'Conversation',
      'conversation',
      'conversationId',
      '/v1/dev/user/conversations',
      { text: 'Hi there.' },
      'title',
    ],
    ['Folder', 'folder', 'folderId', '/v1/dev/user/folders', { name: 'Given nothing' }, 'name'],
    ['Goal', 'goal', 'goalId', '/v1/dev/user/goals', { title: 'Run', goal_type: 'boolean' }, 'targetValue'],
    ['Memory', 'memory', 'memoryId', '/v1/dev/user/memories', { content: 'Likes tea' }, 'content'],
    ['Person', 'person', 'personId', '/v1/dev/user/people', { name: 'Given Nothing' }, 'name'],
  ])('%s → Update with a field whose expression gives null or nothing', async (...row) => {
    const [, resource, idName, path, created, field] = row;
    const { id } = (await devClient(server).post(path, created)).body;
    const patches = server.requestsTo('PATCH', `${path}/${id}`).length;
    const result = await runDevData(
      server,
      { resource, operation: 'update', [idName]: id, updateFields: { [field]: '={{ $json.value }}' } },
      { items: [{ value: null }, {}], onError: 'continueRegularOutput' },
    );
    expect(jsonOut(result)).toEqual([
      { error: 'Nothing to update: add at least one field under Update Fields (input item 0)' },
      { error: 'Nothing to update: add at least one field under Update Fields (input item 1)' },
    ]);
    expect(server.requestsTo('PATCH', `${path}/${id}`)).toHaveLength(patches);
  });
});

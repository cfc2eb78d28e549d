import { screenActivityPage, screenActivityRecord } from '../../server/src/contract/screen-activity';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
let credentials: ReturnType<typeof credentialsFor>;
let ids: string[];
const START = Date.UTC(2026, 10, 20);

beforeAll(async () => {
  const user = await newUser(server);
  credentials = credentialsFor(server, user.key);
  // 2,500 records, one a minute from 2026-11-20T00:00Z; every fifth in "Terminal", the rest in "Code".
  for (let start = 0; start < 2_500; start += 1_000) {
    const reply = await user.client.post('/v1/dev/user/screen-activity', {
      screen_activity: Array.from({ length: Math.min(1_000, 2_500 - start) }, (_, k) => {
        const i = start + k;
        return {
          timestamp: new Date(START + i * 60_000).toISOString(),
          app_name: i % 5 === 0 ? 'Terminal' : 'Code',
          window_title: `window ${i}`,
        };
      }),
    });
    expect(reply.status).toBe(200);
  }
  const first = await user.client.get('/v1/dev/user/screen-activity', { limit: 1000 });
  expectShape(screenActivityPage, first.body);
  ids = [];
  let page = first.body;
  for (;;) {
    ids.push(...page.screen_activity.map((r: { id: string }) => r.id));
    if (!page.has_more) break;
    page = (await user.client.get('/v1/dev/user/screen-activity', { limit: 1000, cursor: page.next_cursor }))
      .body;
  }
  expect(ids).toHaveLength(2_500);
});

const run = (params: Record<string, unknown>) =>
  runDevData(server, { resource: 'screenActivity', operation: 'getAll', ...params }, { credentials });

function pageRequests(from: number) {
  return server.requests
    .slice(from)
    .filter((r) => r.path === '/v1/dev/user/screen-activity')
    .map((r) => ({ limit: r.query.get('limit'), cursor: r.query.has('cursor') }));
}

test('Return All follows next_cursor over 3 pages and returns every record exactly once', async () => {
  const before = server.requests.length;
  const out = jsonOut(await run({ returnAll: true }));
  expect(out.map((r) => r.id)).toEqual(ids);
  out.forEach((r) => expectShape(screenActivityRecord, r));
  expect(pageRequests(before)).toEqual([
    { limit: '1000', cursor: false },
    { limit: '1000', cursor: true },
    { limit: '1000', cursor: true },
  ]);
});

test('a Limit smaller than a page is one request; a larger one continues with the cursor', async () => {
  let before = server.requests.length;
  expect(jsonOut(await run({ limit: 10 })).map((r) => r.id)).toEqual(ids.slice(0, 10));
  expect(pageRequests(before)).toEqual([{ limit: '10', cursor: false }]);

  before = server.requests.length;
  expect(jsonOut(await run({ limit: 1_200 })).map((r) => r.id)).toEqual(ids.slice(0, 1_200));
  expect(pageRequests(before)).toEqual([
    { limit: '1000', cursor: false },
    { limit: '200', cursor: true },
  ]);
});

test('start date, end date and app filter the records (the cursor keeps the filters)', async () => {
  const out = jsonOut(
    await run({
      returnAll: true,
      filters: { app: 'Terminal', startDate: '2026-11-20T10:00:00Z', endDate: '2026-11-20T11:59:59Z' },
    }),
  );
  // Minutes 600–719 of the day, every fifth: 24 records.
  expect(out).toHaveLength(24);
  expect(out.every((r) => r.app_name === 'Terminal')).toBe(true);
  expect(out[0].timestamp).toBe('2026-11-20T10:00:00.000Z');

  // A date alone is the whole UTC day: 2026-11-21 holds minutes 1440–2499, 1060 records, so 2 pages.
  const secondDay = jsonOut(
    await run({ returnAll: true, filters: { startDate: '2026-11-21', endDate: '2026-11-21' } }),
  );
  expect(secondDay).toHaveLength(1_060);
  expect(secondDay.map((r) => r.id)).toEqual(ids.slice(1_440));
});

// As an empty filter is, and as the date filters take null: mapping an input field that holds null filters nothing
// (sent as `app=`, the server refused it as too short).
test('an App filter whose expression gives null filters nothing', async () => {
  const result = await runDevData(
    server,
    { resource: 'screenActivity', operation: 'getAll', limit: 10, filters: { app: '={{ $json.app }}' } },
    { credentials, items: [{ app: null }] },
  );
  expect(result.error?.message).toBeUndefined();
  expect(jsonOut(result).map((r) => r.id)).toEqual(ids.slice(0, 10));
});

describe('Create Many', () => {
  const createMany = (
    items: Array<Record<string, unknown>>,
    credentials: ReturnType<typeof credentialsFor>,
  ) =>
    runDevData(
      server,
      {
        resource: 'screenActivity',
        operation: 'createMany',
        timestamp: '={{ $json.at }}',
        appName: '={{ $json.app }}',
        additionalFields: { windowTitle: '={{ $json.title }}' },
      },
      { items, credentials, onError: 'continueRegularOutput' },
    );
  const recorded = async (credentials: ReturnType<typeof credentialsFor>) =>
    jsonOut(
      await runDevData(
        server,
        { resource: 'screenActivity', operation: 'getAll', returnAll: true },
        { credentials },
      ),
    );

  test('2,100 input items go in 3 requests; each output item is its record as sent, paired with its input item', async () => {
    const user = await newUser(server);
    const own = credentialsFor(server, user.key);
    const items = Array.from({ length: 2_100 }, (_, i) => ({
      at: new Date(START + i * 1_000).toISOString(),
      app: i % 2 === 0 ? 'Code' : 'Browser',
      title: `tab ${i}`,
    }));
    const before = server.requestsTo('POST', '/v1/dev/user/screen-activity').length;
    const result = await createMany(items, own);
    expect(server.requestsTo('POST', '/v1/dev/user/screen-activity').slice(before)).toHaveLength(3);
    const output = result.output(NODE);
    expect(output).toHaveLength(2_100);
    output.forEach((item, i) => {
      expect(item.pairedItem).toEqual({ item: i });
      expect(item.json).toEqual({
        timestamp: items[i].at,
        app_name: items[i].app,
        window_title: items[i].title,
      });
    });

    const stored = await recorded(own);
    expect(
      stored.map(({ timestamp, app_name, window_title, ocr_text }) => [
        timestamp,
        app_name,
        window_title,
        ocr_text,
      ]),
    ).toEqual(items.map(({ at, app, title }) => [at, app, title, '']));
  });

  test('a refused batch fails each of its items, naming the input item and field; the batches before it stay', async () => {
    const user = await newUser(server);
    const own = credentialsFor(server, user.key);
    const items = Array.from({ length: 1_500 }, (_, i) => ({
      at: new Date(START + i * 1_000).toISOString(),
      app: i === 1_200 ? '' : 'Code',
      title: `tab ${i}`,
    }));
    const output = (await createMany(items, own)).output(NODE);
    expect(output).toHaveLength(1_500);
    expect(output.slice(0, 1_000).every((item) => item.json.app_name === 'Code')).toBe(true);
    const failed = output.slice(1_000);
    expect(failed.every((item) => typeof item.json.error === 'string')).toBe(true);
    expect(failed[200].json.error).toMatch(/screen_activity\[200\]\.app_name: .+ \(input item 1200\)$/);
    expect(await recorded(own)).toHaveLength(1_000);
  });

  test('a Timestamp that is not a date fails its item by the field as the user sees it, and sends nothing for it', async () => {
    const user = await newUser(server);
    const own = credentialsFor(server, user.key);
    const output = (
      await createMany(
        [
          { at: '2026-11-20T08:00:00Z', app: 'Code', title: 'a' },
          { at: 'yesterday-ish', app: 'Code', title: 'b' },
        ],
        own,
      )
    ).output(NODE);
    expect(output.map((item) => item.json.error ?? item.json.window_title)).toEqual([
      'a',
      'Timestamp: "yesterday-ish" is not a valid date and time (input item 1)',
    ]);
    expect((await recorded(own)).map((r) => r.window_title)).toEqual(['a']);
  });
});

// As an Update leaves out a field whose expression gives null: a window title the input item lacks (null) is no
// title, not a refused batch of up to 1000 records.
test('Create Many leaves out a Window Title or OCR Text whose expression gives null', async () => {
  const user = await newUser(server);
  const result = await runDevData(
    server,
    {
      resource: 'screenActivity',
      operation: 'createMany',
      timestamp: '2026-11-25T08:00:00Z',
      appName: 'Code',
      additionalFields: { windowTitle: '={{ $json.title }}', ocrText: '={{ $json.text }}' },
    },
    { credentials: credentialsFor(server, user.key), items: [{ title: null, text: null }] },
  );
  expect(result.error?.message).toBeUndefined();
  const page = await user.client.get('/v1/dev/user/screen-activity');
  expect(page.body.screen_activity).toMatchObject([{ app_name: 'Code', window_title: '', ocr_text: '' }]);
});

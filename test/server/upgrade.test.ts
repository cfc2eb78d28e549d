// Nothing lost across upgrades: the previous landed version (test/helpers/previous-version.ts) writes a database
// with every resource and every field it accepts, and reads it all back over HTTP; the current server then starts
// on that database (migrating it) and must read every record back the same, on both databases. A field the current
// version adds is fine; a field missing or changed is a failure. The previous version's keys, admin token, app
// secrets, installs and webhook secret must still work.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveCli, type ServeProcess } from '../helpers/cli';
import { client, ok, type Client, type Query } from '../helpers/http';
import {
  previousInit,
  previousSeed,
  previousServe,
  previousVersionCli,
  type PreviousInit,
} from '../helpers/previous-version';
import { createDatabase, DIALECTS } from '../helpers/server';

/** Every scope the previous version knows (the current one may know more). */
const PREVIOUS_SCOPES = [
  'conversations:read',
  'conversations:write',
  'memories:read',
  'memories:write',
  'action_items:read',
  'action_items:write',
  'goals:read',
  'goals:write',
  'screen_activity:read',
  'screen_activity:write',
  'people:read',
  'people:write',
  'notifications:read',
];
const PROACTIVE_SCOPES = ['user_name', 'user_facts', 'user_context', 'user_chat'];
/** Both versions call the webhook on loopback, where the test's receiver listens. */
const LOOPBACK_WEBHOOKS = { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1' };

/**
 * Where `after` differs from `before`, as `path: what` lines: every field of `before` must be in `after` with an
 * equal value, recursively; fields only `after` has are allowed. Arrays must have the same length and are compared
 * element by element the same way.
 */
function notKept(before: unknown, after: unknown, path = '$'): string[] {
  if (Array.isArray(before)) {
    if (!Array.isArray(after)) return [`${path}: was an array, now ${JSON.stringify(after)}`];
    if (after.length !== before.length)
      return [`${path}: had ${before.length} elements, now ${after.length}`];
    return before.flatMap((element, i) => notKept(element, after[i], `${path}[${i}]`));
  }
  if (before !== null && typeof before === 'object') {
    if (after === null || typeof after !== 'object' || Array.isArray(after)) {
      return [`${path}: was an object, now ${JSON.stringify(after)}`];
    }
    return Object.entries(before).flatMap(([key, value]) =>
      key in after
        ? notKept(value, (after as Record<string, unknown>)[key], `${path}.${key}`)
        : [`${path}.${key}: missing (was ${JSON.stringify(value)})`],
    );
  }
  return Object.is(before, after)
    ? []
    : [`${path}: was ${JSON.stringify(before)}, now ${JSON.stringify(after)}`];
}

describe('notKept (the upgrade comparison)', () => {
  it('allows added fields and nothing else', () => {
    expect(notKept({ a: 1, b: [{ c: 'x' }] }, { a: 1, b: [{ c: 'x', d: 2 }], e: 3 })).toEqual([]);
    expect(notKept({ a: 1, b: null }, { a: 2 })).toEqual(['$.a: was 1, now 2', '$.b: missing (was null)']);
    expect(notKept({ b: [{ c: 'x' }, { c: 'y' }] }, { b: [{ c: 'y' }, { c: 'x' }] })).toEqual([
      '$.b[0].c: was "x", now "y"',
      '$.b[1].c: was "y", now "x"',
    ]);
    expect(notKept([1, 2], [1])).toEqual(['$: had 2 elements, now 1']);
    expect(notKept({ a: null }, { a: {} })).toEqual(['$.a: was null, now {}']);
    expect(notKept({ a: { b: 1 } }, { a: [1] })).toEqual(['$.a: was an object, now [1]']);
  });
});

/** A receiver for the proactive webhook: keeps each call and answers with a notification to push. */
interface Receiver {
  url: string;
  calls: { headers: Record<string, string | string[] | undefined>; body: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const calls: Receiver['calls'] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls.push({ headers: request.headers, body });
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          session_id: (JSON.parse(body) as { session_id: string }).session_id,
          notification: { prompt: 'Hello {{user_name}}, the dentist is at nine', params: ['user_name'] },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Checks the `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>` of a webhook call. */
function signedWith(secret: string, call: Receiver['calls'][number]): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(call.headers['x-signature']));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${call.body}`).digest('hex');
  return expected === match[2];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i += 1) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The texts of the conversations the previous version was sent through POST /v1/dev/user/conversations. */
const TEXT_CONVERSATIONS = [
  'We agreed to book the dentist for Tuesday and to send the report by Friday.',
  'Small talk about the weather.',
  'Second user talk',
];

type Records = Awaited<ReturnType<typeof snapshot>>['records'];
type ConversationShown = { geolocation?: unknown; transcript_segments: { text: string }[] } & Record<
  string,
  unknown
>;

/** Each conversation of both users, as the list and as its GET show it. */
function conversationsOf(records: Records): ConversationShown[] {
  return [records.initUser, records.secondUser].flatMap(
    (user) => [...user.conversations, ...user.conversationById] as ConversationShown[],
  );
}

/**
 * What the current version deliberately shows otherwise (issue 26, recorded in the server manual's
 * Compatibility section): a conversation without a place leaves `geolocation` out instead of showing null.
 */
function asShownNow(records: Records): Records {
  const copy = structuredClone(records);
  for (const shown of conversationsOf(copy)) if (shown.geolocation === null) delete shown.geolocation;
  return copy;
}

/** What the test made on the previous version, beyond init's: whose data to read and with which secrets. */
interface Written {
  secondUser: { id: string; key: string };
  revokedKey: string;
  readOnlyKey: string;
  reminderApp: { id: string; secret: string; webhookSecret: string };
  hookApp: { id: string; secret: string };
}

/** Writes at least one record of every resource, with every field the previous version accepts set. */
async function writeEverything(baseUrl: string, init: PreviousInit, receiver: Receiver): Promise<Written> {
  const admin = client(baseUrl, init.admin_token);
  const dev = client(baseUrl, init.developer_key);

  // Users, keys, apps, installs.
  const second = await ok(admin.post('/v1/admin/users', { name: 'Second user' }), 201);
  const secondKey = await ok(
    admin.post(`/v1/admin/users/${second.id}/keys`, { name: 'every scope', scopes: PREVIOUS_SCOPES }),
    201,
  );
  const readOnlyKey = await ok(
    admin.post(`/v1/admin/users/${second.id}/keys`, { name: 'default scopes' }),
    201,
  );
  const revoked = await ok(admin.post(`/v1/admin/users/${init.user_id}/keys`, { name: 'revoked' }), 201);
  await ok(admin.delete(`/v1/admin/keys/${revoked.id}`), 204);
  const reminder = await ok(
    admin.post('/v1/admin/apps', {
      name: 'Reminder app',
      capabilities: ['external_integration', 'proactive_notification'],
      external_integration: { triggers_on: 'transcript_processed', webhook_url: receiver.url },
      proactive_notification: { scopes: PROACTIVE_SCOPES },
    }),
    201,
  );
  const hook = await ok(
    admin.post('/v1/admin/apps', { name: 'Hook app', capabilities: ['external_integration'] }),
    201,
  );
  await ok(
    client(baseUrl, hook.app_secret).put(`/v2/integrations/${hook.id}/webhook`, {
      webhook_url: `${receiver.url}/other`,
    }),
  );
  await ok(
    admin.post(`/v1/admin/apps/${reminder.id}/installs`, {
      user_id: init.user_id,
      granted_scopes: PROACTIVE_SCOPES,
    }),
    201,
  );
  await ok(
    admin.post(`/v1/admin/apps/${reminder.id}/installs`, {
      user_id: second.id,
      granted_scopes: ['user_name'],
    }),
    201,
  );
  await ok(admin.post(`/v1/admin/apps/${init.app_id}/installs`, { user_id: second.id }), 201);
  await ok(admin.delete(`/v1/admin/apps/${init.app_id}/installs/${second.id}`), 204);

  // Folders: one kept, one renamed, one deleted (a tombstone).
  const folder = await ok(
    dev.post('/v1/dev/user/folders', {
      name: 'Health',
      description: 'Doctors and dentists',
      color: '#4f46e5',
    }),
    201,
  );
  const renamed = await ok(
    dev.post('/v1/dev/user/folders', { name: 'Work', description: null, color: null }),
    201,
  );
  await ok(dev.patch(`/v1/dev/user/folders/${renamed.id}`, { name: 'Work (old)', color: '#00ff00' }));
  const gone = await ok(dev.post('/v1/dev/user/folders', { name: 'Temporary' }), 201);
  await ok(dev.delete(`/v1/dev/user/folders/${gone.id}`));

  // Conversations: from text and from segments, every field set; one discarded and moved; one deleted.
  const place = {
    latitude: 52.520008,
    longitude: 13.404954,
    address: 'Alexanderplatz 1, Berlin',
    google_place_id: 'ChIJAVkDPzdOqEcRcDteW0YgIQQ',
    location_type: 'work',
  };
  const fromText = await ok(
    dev.post('/v1/dev/user/conversations', {
      text: 'We agreed to book the dentist for Tuesday and to send the report by Friday.',
      started_at: '2026-11-20T09:00:00.000Z',
      finished_at: '2026-11-20T09:30:15.250Z',
      language: 'de',
      source: 'omi',
      geolocation: place,
      folder_id: folder.id,
      structured: { title: 'Dentist and report', overview: 'Two errands.', category: 'health', emoji: '🦷' },
    }),
    201,
  );
  const fromSegments = await ok(
    dev.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [
        {
          text: 'Shall we run on Sunday?',
          speaker: 'SPEAKER_00',
          speaker_id: 0,
          is_user: true,
          start: 0,
          end: 2.5,
        },
        {
          text: 'Yes, ten kilometres.',
          speaker: 'SPEAKER_01',
          speaker_id: 1,
          is_user: false,
          start: 2.5,
          end: 4.75,
        },
        { text: 'Defaults only.', start: 5, end: 6 },
      ],
      client_session_id: 'upgrade-client-session',
      started_at: '2026-11-21T07:00:00.000Z',
      finished_at: '2026-11-21T07:05:00.000Z',
      language: 'en',
      source: 'phone',
      geolocation: { latitude: -33.8688, longitude: 151.2093 },
      folder_id: renamed.id,
      structured: { title: 'Sunday run', overview: 'A run planned.', category: 'sports', emoji: '🏃' },
    }),
    201,
  );
  const discarded = await ok(
    dev.post('/v1/dev/user/conversations', { text: 'Small talk about the weather.' }),
    201,
  );
  await ok(
    dev.patch(`/v1/dev/user/conversations/${discarded.id}`, {
      title: 'Weather',
      discarded: true,
      folder_id: folder.id,
    }),
  );
  await ok(dev.patch(`/v1/dev/user/conversations/${fromSegments.id}`, { folder_id: null }));
  const deletedConversation = await ok(
    dev.post('/v1/dev/user/conversations', { text: 'To be deleted.' }),
    201,
  );
  await ok(dev.delete(`/v1/dev/user/conversations/${deletedConversation.id}`));

  // Action items: linked, due, completed, un-due'd, in a batch, deleted.
  await ok(
    dev.post('/v1/dev/user/action-items', {
      description: 'Book the dentist',
      completed: true,
      due_at: '2026-11-24T09:00:00.000Z',
      conversation_id: fromText.id,
    }),
    201,
  );
  const later = await ok(
    dev.post('/v1/dev/user/action-items', {
      description: 'Send the report',
      due_at: '2026-11-27T17:00:00.000Z',
    }),
    201,
  );
  await ok(
    dev.patch(`/v1/dev/user/action-items/${later.id}`, { completed: true, description: 'Send the report!' }),
  );
  await ok(dev.patch(`/v1/dev/user/action-items/${later.id}`, { completed: false, due_at: null }));
  const batch = await ok(
    dev.post('/v1/dev/user/action-items/batch', {
      action_items: [
        { description: 'Buy running shoes', completed: false, due_at: '2026-12-01T00:00:00.000Z' },
        { description: 'Stretch', completed: true, due_at: null },
      ],
    }),
    201,
  );
  await ok(dev.delete(`/v1/dev/user/action-items/${batch.action_items[1].id}`));

  // Memories: every field, a batch, an edit, a deletion.
  await ok(
    dev.post('/v1/dev/user/memories', {
      content: 'Prefers morning runs',
      category: 'interesting',
      visibility: 'public',
      tags: ['running', 'habits'],
    }),
    201,
  );
  const memories = await ok(
    dev.post('/v1/dev/user/memories/batch', {
      memories: [
        { content: 'Dentist is Dr. Rossi', category: 'system', visibility: 'private', tags: ['health'] },
        { content: 'Temporary note' },
      ],
    }),
    201,
  );
  await ok(
    dev.patch(`/v1/dev/user/memories/${memories.memories[0].id}`, {
      content: 'Dentist is Dr. Rossi, Via Roma 3',
      category: 'manual',
      visibility: 'public',
      tags: ['health', 'address'],
    }),
  );
  await ok(dev.delete(`/v1/dev/user/memories/${memories.memories[1].id}`));

  // Goals: every field, progress history, achieved, abandoned (goals are never deleted).
  const numeric = await ok(
    dev.post('/v1/dev/user/goals', {
      title: 'Run 40 km a week',
      desired_outcome: 'A half marathon in spring',
      goal_type: 'numeric',
      source: 'ai_suggested',
      status: 'focused',
      target_value: 40,
      current_value: 5,
      min_value: 0,
      max_value: 60,
      unit: 'km',
      focus_rank: 1,
      horizon_at: '2027-03-01T00:00:00.000Z',
      success_criteria: ['Four runs a week', 'One long run'],
      why_it_matters: 'Health',
    }),
    201,
  );
  await ok(dev.patch(`/v1/dev/user/goals/${numeric.id}/progress`, undefined, { current_value: 12.5 }));
  await ok(dev.patch(`/v1/dev/user/goals/${numeric.id}/progress`, undefined, { current_value: 18 }));
  const scale = await ok(
    dev.post('/v1/dev/user/goals', {
      title: 'Sleep quality',
      goal_type: 'scale',
      source: 'imported',
      status: 'background',
    }),
    201,
  );
  await ok(dev.patch(`/v1/dev/user/goals/${scale.id}`, { status: 'achieved', current_value: 9, unit: null }));
  const flag = await ok(
    dev.post('/v1/dev/user/goals', { title: 'Quit sugar', goal_type: 'boolean', status: 'paused' }),
    201,
  );
  await ok(dev.delete(`/v1/dev/user/goals/${flag.id}`));

  // People: created, renamed, deleted.
  await ok(dev.post('/v1/dev/user/people', { name: 'Alice Example' }), 201);
  const bob = await ok(dev.post('/v1/dev/user/people', { name: 'Bob' }), 201);
  await ok(dev.patch(`/v1/dev/user/people/${bob.id}`, { name: 'Bob Builder' }));
  const carol = await ok(dev.post('/v1/dev/user/people', { name: 'Carol' }), 201);
  await ok(dev.delete(`/v1/dev/user/people/${carol.id}`));

  // Screen activity: every field, and one with the defaults.
  await ok(
    dev.post('/v1/dev/user/screen-activity', {
      screen_activity: [
        {
          timestamp: '2026-11-22T10:00:00.123Z',
          app_name: 'Editor',
          window_title: 'report.md',
          ocr_text: 'Q4 report',
        },
        { timestamp: '2026-11-22T10:00:01.000Z', app_name: 'Browser' },
      ],
    }),
    201,
  );

  // A direct notification, and a proactive one through the webhook (a delivery and a pushed notification).
  await ok(
    client(baseUrl, init.app_secret).post(`/v2/integrations/${init.app_id}/notification`, undefined, {
      uid: init.user_id,
      message: 'Your report is due Friday',
    }),
  );
  await ok(
    dev.post('/v1/dev/user/transcripts/upgrade-live/segments', {
      segments: [
        { text: 'Remind me about the dentist', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1.5 },
      ],
    }),
    202,
  );
  const delivery = await until('the proactive delivery', async () => {
    const page = await ok(admin.get('/v1/admin/deliveries'));
    return page.deliveries[0];
  });
  expect(delivery).toMatchObject({ outcome: 'pushed', app_id: reminder.id, session_id: 'upgrade-live' });
  await ok(dev.post('/v1/dev/user/transcripts/upgrade-live/finish'));
  expect(signedWith(reminder.webhook_secret, receiver.calls[0])).toBe(true);

  // The second user's own records.
  const other = client(baseUrl, secondKey.key);
  await ok(other.post('/v1/dev/user/memories', { content: 'Second user memory' }), 201);
  const otherConversation = await ok(
    other.post('/v1/dev/user/conversations', { text: 'Second user talk' }),
    201,
  );
  await ok(
    other.post('/v1/dev/user/action-items', {
      description: 'Second user task',
      conversation_id: otherConversation.id,
    }),
    201,
  );

  return {
    secondUser: { id: second.id, key: secondKey.key },
    revokedKey: revoked.key,
    readOnlyKey: readOnlyKey.key,
    reminderApp: { id: reminder.id, secret: reminder.app_secret, webhookSecret: reminder.webhook_secret },
    hookApp: { id: hook.id, secret: hook.app_secret },
  };
}

/** Every record of an offset-paged list. */
async function allByOffset(dev: Client, path: string, limit: number, query: Query = {}, field?: string) {
  const records: unknown[] = [];
  for (let offset = 0; ; offset += limit) {
    const body = await ok(dev.get(path, { ...query, limit, offset }));
    const page = field ? body[field] : body;
    records.push(...page);
    if (page.length < limit) return records;
  }
}

/** Every record of a cursor-paged list. */
async function allByCursor(reader: Client, path: string, field: string, limit: number, query: Query = {}) {
  const records: unknown[] = [];
  let cursor: string | undefined;
  do {
    const body = await ok(reader.get(path, { ...query, limit, cursor }));
    records.push(...body[field]);
    cursor = body.has_more ? body.next_cursor : undefined;
  } while (cursor !== undefined);
  return records;
}

/** A key without its `last_used_at`, which reading with the key moves. */
function withoutLastUse(key: Record<string, unknown>) {
  const copy = { ...key };
  delete copy.last_used_at;
  return copy;
}

/** One user's data as the developer API shows it, every record of every resource. */
async function userData(dev: Client) {
  const conversations = (await allByOffset(dev, '/v1/dev/user/conversations', 100, {
    include_transcript: true,
    include_discarded: true,
  })) as { id: string }[];
  const goals = (await ok(dev.get('/v1/dev/user/goals', { include_inactive: true, limit: 1000 }))) as {
    id: string;
  }[];
  return {
    key: withoutLastUse(await ok(dev.get('/v1/dev/key'))),
    conversations,
    conversationById: await Promise.all(
      conversations.map(({ id }) =>
        ok(dev.get(`/v1/dev/user/conversations/${id}`, { include_transcript: true })),
      ),
    ),
    actionItems: await allByOffset(dev, '/v1/dev/user/action-items', 1000),
    memories: await allByOffset(dev, '/v1/dev/user/memories', 1000),
    folders: await ok(dev.get('/v1/dev/user/folders')),
    goals,
    goalById: await Promise.all(goals.map(({ id }) => ok(dev.get(`/v1/dev/user/goals/${id}`)))),
    goalHistory: await Promise.all(
      goals.map(({ id }) => ok(dev.get(`/v1/dev/user/goals/${id}/history`, { days: 365 }))),
    ),
    people: await ok(dev.get('/v1/dev/user/people')),
    screenActivity: await allByCursor(dev, '/v1/dev/user/screen-activity', 'screen_activity', 1000),
    notifications: await allByCursor(dev, '/v1/dev/user/notifications', 'notifications', 100),
    deleted: await ok(dev.get('/v1/dev/user/deleted', { limit: 1000 })),
  };
}

/**
 * Everything a server shows of the database, read over HTTP. Keys' `last_used_at` is left out of the comparison
 * (reading with a key moves it) and returned apart, to check it never goes back.
 */
async function snapshot(baseUrl: string, init: PreviousInit, written: Written) {
  const admin = client(baseUrl, init.admin_token);
  const users = (await ok(admin.get('/v1/admin/users'))) as { id: string }[];
  const keyLists = await Promise.all(
    users.map(
      ({ id }) =>
        ok(admin.get(`/v1/admin/users/${id}/keys`)) as Promise<{ id: string; last_used_at: string | null }[]>,
    ),
  );
  const lastUsed = Object.fromEntries(keyLists.flat().map((k) => [k.id, k.last_used_at]));
  const apps = [
    { id: init.app_id, secret: init.app_secret },
    { id: written.reminderApp.id, secret: written.reminderApp.secret },
    written.hookApp,
  ];
  const records = {
    users,
    keys: keyLists.map((keys) => keys.map(withoutLastUse)),
    apps: await ok(admin.get('/v1/admin/apps')),
    deliveries: await allByCursor(admin, '/v1/admin/deliveries', 'deliveries', 100),
    eachApp: await Promise.all(
      apps.map(async ({ id, secret }) => {
        const integration = client(baseUrl, secret);
        return {
          app: await ok(integration.get(`/v2/integrations/${id}/app`)),
          webhook: await ok(integration.get(`/v2/integrations/${id}/webhook`)),
          deliveries: await allByCursor(integration, `/v2/integrations/${id}/deliveries`, 'deliveries', 100),
        };
      }),
    ),
    initUser: await userData(client(baseUrl, init.developer_key)),
    secondUser: await userData(client(baseUrl, written.secondUser.key)),
  };
  return { records, lastUsed };
}

describe.each(DIALECTS)('upgrading from the previous landed version on %s', (dialect) => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let receiver: Receiver;
  let previous: ServeProcess | undefined;
  let current: ServeProcess | undefined;

  beforeAll(async () => {
    // Builds the previous version the first time on this machine (in the order of 15 s), then reuses it.
    previousVersionCli();
    database = await createDatabase(dialect);
    receiver = await startReceiver();
  }, 300_000);

  afterAll(async () => {
    await previous?.stop();
    await current?.stop();
    await receiver?.close();
    await database?.drop();
  });

  it('reads every record back unchanged, and its keys, token, secrets and installs still work', async () => {
    const init = previousInit(database.url);
    previousSeed(database.url);
    previous = await previousServe(database.url, LOOPBACK_WEBHOOKS);
    const written = await writeEverything(previous.baseUrl, init, receiver);
    const before = await snapshot(previous.baseUrl, init, written);
    previous.child.kill('SIGTERM');
    expect(await previous.exited).toBe(0);

    current = await serveCli(database.url, LOOPBACK_WEBHOOKS);
    const after = await snapshot(current.baseUrl, init, written);
    expect(notKept(asShownNow(before.records), after.records)).toEqual([]);
    // Fields added by 0005_conversation_fields: not starred; text conversations have the default text_source.
    for (const shown of conversationsOf(after.records)) {
      const fromText = TEXT_CONVERSATIONS.includes(shown.transcript_segments[0].text);
      expect({
        text: shown.transcript_segments[0].text,
        starred: shown.starred,
        text_source: shown.text_source,
      }).toEqual({
        text: shown.transcript_segments[0].text,
        starred: false,
        text_source: fromText ? 'other_text' : null,
      });
    }
    expect(conversationsOf(after.records).filter((c) => c.text_source === 'other_text')).toHaveLength(6);
    for (const [id, used] of Object.entries(before.lastUsed)) {
      if (used !== null) expect(Date.parse(after.lastUsed[id]!)).toBeGreaterThanOrEqual(Date.parse(used));
    }
    // The snapshot would be empty-handed if the writes had failed: it holds what they made, and the seed.
    expect(before.records.initUser.screenActivity.length).toBeGreaterThan(1000);
    expect(before.records.deliveries).toHaveLength(1);

    // Keys: valid ones authenticate with their scopes; the revoked one stays refused.
    const base = current.baseUrl;
    await ok(client(base, init.developer_key).get('/v1/dev/key'));
    await ok(client(base, written.secondUser.key).get('/v1/dev/key'));
    await ok(client(base, written.readOnlyKey).get('/v1/dev/user/memories'));
    expect(
      (await client(base, written.readOnlyKey).post('/v1/dev/user/memories', { content: 'x' })).status,
    ).toBe(403);
    expect((await client(base, written.revokedKey).get('/v1/dev/key')).status).toBe(401);
    expect((await client(base, 'svc_admin_wrong').get('/v1/admin/users')).status).toBe(401);
    // App secrets and installs: init's app reaches its user but no longer the user it was uninstalled for.
    const initApp = client(base, init.app_secret);
    const notify = (app: Client, appId: string, uid: string) =>
      app.post(`/v2/integrations/${appId}/notification`, undefined, { uid, message: 'After the upgrade' });
    await ok(notify(initApp, init.app_id, init.user_id));
    expect((await notify(initApp, init.app_id, written.secondUser.id)).status).toBe(404);
    expect((await notify(client(base, 'sk_wrong'), init.app_id, init.user_id)).status).toBe(401);
    // The reminder app's webhook, grants and signing secret: the second user's transcript reaches it, signed.
    await ok(
      client(base, written.secondUser.key).post('/v1/dev/user/transcripts/after-upgrade/segments', {
        segments: [{ text: 'Anything to remember?', start: 0, end: 1 }],
      }),
      202,
    );
    const call = await until('the webhook call after the upgrade', async () => receiver.calls[1]);
    expect(JSON.parse(call.body).session_id).toBe('after-upgrade');
    expect(signedWith(written.reminderApp.webhookSecret, call)).toBe(true);
  }, 120_000);
});

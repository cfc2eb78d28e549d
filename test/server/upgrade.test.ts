// Nothing lost across upgrades: the previous landed version (test/helpers/previous-version.ts) writes a database
// with every resource and every field it accepts, and reads it all back over HTTP; the current server then starts
// on that database (migrating it) and must read every record back the same, on both databases. A field the current
// version adds is fine; a field missing or changed is a failure. Searches must find the same records. The previous
// version's keys, admin token, app secrets, installs, webhook secret and event subscriptions must still work.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveCli, type ServeProcess } from '../helpers/cli';
import { eventReceiver, verifiedSignatures, type EventReceiver } from '../helpers/event-receiver';
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
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
];
const PROACTIVE_SCOPES = ['user_name', 'user_facts', 'user_context', 'user_chat'];
/** The memory categories the previous version accepts beside its default `manual`. */
const MEMORY_CATEGORIES = [
  'interesting',
  'system',
  'core',
  'hobbies',
  'lifestyle',
  'interests',
  'habits',
  'work',
  'skills',
  'learnings',
  'other',
  'auto',
];
/**
 * Both versions call webhooks on loopback, where the test's receivers listen; the rate limit is far above what
 * the test sends with one key (its writes, two snapshots, and polls for deliveries).
 */
const SERVE_ENV = { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1', DEVDATA_RATE_LIMIT: '100000/60' };
/**
 * The previous version makes its developer keys with another prefix than init's default one: the current server,
 * started without the setting, must take keys of both.
 */
const PREVIOUS_KEY_PREFIX = 'omi_dev_';

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

/** A receiver for the proactive webhook: keeps each call and answers with a message and a notification to push. */
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
          message: 'Bring the insurance card',
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

/** A receiver for each event subscription, so that each one's calls are told apart. */
interface EventReceivers {
  everything: EventReceiver;
  rotated: EventReceiver;
  /** Answers 503 until the test says otherwise. */
  failing: EventReceiver;
}

/** An event subscription the previous version made, with the secret that signs its calls. */
interface Subscription {
  id: string;
  secret: string;
}

/** What the test made on the previous version, beyond init's: whose data to read and with which secrets. */
interface Written {
  /** With `support`: the records holding an address and a version (see 0012_search_tokens). */
  secondUser: { id: string; key: string; support: { conversation: string; memory: string } };
  revokedKey: string;
  readOnlyKey: string;
  /** Made by the user through POST /v1/dev/keys, with three scopes. */
  ownKey: string;
  revokedOwnKey: string;
  reminderApp: { id: string; secret: string; webhookSecret: string };
  hookApp: { id: string; secret: string };
  unhookedApp: { id: string; secret: string };
  /** Every event type; its calls all delivered. */
  everything: Subscription;
  /** Its secret rotated: the previous secret signs too, within the grace period. */
  rotated: Subscription & { previousSecret: string };
  /** Its calls refused: its deliveries wait, pending, for a retry an hour later. */
  failing: Subscription;
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

type Delivery = { id: string; event_id: string; event_type: string; status: string; attempt_count: number };

const deliveriesOf = (dev: Client, webhookId: string) =>
  allByCursor(dev, `/v1/dev/user/webhooks/${webhookId}/deliveries`, 'deliveries', 100) as Promise<Delivery[]>;

/** Waits until none of the subscription's deliveries is pending, and returns them. */
const settled = (dev: Client, webhookId: string) =>
  until(`the deliveries of ${webhookId}`, async () => {
    const deliveries = await deliveriesOf(dev, webhookId);
    return deliveries.every((d) => d.status !== 'pending') ? deliveries : undefined;
  });

/** Writes at least one record of every resource, with every field the previous version accepts set. */
async function writeEverything(
  baseUrl: string,
  init: PreviousInit,
  receiver: Receiver,
  events: EventReceivers,
): Promise<Written> {
  const admin = client(baseUrl, init.admin_token);
  const dev = client(baseUrl, init.developer_key);

  // Users, keys (from the admin API and the user's own), apps, installs.
  const second = await ok(admin.post('/v1/admin/users', { name: 'Second user' }), 201);
  const secondKey = await ok(
    admin.post(`/v1/admin/users/${second.id}/keys`, { name: 'every scope', scopes: PREVIOUS_SCOPES }),
    201,
  );
  expect(secondKey.key.startsWith(PREVIOUS_KEY_PREFIX)).toBe(true);
  const readOnlyKey = await ok(
    admin.post(`/v1/admin/users/${second.id}/keys`, { name: 'default scopes' }),
    201,
  );
  const revoked = await ok(admin.post(`/v1/admin/users/${init.user_id}/keys`, { name: 'revoked' }), 201);
  await ok(admin.delete(`/v1/admin/keys/${revoked.id}`), 204);
  const ownKey = await ok(
    dev.post('/v1/dev/keys', {
      name: 'n8n trigger',
      scopes: ['conversations:read', 'webhooks:read', 'webhooks:write'],
    }),
  );
  await ok(dev.post('/v1/dev/keys', { name: 'reads only' }));
  const revokedOwn = await ok(dev.post('/v1/dev/keys', { name: 'revoked by its user', scopes: null }));
  await ok(dev.delete(`/v1/dev/keys/${revokedOwn.id}`), 204);
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
  const unhooked = await ok(
    admin.post('/v1/admin/apps', {
      name: 'Unhooked app',
      capabilities: ['external_integration'],
      external_integration: { triggers_on: 'transcript_processed', webhook_url: `${receiver.url}/gone` },
    }),
    201,
  );
  await ok(client(baseUrl, unhooked.app_secret).delete(`/v2/integrations/${unhooked.id}/webhook`));
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

  // Event subscriptions, before the data so that its events are sent: to one that takes every event, one whose
  // secret was rotated, one whose calls fail, one paused, one deleted.
  const everything = await ok(
    dev.post('/v1/dev/user/webhooks', {
      url: events.everything.url,
      events: ['*'],
      description: 'Every change',
    }),
  );
  const rotated = await ok(
    dev.post('/v1/dev/user/webhooks', {
      url: events.rotated.url,
      events: ['memory.created', 'memory.deleted', 'ping'],
    }),
  );
  const rotation = await ok(dev.post(`/v1/dev/user/webhooks/${rotated.id}/rotate-secret`));
  const failing = await ok(
    dev.post('/v1/dev/user/webhooks', {
      url: events.failing.url,
      events: ['action_item.completed', 'goal.progress_recorded'],
      description: 'Progress',
    }),
  );
  const paused = await ok(
    dev.post('/v1/dev/user/webhooks', { url: `${events.everything.url}/paused`, events: ['goal.created'] }),
  );
  await ok(
    dev.patch(`/v1/dev/user/webhooks/${paused.id}`, {
      url: `${events.everything.url}/holidays`,
      active: false,
      description: 'Paused for the holidays',
    }),
  );
  const deletedSubscription = await ok(
    dev.post('/v1/dev/user/webhooks', { url: events.everything.url, events: ['ping'] }),
  );
  await ok(dev.delete(`/v1/dev/user/webhooks/${deletedSubscription.id}`));

  // People first, so that transcript segments can name them: created, renamed, found again by name, deleted.
  const alice = await ok(dev.post('/v1/dev/user/people', { name: 'Alice Example' }));
  expect((await ok(dev.post('/v1/dev/user/people', { name: 'alice example' }))).id).toBe(alice.id);
  const bob = await ok(dev.post('/v1/dev/user/people', { name: 'Bob' }));
  await ok(dev.patch(`/v1/dev/user/people/${bob.id}`, { name: 'Bob Builder' }));
  const carol = await ok(dev.post('/v1/dev/user/people', { name: 'Carol' }));
  await ok(dev.delete(`/v1/dev/user/people/${carol.id}`));

  // Folders: every field; defaults; renamed and reordered; a color reset; one deleted (a tombstone).
  const folder = await ok(
    dev.post('/v1/dev/user/folders', {
      name: 'Health',
      description: 'Doctors and dentists',
      color: '#4f46e5',
      icon: 'stethoscope',
    }),
  );
  const renamed = await ok(
    dev.post('/v1/dev/user/folders', { name: 'Work', description: null, color: null, icon: null }),
  );
  await ok(
    dev.patch(`/v1/dev/user/folders/${renamed.id}`, {
      name: 'Work (old)',
      color: '#00ff00',
      icon: 'briefcase',
      order: 3,
    }),
  );
  const reset = await ok(dev.post('/v1/dev/user/folders', { name: 'Errands', color: '#123abc' }));
  await ok(dev.patch(`/v1/dev/user/folders/${reset.id}`, { color: null, description: 'Shopping' }));
  const gone = await ok(dev.post('/v1/dev/user/folders', { name: 'Temporary' }));
  await ok(dev.delete(`/v1/dev/user/folders/${gone.id}`));

  // Conversations: from text and from segments with every field set; defaults; starred; discarded and moved;
  // a retried client_session_id; one deleted (its action item unlinked).
  const fromText = await ok(
    dev.post('/v1/dev/user/conversations', {
      text: 'We agreed to book the dentist for Tuesday and to send the report by Friday.',
      text_source: 'message',
      text_source_spec: 'email',
      started_at: '2026-11-20T09:00:00.000Z',
      finished_at: '2026-11-20T09:30:15.250Z',
      language: 'de',
      source: 'omi',
      geolocation: {
        latitude: 52.520008,
        longitude: 13.404954,
        address: 'Alexanderplatz 1, Berlin',
        google_place_id: 'ChIJAVkDPzdOqEcRcDteW0YgIQQ',
        location_type: 'work',
      },
      folder_id: folder.id,
      structured: {
        title: 'Dentist and report',
        overview: 'Two errands.',
        category: 'health',
        emoji: '🦷',
        events: [
          {
            title: 'Dentist',
            description: 'Dr. Rossi',
            start: '2026-11-24T09:00:00+01:00',
            duration: 45,
            created: true,
          },
          { title: 'Report due', start: '2026-11-27T17:00:00' },
        ],
      },
    }),
  );
  const segments = [
    {
      id: 'ignored-segment-id',
      text: 'Shall we run on Sunday?',
      speaker: 'SPEAKER_00',
      speaker_id: 0,
      is_user: true,
      person_id: null,
      start: 0,
      end: 2.5,
    },
    {
      text: 'Yes, ten kilometres.',
      speaker_name: 'Alice Example',
      speaker_id: 1,
      is_user: false,
      person_id: alice.id,
      start: 2.5,
      end: 4.75,
    },
    { text: 'Defaults only.', start: 5, end: 6 },
  ];
  const fromSegmentsBody = {
    transcript_segments: segments,
    client_session_id: 'upgrade-client-session',
    started_at: '2026-11-21T07:00:00.000Z',
    finished_at: '2026-11-21T07:05:00.000Z',
    language: 'en',
    source: 'phone',
    geolocation: { latitude: -33.8688, longitude: 151.2093 },
    folder_id: renamed.id,
    structured: { title: 'Sunday run', overview: 'A run planned.', category: 'real', emoji: '🏃' },
  };
  const fromSegments = await ok(dev.post('/v1/dev/user/conversations/from-segments', fromSegmentsBody));
  // A retry sends the same body: other content under the same client_session_id is a 409.
  const retried = await ok(dev.post('/v1/dev/user/conversations/from-segments', fromSegmentsBody));
  expect(retried.id).toBe(fromSegments.id);
  const starred = await ok(
    dev.post('/v1/dev/user/conversations', {
      text: 'Notes dictated on the way home about the quarterly budget.',
      text_source: 'audio_transcript',
      text_source_spec: null,
      started_at: null,
      language: null,
      geolocation: null,
    }),
  );
  await ok(dev.patch(`/v1/dev/user/conversations/${starred.id}`, { starred: true, title: 'Budget notes' }));
  const discarded = await ok(
    dev.post('/v1/dev/user/conversations', { text: 'Small talk about the weather.' }),
  );
  await ok(
    dev.patch(`/v1/dev/user/conversations/${discarded.id}`, {
      title: 'Weather',
      discarded: true,
      folder_id: folder.id,
    }),
  );
  await ok(dev.patch(`/v1/dev/user/conversations/${fromSegments.id}`, { folder_id: null }));
  const deletedConversation = await ok(dev.post('/v1/dev/user/conversations', { text: 'To be deleted.' }));
  await ok(
    dev.post('/v1/dev/user/action-items', {
      description: 'Follow up on the deleted talk',
      conversation_id: deletedConversation.id,
    }),
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
  );
  const later = await ok(
    dev.post('/v1/dev/user/action-items', {
      description: 'Send the report',
      due_at: '2026-11-27T17:00:00.000Z',
      conversation_id: null,
    }),
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
  );
  await ok(dev.delete(`/v1/dev/user/action-items/${batch.action_items[1].id}`));

  // Memories: every field, every category, a batch, an edit of the content (edited) and one without it, a
  // deletion.
  await ok(
    dev.post('/v1/dev/user/memories', {
      content: 'Prefers morning runs',
      category: 'interesting',
      visibility: 'public',
      tags: ['running', 'habits'],
    }),
  );
  const memories = await ok(
    dev.post('/v1/dev/user/memories/batch', {
      memories: [
        { content: 'Dentist is Dr. Rossi', category: 'system', visibility: 'private', tags: ['health'] },
        { content: 'Temporary note' },
        ...MEMORY_CATEGORIES.map((category) => ({ content: `A fact filed under ${category}`, category })),
      ],
    }),
  );
  await ok(
    dev.patch(`/v1/dev/user/memories/${memories.memories[0].id}`, {
      content: 'Dentist is Dr. Rossi, Via Roma 3',
      category: 'manual',
      visibility: 'public',
      tags: ['health', 'address'],
    }),
  );
  await ok(dev.patch(`/v1/dev/user/memories/${memories.memories[2].id}`, { tags: ['retagged'] }));
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
  );
  await ok(
    dev.patch(`/v1/dev/user/goals/${scale.id}`, {
      status: 'achieved',
      current_value: 9,
      unit: null,
      focus_rank: null,
      horizon_at: null,
      why_it_matters: null,
    }),
  );
  const flag = await ok(
    dev.post('/v1/dev/user/goals', { title: 'Quit sugar', goal_type: 'boolean', status: 'paused' }),
  );
  await ok(dev.delete(`/v1/dev/user/goals/${flag.id}`));

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
  );

  // A direct notification, and a proactive call whose reply pushes a message and a notification (two deliveries)
  // from a live transcript whose segments name a person and a speaker.
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
        {
          text: 'Nine on Tuesday',
          speaker_name: 'Bob Builder',
          speaker_id: 3,
          person_id: bob.id,
          start: 1.5,
          end: 2,
        },
      ],
    }),
    202,
  );
  const deliveries = await until('the proactive deliveries', async () => {
    const page = await ok(admin.get('/v1/admin/deliveries'));
    return page.deliveries.length === 2 ? (page.deliveries as { outcome: string }[]) : undefined;
  });
  expect(deliveries.map((d) => d.outcome).sort()).toEqual(['message_pushed', 'pushed']);
  await ok(dev.post('/v1/dev/user/transcripts/upgrade-live/finish'));
  expect(signedWith(reminder.webhook_secret, receiver.calls[0])).toBe(true);

  // The second user's own records.
  const other = client(baseUrl, secondKey.key);
  await ok(other.post('/v1/dev/user/memories', { content: 'Second user memory' }));
  // An address and a version, which PostgreSQL indexed whole before 0012_search_tokens and now by their words;
  // a name with accents, which it indexed as written before 0014_search_accents and now folded; a Vietnamese name,
  // whose letters with two accents SQLite folds from 0015_search_diacritics on.
  const supportTalk = await ok(
    other.post('/v1/dev/user/conversations', {
      text: 'Email bob@zetacorp.dev the logs of build 3.14.2 for Nguyễn',
    }),
  );
  const supportNote = await ok(
    other.post('/v1/dev/user/memories', {
      content: 'Support writes from bob@zetacorp.dev, signed Zoë Müller and Nguyễn Văn',
    }),
  );
  const otherConversation = await ok(other.post('/v1/dev/user/conversations', { text: 'Second user talk' }));
  await ok(
    other.post('/v1/dev/user/action-items', {
      description: 'Second user task',
      conversation_id: otherConversation.id,
    }),
  );

  // Event deliveries: a ping, then every call answered; one delivery sent again (a new delivery of its event).
  await ok(dev.post(`/v1/dev/user/webhooks/${everything.id}/ping`));
  const sent = await settled(dev, everything.id);
  expect(sent.every((d) => d.status === 'delivered')).toBe(true);
  const redelivered = await ok(
    dev.post(`/v1/dev/user/webhooks/${everything.id}/deliveries/${sent[sent.length - 1].id}/redeliver`),
  );
  expect(redelivered.event_id).toBe(sent[sent.length - 1].event_id);
  await settled(dev, everything.id);
  await settled(dev, rotated.id);
  const call = events.everything.received.find((e) => e.body.type === 'memory.created');
  expect(call && verifiedSignatures(call, everything.secret)).toBe(1);
  await until('a failed attempt of each refused delivery', async () => {
    const deliveries = await deliveriesOf(dev, failing.id);
    return deliveries.length === 3 && deliveries.every((d) => d.attempt_count === 1) ? true : undefined;
  });

  return {
    secondUser: {
      id: second.id,
      key: secondKey.key,
      support: { conversation: supportTalk.id, memory: supportNote.id },
    },
    revokedKey: revoked.key,
    readOnlyKey: readOnlyKey.key,
    ownKey: ownKey.key,
    revokedOwnKey: revokedOwn.key,
    reminderApp: { id: reminder.id, secret: reminder.app_secret, webhookSecret: reminder.webhook_secret },
    hookApp: { id: hook.id, secret: hook.app_secret },
    unhookedApp: { id: unhooked.id, secret: unhooked.app_secret },
    everything: { id: everything.id, secret: everything.secret },
    rotated: { id: rotated.id, secret: rotation.secret, previousSecret: rotated.secret },
    failing: { id: failing.id, secret: failing.secret },
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

/** A key without its `last_used_at`, which reading with the key moves. */
function withoutLastUse(key: Record<string, unknown>) {
  const copy = { ...key };
  delete copy.last_used_at;
  return copy;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The records a search found, by id and without their score: the upgrade must keep what a search finds, while
 * the ranking (scores, and so the order) is the search engine's, which a migration may tune.
 */
async function found(reader: Client, path: string, query: Query, field?: string) {
  const body = (await ok(reader.get(path, query))) as Record<string, { id: string }>[];
  return (field ? body.map((result) => result[field]) : (body as unknown as { id: string }[])).sort(byId);
}

/** What the searches of one user find, for every search the previous version has. */
async function searches(
  dev: Client,
  words: { conversation: string[]; memory: string[]; actionItem: string[] },
) {
  const conversations = '/v1/dev/user/conversations/search';
  const memories = '/v1/dev/user/memories/search';
  return {
    conversations: await Promise.all(
      words.conversation.map((query) =>
        found(dev, conversations, { query, include_transcript: true, limit: 100 }, 'conversation'),
      ),
    ),
    conversationsInNovember: await found(
      dev,
      conversations,
      { query: words.conversation[0], start_date: '2026-11-01', end_date: '2026-11-30', limit: 100 },
      'conversation',
    ),
    memories: await Promise.all(
      words.memory.map((query) => found(dev, memories, { query, limit: 100 }, 'memory')),
    ),
    memoriesByCategory: await found(
      dev,
      memories,
      { query: words.memory[0], categories: 'manual,system', limit: 100 },
      'memory',
    ),
    actionItems: await Promise.all(
      words.actionItem.map((query) => found(dev, '/v1/dev/user/action-items', { query, limit: 1000 })),
    ),
  };
}

/** One user's data as the developer API shows it, every record of every resource. */
async function userData(dev: Client, words: Parameters<typeof searches>[1]) {
  const conversations = (await allByOffset(dev, '/v1/dev/user/conversations', 100, {
    include_transcript: true,
    include_discarded: true,
  })) as { id: string }[];
  const goals = (await ok(dev.get('/v1/dev/user/goals', { include_inactive: true, limit: 1000 }))) as {
    id: string;
  }[];
  const webhooks = (await ok(dev.get('/v1/dev/user/webhooks'))) as { id: string }[];
  return {
    key: withoutLastUse(await ok(dev.get('/v1/dev/key'))),
    keys: ((await ok(dev.get('/v1/dev/keys'))) as Record<string, unknown>[]).map(withoutLastUse),
    conversations,
    conversationById: await Promise.all(
      conversations.map(({ id }) =>
        ok(dev.get(`/v1/dev/user/conversations/${id}`, { include_transcript: true })),
      ),
    ),
    actionItems: await allByOffset(dev, '/v1/dev/user/action-items', 1000),
    memories: await allByOffset(dev, '/v1/dev/user/memories', 1000),
    // By id: the list follows each folder's `order` now (it was oldest first), so an upgrade across that reorders it.
    folders: ((await ok(dev.get('/v1/dev/user/folders'))) as { id: string }[]).sort(byId),
    goals,
    goalById: await Promise.all(goals.map(({ id }) => ok(dev.get(`/v1/dev/user/goals/${id}`)))),
    goalHistory: await Promise.all(
      goals.map(({ id }) => ok(dev.get(`/v1/dev/user/goals/${id}/history`, { days: 365 }))),
    ),
    people: await ok(dev.get('/v1/dev/user/people')),
    screenActivity: await allByCursor(dev, '/v1/dev/user/screen-activity', 'screen_activity', 1000),
    notifications: await allByCursor(dev, '/v1/dev/user/notifications', 'notifications', 100),
    deleted: await ok(dev.get('/v1/dev/user/deleted', { limit: 1000 })),
    webhooks,
    webhookById: await Promise.all(webhooks.map(({ id }) => ok(dev.get(`/v1/dev/user/webhooks/${id}`)))),
    webhookDeliveries: await Promise.all(webhooks.map(({ id }) => deliveriesOf(dev, id))),
    search: await searches(dev, words),
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
    written.unhookedApp,
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
    initUser: await userData(client(baseUrl, init.developer_key), {
      conversation: ['dentist', '"ten kilometres"', 'budget', 'run'],
      memory: ['dentist', 'fact', 'runs'],
      actionItem: ['report', 'dentist', 'follow'],
    }),
    secondUser: await userData(client(baseUrl, written.secondUser.key), {
      conversation: ['second'],
      memory: ['second user'],
      actionItem: ['task'],
    }),
  };
  return { records, lastUsed };
}

describe.each(DIALECTS)('upgrading from the previous landed version on %s', (dialect) => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let receiver: Receiver;
  let events: EventReceivers;
  let previous: ServeProcess | undefined;
  let current: ServeProcess | undefined;
  let failingStatus = 503;

  beforeAll(async () => {
    // Builds the previous version the first time on this machine (in the order of 15 s), then reuses it.
    previousVersionCli();
    database = await createDatabase(dialect);
    receiver = await startReceiver();
    events = {
      everything: await eventReceiver(),
      rotated: await eventReceiver(),
      failing: await eventReceiver(() => ({ status: failingStatus })),
    };
  }, 300_000);

  afterAll(async () => {
    await previous?.stop();
    await current?.stop();
    await receiver?.close();
    await Promise.all(Object.values(events ?? {}).map((r) => r.close()));
    await database?.drop();
  });

  it('reads every record back unchanged, finds the same records, and every credential and subscription still works', async () => {
    const init = previousInit(database.url);
    previousSeed(database.url);
    previous = await previousServe(database.url, {
      ...SERVE_ENV,
      DEVDATA_KEY_PREFIX: PREVIOUS_KEY_PREFIX,
      // A refused call is tried again an hour later: long after the test, so no retry changes a delivery.
      DEVDATA_EVENT_RETRY_BASE_MS: '3600000',
    });
    const written = await writeEverything(previous.baseUrl, init, receiver, events);
    const before = await snapshot(previous.baseUrl, init, written);
    previous.child.kill('SIGTERM');
    expect(await previous.exited).toBe(0);
    const callsBefore = events.everything.received.length;

    current = await serveCli(database.url, SERVE_ENV);
    const after = await snapshot(current.baseUrl, init, written);
    expect(notKept(before.records, after.records)).toEqual([]);
    for (const [id, used] of Object.entries(before.lastUsed)) {
      if (used !== null) expect(Date.parse(after.lastUsed[id]!)).toBeGreaterThanOrEqual(Date.parse(used));
    }
    // The snapshot would be empty-handed if the writes had failed: it holds what they made, and the seed.
    const { initUser } = before.records;
    expect(initUser.screenActivity.length).toBeGreaterThan(1000);
    expect(before.records.deliveries).toHaveLength(2);
    expect(initUser.keys.map((k) => k.name)).toEqual(expect.arrayContaining(['n8n trigger', 'reads only']));
    expect(initUser.webhooks).toHaveLength(4);
    const [sent, , refused] = initUser.webhookDeliveries;
    expect(sent.length).toBeGreaterThan(40);
    expect(refused.map((d) => [d.status, d.attempt_count])).toEqual([
      ['pending', 1],
      ['pending', 1],
      ['pending', 1],
    ]);
    const searched = [initUser.search, before.records.secondUser.search].flatMap((s) => [
      ...s.conversations,
      s.conversationsInNovember,
      ...s.memories,
      s.memoriesByCategory,
      ...s.actionItems,
    ]);
    for (const results of searched) expect(results.length).toBeGreaterThan(0);
    // Nothing reached the subscriptions while the current server only read.
    expect(events.everything.received).toHaveLength(callsBefore);

    // Keys: valid ones authenticate with their scopes, whatever prefix they were made with; revoked ones stay
    // refused.
    const base = current.baseUrl;
    await ok(client(base, init.developer_key).get('/v1/dev/key'));
    await ok(client(base, written.secondUser.key).get('/v1/dev/key'));
    await ok(client(base, written.readOnlyKey).get('/v1/dev/user/memories'));
    expect(
      (await client(base, written.readOnlyKey).post('/v1/dev/user/memories', { content: 'x' })).status,
    ).toBe(403);
    await ok(client(base, written.ownKey).get('/v1/dev/user/webhooks'));
    expect((await client(base, written.ownKey).get('/v1/dev/user/memories')).status).toBe(403);
    expect((await client(base, written.revokedKey).get('/v1/dev/key')).status).toBe(401);
    expect((await client(base, written.revokedOwnKey).get('/v1/dev/key')).status).toBe(401);
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

    // Event subscriptions: the current server signs with their secrets (the rotated one's previous secret too,
    // within its grace period); the events whose calls were refused are sent again, now answered.
    const dev = client(base, init.developer_key);
    const newCall = (to: EventReceiver, type: string, from = 0) =>
      until(`a ${type} call`, async () => to.received.slice(from).find((e) => e.body.type === type));
    await ok(dev.post(`/v1/dev/user/webhooks/${written.everything.id}/ping`));
    const ping = await newCall(events.everything, 'ping', callsBefore);
    expect(ping.body.data).toEqual({ webhook_id: written.everything.id });
    expect(verifiedSignatures(ping, written.everything.secret)).toBe(1);
    const rotatedBefore = events.rotated.received.length;
    await ok(dev.post(`/v1/dev/user/webhooks/${written.rotated.id}/ping`));
    const rotatedPing = await newCall(events.rotated, 'ping', rotatedBefore);
    expect(verifiedSignatures(rotatedPing, written.rotated.secret)).toBe(1);
    expect(verifiedSignatures(rotatedPing, written.rotated.previousSecret)).toBe(1);
    failingStatus = 200;
    const refusedCalls = events.failing.received.length;
    for (const delivery of refused) {
      await ok(dev.post(`/v1/dev/user/webhooks/${written.failing.id}/deliveries/${delivery.id}/redeliver`));
    }
    const resent = (await events.failing.until((received) => received.length === refusedCalls + 3)).slice(
      refusedCalls,
    );
    expect(resent.map((e) => e.body.type).sort()).toEqual([
      'action_item.completed',
      'goal.progress_recorded',
      'goal.progress_recorded',
    ]);
    expect(resent.map((e) => e.body.id).sort()).toEqual(refused.map((d) => d.event_id).sort());
    for (const event of resent) expect(verifiedSignatures(event, written.failing.secret)).toBe(1);

    // Search: a record the current server writes is found beside those the previous version wrote.
    const created = await ok(dev.post('/v1/dev/user/memories', { content: 'The pharmacy opens at eight' }));
    const createdCall = await newCall(events.everything, 'memory.created', callsBefore);
    expect(createdCall.body.data.id).toBe(created.id);
    expect(verifiedSignatures(createdCall, written.everything.secret)).toBe(1);
    const pharmacy = await ok(dev.get('/v1/dev/user/memories/search', { query: 'pharmacy' }));
    expect(pharmacy.map((r: { memory: { id: string } }) => r.memory.id)).toContain(created.id);
    // Records the previous version stored are found by the words of an address and a version in them.
    const second = client(base, written.secondUser.key);
    const { support } = written.secondUser;
    for (const query of ['zetacorp', 'bob@zetacorp.dev', '"3.14.2"', 'nguyen']) {
      const talks = await ok(second.get('/v1/dev/user/conversations/search', { query }));
      expect([query, talks.map((r: { conversation: { id: string } }) => r.conversation.id)]).toEqual([
        query,
        [support.conversation],
      ]);
    }
    for (const query of ['zetacorp', 'Zoë Müller', 'zoe muller', '"nguyen van"']) {
      const notes = await ok(second.get('/v1/dev/user/memories/search', { query }));
      expect([query, notes.map((r: { memory: { id: string } }) => r.memory.id)]).toEqual([
        query,
        [support.memory],
      ]);
    }
  }, 180_000);
});

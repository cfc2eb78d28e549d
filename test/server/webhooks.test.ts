// Event webhooks (issue 27, items 1-3) on both databases, over real HTTP to receivers that are real node:http
// servers on 127.0.0.1: subscriptions and their scopes, every event type with its body, headers and Standard
// Webhooks signature (checked with an HMAC computed here), retries and their record, redelivery, failure and
// disablement, secret rotation's grace period, and one user's events never reaching another's subscription.
// Refused URLs are shown with a resolver the test controls: nothing is ever called outside 127.0.0.0/8.
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { configFromEnv } from '../../server/src/config';
import { errorBody } from '../../server/src/contract/common';
import { MAX_MEMORY_BATCH } from '../../server/src/contract/memories';
import {
  deliveriesPage,
  EVENT_TYPES,
  webhook,
  webhookDelivery,
  webhookWithSecret,
} from '../../server/src/contract/webhooks';
import { EventDeliveryWorker } from '../../server/src/events/delivery-worker';
import { DEFAULT_EVENT_SETTINGS, retryDelay } from '../../server/src/events/settings';
import type { Resolve } from '../../server/src/outbound/policy';
import {
  eventReceiver,
  verifiedSignatures,
  type EventReceiver,
  type ReceivedEvent,
} from '../helpers/event-receiver';
import {
  client,
  devClient,
  expect422,
  expectShape,
  keyWithScopes,
  newUser,
  ok,
  type Client,
} from '../helpers/http';
import { DIALECTS, forSuite, startServer, type TestServer } from '../helpers/server';
import { outboxTransaction, recordEvents } from '../../server/src/store/db/outbox';

const BASE = '/v1/dev/user/webhooks';

/** Short retries, failure window and grace, so the suite sees each phase in seconds. */
const EVENTS = {
  ...configFromEnv({}).events,
  retryBaseMs: 50,
  retryMaxDelayMs: 200,
  retryForMs: 3_000,
  disableAfterMs: 3_000,
  secretGraceMs: 2_000,
  pollMs: 100,
};

/** A create's answer: 200 (the real service's status) or 201 (the older one of some resources). */
async function created(reply: Promise<{ status: number; body: unknown }>) {
  const r = await reply;
  expect({ status: [200, 201].includes(r.status), body: r.body }).toMatchObject({ status: true });
  return r.body as any;
}

async function subscribe(api: Client, url: string, events: string[] = ['*']) {
  return expectShape(webhookWithSecret, await ok(api.post(BASE, { url, events, description: 'test' })));
}

async function deliveriesOf(api: Client, id: string) {
  return expectShape(deliveriesPage, await ok(api.get(`${BASE}/${id}/deliveries`, { limit: 100 })))
    .deliveries;
}

/**
 * Backdates the event `eventId` and its deliveries (setting `deliveries` on them too) as if written a day before
 * the retention began; returns that time.
 */
async function writtenBeforeRetention(
  { store, app }: TestServer,
  eventId: string,
  deliveries: { status?: string; next_attempt_at?: number | null } = {},
): Promise<number> {
  const past = Date.now() - app.config.events.retentionMs - 86_400_000;
  await store.db
    .updateTable('webhook_deliveries')
    .set({ ...deliveries, created_at: past })
    .where('event_id', '=', eventId)
    .execute();
  await store.db.updateTable('webhook_events').set({ created_at: past }).where('id', '=', eventId).execute();
  return past;
}

/** Has the worker of a new instance on `server`'s database prune, which it does on its first look for due deliveries. */
async function pruneAsANewInstance({ app }: TestServer): Promise<void> {
  const worker = new EventDeliveryWorker(
    app.repositories.webhooks,
    app.config.events,
    app.outbound,
    app.pusher,
    app.log,
  );
  worker.start();
  await worker.stop();
}

/** Waits, polling the API, until `check` passes (bounded by the test's own timeout). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(DIALECTS)('event webhooks on %s', (dialect) => {
  const server = forSuite<TestServer>(() => startServer(dialect, { events: EVENTS }));
  const api = devClient(server);
  const receivers: EventReceiver[] = [];
  const receiver = async (...args: Parameters<typeof eventReceiver>) => {
    const made = await eventReceiver(...args);
    receivers.push(made);
    return made;
  };
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  test('subscriptions: create (secret shown once), read, list, change, delete', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['memory.created', 'action_item.completed']);
    expect(made).toMatchObject({
      url: hook.url,
      events: ['memory.created', 'action_item.completed'],
      active: true,
    });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.secret.slice(6), 'base64')).toHaveLength(32);

    const read = expectShape(webhook, await ok(api.get(`${BASE}/${made.id}`)));
    expect(read).not.toHaveProperty('secret');
    expect(read).toMatchObject({ id: made.id, description: 'test', active: true });
    const list = (await ok(api.get(BASE))) as { id: string }[];
    expect(list.map((w) => w.id)).toContain(made.id);
    expect(list.every((w) => !('secret' in w))).toBe(true);

    const changed = await ok(
      api.patch(`${BASE}/${made.id}`, { events: ['*'], active: false, description: null }),
    );
    expect(changed).toMatchObject({ events: ['*'], active: false, description: null });
    expect(await ok(api.delete(`${BASE}/${made.id}`))).toEqual({ success: true });
    expect((await api.get(`${BASE}/${made.id}`)).status).toBe(404);
    // Nothing was ever called: creating a subscription sends nothing.
    expect(hook.received).toHaveLength(0);
  });

  test('events are stored as they mean: * alone when among them, each type once', async () => {
    const hook = await receiver();
    const all = await subscribe(api, hook.url, ['*', 'memory.created']);
    expect(all.events).toEqual(['*']);
    const twice = await subscribe(api, hook.url, ['memory.created', 'ping', 'memory.created']);
    expect(twice.events).toEqual(['memory.created', 'ping']);
    const changed = await ok(api.patch(`${BASE}/${twice.id}`, { events: ['ping', '*', 'ping'] }));
    expect(changed.events).toEqual(['*']);
    const listed = (await ok(api.get(BASE))) as { id: string; events: string[] }[];
    expect(listed.filter((w) => [all.id, twice.id].includes(w.id)).map((w) => w.events)).toEqual([
      ['*'],
      ['*'],
    ]);
    await ok(api.delete(`${BASE}/${all.id}`));
    await ok(api.delete(`${BASE}/${twice.id}`));
  });

  test('a PATCH that changes nothing keeps updated_at; one that changes a field moves it', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['memory.created', 'ping']);
    const later = () => new Promise((resolve) => setTimeout(resolve, 5));
    await later();
    const unchanged = [
      {},
      { url: hook.url },
      { events: ['memory.created', 'ping'] },
      { events: ['memory.created', 'ping', 'ping'] },
      { description: 'test' },
      { active: true },
      { url: hook.url, events: ['memory.created', 'ping'], description: 'test', active: true },
    ];
    for (const body of unchanged) {
      const reply = await ok(api.patch(`${BASE}/${made.id}`, body));
      expect({ body, updated_at: reply.updated_at }).toEqual({ body, updated_at: made.updated_at });
    }
    expect((await ok(api.get(`${BASE}/${made.id}`))).updated_at).toBe(made.updated_at);

    const paused = await ok(api.patch(`${BASE}/${made.id}`, { active: false }));
    expect(paused.active).toBe(false);
    expect(Date.parse(paused.updated_at)).toBeGreaterThan(Date.parse(made.updated_at));
    await later();
    const described = await ok(api.patch(`${BASE}/${made.id}`, { description: null }));
    expect(described.description).toBeNull();
    expect(Date.parse(described.updated_at)).toBeGreaterThan(Date.parse(paused.updated_at));
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('unknown event types, unknown fields and refused URLs are 422s naming the field', async () => {
    const hook = await receiver();
    expect422(await api.post(BASE, { url: hook.url, events: ['memory.created', 'memory_created'] }), [
      'body',
      'events',
      1,
    ]);
    expect422(await api.post(BASE, { url: hook.url, events: [] }), ['body', 'events']);
    expect422(await api.post(BASE, { url: hook.url, events: ['*'], secret: 'mine' }), ['body', 'secret']);
    const ftp = await api.post(BASE, { url: 'ftp://127.0.0.1/x', events: ['*'] });
    expect422(ftp, ['body', 'url']);
    expect(ftp.body.detail[0].msg).toBe('Must be an http or https URL, e.g. https://example.com/webhook');
    const made = await subscribe(api, hook.url);
    expect422(await api.patch(`${BASE}/${made.id}`, { events: ['goal.deleted'] }), ['body', 'events', 0]);
    expect422(await api.patch(`${BASE}/${made.id}`, { url: 'ftp://127.0.0.1/hook' }), ['body', 'url']);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('a URL too long or null is refused in words that say so, naming url', async () => {
    const hook = await receiver();
    const long = `${hook.url}?${'x'.repeat(2001 - hook.url.length)}`;
    expect(long).toHaveLength(2002);
    const tooLong = await api.post(BASE, { url: long, events: ['ping'] });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toEqual([
      { loc: ['body', 'url'], msg: 'URL too long: at most 2000 characters, got 2002', type: 'too_big' },
    ]);
    const made = await subscribe(api, hook.url, ['ping']);
    // 2000 characters exactly is accepted.
    const longest = `${hook.url}?${'x'.repeat(1999 - hook.url.length)}`;
    expect((await ok(api.patch(`${BASE}/${made.id}`, { url: longest }))).url).toBe(longest);
    const patchedLong = await api.patch(`${BASE}/${made.id}`, { url: long });
    expect(patchedLong.status).toBe(422);
    expect(patchedLong.body.detail).toEqual([
      { loc: ['body', 'url'], msg: 'URL too long: at most 2000 characters, got 2002', type: 'too_big' },
    ]);
    for (const reply of [
      await api.patch(`${BASE}/${made.id}`, { url: null }),
      await api.post(BASE, { url: null, events: ['ping'] }),
    ]) {
      expect(reply.status).toBe(422);
      expect(reply.body.detail).toEqual([
        { loc: ['body', 'url'], msg: 'Must be an http or https URL, not null', type: 'invalid_type' },
      ]);
    }
    expect((await ok(api.get(`${BASE}/${made.id}`))).url).toBe(longest);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('duplicate events count once against the cap; an unknown one is named where it was sent', async () => {
    const hook = await receiver();
    const pings = await subscribe(api, hook.url, Array(18).fill('ping'));
    expect(pings.events).toEqual(['ping']);
    const every = [...EVENT_TYPES, ...EVENT_TYPES];
    const changed = await ok(api.patch(`${BASE}/${pings.id}`, { events: every }));
    expect(changed.events).toEqual([...EVENT_TYPES]);
    expect422(await api.post(BASE, { url: hook.url, events: ['ping', 'ping', 'nope'] }), [
      'body',
      'events',
      2,
    ]);
    await ok(api.delete(`${BASE}/${pings.id}`));
  });

  test('the deliveries list takes limit 1-100, default 25, as the server manual says', async () => {
    const manual = readFileSync(join(__dirname, '../../server/README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(manual).toContain(
      '(`GET …/deliveries`, newest first, `limit` 1–100 per page, default 25, paged by `cursor`)',
    );
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['ping']);
    for (let i = 0; i < 26; i += 1) await ok(api.post(`${BASE}/${made.id}/ping`));
    const page = expectShape(deliveriesPage, await ok(api.get(`${BASE}/${made.id}/deliveries`)));
    expect({ count: page.deliveries.length, has_more: page.has_more }).toEqual({ count: 25, has_more: true });
    const all = await deliveriesOf(api, made.id);
    expect(all).toHaveLength(26);
    for (const limit of [0, 101]) {
      expect422(await api.get(`${BASE}/${made.id}/deliveries`, { limit }), ['query', 'limit']);
    }
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('scopes: webhooks:read reads, webhooks:write writes', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['ping']);
    const reader = await keyWithScopes(server, ['webhooks:read']);
    const neither = await keyWithScopes(server, ['memories:read']);
    await ok(reader.get(`${BASE}/${made.id}`));
    await ok(reader.get(`${BASE}/${made.id}/deliveries`));
    expect((await reader.post(BASE, { url: hook.url, events: ['*'] })).status).toBe(403);
    expect((await reader.post(`${BASE}/${made.id}/ping`)).status).toBe(403);
    expect((await reader.delete(`${BASE}/${made.id}`)).status).toBe(403);
    expect((await neither.get(BASE)).status).toBe(403);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('a key subscribes only to events whose data it could read, creating or changing a subscription', async () => {
    const hook = await receiver();
    const hooksOnly = await keyWithScopes(server, ['webhooks:write']);
    const refused = await hooksOnly.post(BASE, { url: hook.url, events: ['memory.created', 'ping'] });
    expect(refused.status).toBe(403);
    expect(expectShape(errorBody, refused.body).detail).toMatch(
      /^Insufficient permissions\. Required scope: memories:read \(for memory\.created\): /,
    );
    const all = await hooksOnly.post(BASE, { url: hook.url, events: ['*'] });
    expect(all.status).toBe(403);
    for (const scope of [
      'conversations:read',
      'memories:read',
      'action_items:read',
      'goals:read',
      'notifications:read',
    ])
      expect(all.body.detail).toContain(scope);
    const pingOnly = await ok(hooksOnly.post(BASE, { url: hook.url, events: ['ping'] }));

    const memories = await keyWithScopes(server, ['webhooks:write', 'memories:read']);
    const made = await ok(memories.post(BASE, { url: hook.url, events: ['memory.created'] }));
    expect((await memories.patch(`${BASE}/${made.id}`, { events: ['goal.updated'] })).status).toBe(403);
    expect((await hooksOnly.patch(`${BASE}/${pingOnly.id}`, { events: ['*'] })).status).toBe(403);
    // What a refusal left: the subscriptions as they were.
    expect((await ok(api.get(`${BASE}/${made.id}`))).events).toEqual(['memory.created']);
    expect((await ok(api.get(`${BASE}/${pingOnly.id}`))).events).toEqual(['ping']);
    await ok(hooksOnly.patch(`${BASE}/${pingOnly.id}`, { description: 'still allowed' }));
    for (const id of [made.id, pingOnly.id]) await ok(api.delete(`${BASE}/${id}`));
  });

  test('a key moves a subscription to another URL only when it could read its events', async () => {
    const owner = await receiver();
    const elsewhere = await receiver();
    const made = await subscribe(api, owner.url, ['memory.created']);
    const hooksOnly = await keyWithScopes(server, ['webhooks:read', 'webhooks:write']);
    const moved = await hooksOnly.patch(`${BASE}/${made.id}`, { url: elsewhere.url });
    expect(moved.status).toBe(403);
    expect(expectShape(errorBody, moved.body).detail).toMatch(
      /^Insufficient permissions\. Required scope: memories:read \(for memory\.created\): /,
    );
    expect((await ok(api.get(`${BASE}/${made.id}`))).url).toBe(owner.url);
    // Its events still go where the owner said, and nowhere else.
    const memory = await ok(api.post('/v1/dev/user/memories', { content: 'kept where it belongs' }));
    await owner.until((received) => received.some((event) => event.body.data.id === memory.id));
    expect(elsewhere.received).toHaveLength(0);

    // Reading them is what it takes: then the URL moves, with or without new events.
    const reader = await keyWithScopes(server, ['webhooks:write', 'memories:read']);
    expect((await ok(reader.patch(`${BASE}/${made.id}`, { url: elsewhere.url }))).url).toBe(elsewhere.url);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('a key without the read scope of an event can neither redeliver it nor move its pending deliveries', async () => {
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const elsewhere = await receiver();
    const stuck = await subscribe(api, hanging.url, ['memory.created']);
    const fine = await subscribe(api, healthy.url, ['memory.created']);
    const memory = await created(api.post('/v1/dev/user/memories', { content: 'only for its owner' }));
    await healthy.until((received) => received.some((event) => event.body.data.id === memory.id));
    await hanging.until((received) => received.length === 1);
    const [delivered] = await deliveriesOf(api, fine.id);
    const hooksOnly = await keyWithScopes(server, ['webhooks:read', 'webhooks:write']);
    const refusal = /^Insufficient permissions\. Required scope: memories:read \(for memory\.created\): /;

    // Events it may route (ping) and a new URL at once: the pending memory.created delivery would follow it.
    const moved = await hooksOnly.patch(`${BASE}/${stuck.id}`, { events: ['ping'], url: elsewhere.url });
    expect(moved.status).toBe(403);
    expect(expectShape(errorBody, moved.body).detail).toMatch(refusal);
    expect(await ok(api.get(`${BASE}/${stuck.id}`))).toMatchObject({
      url: hanging.url,
      events: ['memory.created'],
    });

    // Sending the delivered event again, to the URL it has or to one it may set (ping alone, nothing pending).
    const resent = await hooksOnly.post(`${BASE}/${fine.id}/deliveries/${delivered.id}/redeliver`);
    expect(resent.status).toBe(403);
    expect(expectShape(errorBody, resent.body).detail).toMatch(refusal);
    expect(await deliveriesOf(api, fine.id)).toHaveLength(1);

    // A key that can read memories may do both.
    const reader = await keyWithScopes(server, ['webhooks:write', 'memories:read']);
    await ok(reader.post(`${BASE}/${fine.id}/deliveries/${delivered.id}/redeliver`));
    await healthy.until((received) => received.filter((e) => e.body.data.id === memory.id).length === 2);
    expect((await ok(reader.patch(`${BASE}/${stuck.id}`, { url: elsewhere.url }))).url).toBe(elsewhere.url);
    await ok(api.delete(`${BASE}/${stuck.id}`));
    await ok(api.delete(`${BASE}/${fine.id}`));
  });

  test("another user's subscription is a 404 on every route, and their writes never reach it", async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url);
    const other = await newUser(server);
    const otherHook = await receiver();
    const theirs = await subscribe(other.client, otherHook.url, ['memory.created']);

    const ping = await ok(api.post(`${BASE}/${made.id}/ping`));
    for (const [method, path] of [
      ['get', `${BASE}/${made.id}`],
      ['patch', `${BASE}/${made.id}`],
      ['delete', `${BASE}/${made.id}`],
      ['post', `${BASE}/${made.id}/rotate-secret`],
      ['get', `${BASE}/${made.id}/deliveries`],
      ['post', `${BASE}/${made.id}/deliveries/${ping.id}/redeliver`],
      ['post', `${BASE}/${made.id}/ping`],
    ] as const) {
      const reply =
        method === 'patch'
          ? await other.client.patch(path, { active: false })
          : await other.client[method](path);
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
    }
    expect((await other.client.get(BASE)).body).toEqual([expect.objectContaining({ id: theirs.id })]);

    const memory = await created(other.client.post('/v1/dev/user/memories', { content: 'theirs alone' }));
    await otherHook.until((r) => r.some((e) => e.body.data.id === memory.id));
    await hook.until((r) => r.some((e) => e.body.type === 'ping'));
    expect(hook.received.filter((e) => e.body.data.id === memory.id)).toHaveLength(0);
    expect(await server.count('webhook_deliveries', { subscription_id: made.id })).toBe(1);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test("events of two users recorded in one transaction each reach only their own user's subscriptions", async () => {
    // No route writes for two users at once today; the outbox must not rely on that.
    const first = await newUser(server);
    const second = await newUser(server);
    const firstHook = await receiver();
    const secondHook = await receiver();
    const firsts = await subscribe(first.client, firstHook.url, ['memory.created']);
    const seconds = await subscribe(second.client, secondHook.url, ['memory.created']);
    await outboxTransaction(server.store.db, async (trx) => {
      await recordEvents(trx, first.id, 'memory.created', [{ id: 'of-the-first' }], Date.now());
      await recordEvents(trx, second.id, 'memory.created', [{ id: 'of-the-second' }], Date.now());
    });
    await firstHook.until((r) => r.length >= 1);
    await secondHook.until((r) => r.length >= 1);
    expect((await deliveriesOf(first.client, firsts.id)).length).toBe(1);
    expect((await deliveriesOf(second.client, seconds.id)).length).toBe(1);
    expect(firstHook.received.map((e) => e.body.data.id)).toEqual(['of-the-first']);
    expect(secondHook.received.map((e) => e.body.data.id)).toEqual(['of-the-second']);
  });

  test('renaming a folder is a conversation.updated for each of its conversations, with the new name', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['conversation.updated']);
    const folder = await created(owner.client.post('/v1/dev/user/folders', { name: 'Before' }));
    const inFolder = [];
    for (const text of ['first talk', 'second talk'])
      inFolder.push(
        await created(owner.client.post('/v1/dev/user/conversations', { text, folder_id: folder.id })),
      );
    await created(owner.client.post('/v1/dev/user/conversations', { text: 'elsewhere' }));
    await ok(owner.client.patch(`/v1/dev/user/folders/${folder.id}`, { name: 'After' }));
    // A PATCH that leaves the name as it is is no event.
    await ok(owner.client.patch(`/v1/dev/user/folders/${folder.id}`, { name: 'After', color: '#112233' }));
    // A ping after them all, so that an event too many would most likely have arrived with it.
    await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    await hook.until((r) => r.length >= 3 && r.some((e) => e.body.type === 'ping'));
    const events = hook.received.map((e) => e.body).filter((e) => e.type !== 'ping');
    expect(events.map((e) => [e.type, e.data.id]).sort()).toEqual(
      inFolder.map((c) => ['conversation.updated', c.id]).sort(),
    );
    for (const event of events) {
      expect(event.data.folder_name).toBe('After');
      expect(event.data).toEqual(await ok(owner.client.get(`/v1/dev/user/conversations/${event.data.id}`)));
    }
  });

  test('deleting a folder is a conversation.updated for each of its conversations, now in no folder', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['conversation.updated']);
    const folder = await created(owner.client.post('/v1/dev/user/folders', { name: 'Going' }));
    const kept = await created(owner.client.post('/v1/dev/user/folders', { name: 'Staying' }));
    const inFolder = [];
    for (const text of ['first talk', 'second talk'])
      inFolder.push(
        await created(owner.client.post('/v1/dev/user/conversations', { text, folder_id: folder.id })),
      );
    await created(owner.client.post('/v1/dev/user/conversations', { text: 'elsewhere', folder_id: kept.id }));
    await ok(owner.client.delete(`/v1/dev/user/folders/${folder.id}`));
    // A ping after them all, so that an event too many would most likely have arrived with it.
    await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    await hook.until((r) => r.some((e) => e.body.type === 'ping'));
    const events = hook.received.map((e) => e.body).filter((e) => e.type !== 'ping');
    expect(events.map((e) => [e.type, e.data.id]).sort()).toEqual(
      inFolder.map((c) => ['conversation.updated', c.id]).sort(),
    );
    for (const event of events) {
      expect(event.data).toMatchObject({ folder_id: null, folder_name: null });
      expect(event.data).toEqual(await ok(owner.client.get(`/v1/dev/user/conversations/${event.data.id}`)));
    }
  });

  test('deleting a conversation is an action_item.updated for each of its action items, now linked to none', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['action_item.updated']);
    const going = await created(owner.client.post('/v1/dev/user/conversations', { text: 'going' }));
    const staying = await created(owner.client.post('/v1/dev/user/conversations', { text: 'staying' }));
    const linked = [];
    for (const description of ['first', 'second'])
      linked.push(
        await created(
          owner.client.post('/v1/dev/user/action-items', { description, conversation_id: going.id }),
        ),
      );
    await created(
      owner.client.post('/v1/dev/user/action-items', { description: 'other', conversation_id: staying.id }),
    );
    await created(owner.client.post('/v1/dev/user/action-items', { description: 'unlinked' }));
    await ok(owner.client.delete(`/v1/dev/user/conversations/${going.id}`));
    // A ping after them all, so that an event too many would most likely have arrived with it.
    await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    await hook.until((r) => r.some((e) => e.body.type === 'ping'));
    const events = hook.received.map((e) => e.body).filter((e) => e.type !== 'ping');
    expect(events.map((e) => [e.type, e.data.id]).sort()).toEqual(
      linked.map((item) => ['action_item.updated', item.id]).sort(),
    );
    const listed = (await ok(owner.client.get('/v1/dev/user/action-items'))) as { id: string }[];
    for (const event of events) {
      expect(event.data.conversation_id).toBeNull();
      expect(event.data).toEqual(listed.find((item) => item.id === event.data.id));
    }
  });

  test('every event type arrives once, signed, with the record as the developer API returns it', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url);
    const user = server.init.user_id;
    const expected: { type: string; data: Record<string, unknown> }[] = [];
    const expect_ = (type: string, data: Record<string, unknown>) => expected.push({ type, data });

    const memory = await created(api.post('/v1/dev/user/memories', { content: 'likes tea' }));
    expect_('memory.created', memory);
    expect_(
      'memory.updated',
      await ok(api.patch(`/v1/dev/user/memories/${memory.id}`, { content: 'likes green tea' })),
    );
    // A PATCH that changes nothing is no event.
    await ok(api.patch(`/v1/dev/user/memories/${memory.id}`, { content: 'likes green tea' }));
    const batch = await created(
      api.post('/v1/dev/user/memories/batch', { memories: [{ content: 'one' }, { content: 'two' }] }),
    );
    for (const m of batch.memories) expect_('memory.created', m);
    await ok(api.delete(`/v1/dev/user/memories/${memory.id}`));
    expect_('memory.deleted', { id: memory.id });

    const item = await created(api.post('/v1/dev/user/action-items', { description: 'call mom' }));
    expect_('action_item.created', item);
    expect_(
      'action_item.completed',
      await ok(api.patch(`/v1/dev/user/action-items/${item.id}`, { completed: true })),
    );
    expect_(
      'action_item.updated',
      await ok(api.patch(`/v1/dev/user/action-items/${item.id}`, { completed: false })),
    );
    await ok(api.delete(`/v1/dev/user/action-items/${item.id}`));
    expect_('action_item.deleted', { id: item.id });

    const conversation = await created(
      api.post('/v1/dev/user/conversations/from-segments', {
        transcript_segments: [
          { text: 'hello there', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 2 },
        ],
      }),
    );
    // The create's answer, its status (completed) too: the record as the developer API returns it.
    expect(conversation.status).toBe('completed');
    expect_('conversation.created', conversation);
    expect_(
      'conversation.updated',
      await ok(api.patch(`/v1/dev/user/conversations/${conversation.id}`, { title: 'Greeting' })),
    );
    await ok(api.delete(`/v1/dev/user/conversations/${conversation.id}`));
    expect_('conversation.deleted', { id: conversation.id });

    const goal = await created(api.post('/v1/dev/user/goals', { title: 'Run', target_value: 10 }));
    expect_('goal.created', goal);
    expect_('goal.updated', await ok(api.patch(`/v1/dev/user/goals/${goal.id}`, { title: 'Run far' })));
    expect_(
      'goal.progress_recorded',
      await ok(api.patch(`/v1/dev/user/goals/${goal.id}/progress`, undefined, { current_value: 3 })),
    );

    const app = client(server.baseUrl, server.init.app_secret);
    await ok(
      app.post(`/v2/integrations/${server.init.app_id}/notification`, undefined, {
        uid: user,
        message: 'hi',
      }),
    );
    const inbox = await ok(api.get('/v1/dev/user/notifications'));
    expect_('notification.pushed', inbox.notifications[0]);

    const live = await api.post('/v1/dev/user/transcripts/session-1/segments', {
      segments: [{ text: 'live words', speaker: 'SPEAKER_01', is_user: false, start: 0, end: 1 }],
    });
    expect([200, 202]).toContain(live.status);
    const session = await ok(
      api.get(`/v1/dev/user/conversations/${live.body.conversation_id}`, { include_transcript: true }),
    );
    // The record as the API returns it, so in progress until the session is finished.
    expect_('conversation.created', { ...session, status: 'in_progress' });
    expect_('transcript.segments_received', {
      session_id: 'session-1',
      conversation_id: session.id,
      segments: session.transcript_segments,
    });
    await ok(api.post('/v1/dev/user/transcripts/session-1/finish'));
    expect_('conversation.updated', { id: session.id, status: 'completed' });

    const pinged = await ok(api.post(`${BASE}/${made.id}/ping`));
    expect_('ping', { webhook_id: made.id });

    const received = await hook.until((r) => r.length >= expected.length);
    // Every expected event, each once (no two calls with one webhook-id: none failed).
    expect(new Set(received.map((e) => e.headers['webhook-id'])).size).toBe(received.length);
    expect(received.map((e) => e.body.type).sort()).toEqual(expected.map((e) => e.type).sort());
    for (const { type, data } of expected) {
      const match = received.find((e) => e.body.type === type && e.body.data.id === data.id);
      expect({ type, found: match !== undefined }).toEqual({ type, found: true });
      expect(match!.body.data).toMatchObject(data);
    }
    for (const event of received) {
      expect(event.headers['content-type']).toBe('application/json');
      expect(event.body.id).toBe(event.headers['webhook-id']);
      expect(event.body.id).toMatch(/^msg_/);
      expect(Object.keys(event.body)).toEqual(['type', 'id', 'timestamp', 'data']);
      expect(new Date(event.body.timestamp).toISOString()).toBe(event.body.timestamp);
      expect(String(event.headers['webhook-timestamp'])).toMatch(/^\d{10}$/);
      expect(verifiedSignatures(event, made.secret)).toBe(1);
      expect(String(event.headers['webhook-signature']).split(' ')).toHaveLength(1);
    }
    const deleted = received.find((e) => e.body.type === 'memory.deleted')!;
    expect(Object.keys(deleted.body.data).sort()).toEqual(['deleted_at', 'id']);
    expect(received.find((e) => e.body.type === 'ping')!.body.id).toBe(pinged.event_id);

    const deliveries = await eventually(
      () => deliveriesOf(api, made.id),
      (list) => list.length === expected.length && list.every((d) => d.status === 'delivered'),
    );
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        attempt_count: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
      });
      expect(delivery.delivered_at).not.toBeNull();
    }
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test("a hanging receiver holds its subscription's share of attempts, and its backlog never holds up another subscription", async () => {
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const stuck = await subscribe(api, hanging.url, ['memory.created']);
    const fine = await subscribe(api, healthy.url, ['memory.created']);
    const memories = Array.from({ length: MAX_MEMORY_BATCH }, (_, i) => ({ content: `backlog ${i}` }));
    await created(api.post('/v1/dev/user/memories/batch', { memories }));

    await healthy.until((r) => r.length >= memories.length);
    // Every healthy call arrived while the hanging receiver still held the calls it was first given (a timeout
    // would have brought it retries), and it was given no more than its subscription's share.
    expect(hanging.received).toHaveLength(EVENTS.concurrencyPerSubscription);
    expect(new Set(healthy.received.map((e) => e.body.data.content))).toEqual(
      new Set(memories.map((m) => m.content)),
    );
    const backlog = await deliveriesOf(api, stuck.id);
    expect(backlog).toHaveLength(memories.length);
    expect(backlog.every((d) => d.status === 'pending' && d.last_status_code === null)).toBe(true);
    await ok(api.delete(`${BASE}/${stuck.id}`));
    await ok(api.delete(`${BASE}/${fine.id}`));
  });

  test("one user's hanging subscriptions hold at most the user's share of attempts: another user's events go through", async () => {
    const { concurrency, concurrencyPerSubscription, concurrencyPerUser } = EVENTS;
    expect(concurrencyPerUser).toBeLessThan(concurrency);
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const greedy = await newUser(server);
    // Enough dead subscriptions, each with a backlog, to take every attempt of the instance were it allowed.
    const dead = [];
    for (let i = 0; i <= concurrency / concurrencyPerSubscription; i += 1)
      dead.push(await subscribe(greedy.client, hanging.url, ['memory.created']));
    const memories = [1, 2, 3].map((i) => ({ content: `backlog ${i}` }));
    await created(greedy.client.post('/v1/dev/user/memories/batch', { memories }));
    await hanging.until((received) => received.length >= concurrencyPerUser);

    const mine = await subscribe(api, healthy.url, ['ping']);
    await ok(api.post(`${BASE}/${mine.id}/ping`));
    await healthy.until((received) => received.length === 1);
    // It arrived while the dead endpoints still held what they were first given (a timeout would have brought
    // them retries), and they were given no more than their user's share.
    expect(hanging.received).toHaveLength(concurrencyPerUser);
    for (const subscription of dead) await ok(greedy.client.delete(`${BASE}/${subscription.id}`));
    await ok(api.delete(`${BASE}/${mine.id}`));
  });

  test('a failing receiver: each attempt recorded with its status and next time, then delivered; redeliver sends the same id', async () => {
    // The first two calls answer 500, every later one 200.
    const hook = await receiver((_event, index) => ({ status: index < 2 ? 500 : 200 }));
    const made = await subscribe(api, hook.url, ['ping']);
    const ping = expectShape(webhookDelivery, await ok(api.post(`${BASE}/${made.id}/ping`)));
    expect(ping).toMatchObject({ event_type: 'ping', status: 'pending', attempt_count: 0 });

    const failing = await eventually(
      () => deliveriesOf(api, made.id),
      ([d]) => d.attempt_count >= 1 && d.status === 'pending',
    );
    expect(failing[0]).toMatchObject({ last_status_code: 500, last_error: 'HTTP 500' });
    expect(failing[0].next_attempt_at).not.toBeNull();

    const [done] = await eventually(
      () => deliveriesOf(api, made.id),
      ([d]) => d.status === 'delivered',
    );
    expect(done).toMatchObject({
      attempt_count: 3,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    const ids = hook.received.map((e) => e.headers['webhook-id']);
    expect(ids).toEqual([ping.event_id, ping.event_id, ping.event_id]);
    // Each retry is signed afresh.
    for (const event of hook.received) expect(verifiedSignatures(event, made.secret)).toBe(1);

    const again = await ok(api.post(`${BASE}/${made.id}/deliveries/${done.id}/redeliver`));
    expect(again).toMatchObject({ event_id: ping.event_id, status: 'pending', attempt_count: 0 });
    expect(again.id).not.toBe(done.id);
    await hook.until((r) => r.length === 4);
    expect(hook.received[3].headers['webhook-id']).toBe(ping.event_id);
    expect(hook.received[3].raw).toBe(hook.received[2].raw);
    const page = await ok(api.get(`${BASE}/${made.id}/deliveries`, { limit: 1 }));
    expect(page).toMatchObject({ has_more: true, deliveries: [{ id: again.id }] });
    const next = await ok(api.get(`${BASE}/${made.id}/deliveries`, { limit: 1, cursor: page.next_cursor }));
    expect(next).toMatchObject({ has_more: false, next_cursor: null, deliveries: [{ id: done.id }] });
    expect((await api.post(`${BASE}/${made.id}/deliveries/nope/redeliver`)).status).toBe(404);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test.each([302, 307])(
    'a receiver answering %i is a failed attempt: the redirect is recorded and its target never called',
    async (status) => {
      const target = await receiver();
      const redirecting = await receiver(() => ({ status, location: target.url }));
      const made = await subscribe(api, redirecting.url, ['ping']);
      await ok(api.post(`${BASE}/${made.id}/ping`));
      // Two attempts recorded (a followed redirect would have reached the target within each), or the delivery
      // settled early, as a followed redirect answered 2xx would settle it.
      const [retried] = await eventually(
        () => deliveriesOf(api, made.id),
        ([d]) => d.attempt_count >= 2 || d.status !== 'pending',
      );
      expect(retried).toMatchObject({
        status: 'pending',
        last_status_code: status,
        last_error: `HTTP ${status} (redirects are not followed)`,
        delivered_at: null,
      });
      expect(retried.next_attempt_at).not.toBeNull();
      expect(redirecting.received.length).toBeGreaterThanOrEqual(2);
      expect(target.received).toHaveLength(0);
      await ok(api.delete(`${BASE}/${made.id}`));
    },
  );

  test('n8n answering 200 "n8n is starting up" while it migrates is an attempt that failed: the event is sent again', async () => {
    // As n8n's own server sends it (Express: text/html, then the length), then as its webhook answers once up.
    const starting = {
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: 'n8n is starting up. Please wait',
    };
    // While n8n keeps answering so, each attempt is recorded as failed with the reason, and nothing is delivered
    // (another user: a subscription failing for long is disabled, and its owner told in their inbox).
    const owner = await newUser(server);
    const stillStarting = await receiver(() => starting);
    const waiting = await subscribe(owner.client, stillStarting.url, ['ping']);
    await ok(owner.client.post(`${BASE}/${waiting.id}/ping`));
    const [failing] = await eventually(
      () => deliveriesOf(owner.client, waiting.id),
      ([d]) => d.attempt_count >= 1,
    );
    expect(failing).toMatchObject({
      last_status_code: 200,
      last_error: 'HTTP 200: "n8n is starting up. Please wait"',
    });
    expect(failing.status).not.toBe('delivered');

    // Once it is up, the same event is sent again and delivered.
    const hook = await receiver((_event, index) =>
      index === 0 ? starting : { status: 200, contentType: 'application/json', body: '{"message":"ok"}' },
    );
    const made = await subscribe(api, hook.url, ['ping']);
    const ping = expectShape(webhookDelivery, await ok(api.post(`${BASE}/${made.id}/ping`)));
    const [done] = await eventually(
      () => deliveriesOf(api, made.id),
      ([d]) => d.status === 'delivered',
    );
    expect(done).toMatchObject({ attempt_count: 2, last_status_code: 200, last_error: null });
    expect(hook.received.map((e) => e.headers['webhook-id'])).toEqual([ping.event_id, ping.event_id]);

    // Any other 2xx is delivered, whatever its body says, HTML included.
    const page = await receiver(() => ({ ...starting, body: '<p>n8n is starting up. Please wait… not</p>' }));
    const other = await subscribe(api, page.url, ['ping']);
    await ok(api.post(`${BASE}/${other.id}/ping`));
    const [delivered] = await eventually(
      () => deliveriesOf(api, other.id),
      ([d]) => d.status === 'delivered',
    );
    expect(delivered.attempt_count).toBe(1);
    await ok(owner.client.delete(`${BASE}/${waiting.id}`));
    for (const id of [made.id, other.id]) await ok(api.delete(`${BASE}/${id}`));
  });

  test('a receiver that always fails: the delivery ends failed, the subscription is disabled and the user told', async () => {
    const hook = await receiver(() => ({ status: 503 }));
    const owner = await newUser(server);
    // With a password in it, which the notice (pushed on to the push URL and to subscriptions) must not carry.
    const withPassword = hook.url.replace('http://', 'http://hook:hook-password@');
    const made = await subscribe(owner.client, withPassword, ['memory.created']);
    await created(owner.client.post('/v1/dev/user/memories', { content: 'never arrives' }));
    const [failed] = await eventually(
      () => deliveriesOf(owner.client, made.id),
      ([d]) => d.status === 'failed',
    );
    expect(failed.attempt_count).toBeGreaterThanOrEqual(2);
    expect(failed).toMatchObject({ last_status_code: 503, next_attempt_at: null, delivered_at: null });
    expect(hook.received.length).toBe(failed.attempt_count);

    const disabled = await eventually(
      () => ok(owner.client.get(`${BASE}/${made.id}`)),
      (w) => w.active === false,
    );
    expect(disabled.active).toBe(false);
    const inbox = await eventually(
      () => ok(owner.client.get('/v1/dev/user/notifications')),
      (page) => page.notifications.length > 0,
    );
    expect(inbox.notifications[0]).toMatchObject({ title: 'Webhook disabled' });
    expect(inbox.notifications[0].text).toContain(hook.url.replace('http://', 'http://hook:***@'));
    expect(inbox.notifications[0].text).not.toContain('hook-password');

    // Disabled: new events wait for nobody (none is written); enabling it again resumes.
    const before = hook.received.length;
    await created(owner.client.post('/v1/dev/user/memories', { content: 'while disabled' }));
    expect(await server.count('webhook_deliveries', { subscription_id: made.id })).toBe(1);
    await ok(owner.client.patch(`${BASE}/${made.id}`, { active: true }));
    await ok(owner.client.post(`${BASE}/${made.id}/deliveries/${failed.id}/redeliver`));
    await hook.until((r) => r.length > before);
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test('a paused subscription: its pending deliveries wait for the resume; changes made while paused are not recorded for it', async () => {
    let open = false;
    const hook = await receiver(() => ({ status: open ? 200 : 503 }));
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['memory.created']);
    const before = await created(owner.client.post('/v1/dev/user/memories', { content: 'before the pause' }));
    await eventually(
      () => deliveriesOf(owner.client, made.id),
      ([d]) => d.attempt_count >= 1 && d.status === 'pending',
    );
    await ok(owner.client.patch(`${BASE}/${made.id}`, { active: false }));
    await created(owner.client.post('/v1/dev/user/memories', { content: 'while paused' }));
    // The calls stop (an attempt claimed just before the pause still ends): no call for several retry delays.
    // Were the paused subscription still claimed, its retries would go on and this wait would never end.
    for (let calls = -1; calls !== hook.received.length;) {
      calls = hook.received.length;
      await new Promise((resolve) => setTimeout(resolve, 5 * EVENTS.retryMaxDelayMs));
    }
    expect(await server.count('webhook_deliveries', { subscription_id: made.id })).toBe(1);

    open = true;
    await ok(owner.client.patch(`${BASE}/${made.id}`, { active: true }));
    const after = await created(owner.client.post('/v1/dev/user/memories', { content: 'after the resume' }));
    const delivered = await eventually(
      () => deliveriesOf(owner.client, made.id),
      (list) => list.length === 2 && list.every((d) => d.status === 'delivered'),
    );
    expect(delivered).toHaveLength(2);
    // Every call carried one of the two; the memory made while paused was never sent.
    const sent = new Set(hook.received.map((e) => e.body.data.id));
    expect([...sent].sort()).toEqual([before.id, after.id].sort());
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test('a delivery that waited out a pause longer than the retry window is still retried after the resume, and one failed attempt does not disable the subscription', async () => {
    // The first call after the resume fails (an endpoint still coming up), every later one succeeds.
    const hook = await receiver((_event, index) => ({ status: index === 0 ? 503 : 200 }));
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['ping']);
    await ok(owner.client.patch(`${BASE}/${made.id}`, { active: false }));
    const ping = expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${made.id}/ping`)));
    // Paused for longer than a delivery is retried and a subscription may fail: neither clock ran meanwhile.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(EVENTS.retryForMs, EVENTS.disableAfterMs) + 500),
    );
    expect(hook.received).toHaveLength(0);

    await ok(owner.client.patch(`${BASE}/${made.id}`, { active: true }));
    const [settled] = await eventually(
      () => deliveriesOf(owner.client, made.id),
      ([d]) => d.status !== 'pending',
    );
    expect(settled).toMatchObject({
      id: ping.id,
      status: 'delivered',
      attempt_count: 2,
      last_status_code: 200,
    });
    expect(await ok(owner.client.get(`${BASE}/${made.id}`))).toMatchObject({ active: true });
    const inbox = await ok(owner.client.get('/v1/dev/user/notifications'));
    expect(inbox.notifications).toEqual([]);
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test("a slow endpoint's backlog: a delivery first tried a failing window after it was made fails just after successes, and the subscription, failing since then, is not disabled", async () => {
    // The first two calls succeed, slowly: each answers once the third delivery, waiting behind them (the
    // subscription's share of attempts), is older than the failing window. The third call fails.
    const slow = Math.max(EVENTS.retryForMs, EVENTS.disableAfterMs) + 500;
    const hook = await receiver((_event, index) =>
      index < EVENTS.concurrencyPerSubscription ? { status: 200, delayMs: slow } : { status: 503 },
    );
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['ping']);
    const pings = [];
    for (let i = 0; i <= EVENTS.concurrencyPerSubscription; i += 1)
      pings.push(expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${made.id}/ping`))));
    const last = pings.at(-1)!;

    const settled = await eventually(
      () => deliveriesOf(owner.client, made.id),
      (list) => list.every((d) => d.status !== 'pending' || d.attempt_count > 0),
    );
    expect(settled.find((d) => d.id === last.id)).toMatchObject({ last_status_code: 503 });
    expect(settled.filter((d) => d.status === 'delivered')).toHaveLength(EVENTS.concurrencyPerSubscription);
    // Its deliveries succeeded a moment before: it has not been failing for the window.
    expect(await ok(owner.client.get(`${BASE}/${made.id}`))).toMatchObject({ active: true });
    const inbox = await ok(owner.client.get('/v1/dev/user/notifications'));
    expect(inbox.notifications).toEqual([]);
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test("a subscription given a new URL counts its failing afresh: the new endpoint's first failed attempt does not disable it", async () => {
    const previous = await receiver(() => ({ status: 503 }));
    let disableAt = 0;
    // The new endpoint's first answer, a 503, comes once the old one would have been failing for the whole
    // window; the next call succeeds.
    const next = await receiver((_event, index) =>
      index === 0 ? { status: 503, delayMs: Math.max(0, disableAt + 300 - Date.now()) } : { status: 200 },
    );
    const owner = await newUser(server);
    const made = await subscribe(owner.client, previous.url, ['ping']);
    const ping = expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${made.id}/ping`)));
    disableAt = Date.parse(ping.created_at) + EVENTS.disableAfterMs;
    await eventually(
      () => deliveriesOf(owner.client, made.id),
      ([d]) => d.attempt_count >= 1,
    );
    // Moved halfway into the window: before the old endpoint's delivery fails for good, and late enough that the
    // moved delivery's own retries outlast the new endpoint's late answer by as much.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, disableAt - EVENTS.disableAfterMs / 2 - Date.now())),
    );
    await ok(owner.client.patch(`${BASE}/${made.id}`, { url: next.url }));

    // Disabled, its delivery would wait for ever: the wait ends on either.
    const [hook, [done]] = await eventually(
      () => Promise.all([ok(owner.client.get(`${BASE}/${made.id}`)), deliveriesOf(owner.client, made.id)]),
      ([read, [d]]) => !read.active || d.status !== 'pending',
    );
    expect(hook).toMatchObject({ active: true });
    expect(done).toMatchObject({ id: ping.id, status: 'delivered', last_status_code: 200 });
    expect(next.received).toHaveLength(2);
    const inbox = await ok(owner.client.get('/v1/dev/user/notifications'));
    expect(inbox.notifications).toEqual([]);
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test('rotation: both secrets sign during the grace period, then only the new one', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['ping']);
    const rotated = expectShape(webhookWithSecret, await ok(api.post(`${BASE}/${made.id}/rotate-secret`)));
    expect(rotated.secret).not.toBe(made.secret);
    expect(rotated.id).toBe(made.id);

    await ok(api.post(`${BASE}/${made.id}/ping`));
    const [first] = await hook.until((r) => r.length === 1);
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiedSignatures(first, rotated.secret)).toBe(1);
    expect(verifiedSignatures(first, made.secret)).toBe(1);

    // Ping until a call carries one signature: the grace period (2 s here) is over.
    let last: ReceivedEvent;
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await ok(api.post(`${BASE}/${made.id}/ping`));
      const count = hook.received.length + 1;
      last = (await hook.until((r) => r.length >= count)).at(-1)!;
    } while (String(last.headers['webhook-signature']).includes(' '));
    expect(verifiedSignatures(last, rotated.secret)).toBe(1);
    expect(verifiedSignatures(last, made.secret)).toBe(0);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('an instance starting prunes delivered and failed deliveries past the retention, and the events only they needed', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['memory.created']);
    const contents = ['old delivered', 'old failed', 'old pending', 'recent'];
    for (const content of contents) await created(owner.client.post('/v1/dev/user/memories', { content }));
    await eventually(
      () => deliveriesOf(owner.client, made.id),
      (all) => all.length === 4 && all.every((d) => d.status === 'delivered'),
    );
    const eventOf = new Map(hook.received.map((e) => [e.body.data.content as string, e.body.id]));
    // The pending one is not due for a day.
    const age = (content: string, status: string) =>
      writtenBeforeRetention(server, eventOf.get(content)!, {
        status,
        next_attempt_at: status === 'pending' ? Date.now() + 86_400_000 : null,
      });
    await age('old delivered', 'delivered');
    await age('old failed', 'failed');
    await age('old pending', 'pending');

    await pruneAsANewInstance(server);

    const left = await deliveriesOf(owner.client, made.id);
    expect(left.map((d) => d.event_id).sort()).toEqual(
      [eventOf.get('old pending'), eventOf.get('recent')].sort(),
    );
    for (const content of contents) {
      const kept = content === 'old pending' || content === 'recent' ? 1 : 0;
      expect({
        content,
        events: await server.count('webhook_events', { id: eventOf.get(content)! }),
      }).toEqual({
        content,
        events: kept,
      });
    }
    await ok(owner.client.delete(`${BASE}/${made.id}`));
  });

  test('pending deliveries of a paused subscription are pruned past the retention: resumed, it is sent only the recent ones', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const paused = await subscribe(owner.client, hook.url, ['ping']);
    const active = await subscribe(owner.client, hook.url, ['ping']);
    // The active one's endpoint is not due for a day: its old pending delivery stays pending through the prune.
    await ok(owner.client.patch(`${BASE}/${paused.id}`, { active: false }));
    const old = expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${paused.id}/ping`)));
    const recent = expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${paused.id}/ping`)));
    await ok(owner.client.patch(`${BASE}/${active.id}`, { active: false }));
    const kept = expectShape(webhookDelivery, await ok(owner.client.post(`${BASE}/${active.id}/ping`)));
    for (const delivery of [old, kept])
      await writtenBeforeRetention(server, delivery.event_id, { next_attempt_at: Date.now() + 86_400_000 });
    await server.store.db
      .updateTable('webhook_subscriptions')
      .set({ active: 1 })
      .where('id', '=', active.id)
      .execute();

    await pruneAsANewInstance(server);

    expect((await deliveriesOf(owner.client, paused.id)).map((d) => d.id)).toEqual([recent.id]);
    expect(await server.count('webhook_events', { id: old.event_id })).toBe(0);
    expect((await deliveriesOf(owner.client, active.id)).map((d) => [d.id, d.status])).toEqual([
      [kept.id, 'pending'],
    ]);

    await ok(owner.client.patch(`${BASE}/${paused.id}`, { active: true }));
    await eventually(
      () => deliveriesOf(owner.client, paused.id),
      ([d]) => d.status === 'delivered',
    );
    expect(hook.received.map((e) => e.body.id)).toEqual([recent.event_id]);
    await ok(owner.client.delete(`${BASE}/${paused.id}`));
    await ok(owner.client.delete(`${BASE}/${active.id}`));
  });

  test('writes, pings and redeliveries beside the deletion of their subscription answer as if one came first', async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const statuses = new Map<string, Set<number>>();
    const answered = async (kind: string, reply: Promise<{ status: number }>) => {
      const { status } = await reply;
      statuses.set(kind, (statuses.get(kind) ?? new Set()).add(status));
    };
    const removed: string[] = [];
    for (let round = 0; round < 12; round += 1) {
      const made = await subscribe(owner.client, hook.url);
      const first = await ok(owner.client.post(`${BASE}/${made.id}/ping`));
      removed.push(made.id);
      await Promise.all([
        ...Array.from({ length: 6 }, (_, i) =>
          answered('write', owner.client.post('/v1/dev/user/memories', { content: `race ${round}-${i}` })),
        ),
        answered('ping', owner.client.post(`${BASE}/${made.id}/ping`)),
        answered('redeliver', owner.client.post(`${BASE}/${made.id}/deliveries/${first.id}/redeliver`)),
        answered('delete', owner.client.delete(`${BASE}/${made.id}`)),
      ]);
    }
    // A write stores its record whichever came first; a ping or redelivery finds the subscription or answers 404.
    const seen = (kind: string) => [...(statuses.get(kind) ?? [])].sort();
    expect({ write: seen('write'), delete: seen('delete') }).toEqual({ write: [200], delete: [200] });
    for (const kind of ['ping', 'redeliver']) {
      expect({ kind, other: seen(kind).filter((s) => s !== 200 && s !== 404) }).toEqual({ kind, other: [] });
    }
    for (const id of removed)
      expect(await server.count('webhook_deliveries', { subscription_id: id })).toBe(0);
  });

  test("a cursor works only on the list it came from: not on another subscription's deliveries, nor another list", async () => {
    const hook = await receiver();
    const owner = await newUser(server);
    const [a, b] = [await subscribe(owner.client, hook.url), await subscribe(owner.client, hook.url)];
    for (const made of [a, b, a, b]) await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    const pageOfA = await ok(owner.client.get(`${BASE}/${a.id}/deliveries`, { limit: 1 }));
    expect(pageOfA.has_more).toBe(true);
    await ok(
      owner.client.post('/v1/dev/user/screen-activity', {
        screen_activity: ['09:00', '09:05'].map((time) => ({
          timestamp: `2026-11-20T${time}:00Z`,
          app_name: 'Editor',
          window_title: 'notes',
          ocr_text: 'a cursor test',
        })),
      }),
    );
    const pageOfActivity = await ok(owner.client.get('/v1/dev/user/screen-activity', { limit: 1 }));
    expect(pageOfActivity.has_more).toBe(true);
    for (const cursor of [pageOfA.next_cursor, pageOfActivity.next_cursor]) {
      const reply = await owner.client.get(`${BASE}/${b.id}/deliveries`, { limit: 1, cursor });
      expect422(reply, ['query', 'cursor']);
      expect(reply.body.detail[0].type).toBe('cursor_mismatch');
    }
    const nextOfA = await ok(
      owner.client.get(`${BASE}/${a.id}/deliveries`, { limit: 1, cursor: pageOfA.next_cursor }),
    );
    expect(nextOfA.deliveries).toHaveLength(1);
  });

  test('deleting a subscription deletes its deliveries', async () => {
    const hook = await receiver();
    const made = await subscribe(api, hook.url, ['ping']);
    await ok(api.post(`${BASE}/${made.id}/ping`));
    await hook.until((r) => r.length === 1);
    await ok(api.delete(`${BASE}/${made.id}`));
    expect(await server.count('webhook_deliveries', { subscription_id: made.id })).toBe(0);
  });
});

// The disablement and the user's notification of it are one change: committed together, or (a crash between them)
// neither, so a subscription never reads as disabled while its user was not told. Shown on PostgreSQL, where a
// lock held on the inbox makes the notification's insert wait: whatever the server has committed by then is seen.
// A claim takes at most the room the instance has left. Shown on a server of its own, with a small room, so that
// no hanging attempt of another test holds a part of it.
describe.each(DIALECTS)('claiming due deliveries on %s', (dialect) => {
  const SMALL = { ...EVENTS, concurrency: 4, concurrencyPerSubscription: 2, concurrencyPerUser: 2 };
  // Closed before the server stops (afterAll hooks run in the order they are declared): the hanging attempts then
  // end at once, where the server's stop would wait out their timeout.
  const receivers: EventReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));
  const server = forSuite<TestServer>(() => startServer(dialect, { events: SMALL }));
  const api = devClient(server);

  test('hanging attempts on as many subscriptions as the room left for a claim never keep a due delivery of another from being claimed', async () => {
    const hanging = await eventReceiver(() => 'hang');
    const healthy = await eventReceiver();
    receivers.push(hanging, healthy);
    // Half the instance's attempts under way, each the only delivery of its subscription, one subscription per
    // user so that no user is full: a claim has room for as many more as there are subscriptions holding them.
    const dead = [];
    for (let i = 0; i < SMALL.concurrency / 2; i += 1) {
      const owner = await newUser(server);
      dead.push({ owner, made: await subscribe(owner.client, hanging.url, ['ping']) });
    }
    expect(SMALL.concurrencyPerUser).toBeGreaterThan(1);
    for (const { owner, made } of dead) await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    await hanging.until((received) => received.length >= dead.length);

    const mine = await subscribe(api, healthy.url, ['ping']);
    await ok(api.post(`${BASE}/${mine.id}/ping`));
    await healthy.until((received) => received.length === 1);
    // It arrived while every hanging attempt was still under way: none timed out to make room for it.
    for (const { owner, made } of dead) {
      const [delivery] = await deliveriesOf(owner.client, made.id);
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 0, last_error: null });
    }
    expect(hanging.received).toHaveLength(dead.length);
  });
});

// Retries ten minutes apart, so a delivery waiting out its backoff is seen to go at once when its subscription is
// fixed, where it would otherwise wait past the test's timeout.
describe.each(DIALECTS)('fixing a failing subscription on %s', (dialect) => {
  const SLOW_RETRIES = { ...EVENTS, retryBaseMs: 600_000, retryMaxDelayMs: 600_000, retryForMs: 3_600_000 };
  const receivers: EventReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));
  const server = forSuite<TestServer>(() =>
    startServer(dialect, { events: { ...SLOW_RETRIES, disableAfterMs: 3_600_000 } }),
  );

  test.each(['resumed', 'given another URL'])(
    'a subscription %s is sent its pending deliveries at once, not after the backoff of their last failure',
    async (how) => {
      const owner = await newUser(server);
      let status = 500;
      const first = await eventReceiver(() => ({ status }));
      const second = await eventReceiver();
      receivers.push(first, second);
      const made = await subscribe(owner.client, first.url, ['ping']);
      await ok(owner.client.post(`${BASE}/${made.id}/ping`));
      const [failed] = await eventually(
        () => deliveriesOf(owner.client, made.id),
        ([delivery]) => delivery.attempt_count === 1,
      );
      expect(Date.parse(failed.next_attempt_at!) - Date.now()).toBeGreaterThan(60_000);

      if (how === 'resumed') {
        await ok(owner.client.patch(`${BASE}/${made.id}`, { active: false }));
        status = 200;
        await ok(owner.client.patch(`${BASE}/${made.id}`, { active: true }));
        await first.until((received) => received.length === 2);
      } else {
        await ok(owner.client.patch(`${BASE}/${made.id}`, { url: second.url }));
        await second.until((received) => received.length === 1);
      }
      const [delivered] = await eventually(
        () => deliveriesOf(owner.client, made.id),
        ([delivery]) => delivery.status === 'delivered',
      );
      expect(delivered).toMatchObject({ id: failed.id, attempt_count: 2, last_status_code: 200 });
    },
  );
});

describe('disabling a failing subscription, on postgres', () => {
  const server = forSuite<TestServer>(() => startServer('postgres', { events: EVENTS }));
  const receivers: EventReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  test('is committed with the notification that tells the user, never before it', async () => {
    const hook = await eventReceiver(() => ({ status: 503 }));
    receivers.push(hook);
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['ping']);
    // One connection holds the lock; another sees the server's statements (outside a transaction, which would
    // read the activity once).
    const inbox = new pg.Client({ connectionString: server.databaseUrl });
    const watcher = new pg.Client({ connectionString: server.databaseUrl });
    await inbox.connect();
    await watcher.connect();
    try {
      // Reads of the inbox go on; a notification's insert waits until this transaction ends.
      await inbox.query('begin');
      await inbox.query('lock table notifications in exclusive mode');
      await ok(owner.client.post(`${BASE}/${made.id}/ping`));
      await eventually(
        async () =>
          (
            await watcher.query(
              `select count(*)::int as n from pg_stat_activity
               where wait_event_type = 'Lock' and query like 'insert into "notifications"%'`,
            )
          ).rows[0].n,
        (waiting) => waiting > 0,
      );
      const told = (await ok(owner.client.get('/v1/dev/user/notifications'))).notifications;
      expect({ told, active: (await ok(owner.client.get(`${BASE}/${made.id}`))).active }).toEqual({
        told: [],
        active: true,
      });
      await inbox.query('commit');
    } finally {
      await inbox.end();
      await watcher.end();
    }
    const disabled = await eventually(
      () => ok(owner.client.get(`${BASE}/${made.id}`)),
      (w) => w.active === false,
    );
    expect(disabled.active).toBe(false);
    const page = await ok(owner.client.get('/v1/dev/user/notifications'));
    expect(page.notifications).toHaveLength(1);
    expect(page.notifications[0]).toMatchObject({ title: 'Webhook disabled', app_id: 'devdata-webhooks' });
    expect(page.notifications[0].text).toContain(hook.url);
  });
});

// A redelivery stores a copy of a delivery for its event; the hourly prune deletes old events no delivery needs.
// A redelivery of an old delivery racing the prune must neither answer 500 (its copy's event deleted under it) nor
// lose its copy (deleted with the event). Shown on PostgreSQL by holding the redelivery just before it stores the
// copy (a trigger waits on an advisory lock the test holds) while the prune runs.
describe('redelivering while the prune runs, on postgres', () => {
  const server = forSuite<TestServer>(() => startServer('postgres', { events: EVENTS }));
  const receivers: EventReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  test('keeps the event for the copy, which is sent again under the same webhook-id', async () => {
    const hook = await eventReceiver(() => ({ status: 200 }));
    receivers.push(hook);
    const owner = await newUser(server);
    const made = await subscribe(owner.client, hook.url, ['ping']);
    await ok(owner.client.post(`${BASE}/${made.id}/ping`));
    const [original] = (
      await eventually(
        () => ok(owner.client.get(`${BASE}/${made.id}/deliveries`)),
        (page) => page.deliveries[0]?.status === 'delivered',
      )
    ).deliveries;
    // Made before the retention began: the prune deletes the delivery, then the event it alone needed.
    const past = await writtenBeforeRetention(server, original.event_id);

    const gate = new pg.Client({ connectionString: server.databaseUrl });
    const watcher = new pg.Client({ connectionString: server.databaseUrl });
    await gate.connect();
    await watcher.connect();
    try {
      await gate.query('select pg_advisory_lock(4242)');
      await gate.query(`create function hold_delivery_insert() returns trigger language plpgsql as $$
        begin perform pg_advisory_lock(4242); perform pg_advisory_unlock(4242); return new; end $$`);
      await gate.query(`create trigger hold_delivery_insert before insert on webhook_deliveries
        for each row execute function hold_delivery_insert()`);
      const redelivered = owner.client.post(`${BASE}/${made.id}/deliveries/${original.id}/redeliver`);
      await eventually(
        async () =>
          (
            await watcher.query(
              `select count(*)::int as n from pg_stat_activity
               where wait_event_type = 'Lock' and wait_event = 'advisory'`,
            )
          ).rows[0].n,
        (waiting) => waiting > 0,
      );
      await server.app.repositories.webhooks.prune(past + 1);
      await gate.query('select pg_advisory_unlock(4242)');
      const copy = await ok(redelivered);
      expect(copy).toMatchObject({ event_id: original.event_id, status: 'pending' });
    } finally {
      await gate.query('drop trigger if exists hold_delivery_insert on webhook_deliveries');
      await gate.query('drop function if exists hold_delivery_insert()');
      await gate.end();
      await watcher.end();
    }
    const again = await hook.until((received) => received.length === 2);
    expect(again[1].headers['webhook-id']).toBe(original.event_id);
  });
});

describe('the retry delay', () => {
  // As the server manual documents: 10 s, then doubling up to 1 h, each delay ±20 % at random.
  const settings = DEFAULT_EVENT_SETTINGS;
  const DRAWS = 1_000;
  const unjittered = (attempt: number) =>
    Math.min(settings.retryBaseMs * 2 ** (attempt - 1), settings.retryMaxDelayMs);
  const draws = (attempt: number) => Array.from({ length: DRAWS }, () => retryDelay(settings, attempt));

  test('doubles with each retry up to the largest delay, and stays there however many retries', () => {
    expect([1, 2, 3, 9, 10, 11, 1_000].map(unjittered)).toEqual([
      10_000, 20_000, 40_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
    for (const attempt of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 41, 42, 1_000]) {
      const delays = draws(attempt);
      const within = {
        low: Math.round(0.8 * unjittered(attempt)),
        high: Math.round(1.2 * unjittered(attempt)),
      };
      const outside = delays.filter((d) => !Number.isInteger(d) || d < within.low || d > within.high);
      expect({ attempt, outside }).toEqual({ attempt, outside: [] });
    }
  });

  test('is jittered: draws for one retry differ, spread on both sides of the unjittered delay', () => {
    for (const attempt of [1, 5, 20]) {
      const delays = draws(attempt);
      // 1,000 uniform draws: all on one side, or all equal, has a chance below 2^-999.
      expect({ attempt, distinct: new Set(delays).size > 1 }).toEqual({ attempt, distinct: true });
      expect(Math.min(...delays)).toBeLessThan(unjittered(attempt));
      expect(Math.max(...delays)).toBeGreaterThan(unjittered(attempt));
    }
  });
});

describe.each(DIALECTS)('registration in production mode on %s', (dialect) => {
  /** Test DNS: these names answer with fixed addresses; the server never connects to any of them. */
  const answers: Record<string, string> = {
    'public.example.test': '93.184.215.14',
    'private.example.test': '10.0.0.1',
    'metadata.example.test': '169.254.169.254',
    'linklocal.example.test': '169.254.10.10',
    'loopback.example.test': '127.0.0.1',
    'ula.example.test': 'fd00:ec2::254',
  };
  let rebindTo = '93.184.215.14';
  const resolve: Resolve = async (hostname) => {
    const address = hostname === 'rebind.example.test' ? rebindTo : answers[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  const server = forSuite<TestServer>(() =>
    startServer(dialect, { allowLoopbackWebhooks: false, events: EVENTS }, { resolve }),
  );

  test.each([
    ['http://127.0.0.1:9/hook', 'loopback'],
    ['https://127.0.0.1/hook', 'loopback address'],
    ['https://loopback.example.test/hook', 'loopback address'],
    ['https://private.example.test/hook', 'private, reserved or metadata'],
    ['https://metadata.example.test/hook', 'private, reserved or metadata'],
    ['https://linklocal.example.test/hook', 'private, reserved or metadata'],
    ['https://ula.example.test/hook', 'private, reserved or metadata'],
    ['https://[::1]/hook', 'loopback address'],
    ['http://public.example.test/hook', 'must use https'],
    ['https://nowhere.example.test/hook', 'does not resolve'],
  ])('%s is refused at creation', async (url, why) => {
    const reply = await devClient(server).post(BASE, { url, events: ['*'] });
    expect422(reply, ['body', 'url']);
    expect(JSON.stringify(reply.body)).toContain(why === 'loopback' ? 'https' : why);
  });

  test('a refused URL is never connected to: a listener on loopback sees no connection', async () => {
    const connections: Socket[] = [];
    const listener = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    try {
      const api = devClient(server);
      for (const url of [`https://127.0.0.1:${port}/hook`, `https://loopback.example.test:${port}/hook`]) {
        expect422(await api.post(BASE, { url, events: ['*'] }), ['body', 'url']);
      }
      // A connection begun during the request would have been accepted by now.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(connections).toHaveLength(0);
    } finally {
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test('a host that resolves inward by the time of the call is refused before connecting', async () => {
    const api = devClient(server);
    const made = await subscribe(api, 'https://rebind.example.test/hook', ['ping']);
    rebindTo = '10.0.0.1';
    await ok(api.post(`${BASE}/${made.id}/ping`));
    const [attempted] = await eventually(
      () => deliveriesOf(api, made.id),
      ([d]) => d.attempt_count >= 1,
    );
    expect(attempted.last_status_code).toBeNull();
    expect(attempted.last_error).toContain('Refused by the outbound policy');
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('an https URL to a public address is accepted, and nothing is called', async () => {
    const api = devClient(server);
    const made = await subscribe(api, 'https://public.example.test/hook', ['ping']);
    expect(made.url).toBe('https://public.example.test/hook');
    expect(await ok(api.get(`${BASE}/${made.id}/deliveries`))).toMatchObject({ deliveries: [] });
    // A PATCH to a URL the policy refuses is refused as a create is.
    expect422(await api.patch(`${BASE}/${made.id}`, { url: 'https://private.example.test/hook' }), [
      'body',
      'url',
    ]);
    await ok(api.delete(`${BASE}/${made.id}`));
  });
});

// The DevData Poll Trigger as an n8n instance runs it (see helpers/polling.ts): activated and polled through
// n8n-core's PollContext and PollTriggerExecutor, its static data kept on the active Workflow object and saved
// the way n8n saves it, its items starting executions in WorkflowExecute; manual runs through WorkflowExecute in
// manual mode. Every poll reads the real devdata-server's change feed over HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ICredentialType, IDataObject, INode, IWorkflowBase } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { DevDataApi } from '../../credentials/DevDataApi.credentials';
import { DevDataAppApi } from '../../credentials/DevDataAppApi.credentials';
import { DevDataPollTrigger } from '../../nodes/DevDataPollTrigger/DevDataPollTrigger.node';
import { START_LOOKBACK_MS } from '../../nodes/DevDataPollTrigger/events';
import { MEMORY_CATEGORY_OPTIONS } from '../../nodes/shared';
import { MAX_ACTION_ITEM_BATCH } from '../../server/src/contract/action-items';
import { SCOPES } from '../../server/src/contract/scopes';
import { adminClient, client, newUser, type Client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer, type NodeTestServer } from './helpers';
import {
  activePollingWorkflow,
  NEXT_NODE,
  POLL_TRIGGER,
  runPollManually,
  type ActivePollingWorkflow,
} from './helpers/polling';

const DEV = '/v1/dev/user';
const ITEMS = `${DEV}/action-items`;
const STATIC_KEY = `node:${POLL_TRIGGER}`;
/** The server's fingerprint stored with the position: a SHA-256 of the Base URL. */
const FINGERPRINT = expect.stringMatching(/^[0-9a-f]{64}$/);

let server: NodeTestServer;
beforeAll(async () => {
  server = await startNodeTestServer();
});
afterAll(async () => server.close());

async function ok(reply: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const { status: got, body } = await reply;
  expect({ status: got, body: got === status ? 'ok' : body }).toEqual({ status, body: 'ok' });
  return body;
}

/** Creates action items through the batch API, 50 per request, and returns them in creation order. */
async function createItems(api: Client | (() => Client), descriptions: string[]): Promise<any[]> {
  const created: any[] = [];
  for (let start = 0; start < descriptions.length; start += MAX_ACTION_ITEM_BATCH) {
    const batch = descriptions
      .slice(start, start + MAX_ACTION_ITEM_BATCH)
      .map((description) => ({ description }));
    const body = await ok(
      (typeof api === 'function' ? api() : api).post(`${ITEMS}/batch`, { action_items: batch }),
      200,
    );
    created.push(...body.action_items);
  }
  return created;
}

const ids = (records: IDataObject[] | null) => (records ?? []).map((r) => r.id);
const descriptions = (records: IDataObject[] | null) => (records ?? []).map((r) => r.description);
const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

/** Adds one segment to a live transcript session (opening it the first time); its conversation's id. */
async function sayInSession(api: Client, session: string, text: string): Promise<string> {
  const accepted = await ok(
    api.post(`${DEV}/transcripts/${session}/segments`, { segments: [{ text, start: 0, end: 1 }] }),
    202,
  );
  return accepted.conversation_id;
}

const finishSession = (api: Client, session: string) =>
  ok(api.post(`${DEV}/transcripts/${session}/finish`, {}));

/**
 * Activates `trigger` with the clock moved past the start's look-back, so that only the start's read of the sessions
 * open finds one opened before (the server stamps no write meanwhile). The position is then 1 ms after activation's
 * real time: this waits until a later write is stamped after it.
 */
async function activateAfterLookback(trigger: ActivePollingWorkflow): Promise<void> {
  const realNow = Date.now.bind(Date);
  const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + START_LOOKBACK_MS + 1);
  try {
    await trigger.activate();
  } finally {
    clock.mockRestore();
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Polls every trigger once and returns what each emitted, failing on a tick error. */
async function tickAll<K extends string>(triggers: Record<K, ActivePollingWorkflow>) {
  const out = {} as Record<K, IDataObject[] | null>;
  for (const [name, trigger] of Object.entries(triggers) as Array<[K, ActivePollingWorkflow]>) {
    const tick = await trigger.tick();
    if (tick.error) throw tick.error;
    out[name] = tick.items;
    // The items went on to the next node of the workflow, as they are.
    if (tick.items) expect(tick.execution?.output(NEXT_NODE).map((i) => i.json)).toEqual(tick.items);
  }
  return out;
}

describe('first activation', () => {
  test('emits nothing and starts from now: only changes made after activation are reported', async () => {
    const user = await newUser(server);
    const before = await createItems(user.client, ['made before 1', 'made before 2']);
    const credentials = credentialsFor(server, user.key);
    const created = activePollingWorkflow({ event: 'newActionItem' }, credentials);
    const updated = activePollingWorkflow({ event: 'updatedActionItem' }, credentials);
    const deleted = activePollingWorkflow({ event: 'deletedActionItem' }, credentials);
    await ok(user.client.delete(`${ITEMS}/${before[1].id}`));

    for (const trigger of [created, updated, deleted]) {
      const activation = await trigger.activate();
      expect(activation).toMatchObject({ items: null, error: null });
    }
    // The position is the end of the feed as it was: the last change, saved by n8n after activation.
    expect(created.savedStaticData()[STATIC_KEY]).toEqual({
      event: 'newActionItem',
      position: { at: before[0].updated_at, id: before[0].id },
      server: FINGERPRINT,
    });
    expect(deleted.savedStaticData()[STATIC_KEY]).toMatchObject({
      event: 'deletedActionItem',
      position: { id: before[1].id },
    });

    expect(await tickAll({ created, updated, deleted })).toEqual({
      created: null,
      updated: null,
      deleted: null,
    });

    const [after] = await createItems(user.client, ['made after']);
    await ok(user.client.patch(`${ITEMS}/${before[0].id}`, { completed: true }));
    const out = await tickAll({ created, updated, deleted });
    expect(ids(out.created)).toEqual([after.id]);
    // A record that existed before activation and changed after it is an update.
    expect(out.updated).toEqual([expect.objectContaining({ id: before[0].id, completed: true })]);
    expect(out.deleted).toBeNull();
  });

  test('a user without any records: the trigger starts at the empty feed and reports the first record', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key));
    await trigger.activate();
    const { position } = trigger.savedStaticData()[STATIC_KEY] as any;
    expect(position.id).toBe('');
    expect(Date.now() - Date.parse(position.at)).toBeGreaterThanOrEqual(60 * 60 * 1000);
    expect((await trigger.tick()).items).toBeNull();
    const [first] = await createItems(user.client, ['first ever']);
    expect(ids((await trigger.tick()).items)).toEqual([first.id]);
    expect((await trigger.tick()).items).toBeNull();
  });
});

describe('action items: each poll emits exactly the changes since the last poll', () => {
  test('create, update, complete, reopen and delete between polls, for every action item event', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const triggers = {
      created: activePollingWorkflow({ event: 'newActionItem' }, credentials),
      createdWithDue: activePollingWorkflow(
        { event: 'newActionItem', options: { onlyWithDueDate: true } },
        credentials,
      ),
      updated: activePollingWorkflow({ event: 'updatedActionItem' }, credentials),
      completed: activePollingWorkflow(
        { event: 'updatedActionItem', options: { onlyCompleted: true } },
        credentials,
      ),
      deleted: activePollingWorkflow({ event: 'deletedActionItem' }, credentials),
    };
    for (const trigger of Object.values(triggers)) await trigger.activate();
    const api = user.client;

    // Poll 1: two new items.
    const a = await ok(api.post(ITEMS, { description: 'A' }), 200);
    const b = await ok(api.post(ITEMS, { description: 'B', due_at: '2026-12-01T09:00:00Z' }), 200);
    let out = await tickAll(triggers);
    expect(out.created).toEqual([a, b]);
    expect(out.createdWithDue).toEqual([b]);
    expect(out).toMatchObject({ updated: null, completed: null, deleted: null });

    // Poll 2: A edited, B completed, C created and edited before the poll: new (once, in its latest state)
    // and updated, since it was edited after it was created.
    const aEdited = await ok(api.patch(`${ITEMS}/${a.id}`, { description: 'A (edited)' }));
    const bDone = await ok(api.patch(`${ITEMS}/${b.id}`, { completed: true }));
    const c = await ok(api.post(ITEMS, { description: 'C' }), 200);
    const cEdited = await ok(api.patch(`${ITEMS}/${c.id}`, { description: 'C (edited)', completed: true }));
    // A write that changes nothing is no change.
    await ok(api.patch(`${ITEMS}/${a.id}`, { description: 'A (edited)' }));
    out = await tickAll(triggers);
    expect(out.created).toEqual([cEdited]);
    expect(out.createdWithDue).toBeNull();
    expect(out.updated).toEqual([aEdited, bDone, cEdited]);
    expect(out.completed).toEqual([bDone, cEdited]);
    expect(out.deleted).toBeNull();

    // Poll 3: B reopened, A deleted, D created and deleted before the poll.
    const bOpen = await ok(api.patch(`${ITEMS}/${b.id}`, { completed: false }));
    await ok(api.delete(`${ITEMS}/${a.id}`));
    const d = await ok(api.post(ITEMS, { description: 'D' }), 200);
    await ok(api.delete(`${ITEMS}/${d.id}`));
    out = await tickAll(triggers);
    expect(out.created).toBeNull();
    expect(out.updated).toEqual([bOpen]);
    expect(out.completed).toBeNull();
    expect(out.deleted).toEqual([
      { type: 'action_item', id: a.id, deleted_at: expect.any(String) },
      { type: 'action_item', id: d.id, deleted_at: expect.any(String) },
    ]);
    expect(Date.parse(out.deleted![0].deleted_at as string)).toBeLessThan(
      Date.parse(out.deleted![1].deleted_at as string),
    );

    // Poll 4: B completed again (a new completion), its due date cleared; C (completed before) edited.
    const bAgain = await ok(api.patch(`${ITEMS}/${b.id}`, { completed: true, due_at: null }));
    const cLater = await ok(api.patch(`${ITEMS}/${c.id}`, { description: 'C (edited twice)' }));
    out = await tickAll(triggers);
    expect(out.updated).toEqual([bAgain, cLater]);
    expect(out.completed).toEqual([bAgain]);
    expect(out).toMatchObject({ created: null, createdWithDue: null, deleted: null });

    // Nothing changed: every trigger returns null.
    out = await tickAll(triggers);
    expect(Object.values(out).every((records) => records === null)).toBe(true);
  });

  test('n8n restarting (activation "init" from the saved static data) continues where the trigger stopped', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key));
    await trigger.activate();
    const [first] = await createItems(user.client, ['before the restart']);
    expect(ids((await trigger.tick()).items)).toEqual([first.id]);
    const [second] = await createItems(user.client, ['while n8n was down']);
    // n8n's activation poll on start-up already reports what changed while it was down.
    expect(ids((await trigger.restart()).items)).toEqual([second.id]);
    expect((await trigger.tick()).items).toBeNull();
    const [third] = await createItems(user.client, ['after the restart']);
    expect(ids((await trigger.tick()).items)).toEqual([third.id]);
  });

  test('a poll that starts while the previous one of the node still runs reports nothing twice', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key));
    await trigger.activate();
    const created = await createItems(user.client, range(1200, 'overlap'));
    // n8n's scheduler does not wait for a slow poll: the next tick can start while it runs.
    await Promise.all([trigger.tick(), trigger.tick()]);
    expect(trigger.emitted().map(ids)).toEqual([ids(created)]);
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.emitted()).toHaveLength(1);
  });

  test('choosing another event starts that event from now', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key));
    await trigger.activate();
    const [kept, gone] = await createItems(user.client, ['kept', 'gone']);
    expect(ids((await trigger.tick()).items)).toEqual([kept.id, gone.id]);
    await ok(user.client.delete(`${ITEMS}/${kept.id}`));

    expect((await trigger.update({ event: 'deletedActionItem' })).items).toBeNull();
    expect(trigger.savedStaticData()[STATIC_KEY]).toMatchObject({ event: 'deletedActionItem' });
    await createItems(user.client, ['made while the trigger watched deletions']);
    await ok(user.client.delete(`${ITEMS}/${gone.id}`));
    expect(ids((await trigger.tick()).items)).toEqual([gone.id]);

    expect((await trigger.update({ event: 'newActionItem' })).items).toBeNull();
    expect((await trigger.tick()).items).toBeNull();
  });
});

describe('conversations and memories', () => {
  test('New Conversation reports each new conversation once; discarded ones only with Include Discarded', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const plain = activePollingWorkflow({ event: 'newConversation' }, credentials);
    const full = activePollingWorkflow(
      { event: 'newConversation', options: { includeTranscript: true, includeDiscarded: true } },
      credentials,
    );
    await plain.activate();
    await full.activate();
    const kept = await ok(
      user.client.post(`${DEV}/conversations`, { text: 'We agreed to ship on Friday.' }),
      200,
    );
    const dropped = await ok(
      user.client.post(`${DEV}/conversations`, { text: 'Testing the microphone.' }),
      200,
    );
    await ok(user.client.patch(`${DEV}/conversations/${dropped.id}`, { discarded: true }));

    const out = await tickAll({ plain, full });
    expect(ids(out.plain)).toEqual([kept.id]);
    expect(out.plain![0].transcript_segments).toBeUndefined();
    expect(ids(out.full)).toEqual([kept.id, dropped.id]);
    expect(out.full![1]).toMatchObject({ discarded: true });
    expect(out.full![0].transcript_segments).toEqual([
      expect.objectContaining({ text: expect.stringContaining('ship on Friday') }),
    ]);

    // A later change of a conversation (a new title) is not a new conversation.
    await ok(user.client.patch(`${DEV}/conversations/${kept.id}`, { title: 'Shipping plan' }));
    expect(await tickAll({ plain, full })).toEqual({ plain: null, full: null });
  });

  test('New Conversation holds a live session’s conversation back until the session is finished, then reports it once', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow(
      { event: 'newConversation', options: { includeTranscript: true } },
      credentialsFor(server, user.key),
    );
    await trigger.activate();
    const segment = (text: string, start: number) => ({
      text,
      speaker: 'SPEAKER_00',
      is_user: true,
      start,
      end: start + 1,
    });
    const say = (session: string, text: string, start: number) =>
      ok(
        user.client.post(`${DEV}/transcripts/${session}/segments`, { segments: [segment(text, start)] }),
        202,
      );
    const finish = (session: string) => finishSession(user.client, session);

    const standup = (await say('standup', 'Good morning all.', 0)).conversation_id;
    // Still in progress: held back, and remembered with the position.
    expect(await tickAll({ trigger })).toEqual({ trigger: null });
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [standup] });
    const made = await ok(user.client.post(`${DEV}/conversations`, { text: 'Made whole meanwhile' }));
    await say('standup', 'Ship on Friday.', 2);
    // A conversation made whole is reported at once; the session going on is still held back.
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([made.id]);
    expect(trigger.savedStaticData()[STATIC_KEY]).toMatchObject({ heldConversations: [standup] });

    await finish('standup');
    const [reported] = (await tickAll({ trigger })).trigger!;
    expect(reported).toMatchObject({ id: standup, source: 'live_transcript', status: 'completed' });
    expect(reported.transcript_segments).toHaveLength(2);
    expect(trigger.savedStaticData()[STATIC_KEY]).not.toHaveProperty('heldConversations');
    // Reported once: a later change of it is not a new conversation.
    await ok(user.client.patch(`${DEV}/conversations/${standup}`, { title: 'Standup' }));
    expect(await tickAll({ trigger })).toEqual({ trigger: null });

    // A session started and finished between two polls is reported once, finished.
    const quick = (await say('quick', 'A quick one.', 0)).conversation_id;
    await finish('quick');
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([quick]);

    // A poll that only held a conversation back is not saved by n8n: after a restart the trigger reads from the
    // saved position again, holds it back again, and reports it once finished.
    const retro = (await say('retro', 'What went well?', 0)).conversation_id;
    expect(await tickAll({ trigger })).toEqual({ trigger: null });
    expect(trigger.savedStaticData()[STATIC_KEY]).not.toHaveProperty('heldConversations');
    await trigger.restart();
    expect(await tickAll({ trigger })).toEqual({ trigger: null });
    await finish('retro');
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([retro]);
    expect(await tickAll({ trigger })).toEqual({ trigger: null });
    expect(
      trigger
        .emitted()
        .flat()
        .map((item) => item.id),
    ).toEqual([made.id, standup, quick, retro]);
  });

  test('with several events, New Conversation keeps its held conversations in its own state', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow(
      { events: ['newActionItem', 'newConversation'] },
      credentialsFor(server, user.key),
      { typeVersion: 2 },
    );
    await trigger.activate();
    const live = await sayInSession(user.client, 'planning', 'Plan the week.');
    const [item] = await createItems(user.client, ['Book a room']);
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([item.id]);
    expect(trigger.savedStaticData()[STATIC_KEY]).toMatchObject({
      states: { newConversation: { heldConversations: [live] } },
    });
    await finishSession(user.client, 'planning');
    const [reported] = (await tickAll({ trigger })).trigger!;
    expect(reported).toMatchObject({
      id: live,
      event: 'newConversation',
      status: 'completed',
    });
  });

  test.each([
    ['version 1', { event: 'newConversation' }, { typeVersion: 1 }],
    ['version 2', { events: ['newConversation'] }, { typeVersion: 2 }],
  ])(
    '%s: a session open when the trigger starts is held from activation and reported once when finished',
    async (_version, parameters, options) => {
      const user = await newUser(server);
      // Opened before activation, and silent for longer than the start looks back.
      const open = await sayInSession(user.client, 'all-hands', 'Welcome everyone.');
      const trigger = activePollingWorkflow(parameters, credentialsFor(server, user.key), options);
      await activateAfterLookback(trigger);
      const state = (saved: IDataObject) =>
        options.typeVersion === 2 ? (saved as any).states.newConversation : saved;
      expect(state(trigger.savedStaticData()[STATIC_KEY] as IDataObject)).toMatchObject({
        heldConversations: [open],
      });

      await sayInSession(user.client, 'all-hands', 'First topic.');
      expect((await trigger.tick()).items).toBeNull();
      await finishSession(user.client, 'all-hands');
      const [reported] = (await trigger.tick()).items!;
      expect(reported).toMatchObject({ id: open, status: 'completed' });
      expect(state(trigger.savedStaticData()[STATIC_KEY] as IDataObject)).not.toHaveProperty(
        'heldConversations',
      );
      await ok(user.client.patch(`${DEV}/conversations/${open}`, { title: 'All hands' }));
      expect((await trigger.tick()).items).toBeNull();
    },
  );

  test('version 2: a session open when New Conversation is added to Trigger On is reported once finished', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ events: ['newMemory'] }, credentialsFor(server, user.key), {
      typeVersion: 2,
    });
    await trigger.activate();
    const open = await sayInSession(user.client, 'review', 'Review.');
    expect((await trigger.update({ events: ['newMemory', 'newConversation'] })).items).toBeNull();
    expect(trigger.nodeStaticData()).toMatchObject({
      states: { newConversation: { heldConversations: [open] } },
    });
    await finishSession(user.client, 'review');
    expect(ids((await trigger.tick()).items)).toEqual([open]);
    expect((await trigger.tick()).items).toBeNull();
  });

  test('on a server without conversation status, the start reads one page of sessions, holds none, and a live session is reported once', async () => {
    // A server from before conversation status: it ignores `statuses` (listing every conversation) and its records
    // carry no `status`. Shown with hooks on a current server that undo both.
    const conversationsRead: string[] = [];
    const older = await startServer(
      'sqlite',
      {},
      {
        beforeListen: (app) => {
          app.addHook('onRequest', async (request) => {
            if (!request.url.startsWith(`${DEV}/conversations`)) return;
            conversationsRead.push(request.url);
            (request.query as Record<string, string>).statuses = 'in_progress,completed';
          });
          app.addHook('onSend', async (request, _reply, payload) => {
            // A kept answer comes as the bytes the response cache holds.
            const text = Buffer.isBuffer(payload) ? payload.toString() : payload;
            if (!request.url.startsWith(`${DEV}/conversations`) || typeof text !== 'string') return payload;
            const withoutStatus = (record: IDataObject) => {
              delete record.status;
              return record;
            };
            const body = JSON.parse(text) as IDataObject | IDataObject[];
            return JSON.stringify(Array.isArray(body) ? body.map(withoutStatus) : withoutStatus(body));
          });
        },
      },
    );
    try {
      const user = await newUser(older);
      for (const text of ['First', 'Second', 'Third'])
        await ok(user.client.post(`${DEV}/conversations`, { text }));
      const before = await sayInSession(user.client, 'before', 'Open before activation.');
      const trigger = activePollingWorkflow({ event: 'newConversation' }, credentialsFor(older, user.key));
      // Activated later than the start looks back, so that only the read of open sessions could hold them.
      await activateAfterLookback(trigger);
      // The read of open sessions ended at its first record, one not in progress: one request, nothing held.
      expect(conversationsRead.filter((url) => url.includes('statuses=in_progress'))).toHaveLength(1);
      expect(trigger.nodeStaticData()).not.toHaveProperty('heldConversations');

      await sayInSession(user.client, 'before', 'Still going.');
      const after = await sayInSession(user.client, 'after', 'Opened after activation.');
      const [reported] = (await tickAll({ trigger })).trigger!;
      expect(reported).toMatchObject({ id: after, source: 'live_transcript' });
      expect(reported).not.toHaveProperty('status');
      await sayInSession(user.client, 'after', 'More.');
      await finishSession(user.client, 'after');
      await finishSession(user.client, 'before');
      expect(await tickAll({ trigger })).toEqual({ trigger: null });
      expect(
        trigger
          .emitted()
          .flat()
          .map((item) => item.id),
      ).toEqual([after]);
      expect(before).not.toBe(after);
    } finally {
      await older.close();
    }
  });

  test('a session deleted while the trigger starts, between its read of open sessions and its walk, is not held', async () => {
    // The deletion is made as the server answers the read of open sessions, and a later change moves the walk's
    // position past it: only the start's own read of deletions can tell.
    let whileAnsweringOpenSessions: (() => Promise<void>) | undefined;
    const racing = await startServer(
      'sqlite',
      {},
      {
        beforeListen: (app) => {
          app.addHook('onSend', async (request) => {
            const act = whileAnsweringOpenSessions;
            if (!act || !request.url.includes('statuses=in_progress')) return;
            whileAnsweringOpenSessions = undefined;
            await act();
          });
        },
      },
    );
    try {
      const user = await newUser(racing);
      const open = await sayInSession(user.client, 'deleted-at-start', 'About to go.');
      whileAnsweringOpenSessions = async () => {
        await ok(user.client.delete(`${DEV}/conversations/${open}`));
        await ok(user.client.post(`${DEV}/conversations`, { text: 'Written after the deletion.' }));
      };
      const trigger = activePollingWorkflow({ event: 'newConversation' }, credentialsFor(racing, user.key));
      await trigger.activate();
      expect(whileAnsweringOpenSessions).toBeUndefined();
      expect(trigger.savedStaticData()[STATIC_KEY]).not.toHaveProperty('heldConversations');
    } finally {
      await racing.close();
    }
  });

  test('a held conversation deleted while in progress is forgotten; open sessions stay held', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newConversation' }, credentialsFor(server, user.key));
    await trigger.activate();
    const start = (session: string) => sayInSession(user.client, session, `Session ${session}.`);
    const gone = await start('gone');
    const idle = await start('idle');
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [gone, idle] });

    await ok(user.client.delete(`${DEV}/conversations/${gone}`));
    const deletionReads = server.requestsTo('GET', `${DEV}/deleted`).length;
    const conversationReads = server.requestsTo('GET', `${DEV}/conversations`).length;
    expect((await trigger.tick()).items).toBeNull();
    // The session never finished so far stays held; the deleted one is forgotten, found in the deletions feed.
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [idle] });
    const deletions = server.requestsTo('GET', `${DEV}/deleted`).slice(deletionReads);
    expect(deletions.map((r) => r.query.get('type'))).toEqual(['conversation']);
    // A poll reads the feed from its position, and not the sessions open.
    const pages = server.requestsTo('GET', `${DEV}/conversations`).slice(conversationReads);
    expect(pages.map((r) => r.query.get('statuses'))).toEqual([null]);

    // Deleting the last one held leaves none.
    await ok(user.client.delete(`${DEV}/conversations/${idle}`));
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.nodeStaticData()).not.toHaveProperty('heldConversations');
  });

  test('a deletions read cut short by the poll budget forgets nothing; the held session is reported once finished', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newConversation' }, credentialsFor(server, user.key), {
      pollBudgetMs: 1,
    });
    await trigger.activate();
    const start = (session: string) => sayInSession(user.client, session, `Session ${session}.`);
    const kept = await start('kept');
    const gone = await start('gone');
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [kept, gone] });

    // The held one's deletion and 1000 more: the first page of deletions is full and holds it, and the budget ends
    // the deletions read after that page.
    await ok(user.client.delete(`${DEV}/conversations/${gone}`));
    for (let i = 0; i < 1000; i++) {
      const { id } = await ok(user.client.post(`${DEV}/conversations`, { text: `Deleted ${i}.` }));
      await ok(user.client.delete(`${DEV}/conversations/${id}`));
    }
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [kept, gone] });

    await finishSession(user.client, 'kept');
    const reported = (await trigger.tick()).items;
    expect(ids(reported)).toEqual([kept]);
    expect(reported![0]).toMatchObject({ status: 'completed' });
    expect((await trigger.tick()).items).toBeNull();
  }, 60_000);

  test('a session opened before where a poll cut short by the budget stopped, and changed after, is held and reported once finished', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newConversation' }, credentialsFor(server, user.key), {
      pollBudgetMs: 1,
    });
    await trigger.activate();
    const live = await sayInSession(user.client, 'cut', 'Opened before the backlog.');
    for (let i = 0; i < 150; i++)
      await ok(user.client.post(`${DEV}/conversations`, { text: `Backlog ${i}.` }));
    // Its latest change lies past the first poll's one page; it was created before where that poll stopped.
    await sayInSession(user.client, 'cut', 'Still going after the backlog.');
    expect((await trigger.tick()).items).toHaveLength(100);
    expect(trigger.nodeStaticData()).not.toHaveProperty('heldConversations');
    expect((await trigger.tick()).items).toHaveLength(50);
    expect(trigger.nodeStaticData()).toMatchObject({ heldConversations: [live] });
    await finishSession(user.client, 'cut');
    expect(ids((await trigger.tick()).items)).toEqual([live]);
    expect((await trigger.tick()).items).toBeNull();
    expect(trigger.emitted().flat()).toHaveLength(151);
  }, 60_000);

  test('New Memory reports new memories of the chosen categories, once', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const all = activePollingWorkflow({ event: 'newMemory' }, credentials);
    const manual = activePollingWorkflow(
      { event: 'newMemory', options: { categories: ['manual'] } },
      credentials,
    );
    await all.activate();
    await manual.activate();
    const tea = await ok(user.client.post(`${DEV}/memories`, { content: 'Likes jasmine tea' }), 200);
    const fact = await ok(
      user.client.post(`${DEV}/memories`, { content: 'Works in Berlin', category: 'interesting' }),
      200,
    );
    const out = await tickAll({ all, manual });
    expect(out.all).toEqual([tea, fact]);
    expect(out.manual).toEqual([tea]);
    await ok(user.client.patch(`${DEV}/memories/${tea.id}`, { content: 'Loves jasmine tea' }));
    expect(await tickAll({ all, manual })).toEqual({ all: null, manual: null });
  });

  test("New Memory's Categories offers the DevData node's categories, the older ones included", async () => {
    const offered = new DevDataPollTrigger().description.properties
      .flatMap((property) => (property.name === 'options' ? (property.options ?? []) : []))
      .filter((option) => 'name' in option && option.name === 'categories')
      .map((option) => ('options' in option ? option.options : undefined));
    expect(offered).toEqual([MEMORY_CATEGORY_OPTIONS, MEMORY_CATEGORY_OPTIONS]);

    const user = await newUser(server);
    const work = activePollingWorkflow(
      { event: 'newMemory', options: { categories: ['work'] } },
      credentialsFor(server, user.key),
    );
    await work.activate();
    await ok(user.client.post(`${DEV}/memories`, { content: 'Likes jasmine tea' }), 200);
    const job = await ok(
      user.client.post(`${DEV}/memories`, { content: 'Leads the platform team', category: 'work' }),
      200,
    );
    expect(await tickAll({ work })).toEqual({ work: [job] });
  });

  test('New Memory takes Categories from an expression as comma-separated text, in both versions', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const v1 = activePollingWorkflow(
      { event: 'newMemory', options: { categories: '={{ "manual, work" }}' } },
      credentials,
    );
    const v2 = activePollingWorkflow(
      { events: ['newMemory'], options: { categories: '={{ "manual, work" }}' } },
      credentials,
      { typeVersion: 2 },
    );
    await v1.activate();
    await v2.activate();
    const tea = await ok(user.client.post(`${DEV}/memories`, { content: 'Likes jasmine tea' }), 200);
    await ok(
      user.client.post(`${DEV}/memories`, { content: 'Works in Berlin', category: 'interesting' }),
      200,
    );
    const job = await ok(
      user.client.post(`${DEV}/memories`, { content: 'Leads the platform team', category: 'work' }),
      200,
    );
    const out = await tickAll({ v1, v2 });
    expect(out.v1).toEqual([tea, job]);
    expect(out.v2).toEqual([tea, job].map((memory) => ({ ...memory, event: 'newMemory' })));
  });

  test.each([
    [
      'Categories that are no list (an expression giving a number)',
      '={{ 5 }}',
      'Categories must be a list of values or a comma-separated text, not 5',
    ],
    [
      'a category the server does not have (an expression giving "Work")',
      '={{ "manual, Work" }}',
      'Unknown category "Work" in Categories',
    ],
  ])('%s fails the poll, saying so', async (_case, categories, message) => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow(
      { event: 'newMemory', options: { categories } },
      credentialsFor(server, user.key),
    );
    const error = await trigger.activate().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(message);
  });
});

describe('Goal Progress Changed', () => {
  test('reports goals whose current value changed since the last poll, remembering the values it saw', async () => {
    const user = await newUser(server);
    const api = user.client;
    const goal = (body: object) => ok(api.post(`${DEV}/goals`, body), 200);
    const progress = (id: string, value: number) =>
      ok(api.patch(`${DEV}/goals/${id}/progress`, undefined, { current_value: value }));
    const novels = await goal({ title: 'Read 12 novels', target_value: 12 });
    const runs = await goal({ title: 'Run 100 km', target_value: 100 });
    const trigger = activePollingWorkflow({ event: 'goalProgressChanged' }, credentialsFor(server, user.key));
    expect((await trigger.activate()).items).toBeNull();
    // The baseline: every goal's value when the trigger was activated.
    expect(trigger.savedStaticData()[STATIC_KEY]).toMatchObject({
      goalValues: [
        [novels.id, 0],
        [runs.id, 0],
      ],
    });

    const novels3 = await progress(novels.id, 3);
    await ok(api.patch(`${DEV}/goals/${runs.id}`, { title: 'Run 100 km in May', focus_rank: 1 }));
    let tick = await trigger.tick();
    expect(tick.items).toEqual([novels3]);

    // The same value again, or a change and back before the poll: no progress change.
    await progress(novels.id, 3);
    await progress(runs.id, 10);
    await progress(runs.id, 0);
    expect((await trigger.tick()).items).toBeNull();

    // A new goal is remembered with its first value; when it changed before the trigger saw it, its earlier
    // value is unknown and it is reported.
    await goal({ title: 'Learn the tuba', goal_type: 'scale' });
    const piano = await goal({ title: 'Practice piano', target_value: 30 });
    const piano5 = await progress(piano.id, 5);
    const runs20 = await progress(runs.id, 20);
    tick = await trigger.tick();
    expect(tick.items).toEqual([piano5, runs20]);
    expect((await trigger.tick()).items).toBeNull();

    // Abandoning a goal (DELETE) is a change, but not of its progress.
    await ok(api.delete(`${DEV}/goals/${novels.id}`));
    expect((await trigger.tick()).items).toBeNull();
  });
});

describe('2,500 changes between two polls', () => {
  test('all arrive, each once, in change order, over pages joined by after_id', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentials);
    // The same poller with a poll budget n8n's scheduler would cut short: one page per poll.
    const budgeted = activePollingWorkflow({ event: 'newActionItem' }, credentials, { pollBudgetMs: 1 });
    await trigger.activate();
    await budgeted.activate();

    const created = await createItems(user.client, range(2500, 'bulk'));
    const before = server.requestsTo('GET', ITEMS).length;
    const tick = await trigger.tick();
    expect(tick.error).toBeNull();
    expect(tick.items).toHaveLength(2500);
    expect(ids(tick.items)).toEqual(ids(created));
    expect(descriptions(tick.items)).toEqual(range(2500, 'bulk'));
    const pages = server.requestsTo('GET', ITEMS).slice(before);
    expect(pages.map((p) => p.query.get('limit'))).toEqual(['1000', '1000', '1000']);
    // Each page starts at the last record of the one before (the batches share a stamp, so the id matters).
    expect(pages[1].query.get('after_id')).toBe(created[999].id);
    expect(pages[2].query.get('after_id')).toBe(created[1999].id);
    expect(pages[2].query.get('updated_since')).toBe(created[1999].updated_at);
    expect((await trigger.tick()).items).toBeNull();

    // With the budget, the backlog drains over several polls, with no gap and no repeat.
    const drained: IDataObject[] = [];
    for (let poll = 0; poll < 3; poll++) {
      const next = await budgeted.tick();
      expect(next.error).toBeNull();
      expect(next.items).toHaveLength(poll < 2 ? 1000 : 500);
      drained.push(...next.items!);
    }
    expect(ids(drained)).toEqual(ids(created));
    expect((await budgeted.tick()).items).toBeNull();
  });
});

describe('a poll that fails halfway', () => {
  let flaky: TestServer;
  /** When set, the onRequest hook answers the request with this status when the predicate says so (once). */
  let failNext: { when: (url: string) => boolean; status: number } | undefined;

  beforeAll(async () => {
    flaky = await startServer(
      'sqlite',
      {},
      {
        beforeListen: (app) => {
          app.addHook('onRequest', async (request, reply) => {
            if (failNext?.when(request.url)) {
              const { status } = failNext;
              failNext = undefined;
              return reply
                .code(status)
                .header('retry-after', '3600')
                .send({
                  detail: status === 429 ? 'Rate limit exceeded. Retry after 3600 seconds' : 'Unavailable',
                });
            }
            return undefined;
          });
        },
      },
    );
  });
  afterAll(async () => flaky.close());

  /** Fails the `n`th GET of the action item feed from now on. */
  function failFeedRequest(n: number, status: number) {
    let seen = 0;
    failNext = {
      status,
      when: (url) => url.startsWith(`${ITEMS}?`) && ++seen === n,
    };
  }

  test.each([
    ['a server error on the third page', 3, 503],
    ['a 429 with a long Retry-After on the second page', 2, 429],
  ])(
    '%s: the next poll emits every change once, nothing twice and nothing skipped',
    async (_, page, status) => {
      const user = await newUser(flaky);
      const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(flaky, user.key));
      await trigger.activate();
      const created = await createItems(user.client, range(2500, 'item'));
      const stored = trigger.savedStaticData();

      failFeedRequest(page, status);
      const failed = await trigger.tick();
      expect(failed.items).toBeNull();
      expect(failed.error).toBeInstanceOf(NodeApiError);
      expect((failed.error as NodeApiError).httpCode).toBe(String(status));
      // What to do: nothing. Not "Run the workflow again" (a manual run reads no position) nor Retry On Fail.
      expect((failed.error as NodeApiError).description).toMatch(
        /^(Unavailable|Rate limit exceeded\. Retry after 3600 seconds)\. Nothing is lost: the poll stored nothing, and the next one .* reads these changes, each once\.$/,
      );
      // Nothing moved: neither the static data in memory nor what n8n saved.
      expect(trigger.nodeStaticData()).toEqual(stored[STATIC_KEY]);
      expect(trigger.savedStaticData()).toEqual(stored);

      // More writes before the next poll: one more item, and the first one edited (still new: reported once).
      const [extra] = await createItems(user.client, ['after the failure']);
      const firstEdited = await ok(
        user.client.patch(`${ITEMS}/${created[0].id}`, { description: 'item 0 (edited)' }),
      );
      const next = await trigger.tick();
      expect(next.error).toBeNull();
      expect(ids(next.items)).toEqual([...ids(created.slice(1)), extra.id, firstEdited.id]);
      expect(next.items!.at(-1)).toEqual(firstEdited);
      expect((await trigger.tick()).items).toBeNull();
    },
  );

  test('a server out of reach fails the poll saying what to check, and that the next poll reads on', async () => {
    const user = await newUser(flaky);
    const credentials = credentialsFor(flaky, user.key);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentials);
    await trigger.activate();
    const [item] = await createItems(user.client, ['made while the server was out of reach']);
    // Nothing listens at the Base URL (a port of this test's range kept free).
    const down = {
      ...credentials,
      devDataApi: { ...credentials.devDataApi, baseUrl: 'http://127.0.0.1:31699' },
    };
    trigger.setCredentials(down);
    const failed = await trigger.tick();
    expect(failed.error?.message).toBe('Could not reach the DevData server at http://127.0.0.1:31699');
    expect((failed.error as NodeApiError).description).toMatch(
      /^Nothing accepted the connection .* Check too that the server is running and that n8n can reach it\. Nothing is lost: the poll stored nothing, and the next one .* reads these changes, each once\.$/,
    );
    trigger.setCredentials(credentials);
    expect(ids((await trigger.tick()).items)).toEqual([item.id]);
  });

  test('a failing activation poll fails the activation and stores nothing', async () => {
    const user = await newUser(flaky);
    const trigger = activePollingWorkflow({ event: 'updatedActionItem' }, credentialsFor(flaky, user.key));
    failFeedRequest(1, 503);
    await expect(trigger.activate()).rejects.toThrow('The DevData server is temporarily unavailable');
    expect(trigger.savedStaticData()).toEqual({});
    expect((await trigger.activate()).error).toBeNull();
    expect(trigger.savedStaticData()[STATIC_KEY]).toMatchObject({ event: 'updatedActionItem' });
  });
});

describe('another credential', () => {
  test('another Base URL (another server) starts from now: that server’s earlier records are not new', async () => {
    const other = await startNodeTestServer();
    try {
      const alice = await newUser(server);
      const carol = await newUser(other);
      const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, alice.key));
      await trigger.activate();
      const [alices] = await createItems(alice.client, ['Alice’s']);
      expect(ids((await tickAll({ trigger })).trigger)).toEqual([alices.id]);

      // Made after Alice's position, before the switch: no change since the trigger's last poll of that server.
      await createItems(carol.client, ['Carol’s, before the switch']);
      trigger.setCredentials(credentialsFor(other, carol.key));
      expect(await tickAll({ trigger })).toEqual({ trigger: null });
      const [carols] = await createItems(carol.client, ['Carol’s, after the switch']);
      expect(ids((await tickAll({ trigger })).trigger)).toEqual([carols.id]);
      expect(trigger.savedStaticData()[STATIC_KEY]).toEqual({
        event: 'newActionItem',
        position: { at: carols.updated_at, id: carols.id },
        server: FINGERPRINT,
      });
      expect(JSON.stringify(trigger.nodeStaticData())).not.toContain(other.baseUrl);
    } finally {
      await other.close();
    }
  });

  test('version 2: every watched event starts from now on another server', async () => {
    const other = await startNodeTestServer();
    try {
      const alice = await newUser(server);
      const carol = await newUser(other);
      const trigger = activePollingWorkflow(
        { events: ['newActionItem', 'newMemory'] },
        credentialsFor(server, alice.key),
        { typeVersion: 2 },
      );
      await trigger.activate();
      await createItems(carol.client, ['Carol’s, before the switch']);
      await ok(carol.client.post(`${DEV}/memories`, { content: 'Carol likes tea' }), 200);
      trigger.setCredentials(credentialsFor(other, carol.key));
      expect(await tickAll({ trigger })).toEqual({ trigger: null });
      const memory = await ok(carol.client.post(`${DEV}/memories`, { content: 'Carol likes coffee' }), 200);
      expect((await tickAll({ trigger })).trigger).toEqual([{ ...memory, event: 'newMemory' }]);
    } finally {
      await other.close();
    }
  });

  test('a new key of the same user (key rotation) loses nothing: changes made between the keys arrive', async () => {
    const user = await newUser(server);
    const admin = adminClient(server);
    const newKey = async () =>
      (await ok(admin.post(`/v1/admin/users/${user.id}/keys`, { name: 'k', scopes: [...SCOPES] }), 201)) as {
        id: string;
        key: string;
      };
    const oldKey = await newKey();
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, oldKey.key));
    await trigger.activate();
    const [polled] = await createItems(user.client, ['read with the old key']);
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([polled.id]);
    const storedWithOldKey = trigger.savedStaticData();

    const between = await createItems(user.client, ['after the old key’s last poll 1', 'after 2']);
    const rotated = await newKey();
    await ok(admin.delete(`/v1/admin/keys/${oldKey.id}`), 204);
    // The same server, written with a trailing slash this time.
    trigger.setCredentials({
      ...credentialsFor(server, rotated.key),
      devDataApi: { baseUrl: `${server.baseUrl}/`, apiKey: rotated.key },
    });
    const [after] = await createItems(user.client, ['after the rotation']);
    expect(ids((await tickAll({ trigger })).trigger)).toEqual(ids([...between, after]));
    expect(trigger.savedStaticData()[STATIC_KEY]).toEqual({
      ...(storedWithOldKey[STATIC_KEY] as IDataObject),
      position: { at: after.updated_at, id: after.id },
    });
    expect(JSON.stringify(trigger.nodeStaticData())).not.toContain(rotated.key);
  });

  test('another user’s key on the same server reads on from the position; Trigger On changed and back starts from now', async () => {
    const alice = await newUser(server);
    const bob = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, alice.key));
    await trigger.activate();
    const [alices] = await createItems(alice.client, ['Alice’s']);
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([alices.id]);

    // The server is the same, so the position is read on: Bob's records made since it are reported.
    const [bobs] = await createItems(bob.client, ['Bob’s, before the switch']);
    trigger.setCredentials(credentialsFor(server, bob.key));
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([bobs.id]);

    // To start from now instead: save the active workflow with another event, then with this one again.
    await createItems(bob.client, ['Bob’s, before the reset']);
    expect((await trigger.update({ event: 'updatedActionItem' })).items).toBeNull();
    expect((await trigger.update({ event: 'newActionItem' })).items).toBeNull();
    const [next] = await createItems(bob.client, ['Bob’s, after the reset']);
    expect(ids((await tickAll({ trigger })).trigger)).toEqual([next.id]);
  });

  test('a position stored without the server’s fingerprint (by an earlier version) is read on', async () => {
    const user = await newUser(server);
    const [first] = await createItems(user.client, ['before the upgrade']);
    const [second] = await createItems(user.client, ['while n8n was down']);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key), {
      savedStaticData: {
        [STATIC_KEY]: { event: 'newActionItem', position: { at: first.updated_at, id: first.id } },
      },
    });
    expect((await trigger.restart()).items).toEqual([second]);
    expect(trigger.savedStaticData()[STATIC_KEY]).toEqual({
      event: 'newActionItem',
      position: { at: second.updated_at, id: second.id },
      server: FINGERPRINT,
    });
  });
});

describe("the server's rate limit", () => {
  test('a poll stopped by a 429 on a later page emits nothing; once the limit allows, everything comes once', async () => {
    // A window that does not end within the next minutes, so the 429's Retry-After is too long to wait for.
    const day = 86_400_000;
    let windowMs = 7 * day;
    if (windowMs - (Date.now() % windowMs) < 10 * 60_000) windowMs = 11 * day;
    const limited = await startNodeTestServer({ rateLimit: { max: 2, windowMs } });
    try {
      const user = await newUser(limited);
      const admin = adminClient(limited);
      /** A fresh developer key of the same user: a fresh rate-limit window. */
      const freshKey = async () =>
        (await ok(admin.post(`/v1/admin/users/${user.id}/keys`, { name: 'k', scopes: [...SCOPES] }), 201))
          .key as string;
      const writers: Client[] = [];
      let writes = 0;
      const writer = () => {
        if (writes++ % 2 === 0) writers.push(client(limited.baseUrl, writerKeys.shift()!));
        return writers.at(-1)!;
      };
      const writerKeys = await Promise.all(Array.from({ length: 11 }, () => freshKey()));

      const trigger = activePollingWorkflow(
        { event: 'newActionItem' },
        credentialsFor(limited, await freshKey()),
      );
      await trigger.activate(); // request 1 of the trigger's key
      const created = await createItems(writer, range(1050, 'limited'));
      const failed = await trigger.tick(); // page 1 is request 2; page 2 is refused
      expect(failed.items).toBeNull();
      expect((failed.error as NodeApiError).httpCode).toBe('429');
      expect(failed.error?.message).toBe('Rate limit exceeded');
      expect(limited.requests.filter((r) => r.status === 429)).toHaveLength(1);

      trigger.setCredentials(credentialsFor(limited, await freshKey()));
      const next = await trigger.tick();
      expect(next.error).toBeNull();
      expect(ids(next.items)).toEqual(ids(created));
    } finally {
      await limited.close();
    }
  });
});

describe('manual runs', () => {
  test('show the latest few matching records, oldest first, without moving the stored position', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const items = await createItems(user.client, range(7, 'manual'));
    const edited = [];
    for (const item of [items[1], items[3]]) {
      edited.push(await ok(user.client.patch(`${ITEMS}/${item.id}`, { completed: true })));
    }
    await ok(user.client.delete(`${ITEMS}/${items[6].id}`));
    const stored = {
      [STATIC_KEY]: { event: 'newActionItem', position: { at: items[0].updated_at, id: items[0].id } },
    };

    const created = await runPollManually({ event: 'newActionItem' }, credentials, stored);
    expect(created.result.error).toBeUndefined();
    const shown = created.result.output(POLL_TRIGGER).map((i) => i.json);
    expect(descriptions(shown)).toEqual(['manual 1', 'manual 2', 'manual 3', 'manual 4', 'manual 5']);
    expect(created.result.output(NEXT_NODE)).toHaveLength(5);
    expect(created.staticData).toEqual(stored);

    const updated = await runPollManually({ event: 'updatedActionItem' }, credentials, stored);
    expect(updated.result.output(POLL_TRIGGER).map((i) => i.json)).toEqual(edited);
    expect(updated.staticData).toEqual(stored);

    const deleted = await runPollManually({ event: 'deletedActionItem' }, credentials);
    expect(deleted.result.output(POLL_TRIGGER).map((i) => i.json)).toEqual([
      { type: 'action_item', id: items[6].id, deleted_at: expect.any(String) },
    ]);
    expect(deleted.staticData).toEqual({});
  });

  test('goals, conversations and memories: the most recently changed goals, the newest records that match', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const api = user.client;
    const goals = [];
    for (const title of ['Read', 'Run', 'Swim'])
      goals.push(await ok(api.post(`${DEV}/goals`, { title, target_value: 10 }), 200));
    const swum = await ok(api.patch(`${DEV}/goals/${goals[2].id}/progress`, undefined, { current_value: 4 }));
    const read = await ok(api.patch(`${DEV}/goals/${goals[0].id}/progress`, undefined, { current_value: 2 }));
    const shown = async (parameters: Record<string, any>) =>
      (await runPollManually(parameters, credentials)).result.output(POLL_TRIGGER).map((i) => i.json);
    expect(await shown({ event: 'goalProgressChanged' })).toEqual([swum, read]);

    const memories = [];
    for (const [content, category] of [
      ['a', 'manual'],
      ['b', 'interesting'],
      ['c', 'manual'],
    ]) {
      memories.push(await ok(api.post(`${DEV}/memories`, { content, category }), 200));
    }
    expect(await shown({ event: 'newMemory', options: { categories: ['manual'] } })).toEqual([
      memories[0],
      memories[2],
    ]);

    const talk = await ok(api.post(`${DEV}/conversations`, { text: 'Plan the offsite.' }), 200);
    const conversations = await shown({ event: 'newConversation', options: { includeTranscript: true } });
    expect(ids(conversations)).toEqual([talk.id]);
    expect(conversations[0].transcript_segments).toHaveLength(1);
  });

  test('New Conversation shows the newest created conversations, as the event reports them, whenever they started', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const conversations = [];
    for (const text of range(5, 'Talk today'))
      conversations.push(await ok(user.client.post(`${DEV}/conversations`, { text }), 200));
    // Created last, started weeks ago (imported): the list's default order (newest started first) puts it last.
    const imported = await ok(
      user.client.post(`${DEV}/conversations`, {
        text: 'Imported talk',
        started_at: '2026-10-01T10:00:00Z',
        finished_at: '2026-10-01T10:30:00Z',
      }),
      200,
    );
    const run = await runPollManually({ event: 'newConversation' }, credentials);
    expect(run.result.error).toBeUndefined();
    expect(ids(run.result.output(POLL_TRIGGER).map((i) => i.json))).toEqual(
      ids([...conversations.slice(1), imported]),
    );
  });

  test('the New events find their matches behind more than a page of newer records that do not match', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const done = [];
    for (const description of ['done 1', 'done 2'])
      done.push(await ok(user.client.post(ITEMS, { description, completed: true }), 200));
    // 250 newer open items: the completed ones are on the third page of 100.
    await createItems(user.client, range(250, 'open'));
    const run = await runPollManually(
      { event: 'newActionItem', options: { onlyCompleted: true } },
      credentials,
    );
    expect(run.result.error).toBeUndefined();
    expect(ids(run.result.output(POLL_TRIGGER).map((i) => i.json))).toEqual(ids(done));
  });

  test('with nothing to show, the trigger returns no items', async () => {
    const user = await newUser(server);
    const run = await runPollManually({ event: 'deletedActionItem' }, credentialsFor(server, user.key));
    expect(run.result.error).toBeUndefined();
    expect(run.result.run.data.resultData.runData[NEXT_NODE]).toBeUndefined();
  });
});

describe('version 2: one trigger watching several events', () => {
  const ACTION_ITEM_EVENTS = ['newActionItem', 'updatedActionItem', 'deletedActionItem'];
  const v2 = { typeVersion: 2 };

  test('one poll reports the changes of every event chosen, in change order, each item saying its event', async () => {
    const user = await newUser(server);
    const api = user.client;
    const [before] = await createItems(api, ['made before activation']);
    const trigger = activePollingWorkflow(
      { events: [...ACTION_ITEM_EVENTS, 'newMemory'] },
      credentialsFor(server, user.key),
      v2,
    );
    expect(await trigger.activate()).toMatchObject({ items: null, error: null });
    expect(Object.keys((trigger.savedStaticData()[STATIC_KEY] as any).states).sort()).toEqual(
      ['deletedActionItem', 'newActionItem', 'newMemory', 'updatedActionItem'].sort(),
    );

    const a = await ok(api.post(ITEMS, { description: 'A' }), 200);
    const beforeDone = await ok(api.patch(`${ITEMS}/${before.id}`, { completed: true }));
    const memory = await ok(api.post(`${DEV}/memories`, { content: 'likes tea', category: 'manual' }), 200);
    await ok(api.delete(`${ITEMS}/${a.id}`));
    const b = await ok(api.post(ITEMS, { description: 'B' }), 200);
    const tick = await trigger.tick();
    expect(tick.error).toBeNull();
    expect(tick.items).toEqual([
      { ...beforeDone, event: 'updatedActionItem' },
      { ...memory, event: 'newMemory' },
      { type: 'action_item', id: a.id, deleted_at: expect.any(String), event: 'deletedActionItem' },
      { ...b, event: 'newActionItem' },
    ]);
    // One execution: the items went on to the next node as they are.
    expect(tick.execution?.output(NEXT_NODE).map((i) => i.json)).toEqual(tick.items);

    // A record created and edited between two polls is new and updated: the creation comes first.
    const c = await ok(api.post(ITEMS, { description: 'C' }), 200);
    const cDone = await ok(api.patch(`${ITEMS}/${c.id}`, { completed: true }));
    expect((await trigger.tick()).items).toEqual([
      { ...cDone, event: 'newActionItem' },
      { ...cDone, event: 'updatedActionItem' },
    ]);
    expect((await trigger.tick()).items).toBeNull();

    // n8n restarts: every event continues from the position it saved.
    const [d] = await createItems(api, ['while n8n was down']);
    expect((await trigger.restart()).items).toEqual([{ ...d, event: 'newActionItem' }]);
  });

  test('a record created and edited while the poll reads between two events comes first as new, never as updated only', async () => {
    // The writes land as the server answers the poll's first read of the feed: after what it read, before any
    // other read of the same poll.
    let afterFirstRead: (() => Promise<void>) | undefined;
    let feedReads = 0;
    const racing = await startServer(
      'sqlite',
      {},
      {
        beforeListen: (app) => {
          app.addHook('onSend', async (request) => {
            if (!request.url.startsWith(`${ITEMS}?`) || ++feedReads !== 1 || !afterFirstRead) return;
            const act = afterFirstRead;
            afterFirstRead = undefined;
            await act();
          });
        },
      },
    );
    try {
      const user = await newUser(racing);
      const trigger = activePollingWorkflow(
        { events: ['newActionItem', 'updatedActionItem'] },
        credentialsFor(racing, user.key),
        v2,
      );
      await trigger.activate();
      const [before] = await createItems(user.client, ['before the poll']);
      let raced: any;
      afterFirstRead = async () => {
        [raced] = await createItems(user.client, ['while the poll reads']);
        raced = await ok(
          user.client.patch(`${ITEMS}/${raced.id}`, { description: 'edited while the poll reads' }),
        );
      };
      feedReads = 0;
      const first = await tickAll({ trigger });
      expect(afterFirstRead).toBeUndefined();
      const second = await tickAll({ trigger });
      const reported = [...(first.trigger ?? []), ...(second.trigger ?? [])].map((r) => [r.event, r.id]);
      expect(reported).toEqual([
        ['newActionItem', before.id],
        ['newActionItem', raced.id],
        ['updatedActionItem', raced.id],
      ]);

      // Activated, each event starts where its own read ends; here Updated's after New's (an item created and
      // edited in between). Read once from New's position, Updated reports no change made before it started.
      const started = activePollingWorkflow(
        { events: ['newActionItem', 'updatedActionItem'] },
        credentialsFor(racing, user.key),
        v2,
      );
      let betweenStarts: any;
      afterFirstRead = async () => {
        [betweenStarts] = await createItems(user.client, ['between the starts']);
        betweenStarts = await ok(
          user.client.patch(`${ITEMS}/${betweenStarts.id}`, { description: 'edited' }),
        );
      };
      feedReads = 0;
      await started.activate();
      expect(afterFirstRead).toBeUndefined();
      const after = await tickAll({ started });
      expect(after.started?.map((r) => [r.event, r.id])).toEqual([['newActionItem', betweenStarts.id]]);
    } finally {
      await racing.close();
    }
  });

  test('each option applies to the events it names', async () => {
    const user = await newUser(server);
    const api = user.client;
    const trigger = activePollingWorkflow(
      {
        events: ['newActionItem', 'updatedActionItem', 'newMemory'],
        options: { onlyCompleted: true, categories: ['manual'] },
      },
      credentialsFor(server, user.key),
      v2,
    );
    await trigger.activate();
    const [open, toComplete] = await createItems(api, ['open', 'to complete']);
    const done = await ok(api.patch(`${ITEMS}/${toComplete.id}`, { completed: true }));
    await ok(api.post(`${DEV}/memories`, { content: 'system fact', category: 'system' }), 200);
    const manual = await ok(api.post(`${DEV}/memories`, { content: 'manual fact', category: 'manual' }), 200);
    const items = (await trigger.tick()).items!;
    expect(items.map((i) => [i.event, i.id])).toEqual([
      ['newActionItem', done.id],
      ['updatedActionItem', done.id],
      ['newMemory', manual.id],
    ]);
    expect(ids(items)).not.toContain(open.id);
  });

  test('adding an event starts it from now and keeps the others where they were; removing one forgets it', async () => {
    const user = await newUser(server);
    const api = user.client;
    const credentials = credentialsFor(server, user.key);
    const trigger = activePollingWorkflow({ events: ['newActionItem'] }, credentials, v2);
    await trigger.activate();
    const [kept] = await createItems(api, ['kept']);
    await ok(api.delete(`${ITEMS}/${kept.id}`));
    const [made] = await createItems(api, ['made before the change']);

    // The deletion happened before Deleted Action Item was chosen: not reported. The creation is.
    expect((await trigger.update({ events: ['newActionItem', 'deletedActionItem'] })).items).toEqual([
      { ...made, event: 'newActionItem' },
    ]);
    await ok(api.delete(`${ITEMS}/${made.id}`));
    expect((await trigger.tick()).items).toEqual([
      { type: 'action_item', id: made.id, deleted_at: expect.any(String), event: 'deletedActionItem' },
    ]);

    expect((await trigger.update({ events: ['deletedActionItem'] })).items).toBeNull();
    expect(Object.keys((trigger.savedStaticData()[STATIC_KEY] as any).states)).toEqual(['deletedActionItem']);
  });

  test('without any event chosen, activation fails and says what to do', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ events: [] }, credentialsFor(server, user.key), v2);
    await expect(trigger.activate()).rejects.toThrow('Choose at least one event in Trigger On');
  });

  test('a manual run shows the latest few records of each event chosen, tagged, without storing anything', async () => {
    const user = await newUser(server);
    const api = user.client;
    const [gone, stays] = await createItems(api, ['gone', 'stays']);
    await ok(api.delete(`${ITEMS}/${gone.id}`));
    const run = await runPollManually(
      { events: ['newActionItem', 'deletedActionItem'] },
      credentialsFor(server, user.key),
      {},
      2,
    );
    expect(run.result.error).toBeUndefined();
    expect(run.result.output(POLL_TRIGGER).map((i) => i.json)).toEqual([
      { ...stays, event: 'newActionItem' },
      { type: 'action_item', id: gone.id, deleted_at: expect.any(String), event: 'deletedActionItem' },
    ]);
    expect(run.staticData).toEqual({});
  });

  test('version 1 keeps its single event, its untagged items and its stored state', async () => {
    const user = await newUser(server);
    const trigger = activePollingWorkflow({ event: 'newActionItem' }, credentialsFor(server, user.key));
    await trigger.activate();
    const [item] = await createItems(user.client, ['v1']);
    expect((await trigger.tick()).items).toEqual([item]);
    expect(trigger.savedStaticData()[STATIC_KEY]).toEqual({
      event: 'newActionItem',
      position: { at: item.updated_at, id: item.id },
      server: FINGERPRINT,
    });
  });
});

describe('the credentials', () => {
  // n8n evaluates a generic authentication's `={{$credentials.…}}` in the workflow's expression isolate for every
  // request; n8n 2.41 can hand that isolate back while a sibling poll trigger still pages (issue 27).
  test.each([
    ['DevData Developer API', new DevDataApi(), 'apiKey', 'svc_dev_0123'],
    ['DevData App API', new DevDataAppApi(), 'appSecret', 'sk_0123'],
  ])('%s sets the bearer header in code, without an expression', async (_name, type, field, secret) => {
    const { authenticate } = type as ICredentialType;
    if (typeof authenticate !== 'function') throw new Error(`authenticate is ${typeof authenticate}`);
    const options = await authenticate(
      { baseUrl: 'http://127.0.0.1:1', [field]: secret },
      { url: 'http://127.0.0.1:1/x', headers: { accept: 'application/json' } },
    );
    expect(options.headers).toEqual({ accept: 'application/json', Authorization: `Bearer ${secret}` });
  });
});

describe('the example workflow examples/action-item-two-way-sync.json', () => {
  const example = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'examples', 'action-item-two-way-sync.json'), 'utf8'),
  ) as IWorkflowBase;
  const node = (name: string) => example.nodes.find((n) => n.name === name) as INode;

  test('is importable: node types and versions n8n knows, the demo credential, connections between its nodes', () => {
    const versions: Record<string, number> = {
      'n8n-nodes-base.code': 2,
      'n8n-nodes-base.stickyNote': 1,
      'n8n-nodes-base.manualTrigger': 1,
      'n8n-nodes-base.scheduleTrigger': 1.2,
      'n8n-nodes-base.switch': 3.2,
      'n8n-nodes-devdata.devData': 1,
      'n8n-nodes-devdata.devDataPollTrigger': 2,
    };
    for (const n of example.nodes) expect([n.name, n.typeVersion]).toEqual([n.name, versions[n.type]]);
    expect(new Set(example.nodes.map((n) => n.name)).size).toBe(example.nodes.length);
    expect(new Set(example.nodes.map((n) => n.id)).size).toBe(example.nodes.length);
    const names = new Set(example.nodes.map((n) => n.name));
    for (const [source, outputs] of Object.entries(example.connections)) {
      expect(names.has(source)).toBe(true);
      for (const target of outputs.main.flat()) expect(names.has(target!.node)).toBe(true);
    }
    const events = (
      new DevDataPollTrigger().description.properties.find((p) => p.name === 'events')!.options as Array<{
        value: string;
      }>
    ).map((o) => o.value);
    // One trigger for the three events, its items routed by their event to the three branches.
    const triggers = example.nodes.filter((n) => n.type === 'n8n-nodes-devdata.devDataPollTrigger');
    expect(triggers.map((n) => n.parameters.events)).toEqual([
      ['newActionItem', 'updatedActionItem', 'deletedActionItem'],
    ]);
    for (const event of triggers[0].parameters.events as string[]) expect(events).toContain(event);
    expect(example.connections['Action item changes'].main).toEqual([
      [{ node: 'Route by event', type: 'main', index: 0 }],
    ]);
    const rules = (node('Route by event').parameters.rules as any).values as any[];
    const branches = example.connections['Route by event'].main.map((targets) => targets![0].node);
    expect(
      rules.map((rule, i) => [
        rule.conditions.conditions[0].leftValue,
        rule.conditions.conditions[0].rightValue,
        branches[i],
      ]),
    ).toEqual([
      ['={{ $json.event }}', 'newActionItem', 'Create task in your tool'],
      ['={{ $json.event }}', 'updatedActionItem', 'Update task in your tool'],
      ['={{ $json.event }}', 'deletedActionItem', 'Delete task in your tool'],
    ]);
    for (const n of example.nodes.filter((n) => n.type.startsWith('n8n-nodes-devdata.'))) {
      expect(n.credentials).toEqual({
        devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' },
      });
    }
  });

  test('its trigger and its Update node against the server: a completion goes round once and stops', async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const trigger = activePollingWorkflow(node('Action item changes').parameters, credentials, {
      typeVersion: node('Action item changes').typeVersion,
    });
    await trigger.activate();
    const poll = async () => {
      const tick = await trigger.tick();
      if (tick.error) throw tick.error;
      return tick.items;
    };

    const item = await ok(user.client.post(ITEMS, { description: 'Send the contract' }), 200);
    expect(await poll()).toEqual([{ ...item, event: 'newActionItem' }]);

    // The task was completed in the other tool: the completions branch marks the action item completed.
    const markCompleted = () =>
      runDevData(server, node('Mark completed in DevData').parameters, {
        items: [{ devdata_id: item.id, completed_at: '2026-11-21T09:30:00Z' }],
        credentials,
      });
    const [completed] = jsonOut(await markCompleted());
    expect(completed).toMatchObject({ id: item.id, completed: true });
    expect(await poll()).toEqual([{ ...completed, event: 'updatedActionItem' }]);

    // The same completion reported again changes nothing, so nothing comes back.
    await markCompleted();
    expect(await poll()).toBeNull();

    await ok(user.client.delete(`${ITEMS}/${item.id}`));
    expect(await poll()).toEqual([
      { type: 'action_item', id: item.id, deleted_at: expect.any(String), event: 'deletedActionItem' },
    ]);
  });
});

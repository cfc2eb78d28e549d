// The DevData Trigger against the real devdata-server: its webhookMethods run in n8n-core's HookContext as n8n's
// ActiveWorkflowManager runs them (activation creates the subscription, deactivation deletes it), the server
// delivers the events of changes made through its API to the trigger's URL, served the way n8n serves webhooks
// (helpers/webhook.ts), and each call's Standard Webhooks signature and timestamp are checked.
import { createHmac } from 'node:crypto';
import type { NodeParameterValueType } from 'n8n-workflow';
import { adminClient, devClient } from '../helpers/http';
import { startReferenceService } from '../helpers/reference-service';
import { DEFAULT_EVENT_SETTINGS } from '../../server/src/events/settings';
import { forSuite } from '../helpers/server';
import {
  credentialsFor,
  DEVDATA_EVENT_TRIGGER_NODE_TYPE,
  FOREIGN_PAGE,
  serveWorkflow,
  startForeignServer,
  startNodeTestServer,
  type RunResult,
  type ServedWorkflow,
  type TestCredentials,
  type WorkflowJson,
} from './helpers';

const TRIGGER = 'DevData Trigger';
const WEBHOOK_ID = '0d7f3c2e-5b1a-4e8f-9c6d-2a4b6c8e0f13';
const WEBHOOKS = '/v1/dev/user/webhooks';

const server = forSuite(() => startNodeTestServer());
const api = devClient(server);

/** DevData Trigger alone, as n8n exports it. */
function triggerWorkflow(events: NodeParameterValueType): WorkflowJson {
  return {
    name: 'DevData instant events',
    nodes: [
      {
        id: 'e7a1b2c3-0001-4d5e-8f90-a1b2c3d4e5f6',
        name: TRIGGER,
        type: DEVDATA_EVENT_TRIGGER_NODE_TYPE,
        typeVersion: 1,
        position: [0, 0],
        webhookId: WEBHOOK_ID,
        parameters: { events },
        credentials: { devDataApi: { id: 'cred-1', name: 'DevData account' } },
      },
    ],
    connections: {},
  };
}

let served: ServedWorkflow[] = [];
async function serve(events: NodeParameterValueType, credentials: TestCredentials = credentialsFor(server)) {
  const workflow = await serveWorkflow(triggerWorkflow(events), credentials);
  served.push(workflow);
  return workflow;
}
afterEach(async () => {
  for (const workflow of served) {
    await workflow.deactivate().catch(() => undefined);
    await workflow.close();
  }
  served = [];
});

/** Waits (polling, up to `timeoutMs`) until `probe` answers something other than undefined. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The items each finished execution started with, in the order the calls came. */
async function itemsOf(workflow: ServedWorkflow): Promise<Array<Record<string, any>>> {
  const runs: RunResult[] = await workflow.executions();
  return runs.map((run) => {
    const items = run.output(TRIGGER);
    expect(items).toHaveLength(1);
    return items[0].json;
  });
}

/** Waits until `count` calls have started an execution, and returns their items. */
async function executions(workflow: ServedWorkflow, count: number) {
  await eventually(`${count} executions`, async () =>
    workflow.calls.filter((call) => call.execution).length >= count ? true : undefined,
  );
  return await itemsOf(workflow);
}

/**
 * The subscription id and secret the trigger keeps in its node's static data: the production subscription at the
 * top level, a test listener's under testSubscription.
 */
function stored(workflow: ServedWorkflow, test = false): { subscriptionId: string; secret: string } {
  const data = test
    ? (workflow.staticData().testSubscription as Record<string, unknown>)
    : workflow.staticData();
  expect(typeof data.subscriptionId).toBe('string');
  expect(String(data.secret)).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  return { subscriptionId: data.subscriptionId as string, secret: data.secret as string };
}

/** Standard Webhooks headers for `body`, computed here independently of the server and the node. */
function signed(secret: string, id: string, body: string, unixSeconds = Math.floor(Date.now() / 1000)) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${unixSeconds}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}

async function post(workflow: ServedWorkflow, headers: Record<string, string>, body: string) {
  const response = await fetch(workflow.webhookUrl(), { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as any };
}

const eventBody = (id: string, type = 'action_item.created', data: object = { id: 'ai-x' }) =>
  JSON.stringify({ type, id, timestamp: new Date().toISOString(), data });

describe('activation and deactivation', () => {
  test('activation subscribes the production URL to the chosen events and keeps the id and secret', async () => {
    const workflow = await serve(['memory.created', 'action_item.completed']);
    expect(await workflow.runHook('checkExists')).toBe(false);
    await workflow.activate();

    const { subscriptionId } = stored(workflow);
    const subscription = await api.get(`${WEBHOOKS}/${subscriptionId}`);
    expect(subscription.status).toBe(200);
    expect(subscription.body).toMatchObject({
      id: subscriptionId,
      url: `${workflow.baseUrl}/webhook/${WEBHOOK_ID}/events`,
      events: ['action_item.completed', 'memory.created'],
      active: true,
    });
    // The secret is shown only when the subscription is created.
    expect(subscription.body.secret).toBeUndefined();
    expect(await workflow.runHook('checkExists')).toBe(true);

    // Activating again (n8n restarting, say) finds it and creates nothing.
    const posts = server.requestsTo('POST', WEBHOOKS).length;
    await workflow.activate('init');
    expect(server.requestsTo('POST', WEBHOOKS).length).toBe(posts);
  });

  test('deactivation deletes the subscription and forgets it', async () => {
    const workflow = await serve(['*']);
    await workflow.activate();
    const { subscriptionId } = stored(workflow);
    await workflow.deactivate();
    expect((await api.get(`${WEBHOOKS}/${subscriptionId}`)).status).toBe(404);
    expect(workflow.staticData().subscriptionId).toBeUndefined();
    expect(await workflow.runHook('checkExists')).toBe(false);
    // Deactivating again has nothing to delete.
    const deletes = server.requests.filter((r) => r.method === 'DELETE').length;
    await workflow.deactivate();
    expect(server.requests.filter((r) => r.method === 'DELETE').length).toBe(deletes);
  });

  test('a subscription deleted on the server is missing at the next activation, which makes a new one', async () => {
    const workflow = await serve(['goal.created']);
    await workflow.activate();
    const first = stored(workflow);
    expect((await api.delete(`${WEBHOOKS}/${first.subscriptionId}`)).status).toBeLessThan(300);
    expect(await workflow.runHook('checkExists')).toBe(false);
    await workflow.activate('init');
    const second = stored(workflow);
    expect(second.subscriptionId).not.toBe(first.subscriptionId);
    expect((await api.get(`${WEBHOOKS}/${second.subscriptionId}`)).status).toBe(200);
  });

  test('a subscription for other events than the node’s is replaced at the next activation, the old one deleted', async () => {
    const json = triggerWorkflow(['goal.created']);
    const workflow = await serveWorkflow(json, credentialsFor(server));
    served.push(workflow);
    await workflow.activate();
    const first = stored(workflow);
    // The node's Events changed in the editor: the subscription is for the old ones.
    json.nodes[0].parameters.events = ['goal.updated', 'goal.created'];
    expect(await workflow.runHook('checkExists')).toBe(false);
    await workflow.activate('init');
    const second = stored(workflow);
    expect(second.subscriptionId).not.toBe(first.subscriptionId);
    expect((await api.get(`${WEBHOOKS}/${first.subscriptionId}`)).status).toBe(404);
    expect((await api.get(`${WEBHOOKS}/${second.subscriptionId}`)).body.events).toEqual([
      'goal.created',
      'goal.updated',
    ]);
  });

  test('events changed on the server are missing at the next activation, which subscribes the chosen ones again', async () => {
    const workflow = await serve(['memory.created', 'goal.created']);
    await workflow.activate();
    const first = stored(workflow);
    // The same events in another order, and listed twice: the same subscription.
    const reordered = await api.patch(`${WEBHOOKS}/${first.subscriptionId}`, {
      events: ['goal.created', 'memory.created', 'goal.created'],
    });
    expect(reordered.status).toBe(200);
    expect(await workflow.runHook('checkExists')).toBe(true);

    // Someone narrows it on the server: memories would no longer arrive.
    expect(
      (await api.patch(`${WEBHOOKS}/${first.subscriptionId}`, { events: ['goal.created'] })).status,
    ).toBe(200);
    expect(await workflow.runHook('checkExists')).toBe(false);
    await workflow.activate('init');
    const second = stored(workflow);
    expect(second.subscriptionId).not.toBe(first.subscriptionId);
    expect((await api.get(`${WEBHOOKS}/${first.subscriptionId}`)).status).toBe(404);
    expect((await api.get(`${WEBHOOKS}/${second.subscriptionId}`)).body.events).toEqual([
      'goal.created',
      'memory.created',
    ]);
    const memory = await api.post('/v1/dev/user/memories', { content: 'Prefers window seats' });
    expect(memory.status).toBeLessThan(300);
    const [item] = await executions(workflow, 1);
    expect(item).toMatchObject({ event: 'memory.created', id: memory.body.id });
  });

  test('`*` chosen: a subscription to `*` and more on the server is the same, one without `*` is not', async () => {
    const workflow = await serve(['*', 'memory.created']);
    await workflow.activate();
    const { subscriptionId } = stored(workflow);
    expect((await api.get(`${WEBHOOKS}/${subscriptionId}`)).body.events).toEqual(['*']);
    expect(
      (await api.patch(`${WEBHOOKS}/${subscriptionId}`, { events: ['memory.created', '*'] })).status,
    ).toBe(200);
    expect(await workflow.runHook('checkExists')).toBe(true);
    expect((await api.patch(`${WEBHOOKS}/${subscriptionId}`, { events: ['memory.created'] })).status).toBe(
      200,
    );
    expect(await workflow.runHook('checkExists')).toBe(false);
  });

  test('publishing after n8n’s URL changed replaces the subscription made for the old URL', async () => {
    const before = await serve(['memory.created']);
    await before.activate();
    const old = stored(before);
    // The same workflow, its static data as saved (in the shape earlier versions kept, with the events),
    // served by an n8n now reachable at another address (WEBHOOK_URL changed).
    const after = await serve(['memory.created']);
    Object.assign(after.staticData(), before.staticData(), { events: ['memory.created'] });
    expect(await after.runHook('checkExists')).toBe(false);
    await after.activate('init');

    const current = stored(after);
    expect(current.subscriptionId).not.toBe(old.subscriptionId);
    expect((await api.get(`${WEBHOOKS}/${old.subscriptionId}`)).status).toBe(404);
    expect((await api.get(`${WEBHOOKS}/${current.subscriptionId}`)).body.url).toBe(after.webhookUrl());
    expect(after.staticData().events).toBeUndefined();
    await after.deactivate();
    expect((await api.get(`${WEBHOOKS}/${current.subscriptionId}`)).status).toBe(404);
  });

  test('a test listener sharing the published workflow’s static data leaves its subscription alone', async () => {
    const published = await serve(['memory.created']);
    await published.activate();
    const production = stored(published);
    const listening = await serveWorkflow(triggerWorkflow(['memory.created']), credentialsFor(server), {
      mode: 'manual',
    });
    served.push(listening);
    Object.assign(listening.staticData(), published.staticData());

    await listening.activate();
    const test = stored(listening, true);
    expect(test.subscriptionId).not.toBe(production.subscriptionId);
    expect(stored(listening)).toEqual(production);
    await listening.deactivate();
    expect((await api.get(`${WEBHOOKS}/${test.subscriptionId}`)).status).toBe(404);
    expect((await api.get(`${WEBHOOKS}/${production.subscriptionId}`)).status).toBe(200);
    expect(stored(listening)).toEqual(production);
    expect(listening.staticData().testSubscription).toBeUndefined();
  });

  test('listening for a test event subscribes the test URL', async () => {
    const workflow = await serveWorkflow(triggerWorkflow(['memory.created']), credentialsFor(server), {
      mode: 'manual',
    });
    served.push(workflow);
    await workflow.activate();
    const { subscriptionId } = stored(workflow, true);
    expect((await api.get(`${WEBHOOKS}/${subscriptionId}`)).body.url).toBe(
      `${workflow.baseUrl}/webhook-test/${WEBHOOK_ID}/events`,
    );
    await workflow.deactivate();
    expect((await api.get(`${WEBHOOKS}/${subscriptionId}`)).status).toBe(404);
  });

  test('a Base URL pointed at another server fails activation and deactivation, and the subscription is kept', async () => {
    const foreign = await startForeignServer(404, 'text/html; charset=utf-8', FOREIGN_PAGE);
    const credentials = credentialsFor(server);
    const workflow = await serve(['memory.created'], credentials);
    await workflow.activate();
    const before = stored(workflow);
    // The credential's Base URL changed by mistake to n8n's own address, which answers its 404 page.
    credentials.devDataApi.baseUrl = foreign.baseUrl;
    const notDevData = `The server at ${foreign.baseUrl} did not answer as a DevData server (HTTP 404, text/html)`;
    try {
      await expect(workflow.activate('init')).rejects.toThrow(notDevData);
      await expect(workflow.deactivate()).rejects.toThrow(notDevData);
    } finally {
      await foreign.close();
    }
    expect(stored(workflow)).toEqual(before);

    // Put right, it finds the same subscription: none was left behind delivering to the trigger.
    credentials.devDataApi.baseUrl = server.baseUrl;
    await workflow.activate('init');
    expect(stored(workflow)).toEqual(before);
    const subscriptions = (await api.get(WEBHOOKS)).body as Array<{ url: string }>;
    expect(subscriptions.filter((s) => s.url === workflow.webhookUrl())).toHaveLength(1);
  });

  test('a key without the webhooks:write scope fails activation with a NodeApiError naming the scope', async () => {
    const key = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'no webhooks',
      scopes: ['action_items:read'],
    });
    expect(key.status).toBe(201);
    const workflow = await serve(['memory.created'], credentialsFor(server, key.body.key));
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe('Forbidden: the developer key lacks the "webhooks:write" scope');
  });

  test('a long workflow name is cut to whole characters in the subscription’s description', async () => {
    // Cut at 200 UTF-16 units, the description would end in half an emoji: text the server refuses.
    const json = { ...triggerWorkflow(['memory.created']), name: `${'a'.repeat(185)}🏃 run` };
    const workflow = await serveWorkflow(json, credentialsFor(server));
    served.push(workflow);
    await workflow.activate();
    const subscription = await api.get(`${WEBHOOKS}/${stored(workflow).subscriptionId}`);
    expect(subscription.body.description).toBe(`n8n workflow "${'a'.repeat(185)}🏃`);
  });

  test('Events given as comma-separated text (a workflow written by hand) subscribe to each; a number fails naming Events', async () => {
    const workflow = await serve('memory.created, action_item.completed');
    await workflow.activate();
    const subscription = await api.get(`${WEBHOOKS}/${stored(workflow).subscriptionId}`);
    expect(subscription.body.events).toEqual(['action_item.completed', 'memory.created']);

    const refused = await serve(5);
    const error = await refused.activate().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe('Events must be a list of values or a comma-separated text, not 5');
  });
});

describe('a subscription the server disabled while n8n could not take its calls', () => {
  // Disabled after failing for 1 s, while each delivery is retried for a minute: deliveries still wait when it is.
  const failing = forSuite(() =>
    startNodeTestServer({
      events: {
        ...DEFAULT_EVENT_SETTINGS,
        retryBaseMs: 50,
        retryMaxDelayMs: 200,
        retryForMs: 60_000,
        disableAfterMs: 1_000,
        pollMs: 100,
      },
    }),
  );

  test('is resumed at the next activation, so the changes it holds arrive', async () => {
    const workflow = await serve(['action_item.created'], credentialsFor(failing));
    const failingApi = devClient(failing);
    await workflow.activate();
    const { subscriptionId } = stored(workflow);
    // n8n cannot take the calls (here: the trigger refuses them all, holding no secret) until it is disabled.
    const kept = { ...workflow.staticData() };
    delete workflow.staticData().secret;
    const created = await failingApi.post('/v1/dev/user/action-items', {
      description: 'Made while n8n was down',
    });
    expect(created.status).toBeLessThan(300);
    await eventually('the subscription disabled', async () =>
      (await failingApi.get(`${WEBHOOKS}/${subscriptionId}`)).body.active === false ? true : undefined,
    );

    // n8n is back (restarted with the workflow as saved) and activates it again.
    Object.assign(workflow.staticData(), kept);
    await workflow.activate('init');
    expect(stored(workflow).subscriptionId).toBe(subscriptionId);
    expect((await failingApi.get(`${WEBHOOKS}/${subscriptionId}`)).body.active).toBe(true);
    const [item] = await executions(workflow, 1);
    expect(item).toMatchObject({ event: 'action_item.created', id: created.body.id });
  });
});

describe('an event the server does not know', () => {
  test('fails activation naming the event and Events, not the index of the request’s body.events', async () => {
    // A typo in a hand-written workflow; an older server lacking a newer event type is refused the same way.
    const workflow = await serve('memory.created, memory.creatd');
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe('The DevData server does not know the event "memory.creatd" in Events');
    expect(error?.description).toMatch(
      /^Invalid option: expected one of .*Choose the events from the list in Events/,
    );
    expect(workflow.staticData().subscriptionId).toBeUndefined();
  });
});

describe('a server that may not call n8n’s address', () => {
  // As a server in production mode refuses n8n on a plain-http or private address.
  const strict = forSuite(() => startNodeTestServer({ allowLoopbackWebhooks: false }));

  test('activation fails naming the Production URL and what to change, not the request’s body.url', async () => {
    const workflow = await serveWorkflow(triggerWorkflow(['memory.created']), credentialsFor(strict));
    served.push(workflow);
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe(
      "The DevData server refuses this trigger's Production URL: URL must use https",
    );
    expect(error?.description).toContain(`It refused ${workflow.webhookUrl()}.`);
    expect(error?.description).toContain('N8N_WEBHOOK_URL');
    expect(error?.description).toContain('DevData Poll Trigger');
    expect((await devClient(strict).get(WEBHOOKS)).body).toEqual([]);
  });
});

describe('a service without event webhooks (the core developer API only)', () => {
  const reference = forSuite(() => startReferenceService());

  test('activation fails saying that the DevData Trigger needs a devdata-server', async () => {
    const credentials = credentialsFor(server);
    credentials.devDataApi = { baseUrl: reference.baseUrl, apiKey: reference.developerKey };
    const workflow = await serve(['memory.created'], credentials);
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe('The server at the Base URL does not offer this operation (HTTP 404)');
    expect(error?.description).toContain('event webhooks (the DevData Trigger): these need a devdata-server');
  });
});

describe('events delivered by the server', () => {
  test('each change made through the API starts one execution with the record as the API returns it', async () => {
    const workflow = await serve(['action_item.created', 'action_item.completed', 'action_item.deleted']);
    await workflow.activate();

    const created = await api.post('/v1/dev/user/action-items', { description: 'Send the contract' });
    expect(created.status).toBeLessThan(300);
    const [first] = await executions(workflow, 1);
    const { event, event_id, event_timestamp, ...record } = first;
    expect(event).toBe('action_item.created');
    expect(event_id).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(event_timestamp))).toBe(false);
    expect(record).toEqual(created.body);

    const completed = await api.patch(`/v1/dev/user/action-items/${created.body.id}`, { completed: true });
    expect(completed.status).toBe(200);
    await executions(workflow, 2);
    expect((await api.delete(`/v1/dev/user/action-items/${created.body.id}`)).status).toBeLessThan(300);
    const items = await executions(workflow, 3);

    expect(items.map((item) => item.event)).toEqual([
      'action_item.created',
      'action_item.completed',
      'action_item.deleted',
    ]);
    expect(items[1]).toMatchObject({ ...completed.body, event: 'action_item.completed' });
    expect(items[2]).toMatchObject({ id: created.body.id, deleted_at: expect.any(String) });
    expect(new Set(items.map((item) => item.event_id)).size).toBe(3);
    // Every call was answered 200 at once.
    expect(workflow.calls.map((call) => call.status)).toEqual([200, 200, 200]);
  });

  test('the published workflow and a test listener of it each run once for the same event', async () => {
    const published = await serveWorkflow(triggerWorkflow(['action_item.created']), credentialsFor(server), {
      workflowId: 'wf-published-and-tested',
    });
    const listening = await serveWorkflow(triggerWorkflow(['action_item.created']), credentialsFor(server), {
      mode: 'manual',
      workflowId: 'wf-published-and-tested',
    });
    served.push(published, listening);
    await published.activate();
    await listening.activate();
    const created = await api.post('/v1/dev/user/action-items', { description: 'Seen by both' });
    expect(created.status).toBeLessThan(300);
    const [inProduction] = await executions(published, 1);
    const [inTest] = await executions(listening, 1);
    // One event, the same id on both calls, and neither taken for a retry of the other.
    expect(inTest.event_id).toBe(inProduction.event_id);
    expect([inProduction.id, inTest.id]).toEqual([created.body.id, created.body.id]);
  });

  test('only the chosen events are sent: a change of another kind makes no call', async () => {
    const workflow = await serve(['memory.created']);
    await workflow.activate();
    expect((await api.post('/v1/dev/user/action-items', { description: 'Not watched' })).status).toBeLessThan(
      300,
    );
    const memory = await api.post('/v1/dev/user/memories', { content: 'Likes green tea' });
    expect(memory.status).toBeLessThan(300);
    const items = await executions(workflow, 1);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ event: 'memory.created', id: memory.body.id });
    // The action item was created first; no call came for it.
    expect(workflow.calls).toHaveLength(1);
  });
});

describe('calls the server did not sign', () => {
  test('a forged signature is refused with 401 and starts nothing', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const body = eventBody('evt_forged');
    const forged = await post(
      workflow,
      signed('whsec_bm90LXRoZS1zZWNyZXQtYXQtYWxs', 'evt_forged', body),
      body,
    );
    expect(forged.status).toBe(401);
    expect(forged.body.message).toBe('Invalid signature');
    const unsigned = await post(workflow, { 'content-type': 'application/json' }, body);
    expect(unsigned.status).toBe(401);
    expect(workflow.calls.filter((call) => call.execution)).toHaveLength(0);
  });

  test('a body changed after signing is refused', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const { secret } = stored(workflow);
    const body = eventBody('evt_changed');
    const changed = await post(workflow, signed(secret, 'evt_changed', body), body.replace('ai-x', 'ai-y'));
    expect(changed.status).toBe(401);
    expect(workflow.calls.filter((call) => call.execution)).toHaveLength(0);
  });

  test('a call signed more than 5 minutes ago (a replay) is refused with 401 and starts nothing', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const { secret } = stored(workflow);
    const body = eventBody('evt_stale');
    const stale = await post(
      workflow,
      signed(secret, 'evt_stale', body, Math.floor(Date.now() / 1000) - 301),
      body,
    );
    expect(stale.status).toBe(401);
    expect(stale.body.message).toMatch(/^webhook-timestamp is more than 300 seconds away/);
    expect(workflow.calls.filter((call) => call.execution)).toHaveLength(0);
  });

  test('a correctly signed call starts one execution; a retry of it is answered, a copy refused, neither starts anything', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const { secret } = stored(workflow);
    const body = eventBody('evt_once', 'action_item.created', { id: 'ai-1', description: 'Call Bob' });
    const sentAt = Math.floor(Date.now() / 1000);
    const headers = signed(secret, 'evt_once', body, sentAt);
    expect((await post(workflow, headers, body)).status).toBe(200);
    // The same call again, its timestamp too: a replay within the tolerance.
    const copy = await post(workflow, headers, body);
    expect(copy).toEqual({
      status: 401,
      body: { message: 'Replayed call: this exact call was received before; it starts nothing' },
    });
    // Signed again later, as the server retries one whose answer was lost.
    const retry = await post(workflow, signed(secret, 'evt_once', body, sentAt + 10), body);
    expect(retry).toEqual({ status: 200, body: { message: 'Already received' } });
    const items = await executions(workflow, 1);
    expect(items).toEqual([
      {
        id: 'ai-1',
        description: 'Call Bob',
        event: 'action_item.created',
        event_id: 'evt_once',
        event_timestamp: JSON.parse(body).timestamp,
      },
    ]);
  });

  test('during a secret rotation any one of several signatures is enough', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const { secret } = stored(workflow);
    const body = eventBody('evt_rotating');
    const headers = signed(secret, 'evt_rotating', body);
    const other = signed('whsec_b2xkLXNlY3JldC1iZWZvcmUtcm90YXRpb24=', 'evt_rotating', body);
    headers['webhook-signature'] = `${other['webhook-signature']} ${headers['webhook-signature']}`;
    expect((await post(workflow, headers, body)).status).toBe(200);
    expect(await executions(workflow, 1)).toHaveLength(1);
  });

  test('a body whose id is not the signed webhook-id is refused with 400', async () => {
    const workflow = await serve(['action_item.created']);
    await workflow.activate();
    const { secret } = stored(workflow);
    const body = eventBody('evt_other');
    const reply = await post(workflow, signed(secret, 'evt_signed', body), body);
    expect(reply.status).toBe(400);
    expect(workflow.calls.filter((call) => call.execution)).toHaveLength(0);
  });
});

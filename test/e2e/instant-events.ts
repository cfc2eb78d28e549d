// The DevData Trigger in a real n8n, shared by the 2.x and 1.x suites: a published workflow whose DevData Trigger
// hands each event to DevData → Memory → Create, so what every execution received is read back from the server
// itself; changes of several kinds made through the API; and the check that each started exactly one execution
// carrying the record the API answered for that change.
import { createHmac } from 'node:crypto';
import { devdataApi, waitFor, type DevdataServer } from './harness.ts';

export const INSTANT_WORKFLOW_ID = 'e2eInstantEvents';
export const INSTANT_WEBHOOK_ID = '4b8e1f2a-6c3d-4e5f-9a7b-8c9d0e1f2a63';

/** The events the workflow subscribes to: none of them is caused by what it writes (memories). */
export const INSTANT_EVENTS = [
  'action_item.created',
  'action_item.updated',
  'action_item.completed',
  'action_item.deleted',
  'goal.created',
  'goal.updated',
  'goal.progress_recorded',
];

/** What a memory written by the workflow says about the event that started it. */
export interface Received {
  event: string;
  id: string;
  event_id: string;
  description?: string;
  completed?: boolean;
  title?: string;
  current_value?: number;
  deleted_at?: string;
}

const MARK = 'e2e-instant ';

/** DevData Trigger → DevData (Memory → Create, the event's fields as JSON), as n8n exports it. */
export function instantEventsWorkflow() {
  const credentials = { devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' } };
  const fields = [
    'event',
    'id',
    'event_id',
    'description',
    'completed',
    'title',
    'current_value',
    'deleted_at',
  ];
  return {
    id: INSTANT_WORKFLOW_ID,
    name: 'E2E: DevData Trigger → a memory per event',
    active: false,
    nodes: [
      {
        id: 'a9d3c1e0-0001-4f2b-8c7d-6e5f4a3b2c01',
        name: 'DevData Trigger',
        type: 'n8n-nodes-devdata.devDataTrigger',
        typeVersion: 1,
        position: [0, 0],
        webhookId: INSTANT_WEBHOOK_ID,
        parameters: { events: INSTANT_EVENTS },
        credentials,
      },
      {
        id: 'a9d3c1e0-0002-4f2b-8c7d-6e5f4a3b2c02',
        name: 'Remember the event',
        type: 'n8n-nodes-devdata.devData',
        typeVersion: 1,
        position: [240, 0],
        parameters: {
          resource: 'memory',
          operation: 'create',
          content: `=${MARK}{{ JSON.stringify({ ${fields.map((f) => `${f}: $json.${f}`).join(', ')} }) }}`,
        },
        credentials,
      },
    ],
    connections: {
      'DevData Trigger': { main: [[{ node: 'Remember the event', type: 'main', index: 0 }]] },
    },
    settings: { executionOrder: 'v1' },
  };
}

/** The trigger's production URL in an n8n at `n8nBaseUrl`. */
export const instantTriggerUrl = (n8nBaseUrl: string) => `${n8nBaseUrl}/webhook/${INSTANT_WEBHOOK_ID}/events`;

/** The user's subscriptions that deliver to `url`. */
export async function subscriptionsTo(devdata: DevdataServer, url: string): Promise<any[]> {
  const reply = await devdataApi(devdata, '/v1/dev/user/webhooks');
  if (reply.status !== 200) throw new Error(`GET /v1/dev/user/webhooks: ${reply.status}`);
  return (reply.body as any[]).filter((subscription) => subscription.url === url);
}

/** What the workflow has received so far, one entry per execution, from the memories it wrote. */
export async function receivedEvents(devdata: DevdataServer): Promise<Received[]> {
  const reply = await devdataApi(devdata, '/v1/dev/user/memories?limit=1000');
  return (reply.body as Array<{ content: string }>)
    .filter((memory) => memory.content.startsWith(MARK))
    .map((memory) => JSON.parse(memory.content.slice(MARK.length)) as Received);
}

/**
 * Makes `rounds` rounds of changes through the API: per round 4 action items created, one completed, one edited,
 * one deleted; a goal created, its progress recorded, its title changed. Given several instances of one
 * deployment, each call goes to the next in turn. Returns what each change's event must carry, from the API's own
 * answers.
 */
export async function makeChanges(devdata: DevdataServer | DevdataServer[], rounds: number, tag: string) {
  const instances = [devdata].flat();
  let calls = 0;
  const api = async (path: string, method: string, body?: unknown) => {
    const reply = await devdataApi(instances[calls++ % instances.length], path, { method, body });
    if (reply.status >= 300)
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const expected: Array<Omit<Received, 'event_id'>> = [];
  const item = (event: string, record: any) =>
    expected.push({ event, id: record.id, description: record.description, completed: record.completed });
  const goal = (event: string, record: any) =>
    expected.push({ event, id: record.id, title: record.title, current_value: record.current_value });
  for (let round = 0; round < rounds; round++) {
    const items = [];
    for (let i = 0; i < 4; i++) {
      const created = await api('/v1/dev/user/action-items', 'POST', {
        description: `${tag} round ${round} item ${i}`,
      });
      item('action_item.created', created);
      items.push(created);
    }
    item(
      'action_item.completed',
      await api(`/v1/dev/user/action-items/${items[0].id}`, 'PATCH', { completed: true }),
    );
    item(
      'action_item.updated',
      await api(`/v1/dev/user/action-items/${items[1].id}`, 'PATCH', {
        description: `${tag} round ${round} item 1, edited`,
      }),
    );
    await api(`/v1/dev/user/action-items/${items[2].id}`, 'DELETE');
    expected.push({ event: 'action_item.deleted', id: items[2].id });
    const created = await api('/v1/dev/user/goals', 'POST', {
      title: `${tag} goal ${round}`,
      goal_type: 'numeric',
      target_value: 10,
    });
    goal('goal.created', created);
    goal(
      'goal.progress_recorded',
      await api(`/v1/dev/user/goals/${created.id}/progress?current_value=${round + 3}`, 'PATCH'),
    );
    goal(
      'goal.updated',
      await api(`/v1/dev/user/goals/${created.id}`, 'PATCH', { title: `${tag} goal ${round}, renamed` }),
    );
  }
  return expected;
}

/**
 * Waits until the workflow has received as many events as `expected` lists (and a moment more, so that a copy
 * arriving late is seen), then checks that each change started exactly one execution with its record.
 */
export async function expectEachChangeOnce(
  devdata: DevdataServer,
  expected: Array<Omit<Received, 'event_id'>>,
  before: Received[],
) {
  const known = new Set(before.map((received) => received.event_id));
  const fresh = async () => (await receivedEvents(devdata)).filter((r) => !known.has(r.event_id));
  // The backlog after an outage arrives at once, and on a busy machine n8n takes minutes to run hundreds of
  // executions: the wait grows with the count.
  await waitFor(
    `${expected.length} events`,
    async () => ((await fresh()).length >= expected.length ? true : undefined),
    Math.max(120_000, expected.length * 1_500),
  ).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; ${(await fresh()).length} arrived`);
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const received = await fresh();
  // Each event once: no two executions for one event id.
  expect(new Set(received.map((r) => r.event_id)).size).toBe(received.length);
  for (const r of received) if (r.event === 'action_item.deleted') expect(typeof r.deleted_at).toBe('string');
  const key = (r: Omit<Received, 'event_id'>) =>
    JSON.stringify([r.event, r.id, r.description, r.completed, r.title, r.current_value]);
  expect(received.map(key).sort()).toEqual(expected.map(key).sort());
}

/** A call to the trigger signed with a secret that is not the subscription's. */
export async function forgedCall(url: string) {
  const body = JSON.stringify({
    type: 'action_item.created',
    id: 'evt_forged',
    timestamp: new Date().toISOString(),
    data: { id: 'forged', description: 'Forged' },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', Buffer.from('not the secret'))
    .update(`evt_forged.${timestamp}.${body}`)
    .digest('base64');
  return await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': 'evt_forged',
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
    body,
  });
}

// 10. The DevData Trigger in a real n8n 2.41.1 (the packed package, `n8n start`) against a devdata-server process,
// both on loopback. Publishing subscribes the trigger; 100 changes of mixed types made through the API each start
// one execution carrying the record, timed from the API's answer to the execution's startedAt in n8n's database;
// then 200 changes made while n8n is stopped for 2 minutes all arrive once it is back, none twice; unpublishing
// removes the subscription. test/e2e/devdata-trigger.test.ts asserts the same behaviour on fewer changes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  devdataApi,
  n8nCredentials,
  n8nRequire,
  n8nSession,
  prepareN8n,
  Processes,
  startDevdataServer,
  waitFor,
  type DevdataServer,
  type N8nInstance,
} from '../test/e2e/harness';
import { subscriptionsTo } from '../test/e2e/instant-events';
import { fixed, percentile, table } from './lib';

const WORKFLOW_ID = 'benchTrigger';
const WEBHOOK_ID = '7d2c4e6a-1b3f-4a5c-9e8d-0f1a2b3c4d5e';
const LIVE_CHANGES = 100;
const OUTAGE_CHANGES = 200;
const OUTAGE_MS = 120_000;
/** Fields of the API's answer that the execution's item must repeat. */
const COMPARED = ['content', 'description', 'completed', 'title', 'current_value'];
const owner = { email: 'bench@devdata.local', password: 'Bench-password-1' };

/** A change made through the API: the event it must cause, the record the API answered, and when. */
interface Change {
  event: string;
  record: Record<string, unknown>;
  answeredAt: number;
}

/** A workflow of one DevData Trigger on every event type: each execution's item is read from n8n's database. */
function triggerWorkflow() {
  return {
    id: WORKFLOW_ID,
    name: 'Bench: DevData Trigger on every event',
    active: false,
    nodes: [
      {
        id: 'b1e2c3d4-0001-4a5b-8c7d-9e0f1a2b3c01',
        name: 'DevData Trigger',
        type: 'n8n-nodes-devdata.devDataTrigger',
        typeVersion: 1,
        position: [0, 0],
        webhookId: WEBHOOK_ID,
        parameters: { events: ['*'] },
        credentials: { devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' } },
      },
    ],
    connections: {},
    settings: { executionOrder: 'v1' },
  };
}

/** Makes the i-th change of a cycle over memories, action items, conversations and goals. */
function changes(devdata: DevdataServer) {
  const last: Record<string, string> = {};
  const call = async (event: string, method: string, path: string, body?: unknown): Promise<Change> => {
    const reply = await devdataApi(devdata, path, { method, body });
    const answeredAt = Date.now();
    if (reply.status >= 300)
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const record = { id: path.split('/').pop()!.split('?')[0], ...reply.body };
    last[event.split('.')[0]] = record.id as string;
    return { event, record, answeredAt };
  };
  const steps = [
    () => call('memory.created', 'POST', '/v1/dev/user/memories', { content: 'bench memory' }),
    () =>
      call('memory.updated', 'PATCH', `/v1/dev/user/memories/${last.memory}`, { content: 'bench, edited' }),
    () => call('memory.deleted', 'DELETE', `/v1/dev/user/memories/${last.memory}`),
    () => call('action_item.created', 'POST', '/v1/dev/user/action-items', { description: 'bench item' }),
    () =>
      call('action_item.updated', 'PATCH', `/v1/dev/user/action-items/${last.action_item}`, {
        description: 'bench item, edited',
      }),
    () =>
      call('action_item.completed', 'PATCH', `/v1/dev/user/action-items/${last.action_item}`, {
        completed: true,
      }),
    () => call('action_item.deleted', 'DELETE', `/v1/dev/user/action-items/${last.action_item}`),
    () =>
      call('conversation.created', 'POST', '/v1/dev/user/conversations', { text: 'A bench conversation.' }),
    () =>
      call('conversation.updated', 'PATCH', `/v1/dev/user/conversations/${last.conversation}`, {
        title: 'Bench, renamed',
      }),
    () => call('conversation.deleted', 'DELETE', `/v1/dev/user/conversations/${last.conversation}`),
    () => call('goal.created', 'POST', '/v1/dev/user/goals', { title: 'Bench goal', target_value: 10 }),
    () => call('goal.progress_recorded', 'PATCH', `/v1/dev/user/goals/${last.goal}/progress?current_value=3`),
    () => call('goal.updated', 'PATCH', `/v1/dev/user/goals/${last.goal}`, { title: 'Bench goal, renamed' }),
  ];
  let next = 0;
  return () => steps[next++ % steps.length]();
}

/** The workflow's executions in n8n's database: when each started and the item its trigger emitted. */
function executions(n8n: N8nInstance) {
  const { parse } = n8nRequire('flatted') as { parse(text: string): any };
  const db = new DatabaseSync(join(n8n.userFolder, '.n8n', 'database.sqlite'), { readOnly: true });
  try {
    const rows = db
      .prepare(
        `SELECT CAST(e.id AS INTEGER) AS id, e.startedAt AS startedAt, d.data AS data FROM execution_entity e
         JOIN execution_data d ON d.executionId = e.id WHERE e.workflowId = ? AND e.stoppedAt IS NOT NULL`,
      )
      .all(WORKFLOW_ID) as Array<{ id: number; startedAt: string; data: string }>;
    return rows.map((row) => ({
      id: row.id,
      startedAt: Date.parse(`${row.startedAt.replace(' ', 'T')}Z`),
      item: parse(row.data).resultData.runData['DevData Trigger'][0].data.main[0][0].json,
    }));
  } finally {
    db.close();
  }
}

type Execution = ReturnType<typeof executions>[number];
const key = (event: string, id: unknown) => `${event} ${String(id)}`;

/**
 * Waits until every change has an execution (and 10 s more, for a late copy); returns for each change its
 * executions, and the executions of no change.
 */
async function matched(n8n: N8nInstance, made: Change[], afterId: number) {
  const wanted = new Set(made.map((c) => key(c.event, c.record.id)));
  const fresh = () => executions(n8n).filter((e) => e.id > afterId);
  const arrived = () => new Set(fresh().map((e) => key(e.item.event, e.item.id)));
  await waitFor(
    `${made.length} executions`,
    async () => ([...wanted].every((k) => arrived().has(k)) ? true : undefined),
    600_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const all = fresh();
  const byKey = new Map<string, Execution[]>();
  for (const execution of all) {
    const k = key(execution.item.event, execution.item.id);
    byKey.set(k, [...(byKey.get(k) ?? []), execution]);
  }
  const perEventId = new Map<string, number>();
  for (const e of all) perEventId.set(e.item.event_id, (perEventId.get(e.item.event_id) ?? 0) + 1);
  const wrongRecord = made.filter((change) => {
    const item = byKey.get(key(change.event, change.record.id))?.[0]?.item;
    if (change.event.endsWith('.deleted')) return typeof item?.deleted_at !== 'string';
    return COMPARED.some((f) => f in change.record && item?.[f] !== change.record[f]);
  }).length;
  return {
    total: all.length,
    byKey,
    once: made.filter((c) => byKey.get(key(c.event, c.record.id))?.length === 1).length,
    twice: [...perEventId.values()].filter((n) => n > 1).length,
    unexpected: all.filter((e) => !wanted.has(key(e.item.event, e.item.id))).length,
    wrongRecord,
  };
}

export async function trigger(): Promise<string> {
  const processes = new Processes();
  const workDir = mkdtempSync(join(tmpdir(), 'devdata-bench-trigger-'));
  const load = loadavg().map((l) => fixed(l, 1));
  try {
    const devdata = await startDevdataServer(processes, workDir, {
      // Retries within seconds, so changes made during the outage arrive soon after n8n is back.
      env: {
        DEVDATA_LOG_LEVEL: 'info',
        DEVDATA_EVENT_RETRY_BASE_MS: '500',
        DEVDATA_EVENT_RETRY_MAX_DELAY_MS: '3000',
      },
    });
    const workflowFile = join(workDir, 'workflows', 'trigger.json');
    mkdirSync(join(workDir, 'workflows'));
    writeFileSync(workflowFile, JSON.stringify(triggerWorkflow()));
    const n8n = await prepareN8n(processes, {
      workDir,
      credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
      workflowFiles: [workflowFile],
      publish: [WORKFLOW_ID],
      owner,
    });
    // The bench process may carry N8N_LOG_LEVEL=silent, which hides the line n8n.start() waits for.
    n8n.env.N8N_LOG_LEVEL = 'info';
    const url = `${n8n.baseUrl}/webhook/${WEBHOOK_ID}/events`;
    const beforeActivation = (await subscriptionsTo(devdata, url)).length;
    await n8n.start();
    const afterActivation = (await subscriptionsTo(devdata, url)).length;
    const change = changes(devdata);

    const live: Change[] = [];
    for (let i = 0; i < LIVE_CHANGES; i += 1) {
      live.push(await change());
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const liveResult = await matched(n8n, live, 0);
    const latencies = live.map(
      (c) => liveResult.byKey.get(key(c.event, c.record.id))![0].startedAt - c.answeredAt,
    );

    const before = Math.max(0, ...executions(n8n).map((e) => e.id));
    await n8n.stop();
    const stoppedAt = Date.now();
    const outage: Change[] = [];
    for (let i = 0; i < OUTAGE_CHANGES; i += 1) {
      outage.push(await change());
      await new Promise((resolve) =>
        setTimeout(resolve, (stoppedAt + ((i + 1) * OUTAGE_MS) / OUTAGE_CHANGES - Date.now()) * 0.95),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, stoppedAt + OUTAGE_MS - Date.now()));
    const stoppedMs = Date.now() - stoppedAt;
    await n8n.start();
    const backAt = Date.now();
    const outageResult = await matched(n8n, outage, before);
    const drainedMs =
      Math.max(...outage.map((c) => outageResult.byKey.get(key(c.event, c.record.id))![0].startedAt)) -
      backAt;

    const session = await n8nSession(n8n, owner);
    const deactivated = await session.post(`/workflows/${WORKFLOW_ID}/deactivate`);
    if (deactivated.status !== 200) throw new Error(`deactivate answered ${deactivated.status}`);
    const afterDeactivation = (await subscriptionsTo(devdata, url)).length;

    const row = (what: string, made: number, r: Awaited<ReturnType<typeof matched>>) => [
      what,
      made,
      r.total,
      r.once,
      r.twice,
      r.unexpected,
      r.wrongRecord,
    ];
    return [
      table(
        [
          'phase',
          'changes',
          'executions',
          'changes with exactly one',
          'event ids run twice',
          'executions of no change',
          'wrong record',
        ],
        [
          row('n8n running', LIVE_CHANGES, liveResult),
          row(`n8n stopped ${fixed(stoppedMs / 1000, 0)} s`, OUTAGE_CHANGES, outageResult),
        ],
      ),
      '',
      table(
        ['API answer → execution startedAt, n8n running', 'p50 ms', 'p90 ms', 'max ms'],
        [
          [
            `${latencies.length} changes`,
            fixed(percentile(latencies, 50), 0),
            fixed(percentile(latencies, 90), 0),
            fixed(Math.max(...latencies), 0),
          ],
        ],
      ),
      '',
      `Subscriptions to the trigger's URL: ${beforeActivation} before n8n started, ${afterActivation} once it was ` +
        `up with the workflow published, ${afterDeactivation} after deactivating it. Changes (memory, action item, ` +
        `conversation and goal created, updated, completed, progress recorded, deleted, in turn), one every 200 ms ` +
        `while n8n ran and 200 over the ${fixed(stoppedMs / 1000, 0)} s it was stopped; the last of those ` +
        `started ${fixed(drainedMs / 1000, 1)} s after n8n was back up (server retries 0.5 s doubling to 3 s, ` +
        `±20 %). Load average at the start ${load.join(', ')}.`,
    ].join('\n');
  } finally {
    await processes.stopAll();
  }
}

// The DevData Trigger in n8n 2.41.1's queue mode, against two devdata-server instances sharing one PostgreSQL
// database (and Redis), as a several-instance deployment runs: the main n8n instance publishes the workflow
// (creating the subscription and saving its id and secret with the workflow, in PostgreSQL), a separate webhook
// process answers the calls (the main one serves no production webhooks), and a worker runs the executions, through
// Redis. Changes made through the API, taking turns over the two server instances, each start exactly one execution
// with the record; 200 changes made while the webhook process is stopped for 2 minutes, through both instances, all
// arrive once it is back, each starting one execution (no event delivered by both instances) and each recorded by
// the server as one delivery, delivered; a forged call is refused by the webhook process; unpublishing on the main
// instance removes the subscription.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePortOtherThan } from '../helpers/ports.ts';
import { createDatabase } from '../helpers/server';
import {
  devdataApi,
  ensureN8n,
  N8N_2,
  n8nCredentials,
  n8nSession,
  prepareN8n,
  Processes,
  startAnotherDevdataInstance,
  startDevdataServer,
  tail,
  waitFor,
  type DevdataServer,
  type N8nInstance,
  E2E_OWNER,
} from './harness.ts';
import {
  expectEachChangeOnce,
  forgedCall,
  INSTANT_WORKFLOW_ID,
  instantEventsWorkflow,
  instantTriggerUrl,
  makeChanges,
  receivedEvents,
  subscriptionsTo,
} from './instant-events.ts';

const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-instant-queue-'));
const owner = E2E_OWNER;
/** How long the webhook process is down while changes are made (issue 27: two minutes). */
const OUTAGE_MS = 120_000;
/** The outage step's timeout: the outage, then up to 10 minutes for the changes to arrive and be recorded. */
const OUTAGE_STEP_MS = OUTAGE_MS + 600_000;
/** The settings both devdata-server instances run with. */
const DEVDATA_ENV: NodeJS.ProcessEnv = {
  DEVDATA_REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  // Retries come within seconds, so changes made while the webhook process is stopped arrive soon after it is back.
  DEVDATA_EVENT_RETRY_BASE_MS: '500',
  DEVDATA_EVENT_RETRY_MAX_DELAY_MS: '3000',
};
let n8nDatabase: Awaited<ReturnType<typeof createDatabase>> | undefined;
let devdataDatabase: Awaited<ReturnType<typeof createDatabase>> | undefined;
/** The two devdata-server instances; n8n's credential names the second, so both serve real traffic. */
let devdata: DevdataServer;
let devdataB: DevdataServer;
let n8n: N8nInstance;
/** Where the webhook process listens: the base of every production webhook URL. */
let webhookBaseUrl: string;
let webhookPort: number;
let webhookProcess: ChildProcess;
const webhookLog = join(workDir, 'n8n-webhook.log');
const workerLog = join(workDir, 'n8n-worker.log');

/** Starts `n8n <command>` with the main instance's settings and `env`. */
async function startN8nProcess(command: string, logFile: string, env: NodeJS.ProcessEnv) {
  const script = await ensureN8n(N8N_2);
  // Not the webhook port, which is free while the webhook process is stopped.
  const brokerPort = await freePortOtherThan(webhookPort);
  return processes.start(
    N8N_2.node,
    [script, command],
    { env: { ...n8n.env, ...env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) }, cwd: workDir },
    logFile,
  );
}

/** Starts the webhook process on `webhookPort` and waits until it answers. */
async function startWebhookProcess() {
  webhookProcess = await startN8nProcess('webhook', webhookLog, { N8N_PORT: String(webhookPort) });
  await waitFor(
    'the webhook process',
    async () => ((await fetch(`${webhookBaseUrl}/healthz`).catch(() => undefined))?.ok ? true : undefined),
    120_000,
  );
}

beforeAll(async () => {
  devdataDatabase = await createDatabase('postgres');
  devdata = await startDevdataServer(processes, workDir, { database: devdataDatabase.url, env: DEVDATA_ENV });
  devdataB = await startAnotherDevdataInstance(processes, devdata, {
    logFile: join(workDir, 'devdata-server-b.log'),
  });
  n8nDatabase = await createDatabase('postgres');
  const database = new URL(n8nDatabase.url);
  webhookPort = await freePort();
  webhookBaseUrl = `http://127.0.0.1:${webhookPort}`;
  const queueMode: NodeJS.ProcessEnv = {
    ...N8N_2.env,
    EXECUTIONS_MODE: 'queue',
    QUEUE_BULL_REDIS_HOST: '127.0.0.1',
    QUEUE_BULL_REDIS_PORT: process.env.TEST_REDIS_URL ? new URL(process.env.TEST_REDIS_URL).port : '6379',
    // Its own queue in the shared Redis.
    QUEUE_BULL_PREFIX: `devdata-e2e-${process.pid}`,
    DB_TYPE: 'postgresdb',
    DB_POSTGRESDB_HOST: database.hostname,
    DB_POSTGRESDB_PORT: database.port || '5432',
    DB_POSTGRESDB_DATABASE: database.pathname.slice(1),
    DB_POSTGRESDB_USER: decodeURIComponent(database.username) || 'postgres',
    DB_POSTGRESDB_PASSWORD: decodeURIComponent(database.password),
    // Production webhooks go to the webhook process only.
    N8N_WEBHOOK_URL: `${webhookBaseUrl}/`,
    N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
  };
  const workflowsDir = join(workDir, 'workflows');
  mkdirSync(workflowsDir);
  const workflow = join(workflowsDir, 'instant-events.json');
  writeFileSync(workflow, JSON.stringify(instantEventsWorkflow()));
  n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdataB.baseUrl, devdataB.credentials),
    workflowFiles: [workflow],
    publish: [INSTANT_WORKFLOW_ID],
    owner,
    release: { ...N8N_2, env: queueMode },
  });
  await n8n.start();

  await startWebhookProcess();
  await startN8nProcess('worker', workerLog, { QUEUE_HEALTH_CHECK_ACTIVE: 'false' });
  await waitFor(
    'the worker',
    async () => (/worker is now ready/i.test(readFileSync(workerLog, 'utf8')) ? true : undefined),
    120_000,
  );
}, 900_000);

/** Every delivery of the subscription, paged through (newest first). */
async function allDeliveries(subscriptionId: string): Promise<any[]> {
  const deliveries: any[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const reply = await devdataApi(devdata, `/v1/dev/user/webhooks/${subscriptionId}/deliveries?${query}`);
    if (reply.status !== 200)
      throw new Error(`GET deliveries: ${reply.status} ${JSON.stringify(reply.body)}`);
    deliveries.push(...reply.body.deliveries);
    cursor = reply.body.has_more ? reply.body.next_cursor : undefined;
  } while (cursor);
  return deliveries;
}

afterAll(async () => {
  await processes.stopAll();
  await n8nDatabase?.drop();
  await devdataDatabase?.drop();
});

function step(name: string, body: () => Promise<void>, timeout = 240_000) {
  it(
    name,
    async () => {
      try {
        await body();
      } catch (error) {
        console.error(
          `${name} failed.\n--- n8n main log ---\n${tail(n8n.logFile, 30)}\n--- webhook process ---\n${tail(webhookLog, 30)}\n--- worker ---\n${tail(workerLog, 30)}\n--- devdata-server A ---\n${tail(devdata.logFile, 20)}\n--- devdata-server B ---\n${tail(devdataB.logFile, 20)}`,
        );
        throw error;
      }
    },
    timeout,
  );
}

describe('the DevData Trigger in n8n 2.41.1, queue mode, two devdata-server instances on PostgreSQL', () => {
  step('the main instance subscribed the webhook process’s URL, seen by both server instances', async () => {
    const subscriptions = await subscriptionsTo(devdata, instantTriggerUrl(webhookBaseUrl));
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({ active: true });
    expect(await subscriptionsTo(devdataB, instantTriggerUrl(webhookBaseUrl))).toEqual(subscriptions);
  });

  step(
    'changes made through either server instance each start exactly one execution, run by the worker',
    async () => {
      const before = await receivedEvents(devdata);
      await expectEachChangeOnce(devdata, await makeChanges([devdata, devdataB], 2, 'queue mode'), before);
      // The webhook process answered the calls and the worker ran them.
      expect(readFileSync(workerLog, 'utf8')).toMatch(/Worker finished execution/);
    },
  );

  step(
    'the 200 changes made while the webhook process is stopped for 2 minutes arrive once it is back, each once',
    async () => {
      const stepStartedAt = Date.now();
      const [subscription] = await subscriptionsTo(devdata, instantTriggerUrl(webhookBaseUrl));
      const before = await receivedEvents(devdata);
      await Processes.stop(webhookProcess);
      const stoppedAt = Date.now();
      const expected = await makeChanges([devdata, devdataB], 20, 'while the webhook process is stopped');
      expect(expected).toHaveLength(200);
      // Meanwhile both instances try every delivery and fail, many times over for the first ones.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));
      await startWebhookProcess();
      // Each event started one execution: no event delivered by both instances reached the workflow twice.
      await expectEachChangeOnce(devdata, expected, before);

      // The server's own record: each event has one delivery, delivered, after failed attempts during the outage.
      const known = new Set(before.map((received) => received.event_id));
      const eventIds = (await receivedEvents(devdata))
        .map((received) => received.event_id)
        .filter((id) => !known.has(id));
      const deliveries = await waitFor(
        'every delivery recorded as delivered',
        async () => {
          const all = (await allDeliveries(subscription.id)).filter((d) => eventIds.includes(d.event_id));
          return all.every((d) => d.status === 'delivered') ? all : undefined;
        },
        // Whatever is left of the step: its timeout, not a tighter bound, decides how long is too long.
        stepStartedAt + OUTAGE_STEP_MS - Date.now(),
      );
      expect(deliveries.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
      expect(Math.max(...deliveries.map((d) => d.attempt_count))).toBeGreaterThan(1);
    },
    OUTAGE_STEP_MS,
  );

  step('the webhook process refuses a forged call with 401', async () => {
    expect((await forgedCall(instantTriggerUrl(webhookBaseUrl))).status).toBe(401);
  });

  step('unpublishing on the main instance deletes the subscription', async () => {
    const session = await n8nSession(n8n, owner);
    expect((await session.post(`/workflows/${INSTANT_WORKFLOW_ID}/deactivate`)).status).toBe(200);
    expect(await subscriptionsTo(devdata, instantTriggerUrl(webhookBaseUrl))).toEqual([]);
  });
});

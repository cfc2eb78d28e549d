// The DevData Trigger in n8n 2.41.1's queue mode: the main instance publishes the workflow (creating the
// subscription and saving its id and secret with the workflow, in PostgreSQL), a separate webhook process answers
// the calls (the main one serves no production webhooks), and a worker runs the executions, through Redis. Changes
// made through the API each start exactly one execution with the record; a forged call is refused by the webhook
// process; unpublishing on the main instance removes the subscription.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.ts';
import { createDatabase } from '../helpers/server';
import {
  ensureN8n,
  N8N_2,
  n8nCredentials,
  n8nSession,
  prepareN8n,
  Processes,
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
let n8nDatabase: Awaited<ReturnType<typeof createDatabase>> | undefined;
let devdata: DevdataServer;
let n8n: N8nInstance;
/** Where the webhook process listens: the base of every production webhook URL. */
let webhookBaseUrl: string;
const webhookLog = join(workDir, 'n8n-webhook.log');
const workerLog = join(workDir, 'n8n-worker.log');

beforeAll(async () => {
  devdata = await startDevdataServer(processes, workDir);
  n8nDatabase = await createDatabase('postgres');
  const database = new URL(n8nDatabase.url);
  const webhookPort = await freePort();
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
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: [workflow],
    publish: [INSTANT_WORKFLOW_ID],
    owner,
    release: { ...N8N_2, env: queueMode },
  });
  await n8n.start();

  const script = await ensureN8n(N8N_2);
  const start = async (command: string, logFile: string, env: NodeJS.ProcessEnv) =>
    processes.start(
      N8N_2.node,
      [script, command],
      { env: { ...n8n.env, ...env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) }, cwd: workDir },
      logFile,
    );
  await start('webhook', webhookLog, { N8N_PORT: String(webhookPort) });
  await start('worker', workerLog, { QUEUE_HEALTH_CHECK_ACTIVE: 'false' });
  await waitFor(
    'the webhook process',
    async () => ((await fetch(`${webhookBaseUrl}/healthz`).catch(() => undefined))?.ok ? true : undefined),
    120_000,
  );
  await waitFor(
    'the worker',
    async () => (/worker is now ready/i.test(readFileSync(workerLog, 'utf8')) ? true : undefined),
    120_000,
  );
}, 900_000);

afterAll(async () => {
  await processes.stopAll();
  await n8nDatabase?.drop();
});

function step(name: string, body: () => Promise<void>) {
  it(
    name,
    async () => {
      try {
        await body();
      } catch (error) {
        console.error(
          `${name} failed.\n--- n8n main log ---\n${tail(n8n.logFile, 30)}\n--- webhook process ---\n${tail(webhookLog, 30)}\n--- worker ---\n${tail(workerLog, 30)}\n--- devdata-server log ---\n${tail(devdata.logFile, 20)}`,
        );
        throw error;
      }
    },
    240_000,
  );
}

describe('the DevData Trigger in n8n 2.41.1, queue mode', () => {
  step('the main instance subscribed the webhook process’s URL', async () => {
    const subscriptions = await subscriptionsTo(devdata, instantTriggerUrl(webhookBaseUrl));
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({ active: true });
  });

  step('changes made through the API each start exactly one execution, run by the worker', async () => {
    const before = await receivedEvents(devdata);
    await expectEachChangeOnce(devdata, await makeChanges(devdata, 2, 'queue mode'), before);
    // The webhook process answered the calls and the worker ran them.
    expect(readFileSync(workerLog, 'utf8')).toMatch(/Worker finished execution/);
  });

  step('the webhook process refuses a forged call with 401', async () => {
    expect((await forgedCall(instantTriggerUrl(webhookBaseUrl))).status).toBe(401);
  });

  step('unpublishing on the main instance deletes the subscription', async () => {
    const session = await n8nSession(n8n, owner);
    expect((await session.post(`/workflows/${INSTANT_WORKFLOW_ID}/deactivate`)).status).toBe(200);
    expect(await subscriptionsTo(devdata, instantTriggerUrl(webhookBaseUrl))).toEqual([]);
  });
});

// The DevData Trigger in n8n 1.x (1.123.81 on Node 20), as many self-hosted instances still run it: the workflow
// activated from n8n's CLI subscribes the trigger when n8n starts, changes made through the API each start
// exactly one execution with the record, a forged call is refused, and deactivating the workflow deletes the
// subscription. The same running n8n then tests both credential types as its editor does (1.x's own credentials
// tester: see credential-tests.ts for what it answers a refused key). (The 2.x suite covers the rest.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  N8N_1,
  n8nCredentials,
  n8nSession,
  prepareN8n,
  Processes,
  startDevdataServer,
  tail,
  type DevdataServer,
  type N8nInstance,
  E2E_OWNER,
} from './harness.ts';
import {
  expectEachChangeOnce,
  forgedCall,
  INSTANT_EVENTS,
  INSTANT_WORKFLOW_ID,
  instantEventsWorkflow,
  instantTriggerUrl,
  makeChanges,
  receivedEvents,
  subscriptionsTo,
} from './instant-events.ts';
import { expectCredentialTestResults, runCredentialTests } from './credential-tests.ts';

const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-instant-n8n1-'));
let devdata: DevdataServer;
let n8n: N8nInstance;

beforeAll(async () => {
  devdata = await startDevdataServer(processes, workDir);
  const workflow = join(workDir, 'instant-events.json');
  writeFileSync(workflow, JSON.stringify(instantEventsWorkflow()));
  n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: [workflow],
    publish: [],
    release: N8N_1,
  });
  // n8n 1.x activates from its CLI (2.x publishes); it takes effect when n8n starts.
  await n8n.cli(['update:workflow', `--id=${INSTANT_WORKFLOW_ID}`, '--active=true']);
  await n8n.start();
}, 900_000);

afterAll(() => processes.stopAll());

let session: Promise<Awaited<ReturnType<typeof n8nSession>>> | undefined;
/** Signs in as the owner, whom n8n 1.x takes from the setup form the editor shows first (not from the environment). */
function ownerSession() {
  session ??= (async () => {
    const setup = await fetch(`${n8n.baseUrl}/rest/owner/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'browser-id': 'devdata-e2e' },
      body: JSON.stringify({ ...E2E_OWNER, firstName: 'Demo', lastName: 'Owner' }),
    });
    if (setup.status !== 200) throw new Error(`owner setup: ${setup.status} ${await setup.text()}`);
    return n8nSession(n8n, E2E_OWNER);
  })();
  return session;
}

function step(name: string, body: () => Promise<void>) {
  it(
    name,
    async () => {
      try {
        await body();
      } catch (error) {
        console.error(
          `${name} failed.\n--- n8n log ---\n${tail(n8n.logFile)}\n--- devdata-server log ---\n${tail(devdata.logFile, 20)}`,
        );
        throw error;
      }
    },
    240_000,
  );
}

describe(`the DevData Trigger in n8n ${N8N_1.version}`, () => {
  step('starting n8n with the workflow active subscribed the trigger’s production URL, once', async () => {
    const subscriptions = await subscriptionsTo(devdata, instantTriggerUrl(n8n.baseUrl));
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({ active: true });
    expect([...subscriptions[0].events].sort()).toEqual([...INSTANT_EVENTS].sort());
  });

  step('changes made through the API each start exactly one execution with the record', async () => {
    const before = await receivedEvents(devdata);
    await expectEachChangeOnce(devdata, await makeChanges(devdata, 2, 'n8n 1'), before);
  });

  step('a call signed with another secret gets 401', async () => {
    expect((await forgedCall(instantTriggerUrl(n8n.baseUrl))).status).toBe(401);
  });

  step('deactivating the workflow deletes the subscription', async () => {
    const deactivated = await (await ownerSession()).post(`/workflows/${INSTANT_WORKFLOW_ID}/deactivate`);
    expect(deactivated.status).toBe(200);
    expect(await subscriptionsTo(devdata, instantTriggerUrl(n8n.baseUrl))).toEqual([]);
  });

  step(
    'n8n’s credential test (POST /rest/credentials/test): the server passes, a web page fails with the credential’s message, a wrong key with n8n 1.x’s own',
    async () => {
      expectCredentialTestResults(await runCredentialTests(await ownerSession(), devdata), 1);
    },
  );
});

// The product as users run it: n8n 2.x started from its CLI loads the packed package, runs the example
// workflows against a devdata-server process, and every scenario checks what the server stored.
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  devdataApi,
  n8nCredentials,
  n8nRequire,
  n8nSession,
  prepareN8n,
  Processes,
  serverRequests,
  startDevdataServer,
  tail,
  waitFor,
  workflowFiles,
  type DevdataServer,
  type N8nInstance,
  E2E_OWNER,
} from './harness.ts';
import { DevDataPollTrigger } from '../../nodes/DevDataPollTrigger/DevDataPollTrigger.node';
import { DevDataTranscriptTrigger } from '../../nodes/DevDataTranscriptTrigger/DevDataTranscriptTrigger.node';
import { DevDataTrigger } from '../../nodes/DevDataTrigger/DevDataTrigger.node';
import { openEditor, searchNodesPanel, SCREENSHOTS, type Editor } from './editor.ts';
import { allOperationsWorkflow, expectAllOperationsStored } from './workflows.ts';
import { expectCredentialTestResults, runCredentialTests } from './credential-tests.ts';

const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-'));
const owner = E2E_OWNER;
const COACH_WEBHOOK_ID = '5e1f0c2a-7d43-4b8e-9a61-d3a5c0f4e001';
let devdata: DevdataServer;
let n8n: N8nInstance;
let llm: Server;
const llmPrompts: string[] = [];

/** A local OpenAI-compatible endpoint for devdata-server's generation step: it echoes the prompt it got. */
async function startLlm(): Promise<string> {
  llm = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const prompt = JSON.parse(body).messages[0].content as string;
      llmPrompts.push(prompt);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            { message: { role: 'assistant', content: `Coach: take five. (${prompt.length} chars)` } },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(llm.address() as AddressInfo).port}`;
}

/** Runs a scenario; when it fails, prints the tail of n8n's and the server's logs before failing. */
function scenario(name: string, body: () => Promise<void>, timeout?: number) {
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
    timeout,
  );
}

const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
  devdataApi(devdata, path, init);

beforeAll(async () => {
  const llmUrl = await startLlm();
  devdata = await startDevdataServer(processes, workDir, {
    seed: true,
    env: { DEVDATA_LLM_BASE_URL: llmUrl, DEVDATA_LLM_MODEL: 'e2e-model' },
  });
  const workflowsDir = join(workDir, 'workflows');
  mkdirSync(workflowsDir);
  // The examples as users import them, with the user id filled in where they say YOUR_USER_ID.
  for (const file of workflowFiles('examples')) {
    const text = readFileSync(file, 'utf8').replaceAll('YOUR_USER_ID', devdata.credentials.user_id);
    writeFileSync(join(workflowsDir, file.split('/').pop()!), text);
  }
  writeFileSync(
    join(workflowsDir, 'e2e-all-operations.json'),
    JSON.stringify(allOperationsWorkflow(devdata.credentials.user_id)),
  );
  n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: workflowFiles(workflowsDir),
    publish: ['exProactiveCoach'],
    owner,
  });
}, 900_000);

afterAll(async () => {
  await processes.stopAll();
  await new Promise((resolve) => llm?.close(resolve));
});

async function appWebhook(): Promise<string | null> {
  const reply = await api(`/v2/integrations/${devdata.credentials.app_id}/webhook`, {
    token: devdata.credentials.app_secret,
  });
  expect(reply.status).toBe(200);
  return reply.body.webhook_url;
}

async function deliveries(): Promise<any[]> {
  const reply = await api(`/v2/integrations/${devdata.credentials.app_id}/deliveries?limit=100`, {
    token: devdata.credentials.app_secret,
  });
  return reply.body.deliveries;
}

let session: ReturnType<typeof n8nSession> | undefined;
/**
 * Signs in to n8n's REST API as the owner the environment created, once for the suite: n8n 2.x lets one email sign
 * in 5 times a minute (the editor's sign-in counts too), and answers a sixth with 429.
 */
const signIn = () =>
  (session ??= n8nSession(n8n, owner).catch((error) => {
    session = undefined;
    throw error;
  }));

describe('n8n with n8n-nodes-devdata', () => {
  scenario('1. a manual workflow runs every resource’s main operations', async () => {
    await expectAllOperationsStored(await n8n.execute('e2eAllOperations'), devdata);
  });

  scenario('2. action-item sync: 120 items → Create Many → 3 batch requests, 120 rows in order', async () => {
    const before = (await serverRequests(devdata, 'POST', '/v1/dev/user/action-items/batch')).length;
    const result = await n8n.execute('exActionItemSync');
    expect(result.status).toBe('success');
    expect((await serverRequests(devdata, 'POST', '/v1/dev/user/action-items/batch')).length - before).toBe(
      3,
    );
    const items = ((await api('/v1/dev/user/action-items?limit=1000')).body as any[]).filter((i) =>
      i.description.startsWith('Synced task '),
    );
    expect(items).toHaveLength(120);
    // The list is newest first; creation order is the input order.
    const created = [...items].reverse().map((i) => i.description);
    expect(created).toEqual(
      Array.from({ length: 120 }, (_, i) => `Synced task ${String(i + 1).padStart(3, '0')}`),
    );
    expect(items.find((i) => i.description === 'Synced task 001')).toMatchObject({
      completed: true,
      due_at: '2026-12-01T09:00:00.000Z',
    });
  });

  scenario(
    '2b. daily goal digest: the active goals in one notification, and one saying so when there are none',
    async () => {
      const inbox = async () => (await api('/v1/dev/user/notifications')).body.notifications as any[];
      const digest = async () => {
        const result = await n8n.execute('exGoalDigest');
        expect(result.status).toBe('success');
        expect(result.data.resultData.runData['Send the digest']).toHaveLength(1);
        return (await inbox())[0].text as string;
      };
      const active = (await api('/v1/dev/user/goals?limit=1000')).body as any[];
      expect(active.length).toBeGreaterThan(0);
      const text = await digest();
      expect(text.split('\n')).toEqual([
        'Your goals today:',
        ...active.map((goal) =>
          expect.stringMatching(new RegExp(`^• ${goal.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `)),
        ),
      ]);
      // Every goal abandoned: the digest still goes out (as its code means it to), saying there are none.
      for (const goal of active)
        expect((await api(`/v1/dev/user/goals/${goal.id}`, { method: 'DELETE' })).status).toBe(200);
      expect(await digest()).toBe('No active goals yet: set one today!');
    },
  );

  describe('with n8n serving the published proactive coach', () => {
    beforeAll(() => n8n.start(), 180_000);

    scenario('4a. publishing the trigger workflow registered its URL as the app’s webhook', async () => {
      expect(await appWebhook()).toBe(`${n8n.baseUrl}/webhook/${COACH_WEBHOOK_ID}/devdata`);
    });

    scenario(
      '3. segments → DevData Transcript Trigger → Proactive Reply → generated and pushed',
      async () => {
        const accepted = await api('/v1/dev/user/transcripts/e2e-tired/segments', {
          method: 'POST',
          body: {
            segments: [
              {
                text: 'I am so tired after this week',
                speaker: 'SPEAKER_00',
                is_user: true,
                start: 0,
                end: 2,
              },
              { text: 'You should rest.', speaker: 'SPEAKER_01', is_user: false, start: 2, end: 3 },
            ],
          },
        });
        expect(accepted.status).toBe(202);
        expect(accepted.body.dispatched).toBe(1);
        const pushed = await waitFor(
          'the proactive notification',
          async () => {
            const inbox = (await api('/v1/dev/user/notifications')).body.notifications as any[];
            return inbox.find((n) => n.kind === 'proactive');
          },
          // The interface's bound for a proactive notification to appear in testing.
          30_000,
        );
        expect(pushed).toMatchObject({ app_id: devdata.credentials.app_id, generated: true });
        expect(pushed.text).toMatch(/^Coach: take five\./);
        // The template was filled on the server: the user's name and facts, and the transcript from n8n.
        const prompt = llmPrompts.at(-1)!;
        expect(prompt).toContain(
          'Demo User just said: "You: I am so tired after this week\nSPEAKER_01: You should rest."',
        );
        expect(prompt).toContain('Prefers morning meetings before 11am');
        expect(prompt).not.toContain('{{');
        const [delivery] = await deliveries();
        expect(delivery).toMatchObject({ session_id: 'e2e-tired', outcome: 'pushed', status_code: 200 });
        // The trigger checks signatures: the same call signed with another secret is refused.
        const body = JSON.stringify({
          session_id: 'forged',
          segments: [{ text: 'tired', speaker: 'X', is_user: true }],
        });
        const t = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', 'whsec_not_the_secret').update(`${t}.${body}`).digest('hex');
        const forged = await fetch(
          `${n8n.baseUrl}/webhook/${COACH_WEBHOOK_ID}/devdata?session_id=forged&uid=x`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-signature': `t=${t},v1=${signature}` },
            body,
          },
        );
        expect(forged.status).toBe(401);
      },
    );

    scenario('3b. a transcript that needs no nudge answers without a notification', async () => {
      const before = (await api('/v1/dev/user/notifications')).body.notifications.length;
      const accepted = await api('/v1/dev/user/transcripts/e2e-fine/segments', {
        method: 'POST',
        body: {
          segments: [
            { text: 'Great day, lots done', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 },
          ],
        },
      });
      expect(accepted.status).toBe(202);
      const delivery = await waitFor(
        'the delivery',
        async () => (await deliveries()).find((d) => d.session_id === 'e2e-fine'),
        5_000,
      );
      expect(delivery).toMatchObject({ outcome: 'no_notification', status_code: 200 });
      expect((await api('/v1/dev/user/notifications')).body.notifications).toHaveLength(before);
    });

    scenario('5. a manual run of the poll trigger shows the newest action items, oldest first', async () => {
      const session = await signIn();
      const run = await session.post('/workflows/exActionItemTwoWay/run', {
        triggerToStartFrom: { name: 'Action item changes' },
      });
      expect(run.status).toBe(200);
      const { executionId } = ((await run.json()) as any).data;
      const execution = await waitFor(
        'the manual execution',
        async () => {
          const found = (await session.get(`/executions/${executionId}`)).data;
          return found?.finished ? found : undefined;
        },
        30_000,
      );
      // n8n stores execution data in its flatted format.
      const { resultData } = n8nRequire('flatted').parse(execution.data);
      // The trigger watches new, updated and deleted action items; the Switch sends the new ones to Create task.
      const polled = resultData.runData['Action item changes'][0].data.main[0]
        .filter((item: any) => item.json.event === 'newActionItem')
        .map((item: any) => item.json.id);
      const newest = ((await api('/v1/dev/user/action-items?limit=5')).body as any[])
        .map((i) => i.id)
        .reverse();
      expect(polled).toEqual(newest);
      expect(resultData.runData['Create task in your tool'][0].data.main[0]).toHaveLength(5);
    });

    scenario(
      '6. the editor’s record pickers: n8n lists goals and folders through the node’s methods',
      async () => {
        const session = await signIn();
        const picker = {
          nodeTypeAndVersion: { name: 'n8n-nodes-devdata.devData', version: 1 },
          credentials: { devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' } },
        };
        const goals = await session.post('/dynamic-node-parameters/resource-locator-results', {
          ...picker,
          path: 'parameters.goalId',
          methodName: 'searchGoals',
          filter: 'run',
          currentNodeParameters: {
            resource: 'goal',
            operation: 'get',
            goalId: { __rl: true, mode: 'list', value: '' },
          },
        });
        expect(goals.status).toBe(200);
        const listed = ((await goals.json()) as any).data.results as Array<{ name: string; value: string }>;
        const stored = (
          (await api('/v1/dev/user/goals?include_inactive=true&limit=1000')).body as any[]
        ).filter((goal) => goal.title.toLowerCase().includes('run'));
        expect(stored.length).toBeGreaterThan(0);
        expect(listed.map((entry) => entry.value).sort()).toEqual(stored.map((goal) => goal.id).sort());

        const folders = await session.post('/dynamic-node-parameters/options', {
          ...picker,
          path: 'parameters.filters.folderId',
          methodName: 'getFolders',
          currentNodeParameters: { resource: 'conversation', operation: 'getAll' },
        });
        expect(folders.status).toBe(200);
        const options = ((await folders.json()) as any).data as Array<{ name: string; value: string }>;
        const storedFolders = (await api('/v1/dev/user/folders')).body as any[];
        expect(options.map((option) => option.value).sort()).toEqual(storedFolders.map((f) => f.id).sort());
      },
    );

    scenario(
      '6b. n8n’s credential test (POST /rest/credentials/test): the server passes, a web page and a wrong key fail',
      async () => {
        expectCredentialTestResults(await runCredentialTests(await signIn(), devdata), 2);
      },
    );

    describe('in the editor, in headless Chromium', () => {
      let editor: Editor;
      beforeAll(async () => {
        editor = await openEditor(n8n.baseUrl, workDir, owner);
      }, 120_000);
      afterAll(() => editor?.close());

      /** A scenario that leaves a screenshot of the editor in SCREENSHOTS, passed or failed. */
      function inEditor(name: string, screenshot: string, body: (page: Editor['page']) => Promise<void>) {
        scenario(
          name,
          async () => {
            try {
              await body(editor.page);
            } catch (error) {
              const path = await editor.screenshot(`${screenshot}-failed`).catch(() => 'none');
              console.error(`${name}: screenshot ${path} (all in ${SCREENSHOTS})`);
              throw error;
            }
            await editor.screenshot(screenshot);
          },
          120_000,
        );
      }

      inEditor('7a. a saved developer key tests fine and shows no warning', 'credential', async (page) => {
        await page.goto(`${n8n.baseUrl}/home/credentials`);
        await page.getByText('DevData Developer API', { exact: true }).first().click();
        const dialog = page.getByTestId('editCredential-modal');
        // n8n tests a saved credential again when it is opened.
        await dialog.getByTestId('credentials-config-container-test-success').waitFor();
        await dialog.getByTestId('parameter-input-apiKey').waitFor();
        expect(await dialog.locator('.notice').count()).toBe(0);
      });

      inEditor(
        '7b. the nodes panel lists each DevData node with its own description',
        'nodes-panel',
        async (page) => {
          await page.goto(`${n8n.baseUrl}/workflow/new`);
          await page.getByTestId('node-creator-plus-button').click();
          const entries = await searchNodesPanel(page, 'DevData', 'DevData Transcript Trigger');
          const descriptionOf = (name: string) => entries.find((entry) => entry.name === name)?.description;
          // The DevData Trigger is part of the DevData entry (its events are on the DevData page, see 7f), and
          // n8n describes a node with a merged trigger by the trigger's description.
          expect(descriptionOf('DevData')).toBe(new DevDataTrigger().description.description);
          expect(entries.map((entry) => entry.name)).not.toContain('DevData Trigger');
          expect(descriptionOf('DevData Transcript Trigger')).toBe(
            new DevDataTranscriptTrigger().description.description,
          );
          // The panel drops "Trigger" from the names of triggers that list several events.
          expect(descriptionOf('DevData Poll')).toBe(new DevDataPollTrigger().description.description);
        },
      );

      inEditor(
        '7c. DevData → Action Item → Get Many, run as a step, shows the user’s action items',
        'get-many-action-items',
        async (page) => {
          await page.goto(`${n8n.baseUrl}/workflow/new`);
          await page.getByTestId('node-creator-plus-button').click();
          await searchNodesPanel(page, 'DevData', 'DevData');
          await page.getByTestId('node-creator-item-name').getByText('DevData', { exact: true }).click();
          // The DevData page opens on its triggers (7f); its actions are under a header that may be folded.
          const categories = page.getByTestId('node-creator-category-item');
          await categories.filter({ hasText: /^Triggers/ }).waitFor();
          const action = page.getByTestId('node-creator-item-name').getByText('Get many action items');
          if (!(await action.isVisible())) await categories.filter({ hasText: /^Actions/ }).click();
          await action.click();
          const ndv = page.getByTestId('ndv');
          await ndv.getByTestId('node-execute-button').click();
          const count = await ndv.getByTestId('ndv-items-count').first().innerText({ timeout: 60_000 });
          // The node's defaults: Return All off, Limit 50.
          const expected = (await api('/v1/dev/user/action-items?limit=50')).body as any[];
          expect(count.trim()).toBe(`${expected.length} items`);
          // The newest of them first, as the server lists them.
          const output = ndv.getByTestId('output-panel');
          await output.getByText(expected[0].description, { exact: true }).waitFor();
          await output.getByText(expected[0].id, { exact: true }).waitFor();
        },
      );

      inEditor(
        '7d. the DevData Transcript Trigger shows its URLs and at most one short notice',
        'transcript-trigger',
        async (page) => {
          await page.goto(`${n8n.baseUrl}/workflow/exProactiveCoach`);
          await page
            .getByTestId('canvas-node')
            .filter({ hasText: 'DevData Transcript Trigger' })
            .first()
            .dblclick();
          const ndv = page.getByTestId('ndv');
          await ndv.getByText('Webhook URLs').click();
          const parameters = ndv.getByTestId('node-parameters');
          await parameters.getByText(`${n8n.baseUrl}/webhook-test/${COACH_WEBHOOK_ID}/devdata`).waitFor();
          await ndv.getByTestId('radio-button-production').click();
          await parameters.getByText(`${n8n.baseUrl}/webhook/${COACH_WEBHOOK_ID}/devdata`).waitFor();
          const notices = await ndv.locator('.notice').allInnerTexts();
          expect(notices.length).toBeLessThanOrEqual(1);
          for (const notice of notices) expect(notice.length).toBeLessThan(200);
        },
      );

      inEditor(
        '7e. a field error names the field as the user sees it: an invalid Due At says "Due At"',
        'field-error',
        async (page) => {
          const session = await signIn();
          const workflow = await session.rest('POST', '/workflows', {
            name: 'E2E field error',
            nodes: [
              {
                id: 'f1e1d000-0000-4000-8000-000000000001',
                name: 'Manual',
                type: 'n8n-nodes-base.manualTrigger',
                typeVersion: 1,
                position: [0, 0],
                parameters: {},
              },
              {
                id: 'f1e1d000-0000-4000-8000-000000000002',
                name: 'DevData',
                type: 'n8n-nodes-devdata.devData',
                typeVersion: 1,
                position: [220, 0],
                parameters: {
                  resource: 'actionItem',
                  operation: 'create',
                  description: 'Send the contract',
                  additionalFields: { dueAt: 'next Friday' },
                },
                credentials: { devDataApi: { id: 'devDataApiDemo01', name: 'DevData Developer API' } },
              },
            ],
            connections: { Manual: { main: [[{ node: 'DevData', type: 'main', index: 0 }]] } },
            settings: { executionOrder: 'v1' },
          });
          await page.goto(`${n8n.baseUrl}/workflow/${workflow.id}`);
          await page.getByTestId('canvas-node').filter({ hasText: 'DevData' }).last().dblclick();
          const ndv = page.getByTestId('ndv');
          await ndv.getByTestId('node-execute-button').click();
          const message = ndv.getByTestId('node-error-message');
          await message.waitFor({ timeout: 60_000 });
          expect((await message.innerText()).trim()).toBe(
            'Due At: "next Friday" is not a valid date and time (input item 0)',
          );
          expect(await ndv.getByTestId('node-error-description').innerText()).toMatch(
            /^Due At needs an ISO 8601 date-time/,
          );
        },
      );

      inEditor(
        '7f. the DevData page in the nodes panel lists the DevData Trigger’s events as its triggers',
        'devdata-page-triggers',
        async (page) => {
          await page.goto(`${n8n.baseUrl}/workflow/new`);
          await page.getByTestId('node-creator-plus-button').click();
          await searchNodesPanel(page, 'DevData', 'DevData');
          await page.getByTestId('node-creator-item-name').getByText('DevData', { exact: true }).click();
          // n8n lists each of a trigger's Events as "On <event name>" in sentence case; "*" it leaves out.
          const events = new DevDataTrigger().description.properties.find((p) => p.name === 'events')!
            .options as Array<{ name: string }>;
          const expected = events.filter((e) => e.name !== '*').map((e) => `On ${e.name.toLowerCase()}`);
          await page.getByText(`Triggers (${expected.length})`).waitFor();
          const names = page.getByTestId('node-creator-item-name');
          await names.getByText(expected[0], { exact: true }).waitFor();
          const listed = (await names.allInnerTexts()).map((name) => name.trim());
          expect(listed).toEqual(expect.arrayContaining(expected));
          expect(await page.getByText('No DevData Triggers available').count()).toBe(0);
        },
      );

      inEditor(
        '7g. the editor’s menus and buttons the docs name are there: ⋯ → Import → From file imports an example, Execute step listens on the DevData Trigger',
        'docs-ui-names',
        async (page) => {
          // The README's Examples section says how to import an example; every doc that says it names the same path.
          const readme = readFileSync('README.md', 'utf8');
          const path = /import one into n8n \(in a workflow,\s+\*\*(.+?)\*\*/.exec(readme)?.[1];
          expect(path).toBeDefined();
          for (const file of ['README.md', ...readdirSync('docs').map((name) => `docs/${name}`)]) {
            if (!file.endsWith('.md')) continue;
            const text = readFileSync(file, 'utf8');
            expect(text).not.toMatch(/Workflows → Import/);
            for (const [, named] of text.matchAll(/\*\*([^*]*→ Import\b[^*]*)\*\*/g))
              expect(named).toBe(path);
          }
          // Followed as written: ⋯ is the workflow's menu, the last step opens the file dialog.
          const [menu, ...steps] = path!.split(' → ');
          expect(menu).toBe('⋯');
          await page.goto(`${n8n.baseUrl}/workflow/new`);
          await page.getByTestId('workflow-menu').click();
          for (const step of steps.slice(0, -1)) await page.getByText(step, { exact: true }).hover();
          const chooser = page.waitForEvent('filechooser');
          await page.getByText(steps.at(-1)!, { exact: true }).click();
          await (await chooser).setFiles(join('examples', 'daily-goal-digest.json'));
          const example = JSON.parse(readFileSync(join('examples', 'daily-goal-digest.json'), 'utf8'));
          const canvas = page.getByTestId('canvas-node');
          await canvas.filter({ hasText: 'Send the digest' }).waitFor();
          expect(await canvas.count()).toBe(
            example.nodes.filter((node: any) => node.type !== 'n8n-nodes-base.stickyNote').length,
          );

          // docs/instant-trigger.md: a manual run of the DevData Trigger is the button its table names, which listens.
          const guide = readFileSync(join('docs', 'instant-trigger.md'), 'utf8');
          const button = /^\| manual run \| \*([^*]+)\*/m.exec(guide)?.[1];
          expect(button).toBeDefined();
          await page.goto(`${n8n.baseUrl}/workflow/exActionItemInstant`);
          await canvas.filter({ hasText: 'Action item events' }).first().dblclick();
          const ndv = page.getByTestId('ndv');
          const execute = ndv.getByTestId('node-execute-button');
          expect((await execute.innerText()).trim()).toBe(button);
          const subscriptions = async () => ((await api('/v1/dev/user/webhooks')).body as unknown[]).length;
          const before = await subscriptions();
          await execute.click();
          await ndv.getByText('Listening for test event').first().waitFor();
          await waitFor(
            'the test subscription',
            async () => ((await subscriptions()) === before + 1 ? true : undefined),
            10_000,
          );
          // Stops listening, which deletes the test subscription.
          await ndv.getByText('Stop Listening').first().click();
          await waitFor(
            'the test subscription to be deleted',
            async () => ((await subscriptions()) === before ? true : undefined),
            10_000,
          );
        },
      );
    });

    scenario('4b. unpublishing clears the app’s webhook; publishing again sets it', async () => {
      const session = await signIn();
      expect((await session.post('/workflows/exProactiveCoach/deactivate')).status).toBe(200);
      expect(await appWebhook()).toBeNull();
      const { versionId } = (await session.get('/workflows/exProactiveCoach')).data;
      const activated = await session.post('/workflows/exProactiveCoach/activate', { versionId });
      if (activated.status !== 200)
        throw new Error(`activate: ${activated.status} ${await activated.text()}`);
      expect(await appWebhook()).toBe(`${n8n.baseUrl}/webhook/${COACH_WEBHOOK_ID}/devdata`);
    });
  });
});

// The product as users run it: n8n 2.x started from its CLI loads the packed package, runs the example
// workflows against a devdata-server process, and every scenario checks what the server stored.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  n8nCredentials,
  prepareN8n,
  Processes,
  startDevdataServer,
  tail,
  workflowFiles,
  type Credentials,
  type N8nInstance,
} from './harness.ts';
import { allOperationsWorkflow } from './workflows.ts';

const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-'));
let devdata: { baseUrl: string; credentials: Credentials; logFile: string };
let n8n: N8nInstance;

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

async function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const response = await fetch(`${devdata.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? devdata.credentials.developer_key}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The devdata-server requests with this method and path, read from its JSON log. */
function serverRequests(method: string, path: string): string[] {
  return readFileSync(devdata.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === 'incoming request' && entry.req?.method === method)
    .map((entry) => entry.req.url as string)
    .filter((url) => url.split('?')[0] === path);
}

beforeAll(async () => {
  devdata = await startDevdataServer(processes, workDir, { seed: true });
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
    publish: [],
  });
}, 900_000);

afterAll(async () => {
  await processes.stopAll();
});

describe('n8n with n8n-nodes-devdata', () => {
  scenario('1. a manual workflow runs every resource’s main operations', async () => {
    const result = await n8n.execute('e2eAllOperations');
    expect(result.status).toBe('success');
    const runData = result.data.resultData.runData;
    expect(runData['All screen activity'][0].data.main[0]).toHaveLength(3000);
    // Return All followed the cursor over several pages.
    const pages = serverRequests('GET', '/v1/dev/user/screen-activity');
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.filter((url) => url.includes('cursor=')).length).toBe(pages.length - 1);

    const items = (await api('/v1/dev/user/action-items?limit=1000')).body as any[];
    expect(items.find((i) => i.description === 'E2E: call the plumber')).toMatchObject({
      completed: true,
      due_at: null,
    });
    expect(items.some((i) => i.description === 'E2E: to be deleted')).toBe(false);

    const goals = (await api('/v1/dev/user/goals?include_inactive=true&limit=1000')).body as any[];
    expect(goals.find((g) => g.title === 'E2E: read 12 novels')).toMatchObject({
      current_value: 3,
      target_value: 12,
    });
    expect(goals.find((g) => g.title === 'E2E: learn the tuba')).toMatchObject({
      status: 'abandoned',
      is_active: false,
    });

    const memories = (await api('/v1/dev/user/memories?limit=1000')).body as any[];
    expect(memories.map((m) => m.content)).toContain('E2E: loves jasmine tea');
    expect(memories.map((m) => m.content)).not.toContain('E2E: forget me');
    expect(memories.map((m) => m.content)).not.toContain('E2E: likes jasmine tea');

    const people = (await api('/v1/dev/user/people')).body.people as any[];
    expect(people.map((p) => p.name)).toContain('E2E Alexandra');
    expect(people.map((p) => p.name)).not.toEqual(expect.arrayContaining(['E2E Alex']));
    expect(people.map((p) => p.name)).not.toContain('E2E Temp');

    const folders = (await api('/v1/dev/user/folders')).body as any[];
    const folder = folders.find((f) => f.name === 'E2E Projects');
    expect(folder).toMatchObject({ conversation_count: 1 });
    expect(folders.some((f) => f.name === 'E2E Temp Folder')).toBe(false);

    const conversations = (await api(`/v1/dev/user/conversations?folder_id=${folder.id}`)).body as any[];
    expect(conversations.map((c) => c.structured.title)).toEqual(['E2E shipping plan (agreed)']);
    const deletedId = runData['Conversation from segments'][0].data.main[0][0].json.id;
    expect((await api(`/v1/dev/user/conversations/${deletedId}`)).status).toBe(404);

    const inbox = (await api('/v1/dev/user/notifications')).body.notifications as any[];
    expect(inbox[0]).toMatchObject({
      kind: 'direct',
      text: 'E2E: all operations ran',
      app_id: devdata.credentials.app_id,
    });
  });

  scenario('2. action-item sync: 120 items → Create Many → 3 batch requests, 120 rows in order', async () => {
    const before = serverRequests('POST', '/v1/dev/user/action-items/batch').length;
    const result = await n8n.execute('exActionItemSync');
    expect(result.status).toBe('success');
    expect(serverRequests('POST', '/v1/dev/user/action-items/batch').length - before).toBe(3);
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
});

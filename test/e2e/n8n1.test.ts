// n8n 1.x, as many self-hosted instances still run it on Node 20: the packed package loads and runs the
// every-resource workflow against its own devdata-server. (The 2.x suite covers triggers and the editor; this
// file runs beside it in its own jest worker.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  N8N_1,
  n8nCredentials,
  n8nRequire,
  prepareN8n,
  Processes,
  startDevdataServer,
  tail,
  type DevdataServer,
  type N8nInstance,
} from './harness.ts';
import { allOperationsWorkflow, expectAllOperationsStored } from './workflows.ts';

const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-n8n1-'));
let devdata: DevdataServer;
let n8n: N8nInstance;

beforeAll(async () => {
  devdata = await startDevdataServer(processes, workDir, { seed: true });
  const workflow = join(workDir, 'e2e-all-operations.json');
  writeFileSync(workflow, JSON.stringify(allOperationsWorkflow(devdata.credentials.user_id)));
  n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: [workflow],
    publish: [],
    release: N8N_1,
  });
}, 900_000);

afterAll(() => processes.stopAll());

describe(`n8n ${N8N_1.version} with n8n-nodes-devdata`, () => {
  it('runs on the Node.js n8n 1.x users have (20 or 22)', async () => {
    expect(execFileSync(N8N_1.node, ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^v(20|22)\./);
    expect(n8nRequire('n8n/package.json', N8N_1).version).toBe(N8N_1.version);
  });

  it('runs every resource’s main operations', async () => {
    try {
      await expectAllOperationsStored(await n8n.execute('e2eAllOperations'), devdata);
    } catch (error) {
      console.error(`--- devdata-server log ---\n${tail(devdata.logFile, 20)}`);
      throw error;
    }
  });
});

// `npm run demo`: devdata-server with demo data and n8n with this package, the credentials and the example
// workflows, ready to click through. Runs until Ctrl+C, then stops everything it started.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  n8nCredentials,
  N8N_VERSION,
  prepareN8n,
  Processes,
  startDevdataServer,
  workflowFiles,
} from './harness.ts';

const workDir = resolve('.demo');
const owner = {
  email: process.env.DEMO_N8N_EMAIL ?? 'demo@devdata.local',
  password: process.env.DEMO_N8N_PASSWORD ?? 'DevData-demo-1',
};
const processes = new Processes();

async function main() {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  console.log('Starting devdata-server with demo data…');
  const devdata = await startDevdataServer(processes, workDir, {
    seed: true,
    port: Number(process.env.DEMO_DEVDATA_PORT ?? 8080),
  });

  const workflowsDir = join(workDir, 'workflows');
  mkdirSync(workflowsDir);
  for (const file of workflowFiles('examples')) {
    const text = readFileSync(file, 'utf8').replaceAll('YOUR_USER_ID', devdata.credentials.user_id);
    writeFileSync(join(workflowsDir, file.split('/').pop()!), text);
  }
  console.log(
    `Preparing n8n ${N8N_VERSION} with n8n-nodes-devdata (the first run installs n8n: a few minutes)…`,
  );
  const n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: workflowFiles(workflowsDir),
    publish: [],
    port: Number(process.env.DEMO_N8N_PORT ?? 5678),
    owner,
  });
  await n8n.start();

  console.log(`
DevData demo is running.

  n8n:            ${n8n.baseUrl}
    login:        ${owner.email} / ${owner.password}
  devdata-server: ${devdata.baseUrl}  (API docs: ${devdata.baseUrl}/docs)
    user id:      ${devdata.credentials.user_id}
    developer key ${devdata.credentials.developer_key}

What to try (credentials "DevData Developer API" and "DevData App API" are ready in n8n):
  1. Open "DevData: sync action items from another tool" and click "Execute workflow": 120 tasks become
     action items in 3 requests. See them with: curl -H "Authorization: Bearer ${devdata.credentials.developer_key}" \\
     ${devdata.baseUrl}/v1/dev/user/action-items
  2. Open "DevData: daily goal progress digest" and run it from "Run": the digest lands in the inbox
     (${devdata.baseUrl}/v1/dev/user/notifications).
  3. Add a DevData node to a new workflow and browse its resources: conversations, memories, goals, people…

Logs: ${join(workDir, 'n8n.log')} and ${devdata.logFile}. Ctrl+C stops both.`);
}

async function stop(code: number) {
  await processes.stopAll();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  await stop(1);
});

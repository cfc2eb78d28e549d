// Runs a real n8n 2.x with this package loaded, next to a devdata-server, the way users start them.
// Shared by the e2e suite and `npm run demo`. Paths are relative to the repository root (the cwd of npm
// scripts), so this file runs both under jest and under Node's own TypeScript support.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The n8n release the package is tested with; the newest one the registry reached here can install. */
export const N8N_VERSION = '2.41.1';
const N8N_HOME = process.env.N8N_E2E_CACHE ?? join(homedir(), '.cache', 'n8n-e2e', `n8n-${N8N_VERSION}`);
const N8N_BIN = join(N8N_HOME, 'node_modules', '.bin', 'n8n');
// Packages the registry mirror reached here lacks for n8n 2.41.1; harmless where they exist.
const N8N_OVERRIDES = {
  linkedom: '0.18.13',
  '@langchain/langgraph': '1.4.18',
  '@langchain/langgraph-sdk': '1.12.4',
};

export const REPO = resolve('.');
export const PACKAGE_NAME = 'n8n-nodes-devdata';

export interface Credentials {
  user_id: string;
  developer_key: string;
  admin_token: string;
  app_id: string;
  app_secret: string;
  webhook_secret: string;
}

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
    child.on('error', reject);
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

export async function freePort(): Promise<number> {
  return new Promise((resolvePromise) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePromise(port));
    });
  });
}

/** Loads a module from the n8n install (e.g. the formats n8n stores data in). */
export const n8nRequire = (id: string) => createRequire(join(N8N_HOME, 'package.json'))(id);

/** Installs the pinned n8n into a cache folder outside the repository, once per version. */
export async function ensureN8n(log: (line: string) => void = () => undefined): Promise<string> {
  if (existsSync(N8N_BIN)) return N8N_BIN;
  log(`installing n8n ${N8N_VERSION} into ${N8N_HOME} (once; a few minutes)`);
  rmSync(N8N_HOME, { recursive: true, force: true });
  mkdirSync(N8N_HOME, { recursive: true });
  writeFileSync(
    join(N8N_HOME, 'package.json'),
    JSON.stringify({ name: 'n8n-host', private: true, overrides: N8N_OVERRIDES }),
  );
  // Install scripts stay off: several try downloads from outside the npm registry. Only sqlite3 needs
  // building, and it builds from source against the Node headers npm is pointed at.
  await run(
    'npm',
    [
      'install',
      `n8n@${N8N_VERSION}`,
      '--omit=dev',
      '--legacy-peer-deps',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ],
    {
      cwd: N8N_HOME,
    },
  );
  await run('npm', ['rebuild', 'sqlite3'], { cwd: N8N_HOME });
  if (!existsSync(N8N_BIN)) throw new Error(`n8n did not install into ${N8N_HOME}`);
  return N8N_BIN;
}

/** Packs the built package (npm run build first) and installs it where n8n looks for community nodes. */
export async function installPackage(userFolder: string, workDir: string): Promise<void> {
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: REPO });
  const tarball = join(workDir, stdout.trim().split('\n').pop()!);
  const nodesDir = join(userFolder, '.n8n', 'nodes');
  mkdirSync(nodesDir, { recursive: true });
  writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
  // --omit=peer: n8n provides n8n-workflow; a second copy inside the package would break instanceof checks.
  await run('npm', ['install', tarball, '--omit=dev', '--omit=peer', '--no-audit', '--no-fund'], {
    cwd: nodesDir,
  });
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
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolvePromise) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
            const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolvePromise();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
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

/** A devdata-server process on a fresh SQLite file: init (and optionally demo data), then serve. */
export async function startDevdataServer(
  processes: Processes,
  workDir: string,
  options: { seed?: boolean; env?: NodeJS.ProcessEnv; port?: number } = {},
): Promise<{ baseUrl: string; credentials: Credentials; logFile: string }> {
  const cli = join(REPO, 'server', 'dist', 'cli.js');
  const database = `sqlite:${join(workDir, 'devdata.sqlite')}`;
  const init = await run(process.execPath, [cli, 'init', '--json', '--database', database]);
  const credentials = JSON.parse(init.stdout) as Credentials;
  if (options.seed) await run(process.execPath, [cli, 'seed', '--demo', '--database', database]);
  const port = options.port ?? (await freePort());
  const logFile = join(workDir, 'devdata-server.log');
  processes.start(
    process.execPath,
    [cli, 'serve', '--port', String(port), '--database', database],
    { env: { ...process.env, ...options.env } },
    logFile,
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    'devdata-server /healthz',
    async () => ((await fetch(`${baseUrl}/healthz`)).ok ? true : undefined),
    30_000,
  );
  return { baseUrl, credentials, logFile };
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
      name: 'DevData App',
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
  start(): Promise<void>;
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
  },
): Promise<N8nInstance> {
  const bin = await ensureN8n();
  const userFolder = join(options.workDir, 'n8n-user');
  const tmp = join(options.workDir, 'tmp');
  rmSync(userFolder, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await installPackage(userFolder, options.workDir);

  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
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
    N8N_DISABLED_MODULES: 'mcp-registry',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
    N8N_SECURE_COOKIE: 'false',
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PORT: String(port),
    N8N_PROTOCOL: 'http',
    N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(await freePort()),
    // Activation finishes before n8n says it is ready, so webhooks answer at once.
    N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
    DB_TYPE: 'sqlite',
    GENERIC_TIMEZONE: 'UTC',
  };
  if (options.owner) {
    const bcrypt = n8nRequire('bcryptjs') as {
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
  const cli = (args: string[]) => run(bin, args, { env, cwd: options.workDir });

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
      const { stdout, stderr } = await cli(['execute', `--id=${workflowId}`, '--rawOutput']);
      // Log lines come before the JSON (and the result is printed through the info logger).
      const start = stdout.split('\n').findIndex((line) => line.startsWith('{'));
      if (start < 0)
        throw new Error(`n8n execute printed no JSON:\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`);
      return JSON.parse(stdout.split('\n').slice(start).join('\n'));
    },
    async start() {
      const child = processes.start(bin, ['start'], { env, cwd: options.workDir }, logFile);
      await waitFor(
        'n8n to be ready',
        async () => {
          if (child.exitCode !== null)
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
  };
}

/** The workflow JSON files in a folder. */
export function workflowFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

// What a self-hoster meets first: `devdata-server start`, its saved credentials, and its refusals. A failed
// start must change nothing, and the credentials printed once must stay usable.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../server/src/config';
import { migrateToLatest, openStore } from '../../server/src/store/db/database';
import { serveCli } from '../helpers/cli';
import { ownRedis } from '../helpers/instances';
import { freePort } from '../helpers/ports';
import { PG_ADMIN_URL } from '../helpers/server';

const CLI = join(__dirname, '../../server/dist/cli.js');
const VERSION = JSON.parse(readFileSync(join(__dirname, '../../server/package.json'), 'utf8')).version;

/**
 * Environment without the DEVDATA_* settings of whoever runs the tests, and without load shedding: on a busy
 * machine a just-started server's own startup lags its event loop past the default threshold, and these tests are
 * not about shedding (test/server/load-shedding.test.ts is).
 */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('DEVDATA_')),
  );
  return { ...env, DEVDATA_LOG_LEVEL: 'warn', DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0', ...extra };
}

function cli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: cleanEnv(options.env),
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As cli(), without holding this process: for commands that spend their time waiting, run side by side. */
function cliAsync(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ReturnType<typeof cli>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: cleanEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function occupiedPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as { port: number }).port, server }),
    );
  });
}

/**
 * A loopback stand-in for a database or Redis that misbehaves; `answer` is what it does with each connection.
 * A server process that stops with the stand-in's replies unread resets the connection: that is expected, and
 * left unheard it would fail the test as an uncaught socket error.
 */
function standIn(sockets: Socket[], answer: (socket: Socket) => void = () => {}): Server {
  return createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    answer(socket);
  });
}

/** Runs `start` until it prints its banner; returns the printed credentials and a way to stop it. */
async function start(dir: string, database: string, env: NodeJS.ProcessEnv = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'start', '--port', String(port), '--database', database], {
    cwd: dir,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; !output.includes('Webhook secret:'); i += 1) {
    if (child.exitCode !== null || i > 600) {
      await stop();
      throw new Error(`start did not come up:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const printed = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)![1];
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    developerKey: printed('Developer key'),
    userId: printed('User ID'),
    output,
    stop,
  };
}

describe('devdata-server arguments and settings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devdata-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its version', () => {
    for (const flag of ['--version', '-v']) {
      const result = cli([flag]);
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toBe(VERSION);
    }
  });

  it('takes seed without --demo, the only data set there is', () => {
    const database = `sqlite:${join(dir, 'seed.sqlite')}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    const seed = cli(['seed', '--database', database]);
    expect(seed.stderr).toBe('');
    expect(seed.status).toBe(0);
    expect(seed.stdout).toContain('"screen_activity":3000');

    // Once only: a second seed says why it stops, and writes nothing.
    const again = cli(['seed', '--database', database]);
    expect(again.status).toBe(1);
    expect(again.stderr.trim()).toBe(
      "The demo data is already in this database (its user has the demo's person Jon): seed adds it only " +
        'once, and wrote nothing. For another copy, seed a new database: `devdata-server init --database ' +
        'sqlite:<new file>`, then `devdata-server seed --database sqlite:<new file>`',
    );

    // A database that does not exist is not created for nothing.
    const missing = `sqlite:${join(dir, 'missing.sqlite')}`;
    const refused = cli(['seed', '--database', missing]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `${missing} does not exist: run \`devdata-server init --database ${missing}\``,
    );
    expect(readdirSync(dir).filter((name) => name.startsWith('missing'))).toEqual([]);
  });

  it('creates a SQLite database readable by its owner only, its write-ahead log too, and keeps the mode of one that exists', async () => {
    const file = join(dir, 'owner-only.sqlite');
    expect(cli(['init', '--database', `sqlite:${file}`]).status).toBe(0);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(file)).toBe(0o600);
    const store = openStore(`sqlite:${file}`);
    try {
      await sql`create table written (n integer)`.execute(store.db);
      expect(mode(`${file}-wal`)).toBe(0o600);
    } finally {
      await store.close();
    }

    const shared = join(dir, 'shared.sqlite');
    writeFileSync(shared, '');
    chmodSync(shared, 0o640);
    expect(cli(['init', '--database', `sqlite:${shared}`]).status).toBe(0);
    expect(mode(shared)).toBe(0o640);
  });

  it('seeds all or nothing: a seed that fails part way leaves no demo data, and the next one adds it all', async () => {
    const file = join(dir, 'seed.sqlite');
    const database = `sqlite:${file}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    // The last rows the demo writes fail, as a start killed while seeding or a full disk would stop it.
    const store = openStore(database);
    await sql`create trigger fail_seed before insert on screen_activity begin select raise(abort, 'disk full'); end`.execute(
      store.db,
    );
    const failed = cli(['seed', '--database', database]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('disk full');
    const count = async (table: 'people' | 'conversations' | 'screen_activity') =>
      Number(
        (
          await store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect([await count('people'), await count('conversations')]).toEqual([0, 0]);

    await sql`drop trigger fail_seed`.execute(store.db);
    const seed = cli(['seed', '--database', database]);
    expect(seed.stderr).toBe('');
    expect(seed.status).toBe(0);
    expect([await count('people'), await count('conversations'), await count('screen_activity')]).toEqual([
      5, 6, 3000,
    ]);
    await store.close();
  });

  it('refuses a SQLite database another process serves, and serves it once that one has stopped', async () => {
    const file = join(dir, 'served.sqlite');
    const database = `sqlite:${file}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    const first = await serveCli(database);
    try {
      // A second process would send the deliveries the first is sending, and count the request limit alone. On
      // the first one's port too (`npm start` run again), which is said as the lock, not as a port to change:
      // another port would meet the lock next.
      const firstPort = new URL(first.baseUrl).port;
      for (const [command, port] of [
        ['serve', '0'],
        ['start', '0'],
        ['serve', firstPort],
        ['start', firstPort],
      ]) {
        const second = cli([command, '--port', port, '--database', database], { cwd: dir });
        expect({ command, port, status: second.status }).toEqual({ command, port, status: 1 });
        expect(second.stderr.trim()).toBe(
          `${database} is served by another devdata-server process (it holds ${file}-serve.lock): stop that ` +
            'one first; to run several instances, share a PostgreSQL database (server/README.md, "Running ' +
            'several instances")',
        );
      }
      // Not held up: what writes the database itself beside the server.
      const seed = cli(['seed', '--database', database]);
      expect({ status: seed.status, stderr: seed.stderr }).toEqual({ status: 0, stderr: '' });
    } finally {
      await first.stop();
    }
    // Released when the process ends, however it ends.
    const again = await serveCli(database);
    await again.stop();

    // A first start holds it too, once it has made the database.
    const fresh = `sqlite:${join(dir, 'fresh.sqlite')}`;
    const started = await start(dir, fresh);
    try {
      const second = cli(['serve', '--port', '0', '--database', fresh]);
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`${fresh} is served by another devdata-server process`);
    } finally {
      await started.stop();
    }
  });

  it('refuses to serve a SQLite database that does not exist, creating nothing', () => {
    // A typo in the path would otherwise serve a new, empty database that no key opens.
    const typo = `sqlite:${join(dir, 'typo.sqlite')}`;
    const refused = cli(['serve', '--port', '0', '--database', typo]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `${typo} does not exist: check --database, or make a new database with ` +
        `\`devdata-server start --database ${typo}\` (or \`devdata-server init --database ${typo}\` first)`,
    );
    // The default database, relative to where it runs, is named by its full path.
    const byDefault = cli(['serve', '--port', '0'], { cwd: dir });
    expect(byDefault.status).toBe(1);
    expect(byDefault.stderr).toContain(`sqlite:${join(dir, 'devdata.sqlite')} does not exist`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says which Node.js it needs when started with an older one, before loading anything', () => {
    // As an older Node would report itself: the launcher checks before the native SQLite module, built for 24,
    // can crash it.
    const launcher = join(__dirname, '../../server/bin/devdata-server.js');
    const older = spawnSync(
      process.execPath,
      [
        '-e',
        "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.19.0' } });" +
          `process.argv = [process.argv[0], ${JSON.stringify(launcher)}, 'start'];` +
          `require(${JSON.stringify(launcher)});`,
      ],
      { encoding: 'utf8', env: cleanEnv(), cwd: tmpdir() },
    );
    expect(older.status).toBe(1);
    expect(older.stderr).toContain('devdata-server needs Node.js 24 or newer; this is Node.js 20.19.0');
    expect(older.stderr).toContain('Put Node.js 24 first on PATH');
  });

  it('builds a server never built before saying so, and one whose sources changed saying that', () => {
    // A copy of the workspace without its build, where a clone's is after `npm ci`. Inside the repository, so
    // TypeScript, the types and the dependencies resolve as they do for the real one.
    const cache = join(__dirname, '../../node_modules/.cache');
    mkdirSync(cache, { recursive: true });
    const copy = mkdtempSync(join(cache, 'devdata-launcher-'));
    try {
      const server = join(__dirname, '../../server');
      for (const entry of ['assets', 'bin', 'src', 'package.json', 'tsconfig.json'])
        cpSync(join(server, entry), join(copy, entry), { recursive: true });
      symlinkSync(join(server, 'node_modules'), join(copy, 'node_modules'));
      const launch = () =>
        spawnSync(process.execPath, [join(copy, 'bin/devdata-server.js'), '--version'], {
          encoding: 'utf8',
          env: cleanEnv(),
          cwd: dir,
          timeout: 120_000,
        });

      const first = launch();
      expect({ status: first.status, stdout: first.stdout, stderr: first.stderr }).toEqual({
        status: 0,
        stdout: `${VERSION}\n`,
        stderr: 'Building devdata-server (not built yet: the first run after `npm ci`)...\n',
      });
      // Built now: the next run builds nothing.
      expect(launch()).toMatchObject({ status: 0, stdout: `${VERSION}\n`, stderr: '' });
      // A source newer than the build.
      const built = statSync(join(copy, 'dist/cli.js')).mtime;
      utimesSync(join(copy, 'src/version.ts'), built, new Date(built.getTime() + 60_000));
      expect(launch()).toMatchObject({
        status: 0,
        stdout: `${VERSION}\n`,
        stderr: 'Building devdata-server (its sources changed since the last build)...\n',
      });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 240_000);

  it('refuses a PostgreSQL URL that names no database, before connecting', () => {
    for (const database of ['postgres://postgres@127.0.0.1:5432/', 'postgresql://postgres@127.0.0.1:5432']) {
      const result = cli(['init', '--database', database]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `--database must name its database (postgres://user@host:5432/database), got "${database}"`,
      );
    }
  });

  it('runs init and seed whatever DEVDATA_HOST and DEVDATA_PORT say: only serve and start listen', () => {
    const env = { DEVDATA_HOST: 'not a host', DEVDATA_PORT: 'abc' };
    const database = `sqlite:${join(dir, 'listen.sqlite')}`;
    const init = cli(['init', '--database', database], { env });
    expect({ status: init.status, stderr: init.stderr }).toEqual({ status: 0, stderr: '' });
    const seed = cli(['seed', '--database', database], { env });
    expect({ status: seed.status, stderr: seed.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('warns of a DEVDATA_* variable that no setting reads, naming the one meant, and goes on', () => {
    const env = {
      DEVDATA_RATE_LIMT: '5/60',
      DEVDATA_EVENT_CONCURENCY: '3',
      DEVDATA_LIST_CACHE_MB: '0',
      DEVDATA_SOMETHING: '1',
      DEVDATA_E2E_CHROMIUM: '/usr/bin/chromium',
    };
    const init = cli(['init', '--json', '--database', 'sqlite::memory:'], { env });
    expect(init.status).toBe(0);
    expect(JSON.parse(init.stdout)).toHaveProperty('developer_key');
    expect(init.stderr.trim().split('\n')).toEqual([
      'DEVDATA_EVENT_CONCURENCY is not a devdata-server setting and is ignored (did you mean DEVDATA_EVENT_CONCURRENCY?)',
      'DEVDATA_LIST_CACHE_MB is not a devdata-server setting and is ignored (it is called DEVDATA_RESPONSE_CACHE_MB now)',
      'DEVDATA_RATE_LIMT is not a devdata-server setting and is ignored (did you mean DEVDATA_RATE_LIMIT?)',
      'DEVDATA_SOMETHING is not a devdata-server setting and is ignored (the settings are listed in server/README.md)',
    ]);
  });

  it('knows every DEVDATA_* setting the manual names, and the manual names every one it knows', () => {
    const manual = readFileSync(join(__dirname, '../../server/README.md'), 'utf8');
    const named = new Set(manual.match(/DEVDATA_[A-Z0-9_]*[A-Z0-9]/g));
    named.delete('DEVDATA_RATE_LIMT'); // its example of a typo
    expect([...named].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it('names every DEVDATA_* setting in serve --help, or the family it belongs to', () => {
    // The help listed some, the proactive pipeline's and the event webhooks' nowhere, as if there were no more.
    const help = cli(['serve', '--help']);
    expect(help.status).toBe(0);
    const families = [...help.stdout.matchAll(/(DEVDATA_[A-Z0-9_]+_)\*/g)].map(([, prefix]) => prefix);
    expect(
      SETTING_NAMES.filter(
        (name) =>
          !new RegExp(`${name}(?![A-Z0-9_])`).test(help.stdout) &&
          !families.some((prefix) => name.startsWith(prefix)),
      ),
    ).toEqual([]);
  });

  it("prints the manual's synopsis of each command as its --help usage", () => {
    const manual = readFileSync(join(__dirname, '../../server/README.md'), 'utf8');
    for (const command of ['serve', 'init', 'seed', 'start', 'rotate-admin-token']) {
      const help = cli([command, '--help']);
      const usage = /^Usage: (.*)$/m.exec(help.stdout)?.[1];
      const synopsis = new RegExp(`^(devdata-server ${command} .*?)(\\s+#.*)?$`, 'm').exec(manual)?.[1];
      expect({ command, usage }).toEqual({ command, usage: synopsis?.replace(/ +/g, ' ') });
    }
  });

  // Each refusal names the flag or variable, the value, and what is expected; and nothing is created.
  it.each([
    {
      args: ['serve'],
      env: { DEVDATA_PORT: 'abc' },
      message: 'DEVDATA_PORT must be a port number from 0 to 65535, got "abc"',
    },
    {
      args: ['serve', '--port', '70000'],
      env: {},
      message: '--port must be a port number from 0 to 65535, got "70000"',
    },
    {
      args: ['start', '--port', '8o8o'],
      env: {},
      message: '--port must be a port number from 0 to 65535, got "8o8o"',
    },
    { args: ['serve', '--port'], env: {}, message: "Option '--port <value>' argument missing" },
    { args: ['serve', '--host', ''], env: {}, message: '--host must be an address or host name, got ""' },
    {
      args: ['serve'],
      env: { DEVDATA_DATABASE: 'mysql://db' },
      message: 'DEVDATA_DATABASE must be sqlite:<path> or postgres://',
    },
    {
      args: ['init', '--database', 'sqlite:'],
      env: {},
      message: '--database must be sqlite:<path> or postgres://',
    },
    { args: ['init', '--port', '9000'], env: {}, message: "Unknown option '--port'" },
    { args: ['serve', '--json'], env: {}, message: "Unknown option '--json'" },
    { args: ['seed', 'demo'], env: {}, message: "Unexpected argument 'demo'" },
    { args: ['serve'], env: { DEVDATA_LOG_LEVEL: 'loud' }, message: 'DEVDATA_LOG_LEVEL must be one of' },
    {
      args: ['start'],
      env: { DEVDATA_RATE_LIMIT: 'lots' },
      message: 'DEVDATA_RATE_LIMIT must look like 600/60',
    },
    {
      args: ['serve'],
      env: { DEVDATA_WEBHOOK_TIMEOUT_MS: '-5' },
      message: 'DEVDATA_WEBHOOK_TIMEOUT_MS must be an integer from 1 to 600000, got "-5"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_WEBHOOK_BACKLOG_MB: '0' },
      message: 'DEVDATA_WEBHOOK_BACKLOG_MB must be an integer from 1 to 16384, got "0"',
    },
    {
      args: ['start'],
      env: { DEVDATA_LLM_TIMEOUT_MS: '1.5' },
      message: 'DEVDATA_LLM_TIMEOUT_MS must be an integer from 1 to 600000, got "1.5"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_MAX_EVENT_LOOP_DELAY_MS: 'off' },
      message: 'DEVDATA_MAX_EVENT_LOOP_DELAY_MS must be an integer from 0 to 60000, got "off"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_RESPONSE_CACHE_MB: '32MB' },
      message: 'DEVDATA_RESPONSE_CACHE_MB must be an integer from 0 to 16384, got "32MB"',
    },
    // Past 2147483647 ms a timer fires after 1 ms: the poll would spin.
    {
      args: ['serve'],
      env: { DEVDATA_EVENT_POLL_MS: '9999999999' },
      message: 'DEVDATA_EVENT_POLL_MS must be an integer from 1 to 60000, got "9999999999"',
    },
    // Number() reads these as 1000, 5 and 16; a setting takes plain decimal digits only.
    {
      args: ['start'],
      env: { DEVDATA_EVENT_TIMEOUT_MS: '1e3' },
      message: 'DEVDATA_EVENT_TIMEOUT_MS must be an integer from 1 to 600000, got "1e3"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_EVENT_CONCURRENCY: ' 5' },
      message: 'DEVDATA_EVENT_CONCURRENCY must be an integer from 1 to 1000, got " 5"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_KEY_CACHE_TTL_MS: '0x10' },
      message: 'DEVDATA_KEY_CACHE_TTL_MS must be an integer from 0 to 3600000, got "0x10"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_WEBHOOK_TIMEOUT_MS: '2147483648' },
      message: 'DEVDATA_WEBHOOK_TIMEOUT_MS must be an integer from 1 to 600000, got "2147483648"',
    },
    {
      args: ['start'],
      env: { DEVDATA_EVENT_RETENTION_MS: '99999999999999999999' },
      message: 'DEVDATA_EVENT_RETENTION_MS must be an integer from 1 to 31536000000',
    },
    {
      args: ['serve'],
      env: { DEVDATA_RATE_LIMIT: '600/99999999999' },
      message:
        'DEVDATA_RATE_LIMIT must look like 600/60 (requests/seconds, 1 to 1000000 requests in 1 to 86400 seconds), got "600/99999999999"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_LLM_BASE_URL: 'localhost:11434' },
      message: 'DEVDATA_LLM_BASE_URL must be an http(s) URL',
    },
    {
      args: ['start'],
      env: { DEVDATA_PUSH_URL: 'ntfy.sh/topic' },
      message: 'DEVDATA_PUSH_URL must be an http(s) URL',
    },
    // Refused by the outbound policy before the database is made (nothing connects to it): loopback, with the
    // development allowance off, as a private address would be (the tests send nothing beyond loopback).
    {
      args: ['start'],
      env: { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '0', DEVDATA_PUSH_URL: 'https://127.0.0.1/topic' },
      message:
        'DEVDATA_PUSH_URL is refused: 127.0.0.1 is a loopback address (allowed only with DEVDATA_ALLOW_LOOPBACK_WEBHOOKS in development), got "https://127.0.0.1/topic"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_PUSH_URL: 'http://ntfy.example.test/topic' },
      message: 'DEVDATA_PUSH_URL must use https, got "http://ntfy.example.test/topic"',
    },
    {
      args: ['start'],
      env: { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '0', DEVDATA_PUSH_URL: 'http://ntfy.example.test/topic' },
      message: 'DEVDATA_PUSH_URL must use https, got "http://ntfy.example.test/topic"',
    },
    // Read by the Redis client as something else, or as database 0; refused before any connection.
    {
      args: ['serve'],
      env: { DEVDATA_REDIS_URL: 'redis://127.0.0.1:6379/-1' },
      message:
        'DEVDATA_REDIS_URL must name its database by number (redis://host:6379/0, /1, …), got "redis://127.0.0.1:6379/-1"',
    },
    {
      args: ['start'],
      env: { DEVDATA_REDIS_URL: 'redis://127.0.0.1:6379/two' },
      message: 'DEVDATA_REDIS_URL must name its database by number',
    },
    // An origin is a scheme, a host and a port: a page's URL, or a pattern, never matches one a browser sends.
    {
      args: ['serve'],
      env: { DEVDATA_MCP_ALLOWED_ORIGINS: 'https://chat.example.com, https://tools.example.com/chat' },
      message:
        'DEVDATA_MCP_ALLOWED_ORIGINS must be origins separated by commas, each scheme://host[:port] and nothing after (e.g. https://chat.example.com or http://localhost:5173), got "https://tools.example.com/chat"',
    },
    {
      args: ['start'],
      env: { DEVDATA_MCP_ALLOWED_ORIGINS: 'https://*.example.com' },
      message:
        'DEVDATA_MCP_ALLOWED_ORIGINS takes no wildcard: name each origin (https://chat.example.com), got "https://*.example.com"',
    },
    // The password is not repeated (it was, whole).
    {
      args: ['serve'],
      env: { DEVDATA_REDIS_URL: 'redis://devdata:s3cret@127.0.0.1:6379/two' },
      message: 'got "redis://devdata:***@127.0.0.1:6379/two"',
    },
    {
      args: ['serve'],
      env: { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: 'yes' },
      message: 'DEVDATA_ALLOW_LOOPBACK_WEBHOOKS must be 1 or 0, got "yes"',
    },
  ])('refuses $args with $env', ({ args, env, message }) => {
    const result = cli(args, { cwd: dir, env });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
    expect(existsSync(join(dir, 'devdata.credentials.json'))).toBe(false);
  });
});

describe('devdata-server start', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devdata-start-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes every number setting at the top of its range', async () => {
    const started = await start(dir, 'sqlite:devdata.sqlite', {
      DEVDATA_EVENT_POLL_MS: '60000',
      DEVDATA_EVENT_TIMEOUT_MS: '600000',
      DEVDATA_EVENT_RETENTION_MS: '31536000000',
      DEVDATA_WEBHOOK_TIMEOUT_MS: '600000',
      DEVDATA_KEY_CACHE_TTL_MS: '3600000',
      DEVDATA_RATE_LIMIT: '1000000/86400',
    });
    try {
      const key = await fetch(`${started.baseUrl}/v1/dev/key`, {
        headers: { authorization: `Bearer ${started.developerKey}` },
      });
      expect(key.status).toBe(200);
      expect(key.headers.get('x-ratelimit-limit')).toBe('1000000');
      expect(started.output).not.toContain('TimeoutOverflowWarning');
    } finally {
      await started.stop();
    }
  });

  it('checks the port before any write: a busy port leaves databases and credentials as they were', async () => {
    const first = await start(dir, 'sqlite:devdata.sqlite');
    await first.stop();
    const credentialsFile = join(dir, 'devdata.credentials.json');
    const before = readFileSync(credentialsFile, 'utf8');

    const { port, server } = await occupiedPort();
    try {
      for (const command of ['start', 'serve']) {
        const result = cli([command, '--port', String(port), '--database', 'sqlite:other.sqlite'], {
          cwd: dir,
        });
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
        // Another port that was free when it looked, and npm's form only for start (npm start runs start).
        const suggested = Number(
          /pass another --port, such as (\d+), which is free/.exec(result.stderr)?.[1],
        );
        expect(suggested).toBeGreaterThan(port);
        expect(result.stderr.includes(`npm start -- --port ${suggested}`)).toBe(command === 'start');
        expect(existsSync(join(dir, 'other.sqlite'))).toBe(false);
        expect(existsSync(join(dir, 'other.credentials.json'))).toBe(false);
      }
      // The same database: nothing is migrated or rewritten either.
      const again = cli(['start', '--port', String(port)], { cwd: dir });
      expect(again.status).toBe(1);
    } finally {
      server.close();
    }
    expect(readFileSync(credentialsFile, 'utf8')).toBe(before);

    // And the saved key still opens the default database.
    const restarted = await start(dir, 'sqlite:devdata.sqlite');
    try {
      expect(restarted.developerKey).toBe(first.developerKey);
      const me = await fetch(`${restarted.baseUrl}/v1/dev/user/action-items?limit=1`, {
        headers: { authorization: `Bearer ${restarted.developerKey}` },
      });
      expect(me.status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });

  it('says when npm took its options (npm start --port, without --), where it started on 8080 regardless', () => {
    // Real npm, running the repository's start script: without `--`, npm keeps --port as a setting of its own
    // (with `=`: the value too; without: the value becomes an argument of ours). Nothing is started or written.
    const database = `sqlite:${join(dir, 'devdata.sqlite')}`;
    const npmStart = (args: string[]) =>
      spawnSync('npm', ['start', ...args, '--', '--database', database], {
        cwd: join(__dirname, '../..'),
        encoding: 'utf8',
        env: cleanEnv(),
        timeout: 60_000,
      });
    for (const args of [['--port=8081'], ['--port', '8081']]) {
      const result = npmStart(args);
      expect({ args, status: result.status }).toEqual({ args, status: 1 });
      expect(result.stderr).toContain(
        "npm took --port as its own setting, so devdata-server did not get it: give devdata-server's options " +
          'after `--`, as in npm start -- --port 8081',
      );
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps each database its own credentials file, recording which database it belongs to', async () => {
    const main = await start(dir, 'sqlite:devdata.sqlite');
    await main.stop();
    const other = await start(dir, `sqlite:${join(dir, 'other.sqlite')}`);
    try {
      expect(other.developerKey).not.toBe(main.developerKey);
      expect(other.output).toContain(`saved in ${join(dir, 'other.credentials.json')}`);
      // The root leads a browser to the docs.
      const root = await fetch(`${other.baseUrl}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/docs');
    } finally {
      await other.stop();
    }
    const mainSaved = JSON.parse(readFileSync(join(dir, 'devdata.credentials.json'), 'utf8'));
    const otherSaved = JSON.parse(readFileSync(join(dir, 'other.credentials.json'), 'utf8'));
    // The export lines the docs' commands use carry the same values.
    const exported = Object.fromEntries(
      [...other.output.matchAll(/\b([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]),
    );
    expect(exported).toEqual({
      DEVDATA: other.baseUrl,
      USER_ID: otherSaved.user_id,
      DEV_KEY: otherSaved.developer_key,
      APP_ID: otherSaved.app_id,
      APP_SECRET: otherSaved.app_secret,
      WEBHOOK_SECRET: otherSaved.webhook_secret,
      ADMIN: otherSaved.admin_token,
    });
    expect(mainSaved).toMatchObject({
      database: `sqlite:${join(dir, 'devdata.sqlite')}`,
      developer_key: main.developerKey,
    });
    expect(otherSaved).toMatchObject({
      database: `sqlite:${join(dir, 'other.sqlite')}`,
      developer_key: other.developerKey,
    });
  });

  it('puts the token rotate-admin-token made in the credentials file start saved, so start prints one that works', async () => {
    const database = 'sqlite:devdata.sqlite';
    const file = join(dir, 'devdata.credentials.json');
    const first = await start(dir, database);
    await first.stop();
    const before = JSON.parse(readFileSync(file, 'utf8'));
    const rotated = cli(['rotate-admin-token', '--database', database], { cwd: dir });
    expect(rotated.status).toBe(0);
    const token = /^admin_token: (\S+)$/m.exec(rotated.stdout)![1];
    expect(rotated.stderr).toBe(`Saved the new admin token in ${file}, which start prints\n`);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after).toEqual({ ...before, admin_token: token });
    expect(Object.keys(after)).toEqual(Object.keys(before));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const again = await start(dir, database);
    try {
      expect(again.output).toContain(`Admin token:     ${token}`);
      const users = await fetch(`${again.baseUrl}/v1/admin/users`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(users.status).toBe(200);
    } finally {
      await again.stop();
    }
    // A file in the other database's place that another database made is left as it is.
    const otherDatabase = `sqlite:${join(dir, 'other.sqlite')}`;
    expect(cli(['init', '--database', otherDatabase], { cwd: dir }).status).toBe(0);
    writeFileSync(join(dir, 'other.credentials.json'), readFileSync(file));
    const elsewhere = cli(['rotate-admin-token', '--database', otherDatabase], { cwd: dir });
    expect({ status: elsewhere.status, stderr: elsewhere.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(join(dir, 'other.credentials.json'), 'utf8')).toBe(readFileSync(file, 'utf8'));
    // A database that is not there is refused, nothing made.
    const other = cli(['rotate-admin-token', '--database', `sqlite:${join(dir, 'missing.sqlite')}`], {
      cwd: dir,
    });
    expect({ status: other.status, stderr: other.stderr }).toEqual({
      status: 1,
      stderr: `sqlite:${join(dir, 'missing.sqlite')} does not exist: check --database\n`,
    });
    expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
  });

  it('creates the credentials file before writing to the database, and stops when it cannot', async () => {
    const users = async (database: string) => {
      const store = openStore(database);
      try {
        return (await store.db.selectFrom('users').select('id').execute()).length;
      } finally {
        await store.close();
      }
    };
    // A name the database file takes but its credentials file, 10 characters longer, does not (past 255 bytes):
    // refused even to root, which a read-only directory is not.
    const long = 'd'.repeat(240);
    const refused = cli(
      ['start', '--port', String(await freePort()), '--database', `sqlite:${long}.sqlite`],
      {
        cwd: dir,
      },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `Cannot create the credentials file ${join(dir, `${long}.credentials.json`)} (ENAMETOOLONG`,
    );
    expect(refused.stderr).toContain('nothing was written to the database');
    expect(refused.stderr).toContain('pass a --database in a directory where it can be created');
    expect(existsSync(join(dir, `${long}.sqlite`))).toBe(false);

    // An existing, empty database whose credentials file would go through a link into a missing directory.
    const database = `sqlite:${join(dir, 'empty.sqlite')}`;
    const store = openStore(database);
    await migrateToLatest(store);
    await store.close();
    const credentialsFile = join(dir, 'empty.credentials.json');
    symlinkSync(join(dir, 'missing', 'empty.credentials.json'), credentialsFile);
    const linked = cli(['start', '--port', String(await freePort()), '--database', database], { cwd: dir });
    expect(linked.status).toBe(1);
    expect(linked.stderr).toContain(`Cannot create the credentials file ${credentialsFile}`);
    expect(await users(database)).toBe(0);

    // Once the file can be made, the same database starts, and its saved key works.
    rmSync(credentialsFile);
    const started = await start(dir, database);
    try {
      const key = await fetch(`${started.baseUrl}/v1/dev/key`, {
        headers: { authorization: `Bearer ${started.developerKey}` },
      });
      expect(key.status).toBe(200);
      expect(JSON.parse(readFileSync(credentialsFile, 'utf8')).developer_key).toBe(started.developerKey);
    } finally {
      await started.stop();
    }
    expect(await users(database)).toBe(1);
  });

  it('removes a credentials file left empty by a start stopped before its first write, and keeps one after it', async () => {
    const credentialsFile = join(dir, 'devdata.credentials.json');
    writeFileSync(credentialsFile, '');
    const started = await start(dir, 'sqlite:devdata.sqlite');
    try {
      expect(started.output).toContain(`Removed ${credentialsFile}, left empty by a start that stopped`);
      expect(JSON.parse(readFileSync(credentialsFile, 'utf8')).developer_key).toBe(started.developerKey);
    } finally {
      await started.stop();
    }

    // Stopped after init and before the keys were saved: they cannot be printed, and the file stays.
    const database = `sqlite:${join(dir, 'initialized.sqlite')}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    const emptyFile = join(dir, 'initialized.credentials.json');
    writeFileSync(emptyFile, '');
    const refused = cli(['start', '--port', '0', '--database', database], { cwd: dir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `The credentials file ${emptyFile} is empty: a start was stopped after it`,
    );
    expect(refused.stderr).toContain('start with a new --database');
    expect(readFileSync(emptyFile, 'utf8')).toBe('');
  });

  it('names a credentials file it cannot use, and says what to do', () => {
    const credentialsFile = join(dir, 'devdata.credentials.json');
    const cases: [() => void, string][] = [
      [() => writeFileSync(credentialsFile, '{"user_id": '), 'is not valid JSON'],
      [() => writeFileSync(credentialsFile, 'null'), 'does not hold credentials'],
      [() => mkdirSync(credentialsFile), 'Cannot read the credentials file'],
    ];
    for (const [make, problem] of cases) {
      make();
      const result = cli(['start', '--port', '0'], { cwd: dir });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(credentialsFile);
      expect(result.stderr).toContain(problem);
      expect(result.stderr).toContain('move it away');
      expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
      rmSync(credentialsFile, { recursive: true });
    }
  });

  describe('names a database it cannot use, and says what to do', () => {
    const run = (command: string, database: string) =>
      cli(
        [
          command,
          ...(command === 'serve' || command === 'start' ? ['--port', '0'] : []),
          '--database',
          database,
        ],
        {
          cwd: dir,
        },
      );
    const root = process.getuid?.() === 0;

    it('a file that is not a SQLite database', () => {
      const junk = join(dir, 'junk.sqlite');
      writeFileSync(junk, 'not a database, just text long enough to have a header');
      for (const command of ['serve', 'start', 'init', 'seed']) {
        const result = run(command, `sqlite:${junk}`);
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(`sqlite:${junk} is not a SQLite database`);
        expect(result.stderr).toContain('point --database at another database');
      }
      expect(existsSync(join(dir, 'junk.credentials.json'))).toBe(false);
    });

    it('a database written by a version with a migration this one does not know', async () => {
      const future = `sqlite:${join(dir, 'future.sqlite')}`;
      expect(run('init', future).status).toBe(0);
      const store = openStore(future);
      await sql`insert into kysely_migration (name, timestamp) values ('0099_future', '2099-01-01T00:00:00.000Z')`.execute(
        store.db,
      );
      await store.close();
      for (const command of ['serve', 'seed']) {
        const result = run(command, future);
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(
          `${future} was written by a newer devdata-server (migration 0099_future): upgrade devdata-server`,
        );
      }
    });

    it('a file this user may read but not write', () => {
      // Made immutable for root, whom file modes do not stop.
      const readOnly = join(dir, 'read-only.sqlite');
      expect(run('init', `sqlite:${readOnly}`).status).toBe(0);
      if (root) spawnSync('chattr', ['+i', readOnly]);
      else chmodSync(readOnly, 0o444);
      try {
        for (const command of ['serve', 'seed']) {
          const result = run(command, `sqlite:${readOnly}`);
          expect(result.status).toBe(1);
          expect(result.stderr).toContain(`sqlite:${readOnly} cannot be written`);
          expect(result.stderr).toContain('let this user write it and its directory');
        }
      } finally {
        if (root) spawnSync('chattr', ['-i', readOnly]);
      }
    });

    it('a directory this user may not create a file in: init says so, not to make the directory, which is there', () => {
      const closed = join(dir, 'closed');
      mkdirSync(closed);
      const inClosed = `sqlite:${join(closed, 'devdata.sqlite')}`;
      if (root) spawnSync('chattr', ['+i', closed]);
      else chmodSync(closed, 0o555);
      try {
        const result = run('init', inClosed);
        expect(result.status).toBe(1);
        expect(result.stderr).toContain(`${inClosed} cannot be created (unable to open database file)`);
        expect(result.stderr).toContain(`let this user write its directory, ${closed}, or point --database`);
        expect(result.stderr).not.toContain('make its directory');
      } finally {
        if (root) spawnSync('chattr', ['-i', closed]);
        else chmodSync(closed, 0o755);
      }
    });

    // File modes do not stop root, and nothing else makes a file unreadable to it.
    (root ? it.skip : it)('a file this user may not read', () => {
      const unreadable = join(dir, 'unreadable.sqlite');
      expect(run('init', `sqlite:${unreadable}`).status).toBe(0);
      chmodSync(unreadable, 0o000);
      try {
        for (const command of ['serve', 'start', 'init', 'seed']) {
          const result = run(command, `sqlite:${unreadable}`);
          expect(result.status).toBe(1);
          expect(result.stderr).toContain(`sqlite:${unreadable} cannot be opened`);
          expect(result.stderr).toContain('let this user read and write it and its directory');
        }
      } finally {
        chmodSync(unreadable, 0o644);
      }
    });

    const postgresWith = (parts: Partial<Pick<URL, 'pathname' | 'username' | 'port'>>) => {
      const url = new URL(PG_ADMIN_URL);
      Object.assign(url, parts);
      return url.toString();
    };
    // Paths that cannot be a database file, and PostgreSQL databases that cannot be reached or used.
    it.each<[string, () => Promise<string>, string]>([
      [
        'a file in a missing directory',
        async () => `sqlite:${join(dir, 'missing', 'devdata.sqlite')}`,
        'cannot be opened',
      ],
      [
        'a directory',
        async () => {
          mkdirSync(join(dir, 'a-directory'));
          return `sqlite:${join(dir, 'a-directory')}`;
        },
        'is a directory (unable to open database file): give the path of a file in it',
      ],
      [
        'a PostgreSQL database that does not exist',
        async () => postgresWith({ pathname: '/devdata_no_such_database' }),
        'does not exist (database "devdata_no_such_database"',
      ],
      [
        'a PostgreSQL role that does not exist',
        async () => postgresWith({ username: 'devdata_no_such_role' }),
        'refuses its user (role "devdata_no_such_role"',
      ],
      [
        'a PostgreSQL port nothing listens on',
        async () => postgresWith({ port: String(await freePort()) }),
        'is out of reach (connect ECONNREFUSED',
      ],
    ])('%s', async (_name, databaseIn, problem) => {
      const database = await databaseIn();
      for (const command of ['serve', 'start', 'init', 'seed']) {
        const result = run(command, database);
        expect({ command, database, status: result.status }).toEqual({ command, database, status: 1 });
        // Of a database in a missing directory, start first refuses to make the credentials file, and serve
        // and seed say the database does not exist.
        if (command !== 'init' && database.includes('missing')) continue;
        expect(result.stderr).toContain(`${database} ${problem}`);
        expect(result.stderr).toContain('point --database at another database');
        // The fix is the command for that server and user: a bare createdb would use the local socket and
        // the login's name.
        if (problem.startsWith('does not exist')) {
          const url = new URL(database);
          expect(result.stderr).toContain(
            `create it (createdb -h ${url.hostname}${url.port ? ` -p ${url.port}` : ''} -U ${url.username} devdata_no_such_database)`,
          );
        }
      }
    });
  });

  it('names a PostgreSQL address that takes the connection and never answers as out of reach', async () => {
    // A stand-in on loopback for a hung server, or a firewall that holds the connection: it answers nothing.
    const sockets: Socket[] = [];
    const silent = standIn(sockets);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(PG_ADMIN_URL);
      url.port = String((silent.address() as { port: number }).port);
      const database = url.toString();
      // Each waits out the connect timeout: side by side, so the test waits for it once.
      const commands = ['serve', 'init'];
      const results = await Promise.all(
        commands.map((command) =>
          cliAsync([command, ...(command === 'serve' ? ['--port', '0'] : []), '--database', database], {
            cwd: dir,
          }),
        ),
      );
      for (const [i, result] of results.entries()) {
        const command = commands[i];
        expect({ command, status: result.status }).toEqual({ command, status: 1 });
        expect(result.stderr).toContain(
          `${database} is out of reach (it took the connection and did not answer within 10 s)`,
        );
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('never overwrites credentials: not for a new database, not with another database', async () => {
    const first = await start(dir, 'sqlite:devdata.sqlite');
    await first.stop();
    const credentialsFile = join(dir, 'devdata.credentials.json');
    const saved = readFileSync(credentialsFile, 'utf8');

    // The database is gone (moved away): a new one at the same path would make new keys over the old file.
    renameSync(join(dir, 'devdata.sqlite'), join(dir, 'moved.sqlite'));
    rmSync(join(dir, 'devdata.sqlite-wal'), { force: true });
    rmSync(join(dir, 'devdata.sqlite-shm'), { force: true });
    const fresh = cli(['start', '--port', String(await freePort())], { cwd: dir });
    expect(fresh.status).toBe(1);
    expect(fresh.stderr).toContain(
      `${credentialsFile} holds the credentials of sqlite:${join(dir, 'devdata.sqlite')}`,
    );
    expect(fresh.stderr).toContain('never overwritten');
    expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
    expect(readFileSync(credentialsFile, 'utf8')).toBe(saved);

    // Another initialized database under that name: the saved user and app are not in it.
    expect(cli(['init', '--database', 'sqlite:devdata.sqlite'], { cwd: dir }).status).toBe(0);
    const foreign = cli(['start', '--port', String(await freePort())], { cwd: dir });
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain(`${credentialsFile} holds the credentials of`);
    expect(foreign.stderr).toContain(`not of sqlite:${join(dir, 'devdata.sqlite')}`);
    expect(readFileSync(credentialsFile, 'utf8')).toBe(saved);

    // A database with users and no saved credentials is not re-initialized either.
    rmSync(credentialsFile);
    const missing = cli(['start', '--port', String(await freePort())], { cwd: dir });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('already has users');
    expect(existsSync(credentialsFile)).toBe(false);
  });
});

describe('devdata-server and the database index in DEVDATA_REDIS_URL', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'devdata-redis-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stops before any write when Redis refuses the index, and serves with one it has', async () => {
    // The machine's Redis has the default 16 databases; the SELECT is all that reaches it.
    for (const command of ['serve', 'start']) {
      const refused = cli([command, '--port', '0'], {
        cwd: dir,
        env: { DEVDATA_REDIS_URL: 'redis://127.0.0.1:6379/999' },
      });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        'DEVDATA_REDIS_URL names database 999, which Redis at 127.0.0.1:6379 refuses (ERR DB index is out of range)',
      );
      expect(existsSync(join(dir, 'devdata.sqlite'))).toBe(false);
      expect(existsSync(join(dir, 'devdata.credentials.json'))).toBe(false);
    }

    const database = `sqlite:${join(dir, 'served.sqlite')}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    const served = await serveCli(database, { DEVDATA_REDIS_URL: 'redis://127.0.0.1:6379/1' });
    try {
      expect(await (await fetch(`${served.baseUrl}/healthz`)).json()).toEqual({ status: 'ok', redis: 'ok' });
    } finally {
      await served.stop();
    }
  });

  it('takes a Redis that wants a password, or takes the connection and never answers, as out of reach', async () => {
    // Stand-ins on loopback: one answers every command as a Redis with requirepass does, one answers nothing.
    const sockets: Socket[] = [];
    const wantsPassword = standIn(sockets, (socket) =>
      socket.on('data', () => socket.write('-NOAUTH Authentication required.\r\n')),
    );
    const silent = standIn(sockets);
    const stopping: Server[] = [];
    try {
      for (const [stand_in, name] of [
        [wantsPassword, 'wants a password'],
        [silent, 'never answers'],
      ] as const) {
        await new Promise<void>((resolve) => stand_in.listen(0, '127.0.0.1', resolve));
        stopping.push(stand_in);
        const { port } = stand_in.address() as { port: number };
        // Not a refused index: the server starts without Redis, as it does when Redis is down.
        const database = `sqlite:${join(dir, `${name}.sqlite`)}`;
        expect(cli(['init', '--database', database]).status).toBe(0);
        const served = await serveCli(database, {
          DEVDATA_REDIS_URL: `redis://127.0.0.1:${port}/3`,
        });
        try {
          expect(await (await fetch(`${served.baseUrl}/healthz`)).json()).toEqual({
            status: 'ok',
            redis: 'unavailable',
          });
        } finally {
          await served.stop();
        }
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      for (const server of stopping) await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reports Redis unavailable while a Redis that came up after the start refuses the index', async () => {
    // Out of reach at the start, which then goes on without it (as with any Redis outage).
    const redis = await ownRedis();
    const database = `sqlite:${join(dir, 'served.sqlite')}`;
    expect(cli(['init', '--database', database]).status).toBe(0);
    const served = await serveCli(database, { DEVDATA_REDIS_URL: `${redis.url}/999` });
    try {
      await redis.start();
      // Both of the server's connections (commands, subscriptions) are in, each having sent its SELECT.
      const port = new URL(redis.url).port;
      const connected = () =>
        Number(
          /connected_clients:(\d+)/.exec(
            spawnSync('redis-cli', ['-p', port, 'info', 'clients'], { encoding: 'utf8' }).stdout,
          )?.[1] ?? 0,
        ) - 1; // redis-cli itself
      for (let i = 0; connected() < 2; i += 1) {
        if (i > 100) throw new Error('the server did not connect to Redis');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Long enough for the connections to be ready and for the probe to try the index again.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await (await fetch(`${served.baseUrl}/healthz`)).json()).toEqual({
        status: 'ok',
        redis: 'unavailable',
      });
      expect(served.logs.join('')).toContain('Redis refuses database 999 of DEVDATA_REDIS_URL');
    } finally {
      await served.stop();
      await redis.stop();
    }
  });
});

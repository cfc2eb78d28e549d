#!/usr/bin/env node
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { enableCompileCache } from 'node:module';
import { createServer } from 'node:net';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import SQLite from 'better-sqlite3';
import { configFromEnv, keyPrefixSetting, unknownSettings } from './config';
import type { InitResult } from './scripts/init';
import { SERVER_VERSION } from './version';
import { PG_CONNECT_TIMEOUT_MS } from './store/db/defaults';
import type { Store } from './store/db/database';

// The rest of the server (the database drivers and Kysely, the repositories, fastify and the MCP SDK, pino, the
// Redis client) is imported by the commands that use it, when they get there: --version, --help and a refused
// argument or setting answer without loading it.
// What it loads is compiled once and kept in Node's compile cache (in the system's temporary directory; none with
// NODE_DISABLE_COMPILE_CACHE=1), so the next command starts sooner.
enableCompileCache();

const DEFAULT_DATABASE = 'sqlite:./devdata.sqlite';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const HELP: Record<string, string> = {
  main: `devdata-server ${SERVER_VERSION} — the self-hosted DevData developer data and notification service

Usage: devdata-server <command> [options]     (in a clone of the repository: npx devdata-server …)

Commands:
  start   First run: init + seed and save the credentials; then serve (what \`npm start\` runs)
  serve   Migrate an existing database and serve the API
  init    Create a user, a developer key, an admin token and an installed app
  seed    Add demo data for the user made by init
  rotate-admin-token   Replace every admin token with a new one (a token that leaked)

Options: --version prints the version. Run devdata-server <command> --help for a command's options.`,
  serve: `Usage: devdata-server serve [--host 127.0.0.1] [--port 8080] [--database <url>]

  --host      Address to listen on (env DEVDATA_HOST, default 127.0.0.1)
  --port      Port to listen on, 0–65535 (env DEVDATA_PORT, default 8080)
  --database  sqlite:<path> or postgres://… (env DEVDATA_DATABASE, default ${DEFAULT_DATABASE})

Refuses a SQLite file that does not exist (start, or init, makes a new database).
Checks the port is free, migrates, answers GET /healthz, serves /openapi.json and /docs, logs JSON lines
(DEVDATA_LOG_LEVEL: ${LOG_LEVELS.join(', ')}; default info), and on SIGTERM/SIGINT stops accepting requests,
finishes the ones in flight, then exits.
Env DEVDATA_RATE_LIMIT=<requests>/<seconds> sets the per-key developer API limit (default 600/60);
DEVDATA_REDIS_URL=redis://… shares it, live notifications and key revocations between several instances
(see "Running several instances" in server/README.md); DEVDATA_KEY_CACHE_TTL_MS how long a key is cached
(default 500); DEVDATA_KEY_PREFIX what new developer keys start with (default svc_dev_, e.g. omi_dev_; keys made
under an earlier prefix keep working);
DEVDATA_MAX_EVENT_LOOP_DELAY_MS the event-loop lag past which requests are shed with 503 (default 1000, 0: off);
DEVDATA_RESPONSE_CACHE_MB the memory for list and record answers kept while the data is unchanged (SQLite;
default 32, 0: off); DEVDATA_MCP_ALLOWED_ORIGINS the origins of browser pages /mcp takes besides the server's own
address (comma-separated, e.g. https://chat.example.com; a client that sends no Origin needs none).
Webhook and push URLs must be https to public addresses; DEVDATA_ALLOW_LOOPBACK_WEBHOOKS=1 (development only,
refused with NODE_ENV=production) also allows loopback (127.0.0.0/8, ::1) over http or https.
The proactive pipeline's DEVDATA_LLM_BASE_URL, DEVDATA_LLM_MODEL, DEVDATA_LLM_API_KEY, DEVDATA_LLM_TIMEOUT_MS,
DEVDATA_PUSH_URL, DEVDATA_WEBHOOK_TIMEOUT_MS and DEVDATA_WEBHOOK_BACKLOG_MB, and the event webhooks' DEVDATA_EVENT_*
settings are described in server/README.md (Commands, Event webhooks).`,
  init: `Usage: devdata-server init [--database <url>] [--json]

Creates a user, a developer key holding every scope (its prefix DEVDATA_KEY_PREFIX, default svc_dev_), an admin
token, and an app with both capabilities installed for that user with every proactive scope granted. The secrets
are printed once; the key, the token and the app secret are stored only as hashes, the webhook secret as is (the
server signs with it).

  --json      Print one JSON object {user_id, developer_key, admin_token, app_id, app_secret, webhook_secret}`,
  seed: `Usage: devdata-server seed [--database <url>]

Adds realistic demo data for the first user (the one init made): conversations with transcripts,
memories, goals with history, action items, people and a few thousand screen activity rows.
(--demo, the only data set there is, may be given and changes nothing.)`,
  'rotate-admin-token': `Usage: devdata-server rotate-admin-token [--database <url>] [--json]

Makes a new admin token and revokes every other: from the next request on, each instance serving the database
refuses them. Prints the new token once (it is stored only as a hash). When start saved the credentials of this
database, their file gets the new token too, so start goes on printing one that works.

  --json      Print one JSON object {admin_token}`,
  start: `Usage: devdata-server start [--host 127.0.0.1] [--port 8080] [--database <url>]

  --host, --port, --database, and every DEVDATA_* setting, as for serve (devdata-server serve --help)

On the first start (an empty database): checks the port is free, runs init and seed, and saves the
credentials beside the database (for sqlite:./devdata.sqlite, ./devdata.credentials.json; for PostgreSQL,
./<database name>.postgres.credentials.json), recording which database they belong to. Then prints the
base URL and the credentials and serves. Later starts print the saved credentials, after checking they
were made by this database. A credentials file is never overwritten.
Turns on DEVDATA_ALLOW_LOOPBACK_WEBHOOKS (webhooks to a local n8n) unless it is set or NODE_ENV=production.`,
};

const DATABASE_OPTION = { database: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
const LISTEN_OPTIONS = { host: { type: 'string' }, port: { type: 'string' } } as const;
const COMMAND_OPTIONS = {
  serve: { ...DATABASE_OPTION, ...LISTEN_OPTIONS },
  start: { ...DATABASE_OPTION, ...LISTEN_OPTIONS },
  init: { ...DATABASE_OPTION, json: { type: 'boolean' } },
  seed: { ...DATABASE_OPTION, demo: { type: 'boolean' } },
  'rotate-admin-token': { ...DATABASE_OPTION, json: { type: 'boolean' } },
} as const;
type Command = keyof typeof COMMAND_OPTIONS;

/** A flag's value, else the environment's (an empty variable counts as unset), else the default. */
function setting(flag: string | undefined, envName: string, fallback: string) {
  if (flag !== undefined)
    return { value: flag, source: `--${envName.slice('DEVDATA_'.length).toLowerCase()}` };
  const env = process.env[envName];
  return env ? { value: env, source: envName } : { value: fallback, source: 'the default' };
}

function parsePort({ value, source }: { value: string; source: string }): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new Error(`${source} must be a port number from 0 to 65535, got "${value}"`);
  return Number(value);
}

function parseHost({ value, source }: { value: string; source: string }): string {
  if (!/^[^\s/]+$/.test(value)) throw new Error(`${source} must be an address or host name, got "${value}"`);
  return value;
}

function parseDatabase({ value, source }: { value: string; source: string }): string {
  const usage = `${source} must be sqlite:<path> or postgres://user@host:5432/database, got "${value}"`;
  if (value.startsWith('sqlite:')) {
    if (value.length === 'sqlite:'.length) throw new Error(usage);
    return value;
  }
  if (!/^postgres(ql)?:\/\//.test(value) || !URL.canParse(value)) throw new Error(usage);
  // Without one, PostgreSQL would take the user's name as the database's: often the cluster's own postgres.
  if (new URL(value).pathname.length <= 1)
    throw new Error(`${source} must name its database (postgres://user@host:5432/database), got "${value}"`);
  return value;
}

function options(command: Command, args: string[]) {
  let values: { host?: string; port?: string; database?: string; json?: boolean; help?: boolean };
  try {
    // Each command accepts only its own options: `init --port 9000` is a mistake, not a no-op.
    const options: ParseArgsOptionsConfig = COMMAND_OPTIONS[command];
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new Error(`${(error as Error).message}\nRun \`devdata-server ${command} --help\` for its options.`);
  }
  return {
    database: parseDatabase(setting(values.database, 'DEVDATA_DATABASE', DEFAULT_DATABASE)),
    json: values.json ?? false,
    help: values.help ?? false,
    /** Where serve and start listen: read by them alone, so init and seed never stop on DEVDATA_HOST/PORT. */
    listen: () => ({
      host: parseHost(setting(values.host, 'DEVDATA_HOST', '127.0.0.1')),
      port: parsePort(setting(values.port, 'DEVDATA_PORT', '8080')),
    }),
  };
}

/**
 * `npm start --port 8081`, without the `--` that hands what follows to the script, makes npm take `--port` as a
 * setting of its own (npm_config_port: "8081" for `--port=8081`, else "true" with 8081 left to us as an argument):
 * the server would start on 8080 as if no port had been asked for. The message that says so, or null. Only under
 * the `npm start` script (npm_lifecycle_script is the script as package.json has it): an npm setting a user gave
 * to another script, or to npm itself, is none of ours.
 */
function npmTookOptions(command: Command, args: string[]): string | null {
  if (process.env.npm_lifecycle_event !== 'start') return null;
  if (!process.env.npm_lifecycle_script?.startsWith('devdata-server ')) return null;
  const taken = Object.keys(COMMAND_OPTIONS[command]).filter(
    (name) => name !== 'help' && process.env[`npm_config_${name}`] !== undefined,
  );
  if (taken.length === 0) return null;
  const options: ParseArgsOptionsConfig = COMMAND_OPTIONS[command];
  const { positionals } = parseArgs({ args, options, strict: false, allowPositionals: true });
  const flags = taken.map((name) => {
    const value = process.env[`npm_config_${name}`]!;
    if (value !== 'true') return `--${name} ${value}`;
    // `--port 8081`: the value is the argument npm left, when there is no doubt which one it is.
    return taken.length === 1 && positionals.length === 1
      ? `--${name} ${positionals[0]}`
      : `--${name} <${name}>`;
  });
  const names = taken.map((name) => `--${name}`).join(' and ');
  return (
    `npm took ${names} as its own setting${taken.length > 1 ? 's' : ''}, so devdata-server did not get ` +
    `${taken.length > 1 ? 'them' : 'it'}: give devdata-server's options after \`--\`, as in ` +
    `npm start -- ${flags.join(' ')}`
  );
}

function logLevel(): string {
  const level = process.env.DEVDATA_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(level))
    throw new Error(`DEVDATA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level;
}

/** Whether `port` on `host` can be listened on now. */
function canListen(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolvePromise) => {
    const probe = createServer();
    probe.once('error', resolvePromise);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolvePromise(null)));
  });
}

/** Fails before anything is written when another process holds the port (port 0 takes any free one). */
async function assertPortFree(command: 'serve' | 'start', host: string, port: number): Promise<void> {
  if (port === 0) return;
  const error = await canListen(host, port);
  if (error === null) return;
  if (error.code === 'EADDRINUSE') {
    let free: number | null = null;
    for (let next = port + 1; free === null && next <= Math.min(port + 20, 65535); next += 1)
      if ((await canListen(host, next)) === null) free = next;
    const fix = 'stop what listens there or pass another --port';
    const npm = command === 'start' ? ` (through npm: npm start -- --port ${free})` : '';
    throw new Error(
      `Port ${port} on ${host} is already in use: ` +
        (free === null ? fix : `${fix}, such as ${free}, which is free${npm}`),
    );
  }
  if (error.code === 'EACCES') throw new Error(`Not allowed to listen on port ${port}: pass --port`);
  if (error.code === 'ENOTFOUND' || error.code === 'EADDRNOTAVAIL' || error.code === 'EAI_AGAIN')
    throw new Error(
      `Cannot listen on ${host}:${port} (${error.message}): pass --host (or DEVDATA_HOST) an address of this ` +
        'machine, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    );
  throw new Error(`Cannot listen on ${host}:${port}: ${error.message}`);
}

/** Where `start` keeps a database's credentials: beside a SQLite file, or named after a PostgreSQL database. */
function credentialsFileFor(database: string): string | null {
  if (database.startsWith('sqlite:')) {
    const path = database.slice('sqlite:'.length);
    if (path === ':memory:') return null;
    const file = resolve(path);
    return join(dirname(file), `${basename(file, extname(file))}.credentials.json`);
  }
  return resolve(`${decodeURIComponent(new URL(database).pathname.slice(1))}.postgres.credentials.json`);
}

/** The database as a credentials file records it: the SQLite file's full path, or the URL without its password. */
function databaseName(database: string): string {
  if (database.startsWith('sqlite:')) return `sqlite:${resolve(database.slice('sqlite:'.length))}`;
  const url = new URL(database);
  url.password = '';
  return url.toString();
}

type SavedCredentials = InitResult & { database?: string };

const CREDENTIAL_FIELDS = [
  'user_id',
  'developer_key',
  'admin_token',
  'app_id',
  'app_secret',
  'webhook_secret',
];

/** The credentials saved in `file`, or null when there is no file; anything else there is refused, naming it. */
function readCredentials(file: string): SavedCredentials | null {
  if (!existsSync(file)) return null;
  const fix = 'restore it from a copy, or move it away';
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code
        ? `Cannot read the credentials file ${file} (${(error as Error).message.split(',')[0]}): move it away`
        : `The credentials file ${file} is not valid JSON (${(error as Error).message}): ${fix}`,
    );
  }
  const fields = saved as Record<string, unknown> | null;
  if (
    typeof fields !== 'object' ||
    fields === null ||
    CREDENTIAL_FIELDS.some((f) => typeof fields[f] !== 'string')
  )
    throw new Error(
      `The credentials file ${file} does not hold credentials (a JSON object with ${CREDENTIAL_FIELDS.join(', ')}): ${fix}`,
    );
  return saved as SavedCredentials;
}

/** The database's trouble in words that name it and say what to do; any other error as it is. */
/** Whether `path` names a directory (a SQLite file there cannot be opened). */
const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/**
 * The createdb command that makes the database a postgres:// URL names, on the URL's host, port and user: a bare
 * `createdb` would use the local socket and the login's name, another server and user than the URL's. A password
 * is left out (createdb asks for it, or takes PGPASSWORD).
 */
function createdbCommand(database: string): string {
  const url = new URL(database);
  const quote = (word: string) =>
    /^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
  const parts = ['createdb'];
  if (url.hostname) parts.push('-h', quote(decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1')));
  if (url.port) parts.push('-p', url.port);
  if (url.username) parts.push('-U', quote(decodeURIComponent(url.username)));
  parts.push(quote(decodeURIComponent(url.pathname.slice(1))));
  return parts.join(' ');
}

function databaseError(database: string, error: unknown): unknown {
  const name = databaseName(database);
  const { code, message } = error as { code?: string; message?: string };
  const elsewhere = 'or point --database at another database';
  if (code === 'SQLITE_NOTADB')
    return new Error(`${name} is not a SQLite database (${message}): move the file away, ${elsewhere}`);
  if (code?.startsWith('SQLITE_READONLY'))
    return new Error(
      `${name} cannot be written (${message}): let this user write it and its directory, ${elsewhere}`,
    );
  // better-sqlite3 says this one without a code.
  const cantOpen =
    code === 'SQLITE_CANTOPEN' || message === 'Cannot open database because the directory does not exist';
  if (cantOpen && isDirectory(database.slice('sqlite:'.length)))
    return new Error(
      `${name} is a directory (${message}): give the path of a file in it, e.g. ${join(name, 'devdata.sqlite')}, ` +
        elsewhere,
    );
  // The file is there, or its directory is, yet it cannot be opened: this user may not read it, or not create
  // a file in that directory (making the directory would not help).
  const path = database.slice('sqlite:'.length);
  if (cantOpen && existsSync(path))
    return new Error(
      `${name} cannot be opened (${message}): let this user read and write it and its directory, ${elsewhere}`,
    );
  if (cantOpen && isDirectory(dirname(resolve(path))))
    return new Error(
      `${name} cannot be created (${message}): let this user write its directory, ${dirname(resolve(path))}, ` +
        elsewhere,
    );
  if (cantOpen)
    return new Error(
      `${name} cannot be opened (${message}): make its directory, or give the path of a file in one, ${elsewhere}`,
    );
  if (code === '3D000')
    return new Error(
      `${name} does not exist (${message}): create it (${createdbCommand(database)}), ${elsewhere}`,
    );
  if (code === '28000' || code === '28P01')
    return new Error(
      `${name} refuses its user (${message}): fix the user or password in the URL, ${elsewhere}`,
    );
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH')
    return new Error(`${name} is out of reach (${message}): start PostgreSQL there, ${elsewhere}`);
  // node-postgres's words for a connection taken and left unanswered past PG_CONNECT_TIMEOUT_MS.
  if (message === 'timeout expired')
    return new Error(
      `${name} is out of reach (it took the connection and did not answer within ${PG_CONNECT_TIMEOUT_MS / 1000} s): ` +
        `check that PostgreSQL runs there, ${elsewhere}`,
    );
  const newer = /previously executed migration (\S+) is missing/.exec(message ?? '');
  if (newer)
    return new Error(
      `${name} was written by a newer devdata-server (migration ${newer[1]}): upgrade devdata-server, ${elsewhere}`,
    );
  return error;
}

/**
 * Whether the database is there to open without making it: a PostgreSQL one is (the server never creates one),
 * a SQLite file only once it exists (opening one that does not would create it), an in-memory one never.
 */
function databaseExists(database: string): boolean {
  if (!database.startsWith('sqlite:')) return true;
  const path = database.slice('sqlite:'.length);
  return path !== ':memory:' && existsSync(path);
}

/**
 * The lock `serve` and `start` hold on a SQLite database, kept open (and referenced, so never collected) for as
 * long as the process serves it.
 */
let servingLock: SQLite.Database | undefined;

/**
 * Refuses a SQLite file another devdata-server process serves. Each process's event delivery worker would take
 * the deliveries the other is sending (a claim on SQLite writes nothing), sending events twice, and each would
 * count the request limit alone. The lock is a write transaction (never written) on a file beside the database,
 * which the system releases when the process ends, however it ends. Anything else that stops it from being taken
 * is left to the database's own checks, which name the trouble; `seed` and other readers and writers of the
 * database itself are not held up. Taken once: a second call in the same process does nothing.
 */
function holdServingLock(database: string): void {
  if (!database.startsWith('sqlite:') || database === 'sqlite::memory:' || servingLock) return;
  const file = `${resolve(database.slice('sqlite:'.length))}-serve.lock`;
  let lock: SQLite.Database;
  try {
    lock = new SQLite(file, { timeout: 0 });
  } catch {
    return;
  }
  try {
    // Nothing is ever written there, so no journal file is made beside it either.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN IMMEDIATE');
  } catch (error) {
    lock.close();
    if (!String((error as { code?: string }).code).startsWith('SQLITE_BUSY')) return;
    throw new Error(
      `${databaseName(database)} is served by another devdata-server process (it holds ${file}): stop that one ` +
        'first; to run several instances, share a PostgreSQL database (server/README.md, "Running several instances")',
    );
  }
  servingLock = lock;
}

/** Opens the database, naming it in what goes wrong (a SQLite file that is not a database fails here). */
async function open(database: string): Promise<Store> {
  const { openStore } = await import('./store/db/database.js');
  try {
    return openStore(database);
  } catch (error) {
    throw databaseError(database, error);
  }
}

/** Migrates and checks that it can be written, naming the database in what goes wrong. */
async function prepare(store: Store, database: string): Promise<void> {
  const { assertWritable, migrateToLatest } = await import('./store/db/database.js');
  try {
    await migrateToLatest(store);
    await assertWritable(store);
  } catch (error) {
    throw databaseError(database, error);
  }
}

/**
 * The credentials a `start` prints, read before anything is written: those saved for this database, or none
 * when the database is new (`store` is null when it does not exist yet). Refuses a file that another database
 * made, and never lets one be overwritten.
 */
async function savedCredentials(
  database: string,
  file: string | null,
  store: Store | null,
): Promise<SavedCredentials | null> {
  const init = store && (await import('./scripts/init.js')).instanceInit(store);
  const initialized =
    init !== null &&
    (await init.isInitialized().catch((error: unknown) => {
      throw databaseError(database, error);
    }));
  if (file === null) return null; // an in-memory database is always new
  // Made empty before the first write to the database and filled after init: a start stopped in between (killed,
  // or a crash) leaves it empty.
  const found = existsSync(file) ? statSync(file) : undefined;
  if (found?.isFile() && found.size === 0) {
    if (initialized)
      throw new Error(
        `The credentials file ${file} is empty: a start was stopped after it initialized the database and before ` +
          'it saved the keys, which are only shown once. Use `devdata-server serve` with keys you make through ' +
          'the admin API, or move the file away and start with a new --database',
      );
    rmSync(file);
    console.error(`Removed ${file}, left empty by a start that stopped before writing to the database`);
  }
  const saved = readCredentials(file);
  const owner = saved?.database ?? 'another database';
  if (!initialized) {
    if (saved)
      throw new Error(
        `${file} holds the credentials of ${owner}, and ${databaseName(database)} is new. ` +
          'It is never overwritten: start with the --database it belongs to, or move the file away.',
      );
    return null;
  }
  if (!saved)
    throw new Error(
      `The database already has users but ${file} is missing (the keys are only shown once); ` +
        'use `devdata-server serve` with your own keys, or start with a new --database',
    );
  if (!(await init.madeBy(saved)))
    throw new Error(`${file} holds the credentials of ${owner}, not of ${databaseName(database)}`);
  return saved;
}

/**
 * A new database's credentials file, created empty (never over an existing file) before anything is written to the
 * database: where it cannot be created, `start` stops before init makes secrets that could not be saved.
 */
class CredentialsFile {
  private fd: number | null;

  constructor(
    readonly path: string,
    database: string,
  ) {
    try {
      this.fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      const reason = (error as Error).message.split(',')[0];
      const fix = database.startsWith('sqlite:')
        ? 'The file goes beside the database: pass a --database in a directory where it can be created.'
        : 'The file goes in the current directory: run start from a directory you can write to.';
      throw new Error(
        `Cannot create the credentials file ${path} (${reason}), so nothing was written to the database. ${fix}`,
      );
    }
  }

  save(credentials: SavedCredentials): void {
    if (this.fd === null) return;
    writeFileSync(this.fd, JSON.stringify(credentials, null, 2) + '\n');
    closeSync(this.fd);
    this.fd = null;
  }

  /** Removes the file when nothing was saved in it: the start failed before init. */
  discard(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}

/**
 * Puts `token` in the credentials file in place of the admin token it holds, the rest as it was: written beside it
 * and renamed over it, so a reader sees the old file or the new one, owner-only as start made it.
 */
function saveAdminToken(file: string, token: string): void {
  const next = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(next, JSON.stringify({ ...readCredentials(file), admin_token: token }, null, 2) + '\n', {
      mode: 0o600,
      flag: 'wx',
    });
    renameSync(next, file);
  } catch (error) {
    rmSync(next, { force: true });
    throw new Error(
      `The admin token above replaced every other, but ${file} could not be updated ` +
        `(${(error as Error).message.split(',')[0]}): put it in the file's admin_token by hand, or start prints the old one`,
    );
  }
}

/** First start: init, save the credentials in the file made for them, then the demo data. */
async function firstRun(store: Store, database: string, file: CredentialsFile | null): Promise<InitResult> {
  const init = (await import('./scripts/init.js')).instanceInit(store, {
    keyPrefix: configFromEnv().keyPrefix,
  });
  const credentials = await init.initialize();
  file?.save({ database: databaseName(database), ...credentials });
  const { seedDemo } = await import('./scripts/seed.js');
  await seedDemo(store);
  return credentials;
}

async function openMigrated(database: string): Promise<Store> {
  const store = await open(database);
  try {
    await prepare(store, database);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

async function serve(store: Store, host: string, port: number, onListening?: (baseUrl: string) => void) {
  // Written asynchronously: a request does not wait for its log line's write, and lines written together go out
  // in one write. pino flushes what is pending when the process exits.
  const [{ buildApp }, { default: pino }] = await Promise.all([import('./app.js'), import('pino')]);
  const app = await buildApp({
    store,
    logger: { level: logLevel(), stream: pino.destination({ sync: false }) },
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // close() stops accepting connections and waits for in-flight requests, so no acknowledged write is lost.
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', (s) => void shutdown(s));
  process.on('SIGINT', (s) => void shutdown(s));
  const address = await app.listen({ host, port });
  onListening?.(address);
}

/**
 * Writes `text` to stdout and resolves once it is written. What init (or rotate-admin-token) prints is the only
 * copy of its secrets, so a write that fails (a full disk, a reader gone) must fail the command: console.log drops
 * such errors unseen.
 */
function printOnce(text: string, command: 'init' | 'rotate-admin-token' = 'init'): Promise<void> {
  return new Promise((resolve, reject) => {
    const made = command === 'init' ? 'The credentials init made' : 'The admin token rotate-admin-token made';
    const failed = (error: Error) =>
      reject(
        new Error(
          `${made} could not be written out (${error.message}); ${command === 'init' ? 'they are' : 'it is'} shown ` +
            `nowhere else: run ${command} again with its output going where it can be written`,
        ),
      );
    process.stdout.once('error', failed);
    process.stdout.write(text, (error) => (error ? failed(error) : resolve()));
  });
}

function printCredentials(baseUrl: string, credentials: InitResult, file: string | null) {
  console.log(`
DevData server running at ${baseUrl}
  API docs:        ${baseUrl}/docs
  User ID:         ${credentials.user_id}
  Developer key:   ${credentials.developer_key}
  Admin token:     ${credentials.admin_token}
  App ID:          ${credentials.app_id}
  App secret:      ${credentials.app_secret}
  Webhook secret:  ${credentials.webhook_secret}
(${file === null ? 'not saved: the database is in memory' : `saved in ${file}`}; Ctrl+C stops the server)

For the commands in docs/ (and to try the API with curl), paste into another terminal:
  export DEVDATA=${baseUrl} USER_ID=${credentials.user_id}
  export DEV_KEY=${credentials.developer_key}
  export APP_ID=${credentials.app_id} APP_SECRET=${credentials.app_secret}
  export WEBHOOK_SECRET=${credentials.webhook_secret}
  export ADMIN=${credentials.admin_token}
`);
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(SERVER_VERSION);
    return;
  }
  if (!(command in COMMAND_OPTIONS)) throw new Error(`Unknown command "${command}"\n\n${HELP.main}`);
  const tookOptions = npmTookOptions(command as Command, rest);
  if (tookOptions) throw new Error(tookOptions);
  const opts = options(command as Command, rest);
  if (opts.help) {
    console.log(HELP[command]);
    return;
  }
  for (const warning of unknownSettings(process.env)) console.error(warning);

  switch (command as Command) {
    case 'serve': {
      const { host, port } = opts.listen();
      const { redisUrl } = configFromEnv();
      logLevel();
      // Before the port: when the port is taken by the devdata-server serving this database, another port would
      // only meet the lock next, so the lock's message, which names that process, comes first.
      if (databaseExists(opts.database)) holdServingLock(opts.database);
      await assertPortFree('serve', host, port);
      if (redisUrl) await (await import('./cluster/redis.js')).assertRedisDatabase(redisUrl);
      // Opening a SQLite file that is not there would serve a new, empty database: one no key opens (a typo).
      if (!databaseExists(opts.database) && opts.database !== 'sqlite::memory:')
        throw new Error(
          `${databaseName(opts.database)} does not exist: check --database, or make a new database with ` +
            `\`devdata-server start --database ${opts.database}\` (or \`devdata-server init --database ${opts.database}\` first)`,
        );
      await serve(await openMigrated(opts.database), host, port);
      return;
    }
    case 'init': {
      const keyPrefix = keyPrefixSetting(process.env.DEVDATA_KEY_PREFIX);
      const store = await openMigrated(opts.database);
      const result = await (
        await import('./scripts/init.js')
      )
        .instanceInit(store, { keyPrefix })
        .initialize();
      await store.close();
      const lines = opts.json
        ? [JSON.stringify(result)]
        : Object.entries(result).map(([name, value]) => `${name}: ${value}`);
      await printOnce(`${lines.join('\n')}\n`);
      return;
    }
    case 'rotate-admin-token': {
      // An in-memory database is gone with this process: a token for it would open nothing.
      if (!databaseExists(opts.database))
        throw new Error(`${databaseName(opts.database)} does not exist: check --database`);
      const store = await openMigrated(opts.database);
      let token: string;
      try {
        token = await (await import('./scripts/init.js')).instanceInit(store).replaceAdminTokens();
      } finally {
        await store.close();
      }
      await printOnce(
        opts.json ? `${JSON.stringify({ admin_token: token })}\n` : `admin_token: ${token}\n`,
        'rotate-admin-token',
      );
      const file = credentialsFileFor(opts.database);
      if (file !== null && readCredentials(file)?.database === databaseName(opts.database)) {
        saveAdminToken(file, token);
        console.error(`Saved the new admin token in ${file}, which start prints`);
      }
      return;
    }
    case 'seed': {
      // An in-memory database goes on to be found empty.
      if (!databaseExists(opts.database) && opts.database !== 'sqlite::memory:')
        throw new Error(
          `${databaseName(opts.database)} does not exist: run \`devdata-server init --database ${opts.database}\` first`,
        );
      const store = await openMigrated(opts.database);
      const { seedDemo } = await import('./scripts/seed.js');
      const counts = await seedDemo(store);
      await store.close();
      console.log(`Seeded demo data: ${JSON.stringify(counts)}`);
      return;
    }
    case 'start': {
      const { host, port } = opts.listen();
      // The quickstart runs beside a local n8n, whose webhooks are on loopback: the development allowance is
      // on unless set otherwise (or NODE_ENV=production). `serve` keeps the production rules.
      if (
        process.env.DEVDATA_ALLOW_LOOPBACK_WEBHOOKS === undefined &&
        process.env.NODE_ENV !== 'production'
      ) {
        process.env.DEVDATA_ALLOW_LOOPBACK_WEBHOOKS = '1';
      }
      // Every check comes before the first write: settings, the port, the saved credentials or, for a new
      // database, the file to save them in.
      const { redisUrl } = configFromEnv();
      logLevel();
      // Before the port, as for serve: a second `npm start` is told that the first one serves this database, not
      // to take another port where the lock would refuse it next. A new database is made by one start alone: its
      // credentials file is created exclusively.
      if (databaseExists(opts.database)) holdServingLock(opts.database);
      await assertPortFree('start', host, port);
      if (redisUrl) await (await import('./cluster/redis.js')).assertRedisDatabase(redisUrl);
      const file = credentialsFileFor(opts.database);
      const existing = databaseExists(opts.database) ? await open(opts.database) : null;
      let saved: InitResult | null;
      let credentialsFile: CredentialsFile | null;
      try {
        saved = await savedCredentials(opts.database, file, existing);
        credentialsFile = saved === null && file !== null ? new CredentialsFile(file, opts.database) : null;
      } catch (error) {
        await existing?.close();
        throw error;
      }
      let store: Store;
      try {
        store = existing ?? (await open(opts.database));
      } catch (error) {
        credentialsFile?.discard();
        throw error;
      }
      let credentials: InitResult;
      try {
        await prepare(store, opts.database);
        // The demo data is written before the server starts sampling its event loop: seeding blocks the loop for
        // a moment, which would make load shedding refuse the first requests after the banner. Should the port be
        // taken between the check above and listening, the database and its own credentials file stay together.
        credentials = saved ?? (await firstRun(store, opts.database, credentialsFile));
      } catch (error) {
        credentialsFile?.discard();
        await store.close();
        throw error;
      }
      // A new database exists now: held from here on, as an existing one was from the start.
      try {
        holdServingLock(opts.database);
      } catch (error) {
        await store.close();
        throw error;
      }
      await serve(store, host, port, (baseUrl) => printCredentials(baseUrl, credentials, file));
      return;
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

#!/usr/bin/env node
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildApp } from './app';
import { initInstance, type InitResult } from './scripts/init';
import { seedDemo } from './scripts/seed';
import { migrateToLatest, openStore, type Store } from './store/db';

const DEFAULT_DATABASE = 'sqlite:./devdata.sqlite';
const CREDENTIALS_FILE = 'devdata.credentials.json';

const HELP: Record<string, string> = {
  main: `devdata-server — the self-hosted DevData developer data and notification service

Usage: devdata-server <command> [options]

Commands:
  serve   Migrate the database and serve the API
  init    Create a user, a developer key, an admin token and an installed app
  seed    Add demo data for the user made by init (--demo)
  start   First run: init + seed and save the credentials; then serve (what \`npm start\` runs)

Run devdata-server <command> --help for a command's options.`,
  serve: `Usage: devdata-server serve [--host 127.0.0.1] [--port 8080] [--database <url>]

  --host      Address to listen on (env DEVDATA_HOST, default 127.0.0.1)
  --port      Port to listen on (env DEVDATA_PORT, default 8080)
  --database  sqlite:<path> or postgres://… (env DEVDATA_DATABASE, default ${DEFAULT_DATABASE})

Migrates on start, answers GET /healthz, serves /openapi.json and /docs, logs JSON lines,
and on SIGTERM/SIGINT stops accepting requests, finishes the ones in flight, then exits.
Env DEVDATA_RATE_LIMIT=<requests>/<seconds> sets the per-key developer API limit (default 600/60);
DEVDATA_MAX_EVENT_LOOP_DELAY_MS the event-loop lag past which requests are shed with 503 (default 1000, 0: off).`,
  init: `Usage: devdata-server init [--database <url>] [--json]

Creates a user, a developer key holding every scope, an admin token, and an app with both
capabilities installed for that user with every proactive scope granted. The secrets are
printed once; only their hashes are stored.

  --json      Print one JSON object {user_id, developer_key, admin_token, app_id, app_secret, webhook_secret}`,
  seed: `Usage: devdata-server seed --demo [--database <url>]

Adds realistic demo data for the first user (the one init made): conversations with transcripts,
memories, goals with history, action items, people and a few thousand screen activity rows.`,
  start: `Usage: devdata-server start [--host] [--port] [--database]

On the first start (an empty database): runs init and seed --demo and saves the credentials to
./${CREDENTIALS_FILE}. Then prints the base URL and the credentials and serves.`,
};

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      database: { type: 'string' },
      json: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  const port = Number(values.port ?? process.env.DEVDATA_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port "${values.port}"`);
  return {
    host: values.host ?? process.env.DEVDATA_HOST ?? '127.0.0.1',
    port,
    database: values.database ?? process.env.DEVDATA_DATABASE ?? DEFAULT_DATABASE,
    json: values.json,
    demo: values.demo,
    help: values.help,
  };
}

async function openMigrated(database: string): Promise<Store> {
  const store = openStore(database);
  await migrateToLatest(store.db);
  return store;
}

async function serve(store: Store, host: string, port: number, onListening?: (baseUrl: string) => void) {
  const app = await buildApp({ store, logger: { level: process.env.DEVDATA_LOG_LEVEL ?? 'info' } });
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

function printCredentials(baseUrl: string, credentials: InitResult) {
  console.log(`
DevData server running at ${baseUrl}
  API docs:        ${baseUrl}/docs
  User ID:         ${credentials.user_id}
  Developer key:   ${credentials.developer_key}
  Admin token:     ${credentials.admin_token}
  App ID:          ${credentials.app_id}
  App secret:      ${credentials.app_secret}
  Webhook secret:  ${credentials.webhook_secret}
(saved in ./${CREDENTIALS_FILE}; Ctrl+C stops the server)
`);
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main);
    return;
  }
  if (!(command in HELP) || command === 'main')
    throw new Error(`Unknown command "${command}"\n\n${HELP.main}`);
  const opts = options(rest);
  if (opts.help) {
    console.log(HELP[command]);
    return;
  }

  switch (command) {
    case 'serve': {
      await serve(await openMigrated(opts.database), opts.host, opts.port);
      return;
    }
    case 'init': {
      const store = await openMigrated(opts.database);
      const result = await initInstance(store.db);
      await store.close();
      if (opts.json) console.log(JSON.stringify(result));
      else for (const [name, value] of Object.entries(result)) console.log(`${name}: ${value}`);
      return;
    }
    case 'seed': {
      if (!opts.demo) throw new Error('seed needs --demo (the only data set there is)');
      const store = await openMigrated(opts.database);
      const counts = await seedDemo(store.db);
      await store.close();
      console.log(`Seeded demo data: ${JSON.stringify(counts)}`);
      return;
    }
    case 'start': {
      const store = await openMigrated(opts.database);
      const anyUser = await store.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
      let credentials: InitResult;
      if (!anyUser) {
        credentials = await initInstance(store.db);
        await seedDemo(store.db);
        writeFileSync(CREDENTIALS_FILE, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
      } else if (existsSync(CREDENTIALS_FILE)) {
        credentials = JSON.parse(readFileSync(CREDENTIALS_FILE, 'utf8')) as InitResult;
      } else {
        throw new Error(
          `The database already has users but ./${CREDENTIALS_FILE} is missing; use \`devdata-server serve\` and your own keys`,
        );
      }
      await serve(store, opts.host, opts.port, (baseUrl) => printCredentials(baseUrl, credentials));
      return;
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

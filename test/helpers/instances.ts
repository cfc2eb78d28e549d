// Two `devdata-server serve` processes on one PostgreSQL database, for the several-instances suites, with the
// users, apps, webhooks and notification streams those suites drive through them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import {
  connect,
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { SCOPES } from '../../server/src/contract/scopes';
import type { InitResult } from '../../server/src/scripts/init';
import { runCli, serveCli, type ServeProcess } from './cli';
import { client, type Client } from './http';
import { freePort } from './ports';
import { createDatabase } from './server';

export interface Pair {
  a: ServeProcess;
  b: ServeProcess;
  init: InitResult;
  /** The database both serve. */
  databaseUrl: string;
  admin(server: ServeProcess): Client;
  close(): Promise<void>;
}

/**
 * A new PostgreSQL database, initialised, and two instances serving it with the same settings (`only` adds to them
 * for one of the two).
 */
export async function startPair(
  env: NodeJS.ProcessEnv,
  only: { a?: NodeJS.ProcessEnv; b?: NodeJS.ProcessEnv } = {},
): Promise<Pair> {
  const database = await createDatabase('postgres');
  const made = runCli(['init', '--database', database.url, '--json']);
  const started: PromiseSettledResult<ServeProcess>[] =
    made.status === 0
      ? await Promise.allSettled([
          serveCli(database.url, { ...env, ...only.a }),
          serveCli(database.url, { ...env, ...only.b }),
        ])
      : [];
  const [a, b] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
  if (!a || !b) {
    // Whatever did start is stopped, so a failed start leaves no process or database behind.
    await Promise.all([a?.stop(), b?.stop()]);
    await database.drop();
    const failure = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    throw failure ? failure.reason : new Error(made.stderr);
  }
  const init = JSON.parse(made.stdout) as InitResult;
  return {
    a,
    b,
    init,
    databaseUrl: database.url,
    admin: (server) => client(server.baseUrl, init.admin_token),
    close: async () => {
      await Promise.all([a.stop(), b.stop()]);
      await database.drop();
    },
  };
}

/** Log lines at level error (50) or above, and anything written to stderr. */
export function errorsLogged(server: ServeProcess): string[] {
  const lines = server.logs.join('').split('\n').filter(Boolean);
  const errors = lines.filter((line) => {
    try {
      return (JSON.parse(line) as { level: number }).level >= 50;
    } catch {
      return true;
    }
  });
  return [...errors, ...server.stderr];
}

/** Log lines whose message contains `text`. */
export function logged(server: ServeProcess, text: string): string[] {
  return server.logs
    .join('')
    .split('\n')
    .filter((line) => line.includes(text));
}

export interface Tenant {
  userId: string;
  key: string;
  appId: string;
  /** The app's client (its secret as bearer) on each instance. */
  app(server: ServeProcess): Client;
  /** The user's client (the key as bearer) on each instance. */
  user(server: ServeProcess): Client;
}

/** A new user with a key of every scope and a new app installed for it, its webhook at `webhookUrl`. */
export async function newTenant(pair: Pair, webhookUrl: string): Promise<Tenant> {
  const admin = pair.admin(pair.a);
  const user = await admin.post('/v1/admin/users', { name: 'tenant' });
  const key = await admin.post(`/v1/admin/users/${user.body.id}/keys`, { name: 'test', scopes: [...SCOPES] });
  const app = await admin.post('/v1/admin/apps', {
    name: 'Reminders',
    capabilities: ['external_integration', 'proactive_notification'],
    external_integration: { triggers_on: 'transcript_processed', webhook_url: webhookUrl },
    proactive_notification: { scopes: [] },
  });
  const installed = await admin.post(`/v1/admin/apps/${app.body.id}/installs`, {
    user_id: user.body.id,
    granted_scopes: [],
  });
  for (const reply of [user, key, app, installed]) {
    if (reply.status !== 201) throw new Error(`setup failed: ${JSON.stringify(reply.body)}`);
  }
  return {
    userId: user.body.id,
    key: key.body.key,
    appId: app.body.id,
    app: (server) => client(server.baseUrl, app.body.app_secret),
    user: (server) => client(server.baseUrl, key.body.key),
  };
}

/** A webhook that asks for a notification whose text is the session id it was called for. */
export async function promptingWebhook(): Promise<{
  url: string;
  calls: () => number;
  close(): Promise<void>;
}> {
  let calls = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls += 1;
      const sessionId = new URL(request.url!, 'http://x').searchParams.get('session_id') ?? 'session';
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          session_id: sessionId,
          notification: { prompt: `Proactive ${sessionId}`, params: [] },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Posts one live segment batch for `sessionId`, which calls the app's webhook. */
export async function liveSegments(user: Client, sessionId: string): Promise<number> {
  const reply = await user.post(`/v1/dev/user/transcripts/${sessionId}/segments`, {
    segments: [{ text: 'Hello there', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
  });
  return reply.status;
}

export interface StreamedNotification {
  id: string;
  kind: string;
  text: string;
  /** When it arrived (performance.now()): what bench/instances.ts measures. */
  at: number;
}

/** An open `/v1/dev/user/notifications/stream`, collecting every notification it carries. */
export async function openStream(server: Pick<ServeProcess, 'baseUrl'>, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${server.baseUrl}/v1/dev/user/notifications/stream`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
  const received: StreamedNotification[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const reading = (async () => {
    const reader = response.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      const frames = buffer.split('\n\n');
      buffer = frames.pop()!;
      for (const frame of frames) {
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (frame.includes('event: notification') && data) {
          received.push({ ...JSON.parse(data.slice('data: '.length)), at: performance.now() });
        }
      }
    }
  })().catch(() => undefined);
  return {
    received,
    /**
     * Resolves once `count` notifications have arrived, or throws after `timeoutMs`: generous, since a busy
     * machine is slow, not wrong (how soon they arrive is measured in bench/).
     */
    async waitFor(count: number, timeoutMs = 30_000): Promise<void> {
      const deadline = performance.now() + timeoutMs;
      while (received.length < count) {
        if (performance.now() > deadline) throw new Error(`${received.length} of ${count} notifications`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    /** Resolves once the server has ended the stream, or throws after `timeoutMs` (generous, as waitFor). */
    async ended(timeoutMs = 30_000): Promise<void> {
      const deadline = performance.now() + timeoutMs;
      while (!ended) {
        if (performance.now() > deadline) throw new Error('the stream is still open');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** A Redis of the test's own on a free loopback port, which the test may stop and start again. */
export async function ownRedis(): Promise<{
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Makes it answer nothing for `seconds` (DEBUG SLEEP); resolves when it answers again. */
  sleep(seconds: number): Promise<void>;
  /** Whether it leaves a PING unanswered for `ms` (asleep, say). */
  unresponsive(ms?: number): Promise<boolean>;
}> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const answers = () =>
    spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'])
      .stdout?.toString()
      .trim() === 'PONG';
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          // DEBUG SLEEP, from this machine only: how the tests make it slow.
          ...['--daemonize', 'no', '--enable-debug-command', 'local'],
        ],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 100 && !answers(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!answers()) throw new Error('redis-server did not start');
    },
    sleep: (seconds) =>
      new Promise((resolve) => {
        const cli = spawn('redis-cli', [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          'debug',
          'sleep',
          String(seconds),
        ]);
        cli.once('exit', () => resolve());
      }),
    unresponsive: (ms = 100) =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        const answered = (yes: boolean) => {
          clearTimeout(timer);
          socket.destroy();
          resolve(!yes);
        };
        const timer = setTimeout(() => answered(false), ms);
        socket.once('data', () => answered(true));
        socket.once('error', () => answered(false));
        socket.write('PING\r\n');
      }),
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A TCP proxy on 127.0.0.1 to `targetPort`: what one instance reaches Redis through, so that Redis can be taken
 * from that instance alone (stop: the connections through it end and new ones are refused; start: it takes them
 * again, on the same port).
 */
export async function tcpProxy(targetPort: number): Promise<{
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: NetServer | null = null;
  const start = () =>
    new Promise<void>((resolve) => {
      const listening = createNetServer((inbound) => {
        const outbound = connect(targetPort, '127.0.0.1');
        for (const socket of [inbound, outbound]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        inbound.pipe(outbound).pipe(inbound);
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
      });
      server = listening;
      listening.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await start();
  return { port, start, stop };
}

// What the benchmark groups share: databases, the server as its own process, load from autocannon, figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { cpus, totalmem, release } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { runCli } from '../test/helpers/cli';
import { freePort } from '../test/helpers/ports';
import { createDatabase, type Dialect } from '../test/helpers/server';
import type { InitResult } from '../server/src/scripts/init';

export { createDatabase, type Dialect };

const CLI = join(__dirname, '..', 'server', 'dist', 'cli.js');

/** What `devdata-server init --json` prints. */
export type Credentials = InitResult;

/** `devdata-server init --json` on `databaseUrl`: a user with an every-scope key, an admin token, an app. */
export function init(databaseUrl: string): Credentials {
  const result = runCli(['init', '--database', databaseUrl, '--json']);
  if (result.status !== 0) throw new Error(`init failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Credentials;
}

export interface Process {
  baseUrl: string;
  child: ChildProcess;
  /** Resident set size now and at its peak, in MB (from /proc). */
  rss(): { now: number; peak: number };
  /** CPU time the process has used so far (user + system), in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

function procCpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * Starts `node <script> …args` on a free port (passed as the last argument) as its own process, so the
 * client's event loop is not the server's, and waits until `ready` answers 200. Logs go to `logFile`.
 */
export async function startProcess(
  script: string,
  args: string[],
  { env = {}, ready = '/healthz', logFile = '/dev/null', nodeArgs = [] as string[] } = {},
): Promise<Process> {
  const port = await freePort();
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, script, ...args, String(port)], {
    stdio: ['ignore', log, log],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started: Process = {
    baseUrl,
    child,
    rss: () => ({ now: procStatusMb(child.pid!, 'VmRSS'), peak: procStatusMb(child.pid!, 'VmHWM') }),
    cpuMs: () => procCpuMs(child.pid!),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} (log: ${logFile})`);
    try {
      const response = await fetch(`${baseUrl}${ready}`);
      await response.arrayBuffer();
      if (response.ok) return started;
    } catch {
      // Not listening yet.
    }
    if (i > 200) {
      await started.stop();
      throw new Error(`${script} did not become ready`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Settings that keep the server's own guards out of a load test: no per-key limit, no load shedding. */
export const UNLIMITED = { DEVDATA_RATE_LIMIT: '1000000/1', DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0' };

/** `devdata-server serve` on `databaseUrl` as its own process (production logging, to `logFile`). */
export function serve(
  databaseUrl: string,
  options: { env?: NodeJS.ProcessEnv; logFile?: string; nodeArgs?: string[] } = {},
) {
  return startProcess(CLI, ['serve', '--database', databaseUrl, '--port'], {
    ...options,
    env: { ...UNLIMITED, ...options.env },
  });
}

/** A JSON API client for the bench's own setup requests; fails on any status but the expected one. */
export function client(baseUrl: string, key: string) {
  return async function request<T = any>(method: string, path: string, body?: unknown, expected = 200) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
}

export interface Load {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** Responses that were not 2xx, plus errors and timeouts: must be 0. */
  failures: number;
  /** CPU time the server spent per request, in µs (when its process was given). */
  cpuPerRequest: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  seconds?: number;
  connections?: number;
}

/** Keep-alive load from autocannon: `connections` clients for `seconds`. */
export async function load(
  url: string,
  { method = 'GET', headers = {}, body, seconds = 5, connections = 32 }: LoadOptions = {},
  server?: Process,
): Promise<Load> {
  const cpuBefore = server?.cpuMs() ?? NaN;
  const result = await autocannon({
    url,
    method,
    headers,
    body,
    duration: seconds,
    connections,
    pipelining: 1,
  });
  const cpuMs = (server?.cpuMs() ?? NaN) - cpuBefore;
  return {
    cpuPerRequest: (cpuMs * 1000) / result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * The same load against two servers, after a warm-up of each, in alternating rounds: on a shared machine
 * the load from elsewhere changes from one second to the next, and a pair of adjacent rounds sees about
 * the same. Figures are the medians over the rounds; `ratio` the median of the rounds' req/s ratios.
 * Each server's CPU time per request is measured too: it depends far less on what else the machine runs.
 */
export async function compare(
  targets: [{ url: string; server: Process }, { url: string; server: Process }],
  options: LoadOptions & { rounds: number },
) {
  for (const { url } of targets) await load(url, { ...options, seconds: 1 });
  const rounds: [Load, Load][] = [];
  const run = (side: 0 | 1) => load(targets[side].url, options, targets[side].server);
  for (let r = 0; r < options.rounds; r += 1) rounds.push([await run(0), await run(1)]);
  const summary = (side: 0 | 1): Load => ({
    cpuPerRequest: median(rounds.map((pair) => pair[side].cpuPerRequest)),
    requestsPerSecond: median(rounds.map((pair) => pair[side].requestsPerSecond)),
    p50: median(rounds.map((pair) => pair[side].p50)),
    p99: median(rounds.map((pair) => pair[side].p99)),
    requests: rounds.reduce((sum, pair) => sum + pair[side].requests, 0),
    failures: rounds.reduce((sum, pair) => sum + pair[side].failures, 0),
  });
  return {
    first: summary(0),
    second: summary(1),
    ratio: median(rounds.map(([a, b]) => a.requestsPerSecond / b.requestsPerSecond)),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { ms: performance.now() - t0, value };
}

export const fixed = (n: number, digits = 2) => n.toFixed(digits);

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Linux ${release()}, Node ${process.version}`;
}

/** A markdown table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

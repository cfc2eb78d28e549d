// 1. The authenticated hot path: GET goal, GET action-items (limit 100) and a 50-item batch POST against
// devdata-server (SQLite, its own process, production settings but no per-key limit), each beside a bare
// node:http server sending the same bytes, under the same autocannon load in the same run; the goal and the
// list also of a second server with the response cache off. Also the server's RSS idle and after the load (6).
import { mkdtempSync, writeFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, compare, createDatabase, fixed, init, serve, startProcess, table } from './lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_HOT=goal,list,batch: only those requests (all by default), for measuring one change quickly.
const ONLY = process.env.BENCH_HOT?.split(',');
// Response headers that node:http writes itself.
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Target {
  key: string;
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Asked of a second server on a copy of the database, with the response cache off: read every time. */
  uncached?: true;
}

/** Copies the SQLite database `from` (served, with its write-ahead log) to the new file `to`, whole. */
function copySqlite(from: string, to: string): void {
  const source = new SQLite(from.slice('sqlite:'.length), { readonly: true });
  try {
    source.prepare('VACUUM INTO ?').run(to.slice('sqlite:'.length));
  } finally {
    source.close();
  }
}

export async function hot(options: { nodeArgs?: string[]; logFile?: string } = {}): Promise<string> {
  const db = await createDatabase('sqlite');
  const credentials = init(db.url);
  const server = await serve(db.url, options);
  const dir = mkdtempSync(join(tmpdir(), 'devdata-bench-hot-'));
  try {
    const api = client(server.baseUrl, credentials.developer_key);
    const goal = await api(
      'POST',
      '/v1/dev/user/goals',
      { title: 'Run 5k', goal_type: 'numeric', target_value: 5 },
      200,
    );
    for (let i = 0; i < 2; i += 1) {
      await api(
        'POST',
        '/v1/dev/user/action-items/batch',
        {
          action_items: Array.from({ length: 50 }, (_, j) => ({ description: `Follow up ${i * 50 + j}` })),
        },
        200,
      );
    }
    const batch = JSON.stringify({
      action_items: Array.from({ length: 50 }, (_, j) => ({
        description: `Batch item ${j}`,
        completed: j % 2 === 0,
      })),
    });
    const targets: Target[] = [
      { key: 'goal', name: 'GET goal', method: 'GET', path: `/v1/dev/user/goals/${goal.id}` },
      {
        key: 'goal',
        name: 'GET goal, response cache off',
        method: 'GET',
        path: `/v1/dev/user/goals/${goal.id}`,
        uncached: true,
      },
      {
        key: 'list',
        name: 'GET action items (limit 100)',
        method: 'GET',
        path: '/v1/dev/user/action-items?limit=100',
      },
      {
        key: 'list',
        name: 'GET action items (limit 100), response cache off',
        method: 'GET',
        path: '/v1/dev/user/action-items?limit=100',
        uncached: true,
      },
      {
        key: 'batch',
        name: 'POST 50-item batch',
        method: 'POST',
        path: '/v1/dev/user/action-items/batch',
        body: batch,
      },
    ].filter((target) => !ONLY || ONLY.includes(target.key)) as Target[];
    const headers = {
      authorization: `Bearer ${credentials.developer_key}`,
      'content-type': 'application/json',
    };

    // The bytes the bare server sends: what devdata-server answered to each request.
    const recorded: Record<string, { status: number; headers: Record<string, string>; body: string }> = {};
    for (const target of targets) {
      const response = await fetch(`${server.baseUrl}${target.path}`, {
        method: target.method,
        headers,
        body: target.body,
      });
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!OWN_HEADERS.has(name)) responseHeaders[name] = value;
      });
      recorded[`${target.method} ${target.path}`] = {
        status: response.status,
        headers: responseHeaders,
        body: await response.text(),
      };
    }
    const file = join(dir, 'responses.json');
    writeFileSync(file, JSON.stringify(recorded));
    const bare = await startProcess(join(__dirname, 'bare-server.ts'), [file], {
      ready: '/ready',
      nodeArgs: ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON'],
    });

    // A second process may not serve the same SQLite file (its event delivery worker would send the first one's
    // deliveries again): the server with the response cache off serves a copy, made now, of the same records.
    const copy = `sqlite:${join(dir, 'uncached.sqlite')}`;
    const uncached = targets.some((target) => target.uncached)
      ? (copySqlite(db.url, copy), await serve(copy, { env: { DEVDATA_RESPONSE_CACHE_MB: '0' } }))
      : undefined;

    const idle = server.rss().now;
    const rows: string[][] = [];
    const failures: string[] = [];
    try {
      for (const target of targets) {
        const asked = target.uncached ? uncached! : server;
        const {
          first: ours,
          second: theirs,
          ratio,
        } = await compare(
          [
            { url: `${asked.baseUrl}${target.path}`, server: asked },
            { url: `${bare.baseUrl}${target.path}`, server: bare },
          ],
          {
            method: target.method,
            headers,
            body: target.body,
            seconds: SECONDS,
            rounds: ROUNDS,
          },
        );
        for (const [who, result] of [
          ['devdata-server', ours],
          ['bare node:http', theirs],
        ] as const) {
          if (result.failures > 0)
            failures.push(`${target.name} on ${who}: ${result.failures} of ${result.requests} not 2xx`);
        }
        rows.push([
          target.name,
          `${Math.round(ours.requestsPerSecond)} / ${Math.round(theirs.requestsPerSecond)}`,
          `**${fixed(ratio)}×**`,
          `${ours.p50} / ${theirs.p50}`,
          `${ours.p99} / ${theirs.p99}`,
          `${fixed(ours.p99 / Math.max(theirs.p99, 1))}×`,
          `${fixed(ours.cpuPerRequest, 0)} / ${fixed(theirs.cpuPerRequest, 0)}`,
          `${fixed(theirs.cpuPerRequest / ours.cpuPerRequest)}×`,
          `${ours.requests + theirs.requests}, ${ours.failures + theirs.failures} not 2xx`,
        ]);
      }
    } finally {
      await bare.stop();
      await uncached?.stop();
    }
    const after = server.rss();
    if (failures.length > 0) throw new Error(`Requests failed:\n${failures.join('\n')}`);
    return [
      `autocannon, 32 keep-alive connections; after a 1 s warm-up of each, ${ROUNDS} alternating rounds of ${SECONDS} s`,
      'against devdata-server (SQLite) and the bare server, each its own process. Figures are medians over the',
      'rounds, the ratio the median of the rounds’ ratios; latencies in ms (p99 ratio: ours / bare, bare floored',
      'at 1 ms). CPU µs per request: the server process’s user + system time over the requests it answered, the',
      'figure least moved by other load on the machine; its ratio is what req/s would be with a core to spare.',
      'GET goal and the list are answered from the response cache (nothing changes during the load, as for a',
      'poll finding nothing new); "response cache off" is a second server on a copy of the database with',
      'DEVDATA_RESPONSE_CACHE_MB=0, reading the goal or the 100 rows and writing their JSON for every request.',
      '',
      table(
        [
          'request',
          'req/s ours / bare',
          'ratio',
          'p50 ours / bare',
          'p99 ours / bare',
          'p99 ratio',
          'CPU µs/req ours / bare',
          'CPU ratio bare/ours',
          'requests',
        ],
        rows,
      ),
      '',
      `Server RSS (6): ${fixed(idle, 0)} MB idle, ${fixed(after.now, 0)} MB after the load above (peak ${fixed(after.peak, 0)} MB).`,
    ].join('\n');
  } finally {
    await server.stop();
    await db.drop();
  }
}

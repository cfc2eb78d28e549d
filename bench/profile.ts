// `npm run bench:profile [-- goal|list]`: devdata-server (SQLite, its own process) under `node --cpu-prof`
// while autocannon asks for one goal (or the action-items list), then the profile's heaviest functions by
// self time and the share of the time each part of the stack takes. For bench/RESULTS.md's profile notes.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, createDatabase, fixed, init, load, serve, table } from './lib';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

// Where a frame's code lives, most specific first: the part of the stack it is counted in.
const PARTS: [string, RegExp][] = [
  ['devdata-server', /\/server\/dist\//],
  ['kysely', /node_modules\/kysely\//],
  ['better-sqlite3 / pg', /node_modules\/(better-sqlite3|pg|pg-protocol)\//],
  ['zod + type provider', /node_modules\/(zod|fastify-type-provider-zod)\//],
  ['pino (request logs)', /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\//],
  ['fastify', /node_modules\/(fastify|@fastify|find-my-way|light-my-request|avvio|fast-json-stringify)/],
  ['node internals', /^node:|^internal\//],
];

function part(url: string): string {
  return (
    PARTS.find(([, pattern]) => pattern.test(url))?.[0] ?? (url === '' ? '(native / GC / idle)' : 'other')
  );
}

function summarise(profile: Profile, top: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  let idle = 0;
  const functions = new Map<string, number>();
  const parts = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|server\/dist)\//, '')}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    parts.set(part(url), (parts.get(part(url)) ?? 0) + us);
  }
  const share = (us: number) => `${fixed((100 * us) / total, 1)} %`;
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    busy: total,
    idle,
    functions: sorted(functions)
      .slice(0, top)
      .map(([name, us]) => [`\`${name}\``, share(us)]),
    parts: sorted(parts).map(([name, us]) => [name, share(us)]),
  };
}

async function main() {
  const which = process.argv[2] ?? 'goal';
  const dir = mkdtempSync(join(tmpdir(), 'devdata-profile-'));
  const db = await createDatabase('sqlite');
  const { developer_key: key } = init(db.url);
  const server = await serve(db.url, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  let requests = 0;
  try {
    const api = client(server.baseUrl, key);
    const goal = await api('POST', '/v1/dev/user/goals', { title: 'Run 5k', target_value: 5 });
    await api('POST', '/v1/dev/user/action-items/batch', {
      action_items: Array.from({ length: 50 }, (_, i) => ({ description: `item ${i}` })),
    });
    await api('POST', '/v1/dev/user/action-items/batch', {
      action_items: Array.from({ length: 50 }, (_, i) => ({ description: `item ${50 + i}` })),
    });
    const path = which === 'list' ? '/v1/dev/user/action-items?limit=100' : `/v1/dev/user/goals/${goal.id}`;
    const result = await load(`${server.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${key}` },
      seconds: 8,
    });
    if (result.failures > 0) throw new Error(`${result.failures} requests failed`);
    requests = result.requests + Math.round(result.requestsPerSecond);
    console.log(`${Math.round(result.requestsPerSecond)} req/s under the profiler`);
  } finally {
    await server.stop();
    await db.drop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  const summary = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, 25);
  console.log(
    `\nbusy ${fixed(summary.busy / 1e6, 1)} s, idle ${fixed(summary.idle / 1e6, 1)} s, ~${fixed(summary.busy / requests, 0)} µs of CPU per request (setup included)\n`,
  );
  console.log(table(['part of the stack (self time)', 'share'], summary.parts));
  console.log();
  console.log(table(['function (self time)', 'share'], summary.functions));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

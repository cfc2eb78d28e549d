// Keyset pagination: a page deep in a large screen-activity table should cost what the first page costs.
// Prints, per database, the median time of the first and of a deep page and their ratio (one run, same
// machine, so the ratio is what to compare across changes). Run with `npm run bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// The built server (npm run build): Node runs this file as TypeScript, the server as the JavaScript it ships.
const dist = join(process.cwd(), 'server', 'dist');
const require = createRequire(join(process.cwd(), 'package.json'));
const { buildApp } = require(join(dist, 'app.js'));
const { openStore, migrateToLatest } = require(join(dist, 'store', 'db.js'));
const { initInstance } = require(join(dist, 'scripts', 'init.js'));
const { encodeCursor } = require(join(dist, 'cursor.js'));

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = 30;
const PAGE = 100;

async function database(dialect: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'devdata-bench-'));
    return {
      url: `sqlite:${join(dir, 'bench.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `devdata_bench_${process.pid}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`CREATE DATABASE ${name}`);
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: () => run(`DROP DATABASE ${name} WITH (FORCE)`),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function bench(dialect: string) {
  const db = await database(dialect);
  const store = openStore(db.url);
  await migrateToLatest(store.db);
  const { developer_key: key } = await initInstance(store.db);
  const app = await buildApp({ store, config: { rateLimit: { max: 1_000_000, windowMs: 60_000 } } });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  try {
    const start = Date.UTC(2026, 0, 1);
    for (let offset = 0; offset < ROWS; offset += 1000) {
      const rows = Array.from({ length: Math.min(1000, ROWS - offset) }, (_, i) => ({
        timestamp: new Date(start + (offset + i) * 1000).toISOString(),
        app_name: ['Code', 'Chrome', 'Slack'][(offset + i) % 3],
        window_title: `window ${offset + i}`,
        ocr_text: 'x'.repeat(200),
      }));
      const response = await fetch(`${base}/v1/dev/user/screen-activity`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ screen_activity: rows }),
      });
      if (response.status !== 201) throw new Error(`seeding failed: ${response.status}`);
    }
    // The position of the row PAGE rows before the end: the deepest full page there is.
    const deep = await store.db
      .selectFrom('screen_activity')
      .select(['timestamp', 'id'])
      .orderBy('timestamp')
      .orderBy('id')
      .offset(ROWS - PAGE - 1)
      .limit(1)
      .executeTakeFirstOrThrow();
    const deepCursor = encodeCursor({ t: deep.timestamp, i: deep.id }, {});
    const time = async (query: string) => {
      const t0 = performance.now();
      const response = await fetch(`${base}/v1/dev/user/screen-activity?limit=${PAGE}${query}`, { headers });
      const body = (await response.json()) as { screen_activity: unknown[] };
      if (response.status !== 200 || body.screen_activity.length !== PAGE) {
        throw new Error(`unexpected page: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      return performance.now() - t0;
    };
    const first: number[] = [];
    const deepest: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      first.push(await time(''));
      deepest.push(await time(`&cursor=${encodeURIComponent(deepCursor)}`));
    }
    const [f, d] = [median(first), median(deepest)];
    console.log(
      `${dialect.padEnd(8)} ${ROWS} rows, page ${PAGE}: first ${f.toFixed(2)} ms, deepest ${d.toFixed(2)} ms, deepest/first ${(d / f).toFixed(2)}`,
    );
  } finally {
    await app.close();
    await store.close();
    await db.drop();
  }
}

async function main() {
  for (const dialect of (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',')) await bench(dialect);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

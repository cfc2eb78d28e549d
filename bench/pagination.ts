// 2. Keyset pagination over 1,000,000 screen-activity rows: a deep page should cost what the first costs,
// with and without the `app` filter; and a full cursor walk's time and the server's peak RSS through it.
// The server is its own process, restarted after seeding so the peak RSS is the walk's.
import pg from 'pg';
import { client, createDatabase, fixed, init, median, serve, table, timed, type Dialect } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = 30;
const PAGE = 100;
const WALK_PAGE = 1000;
const APPS = ['Code', 'Chrome', 'Slack'];

interface Page {
  screen_activity: unknown[];
  has_more: boolean;
  next_cursor: string | null;
}

async function seed(api: ReturnType<typeof client>) {
  const start = Date.UTC(2026, 0, 1);
  const batches = Math.ceil(ROWS / 1000);
  let next = 0;
  // Four requests in flight: seeding is setup, not a figure.
  const worker = async () => {
    for (let b = next++; b < batches; b = next++) {
      const offset = b * 1000;
      const rows = Array.from({ length: Math.min(1000, ROWS - offset) }, (_, i) => ({
        timestamp: new Date(start + (offset + i) * 1000).toISOString(),
        app_name: APPS[(offset + i) % 3],
        window_title: `window ${offset + i}`,
        ocr_text: 'x'.repeat(200),
      }));
      await api('POST', '/v1/dev/user/screen-activity', { screen_activity: rows });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** Every page of limit 1000 in order; returns the rows seen and each page's next_cursor. */
async function walk(api: ReturnType<typeof client>, query: string) {
  const cursors: string[] = [];
  let rows = 0;
  let page = await api<Page>('GET', `/v1/dev/user/screen-activity?limit=${WALK_PAGE}${query}`);
  for (;;) {
    rows += page.screen_activity.length;
    if (!page.has_more || !page.next_cursor) break;
    cursors.push(page.next_cursor);
    page = await api<Page>(
      'GET',
      `/v1/dev/user/screen-activity?limit=${WALK_PAGE}${query}&cursor=${encodeURIComponent(page.next_cursor)}`,
    );
  }
  return { rows, cursors };
}

async function bench(dialect: Dialect): Promise<string[][]> {
  const db = await createDatabase(dialect);
  try {
    const { developer_key: key } = init(db.url);
    const seeding = await serve(db.url);
    await timed(() => seed(client(seeding.baseUrl, key)));
    await seeding.stop();
    // A production PostgreSQL has statistics for a table loaded a minute ago (autovacuum's ANALYZE runs once
    // 10 % of a table has changed, checked every minute); the bench asks for its first page seconds after a
    // million-row load, before that has happened, and without statistics the planner estimates 39 rows for
    // app=Code, skips the (user_id, app_name, timestamp, id) index and sorts all 333,334 (1.1 s). So the bench
    // does what autovacuum would have done. The server never runs ANALYZE itself.
    if (dialect === 'postgres') {
      const analyzer = new pg.Client({ connectionString: db.url });
      await analyzer.connect();
      try {
        await analyzer.query('ANALYZE screen_activity');
      } finally {
        await analyzer.end();
      }
    }

    const server = await serve(db.url);
    try {
      const api = client(server.baseUrl, key);
      const before = server.rss().peak;
      const all = await timed(() => walk(api, ''));
      const peak = server.rss().peak;
      if (all.value.rows !== ROWS) throw new Error(`the walk saw ${all.value.rows} rows of ${ROWS}`);
      const oneApp = await walk(api, '&app=Code');

      const rows: string[][] = [];
      for (const [label, query, seen] of [
        ['all apps', '', all.value],
        ['app=Code', '&app=Code', oneApp],
      ] as const) {
        // The deepest cursor that still leaves a full page after it.
        const k = seen.cursors.findLastIndex((_, i) => seen.rows - (i + 1) * WALK_PAGE >= PAGE);
        const deep = `&cursor=${encodeURIComponent(seen.cursors[k])}`;
        const page = async (extra: string) => {
          const { ms, value } = await timed(() =>
            api<Page>('GET', `/v1/dev/user/screen-activity?limit=${PAGE}${query}${extra}`),
          );
          if (value.screen_activity.length !== PAGE)
            throw new Error(`a page of ${value.screen_activity.length}`);
          return ms;
        };
        const first: number[] = [];
        const deepest: number[] = [];
        for (let i = 0; i < RUNS; i += 1) {
          first.push(await page(''));
          deepest.push(await page(deep));
        }
        const [f, d] = [median(first), median(deepest)];
        rows.push([
          dialect,
          label,
          `${fixed(f)} ms`,
          `${fixed(d)} ms (row ${(k + 1) * WALK_PAGE} of ${seen.rows})`,
          `**${fixed(d / f)}**`,
        ]);
      }
      rows.push([
        dialect,
        'full walk, limit 1000',
        `${fixed(all.ms / 1000, 1)} s for ${ROWS} rows`,
        `peak RSS ${fixed(peak, 0)} MB (${fixed(before, 0)} MB before)`,
        '',
      ]);
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
}

export async function pagination(): Promise<string> {
  const rows: string[][] = [];
  for (const dialect of (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as Dialect[]) {
    rows.push(...(await bench(dialect)));
  }
  return [
    `${ROWS} rows, pages of ${PAGE}, medians of ${RUNS} alternating requests; the server its own process.`,
    '',
    table(['database', 'filter', 'first page', 'deepest page', 'deep / first'], rows),
  ].join('\n');
}

// 3. Writes: 1000 action items as 20 batches of 50 against 1000 single POSTs, one request at a time, on
// SQLite and PostgreSQL (the server its own process).
import { client, createDatabase, fixed, init, serve, table, timed, type Dialect } from './lib';

const ITEMS = 1000;
const BATCH = 50;

async function bench(dialect: Dialect): Promise<string[]> {
  const db = await createDatabase(dialect);
  try {
    const { developer_key: key } = init(db.url);
    const server = await serve(db.url);
    try {
      const api = client(server.baseUrl, key);
      const singles = await timed(async () => {
        for (let i = 0; i < ITEMS; i += 1)
          await api('POST', '/v1/dev/user/action-items', { description: `single ${i}` });
      });
      const batches = await timed(async () => {
        for (let b = 0; b < ITEMS / BATCH; b += 1) {
          const action_items = Array.from({ length: BATCH }, (_, i) => ({
            description: `batched ${b * BATCH + i}`,
          }));
          await api('POST', '/v1/dev/user/action-items/batch', { action_items });
        }
      });
      const stored = await api<unknown[]>('GET', '/v1/dev/user/action-items?limit=1000');
      if (stored.length !== ITEMS) throw new Error(`expected ${ITEMS} items listed, got ${stored.length}`);
      return [
        dialect,
        `${fixed(singles.ms)} ms`,
        `${fixed(batches.ms)} ms`,
        `**${fixed(singles.ms / batches.ms, 1)}×**`,
      ];
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
}

export async function writes(): Promise<string> {
  const rows: string[][] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) rows.push(await bench(dialect));
  return [
    `${ITEMS} action items, one request at a time.`,
    '',
    table(
      ['database', `${ITEMS} single POSTs`, `${ITEMS / BATCH} batches of ${BATCH}`, 'batches faster by'],
      rows,
    ),
  ].join('\n');
}

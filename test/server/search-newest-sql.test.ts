// PostgreSQL: the newest matches a broad search ranks (two passes over the user's stored order, the newest share
// first) are exactly the RANKED_MATCHES a plain `order by stored desc limit` takes, whatever the stored order's
// gaps, counts and phrases.
import { sql } from 'kysely';
import type { SearchTerms } from '../../server/src/contract/search-query';
import { matching, RANKED_MATCHES, type SearchIndex } from '../../server/src/store/db/search';
import { devClient, ok } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const USER = '/v1/dev/user';
const ROWS = 700;

(DIALECTS.includes('postgres') ? describe : describe.skip)('newest matches on postgres', () => {
  const server = forSuite(() => startServer('postgres'));
  const api = devClient(server);
  const userId = () => server.init.user_id;

  beforeAll(async () => {
    // Every other row matches zebra; one in three of those has the phrase "zebra crossing".
    const text = (i: number) =>
      i % 2 === 0 ? (i % 3 === 0 ? `zebra crossing ${i}` : `crossing a zebra ${i}`) : `lion ${i}`;
    for (let from = 0; from < ROWS; from += 25) {
      const memories = Array.from({ length: 25 }, (_, k) => ({
        content: text(from + k),
        category: 'manual',
      }));
      await ok(api.post(`${USER}/memories/batch`, { memories }));
    }
    for (let i = 0; i < ROWS; i += 1) await ok(api.post(`${USER}/conversations`, { text: text(i) }));
  }, 300_000);

  /** Stored order laid out as `place(n)` for the user's n-th row (by id), far from any other row's. */
  async function layOut(index: SearchIndex, place: string) {
    const table = sql.table(`${index}_search`);
    await sql`update ${table} s set stored = o.place from (select id, ${sql.raw(place)} as place
      from (select id, row_number() over (order by id) - 1 as n from ${table} where user_id = ${userId()}) r) o
      where o.id = s.id`.execute(server.store.db);
  }

  async function compare(index: SearchIndex, terms: SearchTerms, tsquery: string) {
    const db = server.store.db;
    const found = await sql<{
      id: string;
    }>`select m.id from ${matching(db, index, terms, userId(), { newest: true })}`.execute(db);
    const plain = await sql<{ id: string }>`select id from ${sql.table(`${index}_search`)}
      where document @@ (${sql.raw(tsquery)}) and user_id = ${userId()} order by stored desc limit ${RANKED_MATCHES}`.execute(
      db,
    );
    expect(plain.rows.length).toBeGreaterThan(0);
    expect(found.rows.map((r) => r.id).sort()).toEqual(plain.rows.map((r) => r.id).sort());
  }

  const LAYOUTS: Record<string, string> = {
    'dense, one pass': '10000000 + n',
    'gaps of 10 (newest share short of 500)': '20000000 + n * 10',
    'one row far past the others': 'case when n = 699 then 90000000 else 30000000 + n end',
    'one row far before the others': 'case when n = 0 then 1000 else 40000000 + n * 5 end',
    'a span of 2,500 places (a share of exactly 500)': '50000000 + n * 2500 / 699',
    'newest rows dense, older sparse': 'case when n > 600 then 60000000 + n else 50500000 + n * 100 end',
  };
  const QUERIES: [string, SearchTerms, string][] = [
    ['a word', { words: ['zebra'], phrases: [] }, "plainto_tsquery('english', 'zebra')"],
    [
      'a phrase',
      { words: [], phrases: [['zebra', 'crossing']] },
      "phraseto_tsquery('english', 'zebra crossing')",
    ],
    [
      'a word and a phrase',
      { words: ['crossing'], phrases: [['zebra', 'crossing']] },
      "plainto_tsquery('english', 'crossing') && phraseto_tsquery('english', 'zebra crossing')",
    ],
    ['rare words', { words: ['lion', '699'], phrases: [] }, "plainto_tsquery('english', 'lion 699')"],
  ];

  for (const [layout, place] of Object.entries(LAYOUTS))
    for (const index of ['memories', 'conversations'] as const)
      for (const [what, terms, tsquery] of QUERIES)
        it(`${index}, ${layout}: ${what}`, async () => {
          await layOut(index, place);
          await compare(index, terms, tsquery);
        });
});

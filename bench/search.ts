// 9. Search: 10,000 conversations with transcripts and 10,000 memories of one user, written through the API (so
// the indexes are built by the writes' own triggers); then the latency of a search against a GET of one record
// by id, one request at a time, on SQLite and PostgreSQL. The response cache is off: a GET by id would
// otherwise be answered from memory, and a search never is. PostgreSQL's statistics are gathered once the data is
// written, as autovacuum would in production (the test server runs without it), so its plans are the ones users get.
import pg from 'pg';
import { client, createDatabase, fixed, init, median, percentile, serve, table, type Dialect } from './lib';

const CONVERSATIONS = 10_000;
const MEMORIES = 10_000;
const SEGMENTS = 20;
const WORDS_PER_SEGMENT = 15;
const SAMPLES = 200;
const WARMUP = 20;
const CONCURRENCY = 8;

/** A deterministic generator (mulberry32), so every run seeds the same data set. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A vocabulary of made-up words drawn with Zipf-like frequencies, as words in speech are: the first few occur in
// nearly every conversation, the last in a handful.
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ten',
  'ru',
  'sa',
  'vor',
  'ne',
  'pli',
  'dom',
  'gu',
  'fa',
  'rix',
  'to',
  'bel',
];
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => {
  let word = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word + 'o';
});
const CUMULATIVE = (() => {
  let sum = 0;
  return VOCABULARY.map((_, i) => (sum += 1 / (i + 1)));
})();

function wordFrom(next: () => number): string {
  const target = next() * CUMULATIVE[CUMULATIVE.length - 1];
  let low = 0;
  let high = CUMULATIVE.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (CUMULATIVE[mid] < target) low = mid + 1;
    else high = mid;
  }
  return VOCABULARY[low];
}

const sentence = (next: () => number, words: number) =>
  Array.from({ length: words }, () => wordFrom(next)).join(' ');

/**
 * The queries timed, from broad to narrow: how many of the 10,000 conversations (of 331 words each) and memories
 * (12 words) each one matches follows from the frequencies above, and a search ranks every match.
 */
const QUERIES: [string, string][] = [
  ['a word in ~all conversations, ~75% of memories', VOCABULARY[0]],
  ['a word in ~47% of conversations, ~2% of memories', VOCABULARY[60]],
  ['a word in ~1.5% of conversations, ~6 memories', VOCABULARY[2500]],
  ['two words, both in ~60% of conversations', `${VOCABULARY[3]} ${VOCABULARY[40]}`],
  ['a phrase in ~90% of conversations', `"${VOCABULARY[0]} ${VOCABULARY[1]}"`],
  // No record has a word outside the vocabulary: the search finds none with every word, then those with any.
  ['a question none holds in full: any of its words', `${VOCABULARY[60]} ${VOCABULARY[2500]} zeppelin`],
];

async function p50Of(url: string, key: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
    const t0 = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
    if (i >= WARMUP) times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

async function bench(dialect: Dialect): Promise<string[][]> {
  const db = await createDatabase(dialect);
  try {
    const { developer_key: key } = init(db.url);
    const server = await serve(db.url, { env: { DEVDATA_RESPONSE_CACHE_MB: '0' } });
    try {
      const api = client(server.baseUrl, key);
      const next = random(28);
      const ids: string[] = [];
      const bodies = Array.from({ length: CONVERSATIONS }, (_, c) => ({
        started_at: new Date(Date.UTC(2026, 0, 1) + c * 3_600_000).toISOString(),
        structured: { title: sentence(next, 6), overview: sentence(next, 25) },
        transcript_segments: Array.from({ length: SEGMENTS }, (_, s) => ({
          text: sentence(next, WORDS_PER_SEGMENT),
          speaker: `SPEAKER_0${s % 2}`,
          start: s * 5,
          end: s * 5 + 4,
        })),
      }));
      for (let from = 0; from < bodies.length; from += CONCURRENCY) {
        const created = await Promise.all(
          bodies
            .slice(from, from + CONCURRENCY)
            .map((body) => api<{ id: string }>('POST', '/v1/dev/user/conversations/from-segments', body)),
        );
        ids.push(...created.map((conversation) => conversation.id));
      }
      for (let from = 0; from < MEMORIES; from += 25) {
        const memories = Array.from({ length: 25 }, () => ({ content: sentence(next, 12) }));
        await api('POST', '/v1/dev/user/memories/batch', { memories });
      }

      if (dialect === 'postgres') {
        const analyze = new pg.Client({ connectionString: db.url });
        await analyze.connect();
        await analyze.query('analyze');
        await analyze.end();
      }
      const base = `${server.baseUrl}/v1/dev/user`;
      const byId = await p50Of(`${base}/conversations/${ids[Math.floor(ids.length / 2)]}`, key);
      const rows: string[][] = [[dialect, 'GET conversation by id', `${fixed(byId)} ms`, '1×']];
      const ratios: number[] = [];
      for (const [kind, query] of QUERIES) {
        for (const [record, path] of [
          ['conversations', '/conversations/search'],
          ['memories', '/memories/search'],
        ]) {
          const found = await api<unknown[]>('GET', `/v1/dev/user${path}?query=${encodeURIComponent(query)}`);
          if (found.length === 0) throw new Error(`search ${record} for ${query} found nothing`);
          const p50 = await p50Of(`${base}${path}?query=${encodeURIComponent(query)}`, key);
          ratios.push(p50 / byId);
          rows.push([dialect, `search ${record}: ${kind}`, `${fixed(p50)} ms`, `${fixed(p50 / byId, 1)}×`]);
        }
      }
      rows.push([dialect, '**median of the searches**', '', `**${fixed(median(ratios), 1)}×**`]);
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
}

export async function search(): Promise<string> {
  const rows: string[][] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) rows.push(...(await bench(dialect)));
  return [
    `${CONVERSATIONS.toLocaleString('en')} conversations (${SEGMENTS} segments of ${WORDS_PER_SEGMENT} words, a ` +
      `title and an overview each) and ${MEMORIES.toLocaleString('en')} memories of one user, made-up words with ` +
      `Zipf-like frequencies; p50 of ${SAMPLES} requests one at a time (default limit 10, no transcripts), response ` +
      'cache off. The ratio is against the GET by id of the same run.',
    '',
    table(['database', 'request', 'p50', 'against GET by id'], rows),
  ].join('\n');
}

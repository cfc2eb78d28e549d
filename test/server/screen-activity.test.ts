import { errorBody, validationErrorBody } from '../../server/src/contract/common';
import { createScreenActivityResponse, screenActivityPage } from '../../server/src/contract/screen-activity';
import { devClient, expectShape, keyWithScopes, newUser, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const PATH = '/v1/dev/user/screen-activity';
const FIVE_MIN = 5 * 60_000;
const BASE_MS = Date.parse('2026-03-01T00:00:00.000Z');
const APPS = ['Code', 'Slack', 'code'];

interface Entry {
  timestamp: string;
  app_name: string;
  window_title: string;
  ocr_text: string;
}
interface StoredRecord extends Entry {
  id: string;
}

/** A small deterministic PRNG (mulberry32), so the data set is the same on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 3000 rows, three per timestamp (five minutes apart, 2026-03-01 to 2026-03-04), apps picked at random so an
 * app also repeats within one timestamp, in shuffled order so id order differs from timestamp order.
 */
function dataSet(): Entry[] {
  const random = prng(42);
  const entries = Array.from({ length: 3000 }, (_, i) => ({
    timestamp: new Date(BASE_MS + Math.floor(i / 3) * FIVE_MIN).toISOString(),
    app_name: APPS[Math.floor(random() * APPS.length)],
    window_title: `window ${i}`,
    ocr_text: `text seen on screen ${i}`,
  }));
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  return entries;
}

const sameOrder = (a: StoredRecord, b: StoredRecord) =>
  Date.parse(a.timestamp) - Date.parse(b.timestamp) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe.each(DIALECTS)('screen activity on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const countFor = (userId: string) => server.count('screen_activity', { user_id: userId });

  /** Follows next_cursor to the end; checks every page but the last is full. */
  async function walk(client: Client, query: Record<string, string | number>, limit?: number) {
    const records: StoredRecord[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages > 500) throw new Error('cursor walk does not end');
      const reply = await client.get(PATH, { ...query, limit, cursor });
      expect(reply.status).toBe(200);
      const page = expectShape(screenActivityPage, reply.body);
      records.push(...page.screen_activity);
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        return records;
      }
      expect(page.screen_activity).toHaveLength(limit ?? 100);
      expect(typeof page.next_cursor).toBe('string');
      cursor = page.next_cursor as string;
    }
  }

  describe('a walk over a few thousand rows', () => {
    let user: Awaited<ReturnType<typeof newUser>>;
    let stored: StoredRecord[];

    beforeAll(async () => {
      user = await newUser(server);
      const entries = dataSet();
      // Edge rows around the UTC day 2026-03-02, on top of the data set's own row at 2026-03-02T00:00:00.000Z.
      entries.push(
        { timestamp: '2026-03-01T23:59:59.999Z', app_name: 'Code', window_title: 'edge a', ocr_text: '' },
        { timestamp: '2026-03-02T23:59:59.999Z', app_name: 'Code', window_title: 'edge b', ocr_text: '' },
        {
          timestamp: '2026-03-03T00:00:00.000+00:00',
          app_name: 'Slack',
          window_title: 'edge c',
          ocr_text: '',
        },
      );
      for (let start = 0; start < entries.length; start += 1000) {
        const reply = await user.client.post(PATH, { screen_activity: entries.slice(start, start + 1000) });
        expect(reply.status).toBe(200);
        expect(expectShape(createScreenActivityResponse, reply.body)).toEqual({
          created_count: Math.min(1000, entries.length - start),
        });
      }
      const rows = await server.store.db
        .selectFrom('screen_activity')
        .selectAll()
        .where('user_id', '=', user.id)
        .execute();
      stored = rows
        .map((r) => ({
          id: r.id,
          timestamp: new Date(r.timestamp).toISOString(),
          app_name: r.app_name,
          window_title: r.window_title,
          ocr_text: r.ocr_text,
        }))
        .sort(sameOrder);
      // Everything sent was stored once, as sent.
      expect(stored).toHaveLength(3003);
      const sent = new Map(entries.map((e) => [e.window_title, e]));
      for (const r of stored) {
        const e = sent.get(r.window_title)!;
        expect([r.app_name, r.ocr_text, r.timestamp]).toEqual([
          e.app_name,
          e.ocr_text,
          new Date(e.timestamp).toISOString(),
        ]);
      }
    });

    it('returns every row once, by timestamp then id, without filters', async () => {
      const walked = await walk(user.client, {}, 250);
      expect(walked.map((r) => r.id)).toEqual(stored.map((r) => r.id));
      expect(walked).toEqual(stored);
      // Ids alone would give another order: the test data does exercise the timestamp ordering.
      expect([...walked].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => r.id)).not.toEqual(
        walked.map((r) => r.id),
      );
    });

    it('uses 100 as the default page size', async () => {
      const first = expectShape(screenActivityPage, (await user.client.get(PATH)).body);
      expect(first.screen_activity.map((r) => r.id)).toEqual(stored.slice(0, 100).map((r) => r.id));
      expect(first.has_more).toBe(true);
      const all = await walk(user.client, {});
      expect(all.map((r) => r.id)).toEqual(stored.map((r) => r.id));
    });

    it('filters by exact, case-sensitive app name', async () => {
      for (const app of ['Code', 'code']) {
        const expected = stored.filter((r) => r.app_name === app);
        expect(expected.length).toBeGreaterThan(500);
        const walked = await walk(user.client, { app }, 97);
        expect(walked.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      }
      expect(await walk(user.client, { app: 'CODE' }, 10)).toEqual([]);
      expect(await walk(user.client, { app: 'Cod' }, 10)).toEqual([]);
    });

    it('filters a date-only range as whole UTC days', async () => {
      const from = Date.parse('2026-03-02T00:00:00.000Z');
      const to = Date.parse('2026-03-02T23:59:59.999Z');
      const expected = stored.filter((r) => Date.parse(r.timestamp) >= from && Date.parse(r.timestamp) <= to);
      const walked = await walk(user.client, { start_date: '2026-03-02', end_date: '2026-03-02' }, 113);
      expect(walked.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      expect(walked[0].timestamp).toBe('2026-03-02T00:00:00.000Z');
      expect(walked.at(-1)!.window_title).toBe('edge b');
      expect(walked.map((r) => r.window_title)).not.toContain('edge a');
      expect(walked.map((r) => r.window_title)).not.toContain('edge c');
    });

    it('combines app and date-time bounds with offsets', async () => {
      const from = Date.parse('2026-03-01T12:00:00Z');
      const to = Date.parse('2026-03-03T10:00:00Z');
      const expected = stored.filter(
        (r) => r.app_name === 'Slack' && Date.parse(r.timestamp) >= from && Date.parse(r.timestamp) <= to,
      );
      const walked = await walk(
        user.client,
        { app: 'Slack', start_date: '2026-03-01T12:00:00Z', end_date: '2026-03-03T12:00:00+02:00' },
        41,
      );
      expect(walked.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      const startOnly = await walk(user.client, { start_date: '2026-03-04' }, 1000);
      expect(startOnly.map((r) => r.id)).toEqual(
        stored.filter((r) => Date.parse(r.timestamp) >= Date.parse('2026-03-04T00:00:00Z')).map((r) => r.id),
      );
    });

    it('refuses a malformed cursor and a cursor reused with other filters', async () => {
      const first = await user.client.get(PATH, { app: 'Code', limit: 10 });
      expect(first.status).toBe(200);
      const cursor = first.body.next_cursor as string;
      expect(typeof cursor).toBe('string');

      // Same filters with another page size is fine, and continues right after the first page.
      const resized = await user.client.get(PATH, { app: 'Code', limit: 5, cursor });
      expect(resized.status).toBe(200);
      const code = stored.filter((r) => r.app_name === 'Code');
      expect(resized.body.screen_activity.map((r: StoredRecord) => r.id)).toEqual(
        code.slice(10, 15).map((r) => r.id),
      );

      for (const query of [
        { app: 'Slack', cursor },
        { cursor },
        { app: 'Code', start_date: '2026-03-01', cursor },
      ]) {
        const reply = await user.client.get(PATH, query);
        expect(reply.status).toBe(422);
        const body = expectShape(validationErrorBody, reply.body);
        expect(body.detail[0].loc).toEqual(['query', 'cursor']);
      }
      const malformed = [
        'not a cursor!',
        'abc',
        Buffer.from('{"t":"x","i":1}').toString('base64url'),
        Buffer.from('[1,2]').toString('base64url'),
        cursor.slice(0, -4),
      ];
      for (const bad of malformed) {
        const reply = await user.client.get(PATH, { app: 'Code', cursor: bad });
        expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
        expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', 'cursor']);
      }
    });

    it('is invisible to other users', async () => {
      const other = await newUser(server);
      const page = expectShape(screenActivityPage, (await other.client.get(PATH)).body);
      expect(page).toEqual({ has_more: false, next_cursor: null, screen_activity: [] });
    });
  });

  it('validates query parameters with FastAPI bodies', async () => {
    const cases: [Record<string, string>, (string | number)[]][] = [
      [{ limit: '0' }, ['query', 'limit']],
      [{ limit: '1001' }, ['query', 'limit']],
      [{ limit: '2.5' }, ['query', 'limit']],
      [{ limit: 'ten' }, ['query', 'limit']],
      [{ start_date: 'yesterday' }, ['query', 'start_date']],
      [{ end_date: '2026-02-30x' }, ['query', 'end_date']],
    ];
    for (const [query, loc] of cases) {
      const reply = await api.get(PATH, query);
      expect({ query, status: reply.status }).toEqual({ query, status: 422 });
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(loc);
    }
    expect((await api.get(PATH, { limit: 1000 })).status).toBe(200);
    expect((await api.get(PATH, { limit: 1 })).status).toBe(200);
  });

  it('writes a batch whole or not at all', async () => {
    const user = await newUser(server);
    const row = (i: number) => ({
      timestamp: `2026-05-01T10:00:${String(i % 60).padStart(2, '0')}Z`,
      app_name: 'Terminal',
      window_title: `w${i}`,
      ocr_text: 'x'.repeat(1000),
    });
    const ok = await user.client.post(PATH, {
      screen_activity: [row(1), { timestamp: '2026-05-01T11:00:00Z', app_name: 'Mail' }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ created_count: 2 });
    const defaults = expectShape(screenActivityPage, (await user.client.get(PATH, { app: 'Mail' })).body);
    expect(defaults.screen_activity[0]).toMatchObject({ window_title: '', ocr_text: '' });
    expect(await countFor(user.id)).toBe(2);

    const lastBad = Array.from({ length: 1000 }, (_, i) => row(i));
    lastBad[999] = { ...row(999), ocr_text: 'y'.repeat(1001) };
    const cases: [unknown, (string | number)[]][] = [
      [{ screen_activity: lastBad }, ['body', 'screen_activity', 999, 'ocr_text']],
      [{ screen_activity: Array.from({ length: 1001 }, (_, i) => row(i)) }, ['body', 'screen_activity']],
      [{ screen_activity: [] }, ['body', 'screen_activity']],
      [{ screen_activity: 'rows' }, ['body', 'screen_activity']],
      [{}, ['body', 'screen_activity']],
      [
        { screen_activity: [row(1), { ...row(2), timestamp: 'yesterday' }] },
        ['body', 'screen_activity', 1, 'timestamp'],
      ],
      [{ screen_activity: [{ ...row(1), app_name: 7 }] }, ['body', 'screen_activity', 0, 'app_name']],
      [{ screen_activity: [{ ...row(1), app_name: '' }] }, ['body', 'screen_activity', 0, 'app_name']],
    ];
    for (const [body, loc] of cases) {
      const reply = await user.client.post(PATH, body);
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(loc);
    }
    expect(await countFor(user.id)).toBe(2);
  });

  it('refuses missing and wrong credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}${PATH}`);
    expect(anonymous.status).toBe(401);
    expect(expectShape(errorBody, await anonymous.json()).detail).toBe(
      "Missing or invalid Authorization header. Must be 'Bearer API_KEY'",
    );
    const post = await fetch(`${server.baseUrl}${PATH}`, { method: 'POST' });
    expect(post.status).toBe(401);

    const entry = { timestamp: '2026-05-01T10:00:00Z', app_name: 'Terminal' };
    const writeOnly = await keyWithScopes(server, ['screen_activity:write']);
    const read = await writeOnly.get(PATH);
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ detail: 'Insufficient permissions. Required scope: screen_activity:read' });
    expect((await writeOnly.post(PATH, { screen_activity: [entry] })).status).toBe(200);

    const readOnly = await keyWithScopes(server, ['screen_activity:read']);
    const write = await readOnly.post(PATH, { screen_activity: [entry] });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ detail: 'Insufficient permissions. Required scope: screen_activity:write' });
    expect((await readOnly.get(PATH)).status).toBe(200);
  });
});

// The response cache (server/src/http/response-cache.ts) keeps the JSON of list and record answers while the data
// is unchanged. It must never answer with data older than the last acknowledged write: not after a write through
// the API, not after a commit by another connection to the same SQLite file, not to another user, not under
// concurrent writes.
import { ResponseCache } from '../../server/src/http/response-cache';
import { actionItemsRepository } from '../../server/src/store/action-items';
import { openStore } from '../../server/src/store/db/database';
import { devClient, newUser } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const LIST = '/v1/dev/user/action-items';
const descriptions = (body: Array<{ description: string }>) => body.map((item) => item.description).sort();

describe.each(DIALECTS)('answers on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  it('show every write acknowledged before the read', async () => {
    const { client: user } = await newUser(server);
    const list = async () => {
      const reply = await user.get(LIST, { limit: 100 });
      expect(reply.status).toBe(200);
      return reply.body as Array<{ id: string; description: string; completed: boolean }>;
    };
    expect(await list()).toEqual([]);
    expect(await list()).toEqual([]);

    const created = await user.post(LIST, { description: 'one' });
    expect(created.status).toBe(200);
    expect(descriptions(await list())).toEqual(['one']);

    expect((await user.post(`${LIST}/batch`, { action_items: [{ description: 'two' }] })).status).toBe(200);
    expect(descriptions(await list())).toEqual(['one', 'two']);

    expect((await user.patch(`${LIST}/${created.body.id}`, { completed: true })).status).toBe(200);
    expect((await list()).find((item) => item.id === created.body.id)?.completed).toBe(true);

    expect((await user.delete(`${LIST}/${created.body.id}`)).status).toBe(200);
    expect(descriptions(await list())).toEqual(['two']);
  });

  it('are each user’s own for the same URL', async () => {
    const first = await newUser(server);
    const second = await newUser(server);
    expect((await first.client.post(LIST, { description: 'first’s' })).status).toBe(200);
    expect(descriptions((await first.client.get(LIST)).body)).toEqual(['first’s']);
    expect((await second.client.get(LIST)).body).toEqual([]);
    expect(descriptions((await first.client.get(LIST)).body)).toEqual(['first’s']);
  });

  it('answer each URL for itself', async () => {
    const { client: user } = await newUser(server);
    for (const description of ['first', 'second', 'third']) {
      expect((await user.post(LIST, { description })).status).toBe(200);
    }
    for (let round = 0; round < 2; round += 1) {
      expect((await user.get(LIST, { limit: 1 })).body).toHaveLength(1);
      expect((await user.get(LIST, { limit: 2 })).body).toHaveLength(2);
      expect((await user.get(LIST)).body).toHaveLength(3);
      const oldestFirst = (await user.get(LIST, { order: 'updated_at' })).body;
      expect(oldestFirst.map((item: { description: string }) => item.description)).toEqual([
        'first',
        'second',
        'third',
      ]);
    }
  });

  it('hold every acknowledged write while reads and writes run concurrently', async () => {
    const { client: user } = await newUser(server);
    const acknowledged = new Set<string>();
    const writer = async (name: string) => {
      for (let i = 0; i < 25; i += 1) {
        const description = `${name} ${i}`;
        expect((await user.post(LIST, { description })).status).toBe(200);
        acknowledged.add(description);
      }
    };
    const reader = async () => {
      for (let i = 0; i < 60; i += 1) {
        const before = [...acknowledged];
        const reply = await user.get(LIST, { limit: 100 });
        expect(reply.status).toBe(200);
        const seen = new Set(descriptions(reply.body));
        expect(before.filter((description) => !seen.has(description))).toEqual([]);
      }
    };
    await Promise.all([writer('a'), writer('b'), reader(), reader(), reader()]);
    expect(descriptions((await user.get(LIST, { limit: 100 })).body)).toEqual([...acknowledged].sort());
  });

  it('show a record as its last acknowledged write left it', async () => {
    const { client: user } = await newUser(server);
    const created = await user.post('/v1/dev/user/goals', { title: 'Read', target_value: 10 });
    expect(created.status).toBe(200);
    const path = `/v1/dev/user/goals/${created.body.id}`;
    let stored = created.body.current_value as number;
    for (const value of [1, 2, 3]) {
      // Read twice before the write, so that the answer is kept when the cache keeps any.
      for (let read = 0; read < 2; read += 1) expect((await user.get(path)).body.current_value).toBe(stored);
      expect((await user.patch(path, { current_value: value })).status).toBe(200);
      const read = await user.get(path);
      expect(read.status).toBe(200);
      expect(read.body.current_value).toBe(value);
      stored = value;
    }
  });

  it('give a record only to its owner, and each URL of it its own answer', async () => {
    const owner = await newUser(server);
    const other = await newUser(server);
    const conversation = await owner.client.post('/v1/dev/user/conversations', {
      text: 'Ship the release on Friday',
    });
    expect(conversation.status).toBe(200);
    const path = `/v1/dev/user/conversations/${conversation.body.id}`;
    for (let round = 0; round < 2; round += 1) {
      const bare = await owner.client.get(path);
      expect(bare.status).toBe(200);
      expect(bare.body.transcript_segments).toBeUndefined();
      const full = await owner.client.get(path, { include_transcript: true });
      expect(full.status).toBe(200);
      expect(full.body.transcript_segments).toEqual([
        expect.objectContaining({ text: 'Ship the release on Friday' }),
      ]);
      const stranger = await other.client.get(path);
      expect(stranger.status).toBe(404);
      expect(stranger.body).toEqual({ detail: 'Conversation not found' });
    }
  });

  it('keep nothing on PostgreSQL, and on SQLite only outside a transaction and until the next commit', async () => {
    const cache = new ResponseCache(server.store.dataVersion, 1_000_000);
    let reads = 0;
    const read = async () => `[${(reads += 1)}]`;
    const answer = async () => String(await cache.answer('user /list', read));

    await answer();
    await answer();
    if (dialect === 'postgres') {
      expect(reads).toBe(2);
      return;
    }
    expect(reads).toBe(1);
    // A commit on the server's own connection.
    await actionItemsRepository(server.store.db).create(server.init.user_id, {
      description: 'changed',
      completed: false,
    });
    expect(await answer()).toBe('[2]');
    expect(await answer()).toBe('[2]');
    // A commit while a read is under way, seen by another request before the read ends: what that read
    // returns is from before the commit and must not be kept.
    const during = await cache.answer('user /during', async () => {
      const before = '[before]';
      await actionItemsRepository(server.store.db).create(server.init.user_id, {
        description: 'during a read',
        completed: false,
      });
      await cache.answer('user /other', async () => '[other]');
      return before;
    });
    expect(String(during)).toBe('[before]');
    expect(String(await cache.answer('user /during', async () => '[after]'))).toBe('[after]');
    expect(await answer()).toBe('[3]');
    // While a transaction is open nothing is answered from or kept in the cache.
    await server.store.db.transaction().execute(async () => {
      expect(await answer()).toBe('[4]');
      expect(await answer()).toBe('[5]');
    });
  });

  if (dialect === 'sqlite') {
    it('show a commit made by another connection to the same file (another process) at once', async () => {
      const before = await api.get(LIST, { limit: 100 });
      expect((await api.get(LIST, { limit: 100 })).body).toEqual(before.body);
      const other = openStore(server.databaseUrl);
      try {
        await actionItemsRepository(other.db).create(server.init.user_id, {
          description: 'from elsewhere',
          completed: false,
        });
      } finally {
        await other.close();
      }
      const after = await api.get(LIST, { limit: 100 });
      expect(descriptions(after.body)).toContain('from elsewhere');
      expect(after.body).toHaveLength(before.body.length + 1);
    });

    it('keep one answer per caller, route, path and query as checked, and answer from it again', async () => {
      const { client: user } = await newUser(server);
      const { client: other } = await newUser(server);
      const goal = await user.post('/v1/dev/user/goals', { title: 'Kept', target_value: 3 });
      expect(goal.status).toBe(200);
      const path = `/v1/dev/user/goals/${goal.body.id}`;
      const cache = server.app.responseCache;
      const reads = async (...urls: [string, Record<string, string | number>?][]) => {
        for (const [url, query] of urls) expect((await user.get(url, query)).status).toBe(200);
        return cache.entries;
      };
      // The write above drops everything at the next answer, which is then the one kept.
      expect(await reads([path])).toBe(1);
      expect(await reads([path], [path, { unknown: 1 }])).toBe(1);
      expect(await reads([LIST, { limit: 5 }], [LIST, { limit: 5, unknown: 'x' }])).toBe(2);
      expect(await reads([LIST, { limit: 6 }], [LIST])).toBe(4);
      // A missing record is a 404, and nothing is kept for it.
      expect((await user.get('/v1/dev/user/goals/gl_missing')).status).toBe(404);
      expect(cache.entries).toBe(4);
      // Another user asking for the same URL has an entry of their own; their key's first request writes its
      // last use, bookkeeping that no answer shows, which leaves the other entries kept.
      expect((await other.get(LIST, { limit: 5 })).status).toBe(200);
      expect(cache.entries).toBe(5);
    });

    it('keeps at most its room, each answer at most an eighth of it, the least recently used going first', async () => {
      // An entry costs its answer's bytes, twice its key's length and 100: 202 for a 100-byte answer under a
      // one-letter key, so eight of them fill the room exactly and 'big' (207) is over an eighth of it.
      const cache = new ResponseCache(server.store.dataVersion, 8 * 202);
      const reads: string[] = [];
      const answer = (key: string, bytes: number) =>
        cache.answer(key, async () => {
          reads.push(key);
          return 'x'.repeat(bytes);
        });
      await answer('big', 101);
      await answer('big', 101);
      expect(reads).toEqual(['big', 'big']);
      for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) await answer(key, 100);
      await answer('a', 100);
      await answer('i', 100);
      reads.length = 0;
      // 'b' was the least recently used when 'i' came; 'a' was used again just before.
      for (const key of ['a', 'c', 'i', 'b']) await answer(key, 100);
      expect(reads).toEqual(['b']);
    });
  }
});

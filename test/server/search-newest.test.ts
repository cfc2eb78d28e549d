// A search that asks only for the best ranks the RANKED_MATCHES of the caller's matches stored last (a broad query
// would otherwise rank every match); a filter makes it rank all of them. Another user's matches never count
// towards the caller's.
import { MAX_MEMORY_BATCH } from '../../server/src/contract/memories';
import { memorySearchResult } from '../../server/src/contract/search';
import { RANKED_MATCHES } from '../../server/src/store/db/search';
import { devClient, expectShape, newUser, ok, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const USER = '/v1/dev/user';

describe.each(DIALECTS)('search ranking the newest matches on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  async function remember(client: Client, count: number, content: (i: number) => string) {
    const ids: string[] = [];
    for (let from = 0; from < count; from += MAX_MEMORY_BATCH) {
      const memories = Array.from({ length: Math.min(MAX_MEMORY_BATCH, count - from) }, (_, i) => ({
        content: content(from + i),
        category: 'manual',
      }));
      const created = await ok(client.post(`${USER}/memories/batch`, { memories }));
      ids.push(...(created.memories as { id: string }[]).map((memory) => memory.id));
    }
    return ids;
  }
  const search = async (query: Record<string, string>) =>
    expectShape(memorySearchResult.array(), await ok(api.get(`${USER}/memories/search`, query))).map(
      (result) => result.memory.id,
    );

  let oldest: string;
  let newest: string[];
  let strangers: string[];

  beforeAll(async () => {
    const best = await ok(
      api.post(`${USER}/memories`, { content: 'zebra zebra zebra zebra', category: 'interesting' }),
    );
    oldest = best.id;
    newest = await remember(api, RANKED_MATCHES, (i) => `a zebra crossing number ${i} on the long road home`);
    // Another user's matches, all stored after ours and as relevant as our best.
    const stranger = await newUser(server);
    strangers = await remember(stranger.client, RANKED_MATCHES + 1, () => 'zebra crossing zebra crossing');
  });

  it('ranks the newest of the caller’s matches when only the best are asked for', async () => {
    const found = await search({ query: 'zebra', limit: '100' });
    expect(found).toHaveLength(100);
    expect(found.every((id) => newest.includes(id))).toBe(true);
    expect(found).not.toContain(oldest);
  });

  it('ranks every match when a filter is given', async () => {
    expect(await search({ query: 'zebra', categories: 'interesting,manual', limit: '1' })).toEqual([oldest]);
  });

  it('never counts or returns another user’s matches', async () => {
    const found = await search({ query: 'zebra crossing' });
    expect(found).toHaveLength(10);
    expect(found.some((id) => strangers.includes(id))).toBe(false);
  });
});

// The change feed as a sync client reads it: a poller that remembers its position (updated_at, id), walks to the
// end of a list, and the four lists the feed covers with ways to create and change their records.
import { ok, type Client, type Query } from './http';

export const DEV = '/v1/dev/user';
/** The tombstones of deleted records. */
export const DELETED = `${DEV}/deleted`;

/** The tables behind the four lists the feed covers. */
export type FeedTable = 'action_items' | 'conversations' | 'memories' | 'goals';

/** What the feed orders by; every record of the four lists has these. */
export interface Change {
  id: string;
  updated_at: string;
}

/** Orders records by feed position: updated_at, then id. */
export const byPosition = (a: Change, b: Change) =>
  Date.parse(a.updated_at) - Date.parse(b.updated_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Asserts that positions (updated_at, id) strictly increase along `records`. */
export function expectAscending(records: Change[]) {
  for (let i = 1; i < records.length; i++) {
    if (byPosition(records[i - 1], records[i]) >= 0) {
      throw new Error(
        `position ${i} does not follow ${i - 1}: ${JSON.stringify(records.slice(i - 1, i + 1))}`,
      );
    }
  }
}

/**
 * A poller as a sync client runs it: remembers the position (updated_at, id) of the last record it received
 * and asks for what follows. A page shorter than the limit means "up to date for now".
 */
export function pager(api: Client, path: string, limit: number, query: Query = {}) {
  let since: string | undefined;
  let afterId: string | undefined;
  return {
    get position() {
      return { since, afterId };
    },
    async next(): Promise<Change[]> {
      const reply = await api.get(path, {
        ...query,
        order: 'updated_at',
        limit,
        updated_since: since,
        after_id: afterId,
      });
      expect({ path, status: reply.status, body: reply.status === 200 ? 'ok' : reply.body }).toEqual({
        path,
        status: 200,
        body: 'ok',
      });
      const page = reply.body as Change[];
      expect(page.length).toBeLessThanOrEqual(limit);
      const last = page.at(-1);
      if (last) {
        since = last.updated_at;
        afterId = last.id;
      }
      return page;
    },
  };
}

/** Pages to the end (the first short page). */
export async function walk(api: Client, path: string, limit: number, query: Query = {}): Promise<Change[]> {
  const p = pager(api, path, limit, query);
  const all: Change[] = [];
  for (let pages = 0; ; pages++) {
    if (pages > 2000) throw new Error('walk does not end');
    const page = await p.next();
    all.push(...page);
    if (page.length < limit) return all;
  }
}

/** Runs `tasks` with at most `width` under way at once. */
export async function inParallel<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += width) {
    results.push(...(await Promise.all(tasks.slice(i, i + width).map((t) => t()))));
  }
  return results;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A list the feed covers, and how to create and change its records over HTTP. */
export interface FeedResource {
  name: string;
  path: string;
  table: FeedTable;
  /** Creates `n` records (in batches where the resource has them). */
  create(api: Client, n: number): Promise<void>;
  /** Changes record `id` for real; `round` makes every change different. */
  update(api: Client, id: string, round: number): Promise<void>;
}

/** The four lists of the change feed. */
export const FEED_RESOURCES: FeedResource[] = [
  {
    name: 'action items',
    path: `${DEV}/action-items`,
    table: 'action_items',
    async create(api, n) {
      for (let i = 0; i < n; i += 50) {
        const items = Array.from({ length: Math.min(50, n - i) }, (_, j) => ({
          description: `item ${i + j}`,
        }));
        await ok(api.post(`${DEV}/action-items/batch`, { action_items: items }), 200);
      }
    },
    async update(api, id, round) {
      await ok(api.patch(`${DEV}/action-items/${id}`, { description: `changed ${round}` }));
    },
  },
  {
    name: 'memories',
    path: `${DEV}/memories`,
    table: 'memories',
    async create(api, n) {
      for (let i = 0; i < n; i += 25) {
        const memories = Array.from({ length: Math.min(25, n - i) }, (_, j) => ({
          content: `fact ${i + j}`,
        }));
        await ok(api.post(`${DEV}/memories/batch`, { memories }), 200);
      }
    },
    async update(api, id, round) {
      await ok(api.patch(`${DEV}/memories/${id}`, { content: `edited ${round}` }));
    },
  },
  {
    name: 'conversations',
    path: `${DEV}/conversations`,
    table: 'conversations',
    async create(api, n) {
      await inParallel(
        8,
        Array.from(
          { length: n },
          (_, i) => () => ok(api.post(`${DEV}/conversations`, { text: `talk ${i}` }), 200),
        ),
      );
    },
    async update(api, id, round) {
      // Every other change a discard or an undiscard, so discarded ones stay in the feed.
      const body = round % 2 === 0 ? { title: `renamed ${round}` } : { discarded: round % 4 === 1 };
      const before = await ok(api.get(`${DEV}/conversations/${id}`));
      const changes =
        'title' in body || before.discarded !== body.discarded ? body : { title: `renamed ${round}` };
      await ok(api.patch(`${DEV}/conversations/${id}`, changes));
    },
  },
  {
    name: 'goals',
    path: `${DEV}/goals`,
    table: 'goals',
    async create(api, n) {
      await inParallel(
        8,
        Array.from(
          { length: n },
          (_, i) => () => ok(api.post(`${DEV}/goals`, { title: `goal ${i}`, target_value: 1000 }), 200),
        ),
      );
    },
    async update(api, id, round) {
      // Progress, or (every third change) abandoning it: an abandoned goal stays in the feed, and takes a new title
      // (progress on it is refused).
      const before = await ok(api.get(`${DEV}/goals/${id}`));
      if (before.status === 'abandoned') {
        await ok(api.patch(`${DEV}/goals/${id}`, { title: `goal, round ${round}` }));
      } else if (round % 3 === 2) {
        await ok(api.delete(`${DEV}/goals/${id}`));
      } else {
        await ok(api.patch(`${DEV}/goals/${id}/progress`, undefined, { current_value: round + 1 }));
      }
    },
  },
];

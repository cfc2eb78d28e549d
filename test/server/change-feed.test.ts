// The change feed over real HTTP: updated_since / order=updated_at / after_id on the lists of action items,
// conversations, memories and goals, and the tombstones of GET /v1/dev/user/deleted.
import { sql } from 'kysely';
import { actionItem, actionItemsBatch } from '../../server/src/contract/action-items';
import { tombstone } from '../../server/src/contract/change-feed';
import { validationErrorBody } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { goal } from '../../server/src/contract/goals';
import { memory } from '../../server/src/contract/memories';
import { TOMBSTONE_RETENTION_MS } from '../../server/src/store/db/write-clock';
import {
  byPosition,
  DELETED,
  DEV,
  expectAscending,
  FEED_RESOURCES,
  inParallel,
  pager,
  sleep,
  walk,
  type Change,
  type FeedTable,
} from '../helpers/change-feed';
import { client, expectShape, keyWithScopes, newUser, ok, type Query } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const DAY_MS = 86_400_000;

describe.each(DIALECTS)('change feed on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));

  /** The user's records as stored, in feed order. */
  async function stored(table: FeedTable, userId: string): Promise<Change[]> {
    const rows = await server.store.db
      .selectFrom(table as 'action_items')
      .select(['id', 'updated_at'])
      .where('user_id', '=', userId)
      .execute();
    return rows
      .map((r) => ({ id: r.id, updated_at: new Date(Number(r.updated_at)).toISOString() }))
      .sort(byPosition);
  }

  const positions = (records: Change[]) => records.map((r) => `${r.updated_at} ${r.id}`);

  describe('over 2,000 action items with ties on updated_at', () => {
    let user: Awaited<ReturnType<typeof newUser>>;
    let truth: Change[];
    const PATH = `${DEV}/action-items`;

    beforeAll(async () => {
      user = await newUser(server);
      // 42 batches of 50, four at a time: each batch shares one updated_at, the batches race each other.
      await inParallel(
        4,
        Array.from({ length: 42 }, (_, b) => async () => {
          const items = Array.from({ length: 50 }, (_, i) => ({ description: `task ${b}-${i}` }));
          expectShape(
            actionItemsBatch.response,
            await ok(user.client.post(`${PATH}/batch`, { action_items: items }), 200),
          );
        }),
      );
      const created = await stored('action_items', user.id);
      expect(created).toHaveLength(2100);
      // Then 300 updates, ten at a time: completions, due-date changes and removals, new descriptions.
      await inParallel(
        10,
        created
          .filter((_, i) => i % 7 === 0)
          .map((r, i) => () => {
            const body =
              i % 3 === 0
                ? { completed: true }
                : i % 3 === 1
                  ? { due_at: '2026-12-01T10:00:00Z' }
                  : { description: `rewritten ${i}` };
            return ok(user.client.patch(`${PATH}/${r.id}`, body));
          }),
      );
      truth = await stored('action_items', user.id);
    });

    it('really has ties: a batch shares one millisecond, separate writes never do', async () => {
      const perStamp = new Map<string, number>();
      for (const r of truth) perStamp.set(r.updated_at, (perStamp.get(r.updated_at) ?? 0) + 1);
      // 42 batch stamps (50 each, less the ones updated since) and 300 stamps of one update each.
      const sizes = [...perStamp.values()];
      expect(sizes.filter((n) => n > 1)).toHaveLength(42);
      expect(sizes.filter((n) => n === 1)).toHaveLength(300);
      expect(Math.min(...sizes.filter((n) => n > 1))).toBeGreaterThanOrEqual(40);
    });

    it('returns each change exactly once, in (updated_at, id) order, whatever the page size', async () => {
      for (const limit of [97, 1000, 50]) {
        const walked = await walk(user.client, PATH, limit);
        expect(walked).toHaveLength(truth.length);
        expect(new Set(walked.map((r) => r.id)).size).toBe(truth.length);
        expectAscending(walked);
        expect(positions(walked)).toEqual(positions(truth));
      }
      // The records are the full records, as GET returns them.
      const page = (await user.client.get(PATH, { order: 'updated_at', limit: 5 })).body;
      expectShape(actionItem.array(), page);
      expect(page.map((r: Change) => r.id)).toEqual(truth.slice(0, 5).map((r) => r.id));
    });

    it('resumes exactly at a stored position, inside a run of ties', async () => {
      // A position in the middle of a batch's ties.
      const perStamp = new Map<string, Change[]>();
      for (const r of truth) perStamp.set(r.updated_at, [...(perStamp.get(r.updated_at) ?? []), r]);
      const tied = [...perStamp.values()].filter((group) => group.length >= 40)[10];
      const at = truth.indexOf(tied[20]);
      const rest = await user.client.get(PATH, {
        order: 'updated_at',
        updated_since: tied[20].updated_at,
        after_id: tied[20].id,
        limit: 1000,
      });
      expect(rest.status).toBe(200);
      expect(positions(rest.body)).toEqual(positions(truth.slice(at + 1, at + 1001)));

      // updated_since alone is exclusive of that millisecond: the whole run of ties is behind it.
      const after = await user.client.get(PATH, {
        order: 'updated_at',
        updated_since: tied[20].updated_at,
        limit: 1000,
      });
      expect(after.body[0].id).toBe(truth[truth.indexOf(tied.at(-1)!) + 1].id);
      expect(Date.parse(after.body[0].updated_at)).toBeGreaterThan(Date.parse(tied[20].updated_at));
    });

    it('filters by updated_since in the default order too (newest created first)', async () => {
      const since = truth[truth.length - 300 - 1].updated_at;
      const changed = truth.filter((r) => Date.parse(r.updated_at) > Date.parse(since));
      const reply = await user.client.get(PATH, { updated_since: since, limit: 1000 });
      expect(reply.status).toBe(200);
      expect(new Set(reply.body.map((r: Change) => r.id))).toEqual(new Set(changed.map((r) => r.id)));
      const created = reply.body.map((r: { created_at: string; id: string }) => `${r.created_at} ${r.id}`);
      expect(created).toEqual([...created].sort().reverse());
    });
  });

  describe.each(FEED_RESOURCES)('$name', (resource) => {
    it('pages every change once, sees a record changed mid-walk again later, and skips nothing', async () => {
      const user = await newUser(server);
      const n = resource.table === 'action_items' || resource.table === 'memories' ? 120 : 40;
      await resource.create(user.client, n);
      const created = await stored(resource.table, user.id);
      expect(created).toHaveLength(n);
      let round = 0;
      await inParallel(
        5,
        created.filter((_, i) => i % 4 === 1).map((r) => () => resource.update(user.client, r.id, round++)),
      );
      const truth = await stored(resource.table, user.id);
      const walked = await walk(user.client, resource.path, 7);
      expectAscending(walked);
      expect(positions(walked)).toEqual(positions(truth));

      // A client pages; meanwhile one record it has seen and one it has not yet seen change.
      const p = pager(user.client, resource.path, 7);
      const seen = [...(await p.next()), ...(await p.next()), ...(await p.next())];
      expect(seen).toHaveLength(21);
      const seenBefore = seen[4];
      const notYetSeen = truth[truth.length - 3];
      await resource.update(user.client, seenBefore.id, round++);
      await resource.update(user.client, notYetSeen.id, round++);
      for (;;) {
        const page = await p.next();
        seen.push(...page);
        if (page.length < 7) break;
      }
      expectAscending(seen);
      const after = await stored(resource.table, user.id);
      // Every record once, except the one seen before its change: it comes again, at its new position.
      expect(seen).toHaveLength(n + 1);
      expect(seen.filter((r) => r.id === seenBefore.id)).toHaveLength(2);
      expect(seen.filter((r) => r.id === notYetSeen.id)).toHaveLength(1);
      expect(new Set(seen.map((r) => r.id))).toEqual(new Set(after.map((r) => r.id)));
      // The last version seen of each record is its stored one.
      const last = new Map(seen.map((r) => [r.id, r.updated_at]));
      for (const r of after) expect(last.get(r.id)).toBe(r.updated_at);
      expect(seen.slice(-2).map((r) => r.id)).toEqual([seenBefore.id, notYetSeen.id]);
      // Nothing new: the next poll from the stored position is empty.
      expect(await p.next()).toEqual([]);
    });
  });

  it('misses nothing while writers race a poller', async () => {
    const user = await newUser(server);
    const PATH = `${DEV}/action-items`;
    await FEED_RESOURCES[0].create(user.client, 200);
    const ids = (await stored('action_items', user.id)).map((r) => r.id);
    const p = pager(user.client, PATH, 25);
    const seen: Change[] = [];
    let writersDone = false;
    const writers = (async () => {
      let round = 0;
      for (let wave = 0; wave < 20; wave++) {
        // 20 concurrent writes, many within one millisecond, some to the same record.
        await Promise.all(
          Array.from({ length: 20 }, () => {
            const id = ids[(round * 37) % ids.length];
            round += 1;
            return ok(user.client.patch(`${PATH}/${id}`, { description: `race ${round}` }));
          }),
        );
      }
      writersDone = true;
    })();
    const poller = (async () => {
      for (let polls = 0; polls < 100_000; polls++) {
        const doneBefore = writersDone;
        const page = await p.next();
        seen.push(...page);
        if (doneBefore && page.length < 25) return;
        if (page.length < 25) await sleep(1);
      }
      throw new Error('poller does not end');
    })();
    await Promise.all([writers, poller]);

    expectAscending(seen);
    const truth = await stored('action_items', user.id);
    const last = new Map(seen.map((r) => [r.id, r.updated_at]));
    for (const r of truth)
      expect({ id: r.id, seen: last.get(r.id) }).toEqual({ id: r.id, seen: r.updated_at });
    // Every item was written twice since its batch; distinct writes got distinct stamps.
    expect(new Set(truth.map((r) => r.updated_at)).size).toBe(truth.length);
  });

  describe('updated_at', () => {
    let user: Awaited<ReturnType<typeof newUser>>;
    beforeAll(async () => {
      user = await newUser(server);
    });

    /** Runs a write and asserts the record's updated_at became the write time. */
    async function moves(write: () => Promise<any>, read: () => Promise<any>, previous: string) {
      await sleep(3);
      const before = Date.now();
      const written = await write();
      const after = Date.now();
      const current = await read();
      const at = Date.parse(current.updated_at);
      expect(at).toBeGreaterThan(Date.parse(previous));
      // The server's clock is this process's; a write in the millisecond of the previous one takes the next.
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after + 1);
      if (written && typeof written === 'object' && 'updated_at' in written)
        expect(written.updated_at).toBe(current.updated_at);
      return current;
    }

    async function stays(write: () => Promise<any>, read: () => Promise<any>, previous: any) {
      await sleep(3);
      await write();
      expect(await read()).toEqual(previous);
    }

    it('moves on completion, due-date removal and every other action item change, not on a no-op', async () => {
      const PATH = `${DEV}/action-items`;
      let item = await ok(
        user.client.post(PATH, { description: 'ship it', due_at: '2026-12-24T12:00:00Z' }),
        200,
      );
      const read = async () =>
        (await ok(user.client.get(PATH, { order: 'updated_at', limit: 1000 }))).find(
          (r: Change) => r.id === item.id,
        );
      const patch = (body: unknown) => () => ok(user.client.patch(`${PATH}/${item.id}`, body));
      item = await moves(patch({ completed: true }), read, item.updated_at);
      expect(item.completed_at).toBe(item.updated_at);
      item = await moves(patch({ due_at: null }), read, item.updated_at);
      expect(item.due_at).toBeNull();
      item = await moves(patch({ completed: false }), read, item.updated_at);
      expect(item.completed_at).toBeNull();
      item = await moves(patch({ due_at: '2027-01-01T00:00:00Z' }), read, item.updated_at);
      item = await moves(patch({ description: 'ship it now' }), read, item.updated_at);
      // No-ops: an empty body, the stored values.
      await stays(patch({}), read, item);
      await stays(
        patch({ description: 'ship it now', completed: false, due_at: '2027-01-01T00:00:00Z' }),
        read,
        item,
      );
    });

    it('moves on memory edits, not on a no-op', async () => {
      const PATH = `${DEV}/memories`;
      let m = await ok(user.client.post(PATH, { content: 'Likes tea', tags: ['drinks'] }), 200);
      const read = async () =>
        (await ok(user.client.get(PATH, { order: 'updated_at', limit: 1000 }))).find(
          (r: Change) => r.id === m.id,
        );
      const patch = (body: unknown) => () => ok(user.client.patch(`${PATH}/${m.id}`, body));
      m = expectShape(memory, await moves(patch({ content: 'Likes green tea' }), read, m.updated_at));
      m = await moves(patch({ tags: ['drinks', 'tea'] }), read, m.updated_at);
      m = await moves(patch({ visibility: 'public' }), read, m.updated_at);
      await stays(patch({}), read, m);
      await stays(
        patch({ content: 'Likes green tea', tags: ['drinks', 'tea'], visibility: 'public' }),
        read,
        m,
      );
    });

    it('moves on conversation discard, rename, folder moves and folder renames, not on a no-op', async () => {
      const PATH = `${DEV}/conversations`;
      let c = await ok(user.client.post(PATH, { text: 'We planned the launch' }), 200);
      expect(c.updated_at).toBe(c.created_at);
      const read = async () => expectShape(conversation, await ok(user.client.get(`${PATH}/${c.id}`)));
      const patch = (body: unknown) => () => ok(user.client.patch(`${PATH}/${c.id}`, body));
      c = await moves(patch({ discarded: true }), read, c.updated_at);
      expect(c.discarded).toBe(true);
      // A discarded conversation stays in the change feed (and leaves the default list).
      const feed = await ok(user.client.get(PATH, { order: 'updated_at', limit: 100 }));
      expect(feed.at(-1)).toEqual(c);
      expect((await ok(user.client.get(PATH))).map((r: Change) => r.id)).not.toContain(c.id);
      expect(
        (await ok(user.client.get(PATH, { order: 'updated_at', include_discarded: false }))).map(
          (r: Change) => r.id,
        ),
      ).not.toContain(c.id);
      c = await moves(patch({ title: 'Launch plan' }), read, c.updated_at);
      const folder = await ok(user.client.post(`${DEV}/folders`, { name: 'Work' }), 200);
      c = await moves(patch({ folder_id: folder.id }), read, c.updated_at);
      c = await moves(
        () => ok(user.client.patch(`${DEV}/folders/${folder.id}`, { name: 'Office' })),
        read,
        c.updated_at,
      );
      expect(c.folder_name).toBe('Office');
      await stays(() => ok(user.client.patch(`${DEV}/folders/${folder.id}`, { color: '#ff0000' })), read, c);
      await stays(patch({}), read, c);
      await stays(patch({ title: 'Launch plan', discarded: true, folder_id: folder.id }), read, c);
      c = await moves(() => ok(user.client.delete(`${DEV}/folders/${folder.id}`)), read, c.updated_at);
      expect(c.folder_id).toBeNull();
    });

    it('moves on goal progress, edits and abandoning; DELETE is an update, not a deletion', async () => {
      const PATH = `${DEV}/goals`;
      let g = await ok(user.client.post(PATH, { title: 'Read 20 books', target_value: 20 }), 200);
      const read = async () => expectShape(goal, await ok(user.client.get(`${PATH}/${g.id}`)));
      const progress = (value: number) => () =>
        ok(user.client.patch(`${PATH}/${g.id}/progress`, undefined, { current_value: value }));
      g = await moves(progress(3), read, g.updated_at);
      expect(g.current_value).toBe(3);
      // The same value again is still today's measurement, but the goal does not change.
      await stays(progress(3), read, g);
      g = await moves(
        () => ok(user.client.patch(`${PATH}/${g.id}`, { status: 'paused' })),
        read,
        g.updated_at,
      );
      await stays(() => ok(user.client.patch(`${PATH}/${g.id}`, {})), read, g);
      await stays(
        () => ok(user.client.patch(`${PATH}/${g.id}`, { status: 'paused', target_value: 20 })),
        read,
        g,
      );
      g = await moves(() => ok(user.client.delete(`${PATH}/${g.id}`)), read, g.updated_at);
      expect(g).toMatchObject({ status: 'abandoned', is_active: false });
      await stays(() => ok(user.client.delete(`${PATH}/${g.id}`)), read, g);

      // The abandoned goal is in the change feed by default, in the plain list only with include_inactive.
      const feed = await ok(user.client.get(PATH, { order: 'updated_at', limit: 1000 }));
      expect(feed.at(-1)).toEqual(g);
      const since = await ok(user.client.get(PATH, { updated_since: '2000-01-01T00:00:00Z', limit: 1000 }));
      expect(since.map((r: Change) => r.id)).toContain(g.id);
      expect((await ok(user.client.get(PATH, { limit: 1000 }))).map((r: Change) => r.id)).not.toContain(g.id);
      expect(
        (await ok(user.client.get(PATH, { order: 'updated_at', include_inactive: false, limit: 1000 }))).map(
          (r: Change) => r.id,
        ),
      ).not.toContain(g.id);
      expect(
        (await ok(user.client.get(PATH, { include_inactive: true, limit: 1000 }))).map((r: Change) => r.id),
      ).toContain(g.id);
      // No tombstone for a goal.
      expect(await ok(user.client.get(DELETED, { type: 'goal' }))).toEqual([]);
    });

    it('gives distinct writes distinct, increasing stamps even in one millisecond', async () => {
      const other = await newUser(server);
      const PATH = `${DEV}/action-items`;
      const batch = await ok(
        other.client.post(`${PATH}/batch`, {
          action_items: Array.from({ length: 30 }, (_, i) => ({ description: `t${i}` })),
        }),
        200,
      );
      // The batch is one write: one stamp, ordered by id.
      expect(new Set(batch.action_items.map((r: Change) => r.updated_at)).size).toBe(1);
      const written = await Promise.all(
        batch.action_items.map((r: Change) => ok(other.client.patch(`${PATH}/${r.id}`, { completed: true }))),
      );
      const stamps = written.map((r: Change) => Date.parse(r.updated_at));
      expect(new Set(stamps).size).toBe(30);
      const walked = await walk(other.client, PATH, 4);
      expect(positions(walked)).toEqual(positions([...written].sort(byPosition)));
    });
  });

  describe('tombstones', () => {
    it('records deletions with their type, in order, and pages them by since and after_id', async () => {
      const user = await newUser(server);
      const api = user.client;
      const item = await ok(api.post(`${DEV}/action-items`, { description: 'gone soon' }), 200);
      const talk = await ok(api.post(`${DEV}/conversations`, { text: 'A talk to delete' }), 200);
      const linked = await ok(
        api.post(`${DEV}/action-items`, { description: 'stays', conversation_id: talk.id }),
        200,
      );
      const fact = await ok(api.post(`${DEV}/memories`, { content: 'to forget' }), 200);
      const folder = await ok(api.post(`${DEV}/folders`, { name: 'Old' }), 200);
      const person = await ok(api.post(`${DEV}/people`, { name: 'Alex' }), 200);
      const keep = await ok(api.post(`${DEV}/memories`, { content: 'to keep' }), 200);
      expect(await ok(api.get(DELETED))).toEqual([]);

      await ok(api.delete(`${DEV}/action-items/${item.id}`));
      await ok(api.delete(`${DEV}/memories/${fact.id}`));
      await ok(api.delete(`${DEV}/conversations/${talk.id}`));
      await ok(api.delete(`${DEV}/folders/${folder.id}`));
      await ok(api.delete(`${DEV}/people/${person.id}`));
      // A failed delete leaves nothing behind.
      expect((await api.delete(`${DEV}/memories/${fact.id}`)).status).toBe(404);

      const all = expectShape(tombstone.array(), await ok(api.get(DELETED)));
      expect(all.map((t) => [t.type, t.id])).toEqual([
        ['action_item', item.id],
        ['memory', fact.id],
        ['conversation', talk.id],
        ['folder', folder.id],
        ['person', person.id],
      ]);
      expectAscending(all.map((t) => ({ id: t.id, updated_at: t.deleted_at })));
      expect(Date.parse(all[0].deleted_at)).toBeGreaterThan(Date.parse(keep.updated_at));

      // Deleting the conversation unlinked its action item in the same write: a change of that item.
      const changed = await ok(
        api.get(`${DEV}/action-items`, { order: 'updated_at', updated_since: keep.updated_at }),
      );
      expect(changed).toEqual([expect.objectContaining({ id: linked.id, conversation_id: null })]);
      expect(changed[0].updated_at).toBe(all[2].deleted_at);

      // since is exclusive; type filters.
      expect(
        (await ok(api.get(DELETED, { since: all[1].deleted_at }))).map((t: { id: string }) => t.id),
      ).toEqual(all.slice(2).map((t) => t.id));
      expect(await ok(api.get(DELETED, { type: 'memory' }))).toEqual([all[1]]);
      expect(await ok(api.get(DELETED, { type: 'folder', since: all[0].deleted_at }))).toEqual([all[3]]);
      expect(await ok(api.get(DELETED, { type: 'goal' }))).toEqual([]);
      expect(await ok(api.get(DELETED, { since: all[4].deleted_at }))).toEqual([]);

      // Paged one at a time by position.
      const paged: unknown[] = [];
      let position: { since?: string; after_id?: string } = {};
      for (;;) {
        const page = await ok(api.get(DELETED, { ...position, limit: 1 }));
        if (page.length === 0) break;
        paged.push(...page);
        position = { since: page[0].deleted_at, after_id: page[0].id };
      }
      expect(paged).toEqual(all);

      // Other users see none of them.
      const stranger = await newUser(server);
      expect(await ok(stranger.client.get(DELETED))).toEqual([]);
    });

    it('pages ties on deleted_at by id, without gaps', async () => {
      const user = await newUser(server);
      const at = Date.now() - 60_000;
      const ids = ['0a', '0b', '0c', '1a', '1b'].map((s) => s.padEnd(24, '0'));
      await server.store.db
        .insertInto('tombstones')
        .values(
          ids.map((id, i) => ({
            user_id: user.id,
            type: i % 2 ? 'memory' : 'action_item',
            id,
            deleted_at: at,
          })),
        )
        .execute();
      const seen: string[] = [];
      let position: Query = {};
      for (let pages = 0; pages < 10; pages++) {
        const page = await ok(user.client.get(DELETED, { ...position, limit: 2 }));
        seen.push(...page.map((t: { id: string }) => t.id));
        if (page.length < 2) break;
        position = { since: page[1].deleted_at, after_id: page[1].id };
      }
      expect(seen).toEqual(ids);
      const atIso = new Date(at).toISOString();
      expect(
        (await ok(user.client.get(DELETED, { since: atIso, after_id: ids[2] }))).map(
          (t: { id: string }) => t.id,
        ),
      ).toEqual(ids.slice(3));
      expect(await ok(user.client.get(DELETED, { since: atIso }))).toEqual([]);
    });

    it('keeps tombstones 30 days and prunes older ones on a later delete, never on a read', async () => {
      const user = await newUser(server);
      const now = Date.now();
      await server.store.db
        .insertInto('tombstones')
        .values([
          { user_id: user.id, type: 'memory', id: 'old', deleted_at: now - TOMBSTONE_RETENTION_MS - DAY_MS },
          {
            user_id: user.id,
            type: 'memory',
            id: 'recent',
            deleted_at: now - TOMBSTONE_RETENTION_MS + DAY_MS,
          },
        ])
        .execute();
      const kept = async () =>
        (
          await server.store.db.selectFrom('tombstones').select('id').where('user_id', '=', user.id).execute()
        ).map((r) => r.id);
      expect(await ok(user.client.get(DELETED))).toHaveLength(2);
      expect((await kept()).sort()).toEqual(['old', 'recent']);
      expect(TOMBSTONE_RETENTION_MS).toBe(30 * DAY_MS); // as the server manual documents

      const m = await ok(user.client.post(`${DEV}/memories`, { content: 'x' }), 200);
      await ok(user.client.delete(`${DEV}/memories/${m.id}`));
      expect((await kept()).sort()).toEqual([m.id, 'recent'].sort());
    });

    it('needs the read scope of the type; without type, answers the types the key can read', async () => {
      const user = await newUser(server);
      const item = await ok(user.client.post(`${DEV}/action-items`, { description: 'x' }), 200);
      const fact = await ok(user.client.post(`${DEV}/memories`, { content: 'y' }), 200);
      const folder = await ok(user.client.post(`${DEV}/folders`, { name: 'F' }), 200);
      await ok(user.client.delete(`${DEV}/action-items/${item.id}`));
      await ok(user.client.delete(`${DEV}/memories/${fact.id}`));
      await ok(user.client.delete(`${DEV}/folders/${folder.id}`));
      const admin = client(server.baseUrl, server.init.admin_token);
      const keyFor = async (scopes: string[]) => {
        const key = await admin.post(`/v1/admin/users/${user.id}/keys`, { name: 'scoped', scopes });
        expect(key.status).toBe(201);
        return client(server.baseUrl, key.body.key);
      };

      const memoriesOnly = await keyFor(['memories:read', 'action_items:write']);
      expect((await ok(memoriesOnly.get(DELETED))).map((t: { type: string }) => t.type)).toEqual(['memory']);
      expect((await ok(memoriesOnly.get(DELETED, { type: 'memory' }))).length).toBe(1);
      for (const [type, scope] of [
        ['action_item', 'action_items:read'],
        ['folder', 'conversations:read'],
        ['conversation', 'conversations:read'],
        ['goal', 'goals:read'],
        ['person', 'people:read'],
      ]) {
        const reply = await memoriesOnly.get(DELETED, { type });
        expect({ type, status: reply.status, body: reply.body }).toEqual({
          type,
          status: 403,
          body: { detail: `Insufficient permissions. Required scope: ${scope}` },
        });
      }
      const conversationsRead = await keyFor(['conversations:read']);
      expect((await ok(conversationsRead.get(DELETED))).map((t: { type: string }) => t.type)).toEqual([
        'folder',
      ]);

      // No read scope of any type: 403, before the query is even looked at.
      const writeOnly = await keyWithScopes(server, [
        'action_items:write',
        'memories:write',
        'screen_activity:read',
      ]);
      for (const query of [{}, { since: 'yesterday' }]) {
        const reply = await writeOnly.get(DELETED, query);
        expect(reply.status).toBe(403);
        expect(reply.body.detail).toMatch(
          /^Insufficient permissions\. Required scope: one of action_items:read, /,
        );
      }
      // The list endpoints' read scopes are unchanged by the new parameters.
      const listReply = await memoriesOnly.get(`${DEV}/action-items`, { order: 'updated_at' });
      expect(listReply.body).toEqual({
        detail: 'Insufficient permissions. Required scope: action_items:read',
      });

      expect((await fetch(`${server.baseUrl}${DELETED}`)).status).toBe(401);
    });
  });

  it('refuses bad change-feed parameters with 422 at the parameter', async () => {
    const api = (await newUser(server)).client;
    const since = '2026-01-01T00:00:00Z';
    const lists = [`${DEV}/action-items`, `${DEV}/memories`, `${DEV}/conversations`, `${DEV}/goals`];
    const cases: [string, Query, (string | number)[]][] = [];
    for (const path of lists) {
      cases.push(
        [path, { updated_since: 'yesterday' }, ['query', 'updated_since']],
        [path, { updated_since: '2026-13-01T00:00:00Z', order: 'updated_at' }, ['query', 'updated_since']],
        [path, { order: 'sideways' }, ['query', 'order']],
        [path, { order: 'updated_at_desc' }, ['query', 'order']],
        [path, { after_id: 'abc', order: 'updated_at' }, ['query', 'after_id']],
        [path, { after_id: 'abc', updated_since: since }, ['query', 'after_id']],
        [path, { after_id: '', updated_since: since, order: 'updated_at' }, ['query', 'after_id']],
      );
    }
    cases.push(
      [`${DEV}/conversations`, { order: 'created_at_desc' }, ['query', 'order']],
      [`${DEV}/goals`, { include_inactive: 'sometimes' }, ['query', 'include_inactive']],
      [`${DEV}/conversations`, { include_discarded: 'sometimes' }, ['query', 'include_discarded']],
      [
        `${DEV}/action-items`,
        { after_id: 'abc', updated_since: since, order: 'updated_at', offset: 5 },
        ['query', 'offset'],
      ],
      [DELETED, { since: 'yesterday' }, ['query', 'since']],
      [DELETED, { since: '2026-02-30T00:00:00Z' }, ['query', 'since']],
      [DELETED, { type: 'thing' }, ['query', 'type']],
      [DELETED, { type: 'action_items' }, ['query', 'type']],
      [DELETED, { after_id: 'abc' }, ['query', 'after_id']],
      [DELETED, { limit: 0 }, ['query', 'limit']],
      [DELETED, { limit: 1001 }, ['query', 'limit']],
    );
    for (const [path, query, loc] of cases) {
      const reply = await api.get(path, query);
      expect({ path, query, status: reply.status }).toEqual({ path, query, status: 422 });
      expect({ path, query, loc: expectShape(validationErrorBody, reply.body).detail[0].loc }).toEqual({
        path,
        query,
        loc,
      });
    }
    // The explicit default orders are accepted, and offset 0 goes with after_id.
    for (const [path, order] of [
      [`${DEV}/action-items`, 'created_at_desc'],
      [`${DEV}/memories`, 'created_at_desc'],
      [`${DEV}/goals`, 'created_at_desc'],
      [`${DEV}/conversations`, 'started_at_desc'],
    ]) {
      expect((await api.get(path, { order })).status).toBe(200);
      expect(
        (await api.get(path, { order: 'updated_at', updated_since: since, after_id: 'x', offset: 0 })).status,
      ).toBe(200);
    }
  });

  it('documents the parameters in the OpenAPI document and adds the (user_id, updated_at, id) indexes', async () => {
    const doc = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as any;
    for (const path of ['action-items', 'memories', 'conversations', 'goals']) {
      const op = doc.paths[`${DEV}/${path}`].get;
      expect(op.description).toMatch(/updated_since/);
      const params = Object.fromEntries(op.parameters.map((p: any) => [p.name, p]));
      for (const name of ['updated_since', 'order', 'after_id']) {
        expect({ path, name, described: typeof params[name]?.description }).toEqual({
          path,
          name,
          described: 'string',
        });
      }
      expect(params.order.schema.enum).toContain('updated_at');
    }
    const deleted = doc.paths[DELETED].get;
    expect(deleted.description).toMatch(/30 days/);
    expect(deleted.parameters.map((p: any) => p.name).sort()).toEqual(['after_id', 'limit', 'since', 'type']);

    const query =
      dialect === 'sqlite'
        ? sql<{ name: string }>`select name from sqlite_master where type = 'index'`
        : sql<{ name: string }>`select indexname as name from pg_indexes`;
    const indexes = (await query.execute(server.store.db)).rows.map((r) => r.name);
    for (const table of ['action_items', 'conversations', 'memories', 'goals']) {
      expect(indexes).toContain(`${table}_user_updated`);
    }
  });
});

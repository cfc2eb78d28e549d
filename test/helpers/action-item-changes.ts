// A user who keeps changing action items while a DevData Poll Trigger polls, and the check that New, Updated and
// Deleted Action Item reported every one of those changes once, in order. Shared by the n8n-core suite and the
// real-n8n suite.
import type { Kysely } from 'kysely';
import { newId } from '../../server/src/ids';
import { writeStamp } from '../../server/src/store/db/write-clock';
import type { Database } from '../../server/src/store/db/schema';
import { byPosition, DELETED, expectAscending, walk, type Change } from './change-feed';
import type { Client } from './http';

export const ITEMS = '/v1/dev/user/action-items';

/** The changes the writers make; edits and deletions go to different records (see startWriters). */
export interface ChangePlan {
  create: number;
  update: number;
  delete: number;
}

export type ActionItemRecord = Change & { created_at: string } & Record<string, unknown>;
export interface Tombstone {
  type: string;
  id: string;
  deleted_at: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body of a reply with `status`; any other status (a 429 or 503 included) fails the writer. */
async function ok(reply: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const { status: got, body } = await reply;
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * `writers` loops that together make the changes of `plan`: creations one at a time or in batches of up to 20,
 * edits (description and completion, in one PATCH) and deletions. Edits go only to records that are never
 * deleted and deletions only to records never edited, and no record is edited twice: so every edit has a final
 * state the Updated trigger must report, and each edit is one change. Resolves when the plan is done. Before
 * each request a writer waits until `mayWrite(share of the plan made so far)` allows it, so a test can keep
 * writes going across the steps it takes.
 */
export function startWriters(
  api: Client,
  plan: ChangePlan,
  { writers = 4, mayWrite = () => true }: { writers?: number; mayWrite?: (made: number) => boolean } = {},
): Promise<void> {
  const left = { ...plan };
  const total = plan.create + plan.update + plan.delete;
  const made = () => 1 - (left.create + left.update + left.delete) / total;
  const fresh: string[] = [];
  let serial = 0;
  const takeFresh = () => fresh.splice(Math.floor(Math.random() * fresh.length), 1)[0];
  const writer = async () => {
    for (;;) {
      while (!mayWrite(made())) await sleep(20);
      const canEditOrDelete = fresh.length > 20;
      if (left.create > 0 && (!canEditOrDelete || Math.random() < 0.5)) {
        const count = Math.min(left.create, Math.random() < 0.5 ? 1 : 1 + Math.floor(Math.random() * 20));
        left.create -= count;
        const descriptions = Array.from({ length: count }, () => `item ${serial++}`);
        const created =
          count === 1
            ? [await ok(api.post(ITEMS, { description: descriptions[0] }), 200)]
            : (
                await ok(
                  api.post(`${ITEMS}/batch`, {
                    action_items: descriptions.map((description) => ({ description })),
                  }),
                  200,
                )
              ).action_items;
        fresh.push(...created.map((item: ActionItemRecord) => item.id));
      } else if (canEditOrDelete && left.update > 0 && (left.delete === 0 || Math.random() < 0.6)) {
        left.update -= 1;
        await ok(
          api.patch(`${ITEMS}/${takeFresh()}`, { description: `edited ${serial++}`, completed: true }),
        );
      } else if (canEditOrDelete && left.delete > 0) {
        left.delete -= 1;
        await ok(api.delete(`${ITEMS}/${takeFresh()}`));
      } else if (left.create + left.update + left.delete === 0) {
        return;
      } else {
        await sleep(5);
      }
    }
  };
  return Promise.all(Array.from({ length: writers }, writer)).then(() => undefined);
}

/**
 * Creates an action item the way the server's store does, in a transaction on `db` (the server's database) that
 * the test holds open. With `startEarly`, the transaction first reads the user's items and waits `holdMs`, so
 * writes that began after it commit before it (a feed stamped with the transaction's start time, like
 * PostgreSQL's now(), would put this write behind positions already read). Then it takes its write stamp, writes
 * its row and waits `holdMs` again before committing: the user's later writes wait behind it, polls go on, and
 * none may see the item before it commits or skip it after. (`startEarly` needs PostgreSQL: a SQLite
 * transaction that has read cannot write once another connection has committed.) Returns when the transaction
 * began (epoch ms) and its write stamp.
 */
export async function heldWrite(
  db: Kysely<Database>,
  userId: string,
  description: string,
  holdMs: number,
  { startEarly = false }: { startEarly?: boolean } = {},
): Promise<{ began: number; stamp: number }> {
  const began = Date.now();
  return await db.transaction().execute(async (trx) => {
    if (startEarly) {
      await trx.selectFrom('action_items').select('id').where('user_id', '=', userId).limit(1).execute();
      await sleep(holdMs);
    }
    const at = await writeStamp(trx, userId);
    await trx
      .insertInto('action_items')
      .values({
        id: newId(at),
        user_id: userId,
        description,
        completed: 0,
        conversation_id: null,
        due_at: null,
        completed_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await sleep(holdMs);
    return { began, stamp: at };
  });
}

/**
 * How many held writes began before another write that committed ahead of them: a change stamped after the held
 * write began and before its own stamp. (The case a feed stamped with its transaction's start time would lose.)
 */
export function overtakenWrites(
  heldWrites: Array<{ began: number; stamp: number }>,
  now: { items: ActionItemRecord[]; tombstones: Tombstone[] },
): number {
  const stamps = [
    ...now.items.map((r) => Date.parse(r.updated_at)),
    ...now.tombstones.map((t) => Date.parse(t.deleted_at)),
  ];
  return heldWrites.filter(({ began, stamp }) => stamps.some((other) => other > began && other < stamp))
    .length;
}

/** The user's action items and action-item tombstones now, in feed order. */
export async function currentState(
  api: Client,
): Promise<{ items: ActionItemRecord[]; tombstones: Tombstone[] }> {
  const items = (await walk(api, ITEMS, 1000)) as ActionItemRecord[];
  const tombstones: Tombstone[] = [];
  for (;;) {
    const last = tombstones.at(-1);
    const page = await ok(
      api.get(DELETED, {
        type: 'action_item',
        limit: 1000,
        since: last?.deleted_at,
        after_id: last?.id,
      }),
    );
    tombstones.push(...page);
    if (page.length < 1000) return { items, tombstones };
  }
}

const edited = (record: ActionItemRecord) => Date.parse(record.updated_at) > Date.parse(record.created_at);

/** Whether what the triggers reported covers every change (for waiting until the last poll came in). */
export function reportedEverything(
  reported: { created: ActionItemRecord[]; updated: ActionItemRecord[]; deleted: Tombstone[] },
  now: { items: ActionItemRecord[]; tombstones: Tombstone[] },
): boolean {
  const createdIds = new Set(reported.created.map((r) => r.id));
  const updatedIds = new Set(reported.updated.map((r) => `${r.id} ${r.updated_at}`));
  const deletedIds = new Set(reported.deleted.map((r) => r.id));
  return (
    now.items.every((r) => createdIds.has(r.id)) &&
    now.items.filter(edited).every((r) => updatedIds.has(`${r.id} ${r.updated_at}`)) &&
    now.tombstones.every((t) => deletedIds.has(t.id))
  );
}

/**
 * Every change once, in order. `reported` holds what each trigger emitted, in emission order, since before the
 * first write; `now` is the server's state after the last write and poll. New: every record that exists now
 * exactly once, a deleted one at most once, in feed order. Updated: exactly the edited records, each once (each
 * was edited once), in its final state, in edit order. Deleted: every deletion exactly once, in deletion order.
 * And the last state reported of each surviving record is its state now.
 */
export function expectEveryChangeOnce(
  reported: { created: ActionItemRecord[]; updated: ActionItemRecord[]; deleted: Tombstone[] },
  now: { items: ActionItemRecord[]; tombstones: Tombstone[] },
  expected: { records: number; edits: number; deletions: number },
): void {
  expect(now.items.length + now.tombstones.length).toBe(expected.records);
  expect(now.tombstones).toHaveLength(expected.deletions);

  const createdIds = reported.created.map((r) => r.id);
  expect(createdIds.length - new Set(createdIds).size).toBe(0);
  expect(now.items.map((r) => r.id).filter((id) => !createdIds.includes(id))).toEqual([]);
  expectAscending(reported.created);

  const editedNow = now.items.filter(edited);
  expect(editedNow).toHaveLength(expected.edits);
  expect(reported.updated).toEqual([...editedNow].sort(byPosition));

  expect(reported.deleted).toEqual(now.tombstones);

  const lastReported = new Map<string, ActionItemRecord>();
  for (const record of [...reported.created, ...reported.updated].sort(byPosition)) {
    lastReported.set(record.id, record);
  }
  expect(now.items.filter((r) => JSON.stringify(lastReported.get(r.id)) !== JSON.stringify(r))).toEqual([]);
}

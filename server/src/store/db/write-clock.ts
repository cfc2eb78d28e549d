// The write clock: every write of a user's data takes its stamp here, inside the write's transaction, and a delete
// records its tombstone with that stamp. The change feed (contract/change-feed.ts) reads what these stamps order.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { TombstoneType } from '../../contract/change-feed';
import { outboxTransaction } from './outbox';
import type { Database } from './schema';

/** Tombstones are kept at least this long; older ones are pruned when their user next deletes something. */
export const TOMBSTONE_RETENTION_MS = 30 * 86_400_000;

/**
 * Takes the next write stamp of a user, inside the write's transaction: the wall clock in epoch ms, or the
 * user's previous stamp + 1 when the clock has not moved past it (same millisecond, or a clock step back).
 *
 * Taking it updates the user's `change_clock` row, which holds that row's write lock until commit (a row lock
 * on PostgreSQL, the database write lock on SQLite). So one user's writes commit one after another, in stamp
 * order, and no two of them share a stamp. That is what makes the change feed gap-free: when a reader sees a
 * record stamped T, every write of that user stamped before T has already committed, so a position
 * (updated_at, id) taken from a page never has an earlier change appear behind it later. (With plain
 * `Date.now()` two writes could commit out of order, or share a millisecond and commit on either side of a
 * reader's query, and the id tie-break alone could not save the reader from skipping one of them.)
 */
export async function writeStamp(trx: Kysely<Database>, userId: string): Promise<number> {
  const row = await trx
    .insertInto('change_clock')
    .values({ user_id: userId, last_ms: Date.now() })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        last_ms: sql<number>`case when change_clock.last_ms >= excluded.last_ms then change_clock.last_ms + 1 else excluded.last_ms end`,
      }),
    )
    .returning('last_ms')
    .executeTakeFirstOrThrow();
  return Number(row.last_ms);
}

/**
 * Runs one write of a user's data in a transaction holding the user's write stamp `at`: every `created_at` /
 * `updated_at` / `deleted_at` the write sets is `at`. Everything inside must use `trx`, never the store's `db`
 * (on SQLite the one connection is held by the transaction). Events it records (store/db/outbox.ts) wake the
 * delivery worker once it has committed.
 */
export function userWrite<T>(
  db: Kysely<Database>,
  userId: string,
  work: (trx: Transaction<Database>, at: number) => Promise<T>,
): Promise<T> {
  return outboxTransaction(db, async (trx) => work(trx, await writeStamp(trx, userId)));
}

/**
 * Records a deletion in the same transaction as the delete, stamped `at`, and prunes this user's tombstones
 * older than the retention (an indexed range delete, on this write path rather than on the reads).
 */
export async function recordDeletion(
  trx: Kysely<Database>,
  userId: string,
  type: TombstoneType,
  id: string,
  at: number,
): Promise<void> {
  await trx.insertInto('tombstones').values({ user_id: userId, type, id, deleted_at: at }).execute();
  await trx
    .deleteFrom('tombstones')
    .where('user_id', '=', userId)
    .where('deleted_at', '<', at - TOMBSTONE_RETENTION_MS)
    .execute();
}

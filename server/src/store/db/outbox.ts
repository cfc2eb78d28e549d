// The events outbox: an event is written in the transaction of the write that causes it, with one pending
// delivery per subscription of the user that wants it, so a crash between the two cannot lose or invent one.
// After such a transaction commits, the delivery worker of this process is woken at once (others poll).
import { EventEmitter } from 'node:events';
import { PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import { ALL_EVENTS, type EventType } from '../../contract/webhooks';
import { newId } from '../../ids';
import { insertRows } from './records';
import { fromJson, toJson } from './rows';
import type { Database } from './schema';
import { transaction } from './transaction';

/** Emits `committed` after a transaction that wrote deliveries has committed. */
export const outboxCommits = new EventEmitter().setMaxListeners(0);

/** Transactions that wrote deliveries, not committed yet. */
const wroteDeliveries = new WeakSet<Kysely<Database>>();

/**
 * Each user's active subscriptions, read once per transaction and user: keyed by the user too, so that a
 * transaction recording events of two users never hands one user's events to the other's subscriptions.
 */
const subscriptionsRead = new WeakMap<
  Kysely<Database>,
  Map<string, Promise<{ id: string; events: string[] }[]>>
>();

/** An event id: the `webhook-id` header and the body's `id`, the receiver's idempotency key. */
export const newEventId = (at: number) => `msg_${newId(at)}`;

function activeSubscriptions(trx: Kysely<Database>, userId: string) {
  let ofUsers = subscriptionsRead.get(trx);
  if (!ofUsers) {
    ofUsers = new Map();
    subscriptionsRead.set(trx, ofUsers);
  }
  let read = ofUsers.get(userId);
  if (!read) {
    read = trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'events'])
      .where('user_id', '=', userId)
      .where('active', '=', 1)
      .execute()
      .then((rows) => rows.map((row) => ({ id: row.id, events: fromJson<string[]>(row.events) })));
    ofUsers.set(userId, read);
  }
  return read;
}

/**
 * Of the subscriptions `ids`, those still there (and, given `wants`, active and wanting the event as it judges their
 * events), kept from being deleted until `trx` ends so that a delivery written for them in `trx` finds them.
 * PostgreSQL: `FOR KEY SHARE` (the lock a foreign key check takes), so a delete running beside the write either
 * waits for it (and takes its deliveries along) or committed first (and is not returned); without it the
 * delivery's insert failed on its foreign key. The events are read under that lock: a change committed since the
 * write first read them (events narrowed and the URL moved, say) is seen, so no event goes to a subscription that no
 * longer wants it, and a change waiting for the lock then sees this write's deliveries. SQLite runs one write at a
 * time.
 */
export async function keptSubscriptions(
  trx: Kysely<Database>,
  ids: readonly string[],
  wants?: (events: string[]) => boolean,
): Promise<string[]> {
  if (ids.length === 0 || !(trx.getExecutor().adapter instanceof PostgresAdapter)) return [...ids];
  const rows = await trx
    .selectFrom('webhook_subscriptions')
    .select(['id', 'events', 'active'])
    .where('id', 'in', ids)
    .forKeyShare()
    .execute();
  const kept = new Set(
    rows
      .filter((row) => !wants || (row.active === 1 && wants(fromJson<string[]>(row.events))))
      .map((row) => row.id),
  );
  return ids.filter((id) => kept.has(id));
}

/**
 * Records an event of `type` for each of `records` (the records as the repository returns them, or a function
 * that reads them in `trx`, called only when a subscription wants them), stamped `at`, in the write's
 * transaction `trx`, with a pending delivery to every active subscription of the user that wants the type.
 * Nothing is written when none does.
 */
export async function recordEvents(
  trx: Kysely<Database>,
  userId: string,
  type: EventType,
  records: readonly unknown[] | (() => Promise<readonly unknown[]>),
  at: number,
): Promise<void> {
  if (Array.isArray(records) && records.length === 0) return;
  const wants = (events: string[]) => events.includes(type) || events.includes(ALL_EVENTS);
  const wanting = (await activeSubscriptions(trx, userId)).filter((s) => wants(s.events));
  // Locked only once wanted: a write that no subscription wants takes no lock.
  const kept = await keptSubscriptions(
    trx,
    wanting.map((s) => s.id),
    wants,
  );
  if (kept.length === 0) return;
  await writeEvents(trx, userId, type, typeof records === 'function' ? await records() : records, at, kept);
}

/**
 * Writes events of `type` for `records` and a pending delivery of each to each of `subscriptionIds`, in `trx`;
 * returns the deliveries' ids (event by event, then subscription by subscription).
 */
export async function writeEvents(
  trx: Kysely<Database>,
  userId: string,
  type: EventType,
  records: readonly unknown[],
  at: number,
  subscriptionIds: readonly string[],
): Promise<string[]> {
  const events = records.map((record) => ({
    id: newEventId(at),
    user_id: userId,
    type,
    data: toJson(record),
    created_at: at,
  }));
  const deliveries = events.flatMap((event) =>
    subscriptionIds.map((subscriptionId) => ({
      id: newId(at),
      subscription_id: subscriptionId,
      event_id: event.id,
      status: 'pending',
      attempt_count: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: at,
      lease: null,
      created_at: at,
      delivered_at: null,
    })),
  );
  await insertRows(trx, 'webhook_events', events);
  await insertRows(trx, 'webhook_deliveries', deliveries);
  wakeAfterCommit(trx);
  return deliveries.map((d) => d.id);
}

/** Has the delivery worker woken when the transaction `trx` (run by outboxTransaction) has committed. */
export function wakeAfterCommit(trx: Kysely<Database>): void {
  wroteDeliveries.add(trx);
}

/**
 * Runs `work` in a transaction (store/db/transaction.ts, run again after a conflict abort); once it has committed,
 * wakes the delivery worker if it wrote deliveries. Every write that may record events runs through here
 * (store/db/write-clock.ts's userWrite does).
 */
export async function outboxTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  // The last attempt's transaction: the one that committed, once `transaction` has returned.
  let last: Transaction<Database> | undefined;
  const result = await transaction(db, (trx) => {
    last = trx;
    return work(trx);
  });
  if (last && wroteDeliveries.has(last)) outboxCommits.emit('committed');
  return result;
}

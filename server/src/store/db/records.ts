// What every repository does the same way: find the caller's record, create records, write a partial update,
// delete a record, insert a batch. Repositories use these; nothing else writes these patterns again.
import {
  sql,
  type CompiledQuery,
  type DialectAdapter,
  type Insertable,
  type Kysely,
  type Selectable,
  type Transaction,
  type UpdateObject,
} from 'kysely';
import type { TombstoneType } from '../../contract/change-feed';
import type { EventType } from '../../contract/webhooks';
import { recordEvents } from './outbox';
import { iso } from './rows';
import { recordDeletion, userWrite } from './write-clock';
import { selectRows } from './database';
import { NotFound } from './store-errors';
import type { Database } from './schema';

/** A table's row as read. */
export type Row<T extends keyof Database> = Selectable<Database[T]>;

/** What each user-owned record is called in "<Thing> not found". */
const THING = {
  action_items: 'Action item',
  conversations: 'Conversation',
  folders: 'Folder',
  goals: 'Goal',
  memories: 'Memory',
  people: 'Person',
  webhook_subscriptions: 'Webhook',
} as const;
export type OwnedTable = keyof typeof THING;

/** `row`, or NotFound for the record `table` holds: the last step of every owned-record lookup. */
export function found<R>(row: R | undefined, table: OwnedTable): R {
  if (row === undefined) throw new NotFound(THING[table]);
  return row;
}

/**
 * The caller's record `id` in `table` (all columns, or only `columns`), or NotFound "<Thing> not found" —
 * also when the record belongs to another user, so that ids of other users' records cannot be probed.
 */
export async function findOwned<T extends OwnedTable>(
  db: Kysely<Database>,
  table: T,
  userId: string,
  id: string,
): Promise<Row<T>>;
export async function findOwned<T extends OwnedTable, C extends keyof Row<T> & string>(
  db: Kysely<Database>,
  table: T,
  userId: string,
  id: string,
  columns: readonly C[],
): Promise<Pick<Row<T>, C>>;
export async function findOwned(
  db: Kysely<Database>,
  table: OwnedTable,
  userId: string,
  id: string,
  columns?: readonly string[],
): Promise<unknown> {
  const rows = await selectRows(db, { ...findOwnedQuery(db, table, columns), parameters: [id, userId] });
  return found(rows[0], table);
}

// findOwned runs on every read of a record by id: its query is built and compiled once per table, columns and
// dialect, not per call. The id and user id are its only parameters, in that order.
const compiledFindOwned = new WeakMap<DialectAdapter, Map<string, CompiledQuery>>();

function findOwnedQuery(db: Kysely<Database>, table: OwnedTable, columns?: readonly string[]): CompiledQuery {
  const adapter = db.getExecutor().adapter;
  let queries = compiledFindOwned.get(adapter);
  if (!queries) compiledFindOwned.set(adapter, (queries = new Map()));
  const key = `${table} ${columns?.join(',') ?? '*'}`;
  let compiled = queries.get(key);
  if (!compiled) {
    const query = db.selectFrom(table).where(sql.ref('id'), '=', '').where(sql.ref('user_id'), '=', '');
    compiled = (
      columns ? query.select(columns.map((column) => sql.ref(column).as(column))) : query.selectAll()
    ).compile();
    queries.set(key, compiled);
  }
  return compiled;
}

/** All the user's rows in `table`, by `column` and then by id (one order for rows alike in `column`). */
export async function allOwned<T extends OwnedTable>(
  db: Kysely<Database>,
  table: T,
  userId: string,
  column: keyof Row<T> & string,
): Promise<Row<T>[]> {
  const rows = await db
    .selectFrom(table as OwnedTable)
    .selectAll()
    .where(sql.ref('user_id'), '=', userId)
    .orderBy(sql.ref(column))
    .orderBy(sql.ref('id'))
    .execute();
  return rows as Row<T>[];
}

/**
 * Creates records in one write of the user: `build` makes the rows with the write stamp `at` (created_at =
 * updated_at = at), after checking in `trx` what it must; they are stored through insertRows, all or none,
 * with their `event` when given (store/db/outbox.ts). Returns the rows as stored.
 */
export async function createOwned<T extends OwnedTable>(
  db: Kysely<Database>,
  userId: string,
  table: T,
  build: (at: number, trx: Transaction<Database>) => Row<T>[] | Promise<Row<T>[]>,
  event?: CreatedEvent<T>,
): Promise<Row<T>[]> {
  return userWrite(db, userId, async (trx, at) => {
    const rows = await build(at, trx);
    await insertRows(trx, table, rows as Insertable<Database[T]>[]);
    if (event) await recordEvents(trx, userId, event.type, rows.map(event.record), at);
    return rows;
  });
}

/** The event each created record causes: its type, and the record as the repository returns it. */
export interface CreatedEvent<T extends OwnedTable> {
  type: EventType;
  record: (row: Row<T>) => unknown;
}

/**
 * A partial update of the record `current` (read in this transaction): writes the fields of `next` that were
 * given (not undefined) and differ from what is stored, stamping updated_at = `at`. When none differs nothing
 * is written and updated_at is kept. Returns the record as it is now, and the fields that changed (empty when
 * none; without updated_at).
 */
export async function updateChanged<T extends OwnedTable, C extends { id: string }>(
  trx: Kysely<Database>,
  table: T,
  current: C,
  next: Partial<Row<T>>,
  at: number,
): Promise<{ row: C; changed: Partial<Row<T>> }> {
  const stored = current as unknown as Record<string, unknown>;
  const changed = Object.fromEntries(
    Object.entries(next).filter(([field, value]) => value !== undefined && value !== stored[field]),
  ) as Partial<Row<T>>;
  if (Object.keys(changed).length === 0) return { row: current, changed };
  const set = { ...changed, updated_at: at };
  await trx
    .updateTable(table as OwnedTable)
    .set(set as UpdateObject<Database, OwnedTable>)
    .where(sql.ref('id'), '=', current.id)
    .execute();
  return { row: { ...current, ...set }, changed };
}

/**
 * The tombstone each deletable record leaves (goals are never removed, so they leave none; nor do webhook
 * subscriptions, which are not in the change feed).
 */
const TOMBSTONE: Record<Exclude<OwnedTable, 'goals' | 'webhook_subscriptions'>, TombstoneType> = {
  action_items: 'action_item',
  conversations: 'conversation',
  folders: 'folder',
  memories: 'memory',
  people: 'person',
};

/**
 * Records that stay when the record they point at is deleted: the table, and the column that links them
 * (set to null, which is a change of each of them, so their updated_at moves).
 */
export type Dependents =
  { table: 'action_items'; link: 'conversation_id' } | { table: 'conversations'; link: 'folder_id' };

/**
 * Deletes the caller's record `id` (NotFound otherwise) and leaves its tombstone stamped `at`, and its
 * `<type>.deleted` event, in the write's transaction `trx`; its `dependents`, if any, are unlinked first.
 */
export async function deleteOwned(
  trx: Kysely<Database>,
  table: keyof typeof TOMBSTONE,
  userId: string,
  id: string,
  at: number,
  dependents?: Dependents,
): Promise<void> {
  const { id: found } = await findOwned(trx, table, userId, id, ['id']);
  if (dependents) {
    await trx
      .updateTable(dependents.table)
      .set({ [dependents.link]: null, updated_at: at } as UpdateObject<Database, Dependents['table']>)
      .where('user_id', '=', userId)
      .where(sql.ref(dependents.link), '=', found)
      .execute();
  }
  await trx.deleteFrom(table).where(sql.ref('id'), '=', found).execute();
  await recordDeletion(trx, userId, TOMBSTONE[table], found, at);
  const event = DELETED_EVENT[table];
  if (event) await recordEvents(trx, userId, event, [{ id: found, deleted_at: iso(at) }], at);
}

/** The event a delete causes, for the records that have events. */
const DELETED_EVENT: Partial<Record<keyof typeof TOMBSTONE, EventType>> = {
  action_items: 'action_item.deleted',
  conversations: 'conversation.deleted',
  memories: 'memory.deleted',
};

/**
 * SQLite's historical limit of bound parameters in one statement (PostgreSQL allows 65535): a batch is split
 * into statements of as many rows as fit under it.
 */
const MAX_PARAMETERS = 999;

/**
 * Inserts a batch. Call it inside the write's transaction: a batch split over several statements is then
 * stored whole or not at all.
 */
export async function insertRows<T extends keyof Database>(
  trx: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(rows[0]).length));
  for (let start = 0; start < rows.length; start += perStatement) {
    await trx
      .insertInto(table)
      .values(rows.slice(start, start + perStatement))
      .execute();
  }
}

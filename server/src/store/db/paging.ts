import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Position } from '../../contract/cursor';

/** The change-feed parameters of a list query, as the contract validated them (see contract/change-feed.ts). */
export interface FeedQuery {
  order: string;
  updated_since?: number;
  after_id?: string;
  offset?: number;
}

/**
 * True when a request asks for changes (updated_since or order=updated_at). Then filters that hide records by
 * default (inactive goals, discarded conversations) include them unless asked not to: becoming inactive or
 * discarded is a change a sync must see.
 */
export const asksForChanges = (q: FeedQuery): boolean =>
  q.updated_since !== undefined || q.order === 'updated_at';

const columnRef = (name: string, table?: string) => sql.ref(table ? `${table}.${name}` : name);

/**
 * The rows after a position in (updated_at, id) order: updated_at > since, or with after_id the row-value
 * comparison (updated_at, id) > (since, after_id), which walks the (user_id, updated_at, id) index.
 * `table` is the alias to qualify the columns with when the query joins.
 */
export function changedAfter(q: FeedQuery, table?: string): RawBuilder<SqlBool> | undefined {
  if (q.updated_since === undefined) return undefined;
  const column = (name: string) => columnRef(name, table);
  if (q.after_id === undefined) return sql<SqlBool>`${column('updated_at')} > ${q.updated_since}`;
  return sql<SqlBool>`(${column('updated_at')}, ${column('id')}) > (${q.updated_since}, ${q.after_id})`;
}

/**
 * A list query in change-feed terms: only the rows after the position `q` names (see changedAfter), in
 * (updated_at, id) order for order=updated_at, else newest first by `newest` (created_at unless said), then id.
 * `table` is the alias to qualify the columns with when the query joins.
 */
export function inFeedOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  q: FeedQuery,
  { table, newest = 'created_at' }: { table?: string; newest?: string } = {},
): SelectQueryBuilder<DB, TB, O> {
  const after = changedAfter(q, table);
  const since = after ? query.where(after) : query;
  return q.order === 'updated_at'
    ? since.orderBy(columnRef('updated_at', table), 'asc').orderBy(columnRef('id', table), 'asc')
    : since.orderBy(columnRef(newest, table), 'desc').orderBy(columnRef('id', table), 'desc');
}

/** Where a record sits in a newest-first keyset list: created_at (epoch ms), then id. */
export const createdAtPosition = (record: { id: string; created_at: string }): Position => ({
  t: Date.parse(record.created_at),
  i: record.id,
});

/**
 * A keyset page of a newest-first list: up to `take` rows in (created_at, id) descending order, after the
 * position `before` when given (the row-value comparison (created_at, id) < (t, i) walks the index).
 */
export function newestBefore<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  before: Position | undefined,
  take: number,
): SelectQueryBuilder<DB, TB, O> {
  const from = before
    ? query.where(sql<SqlBool>`(${sql.ref('created_at')}, ${sql.ref('id')}) < (${before.t}, ${before.i})`)
    : query;
  return from.orderBy(sql.ref('created_at'), 'desc').orderBy(sql.ref('id'), 'desc').limit(take);
}

import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { UnprocessableError } from './errors';

/** The change-feed parameters of a list query (see contract/changes.ts). */
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

/** Refuses parameters that only make sense together: after_id is a position in the updated_at order. */
export function checkFeedQuery(q: FeedQuery): void {
  if (q.after_id === undefined) return;
  if (q.updated_since === undefined) {
    throw UnprocessableError.at(
      ['query', 'after_id'],
      'after_id needs updated_since: the position is (updated_since, after_id)',
      'missing_dependency',
    );
  }
  if (q.order !== 'updated_at') {
    throw UnprocessableError.at(
      ['query', 'after_id'],
      'after_id needs order=updated_at: it is a position in that order',
      'missing_dependency',
    );
  }
  if (q.offset !== undefined && q.offset > 0) {
    throw UnprocessableError.at(
      ['query', 'offset'],
      'Use either offset or after_id, not both: after_id already says where the page starts',
      'conflict',
    );
  }
}

/**
 * The rows after a position in (updated_at, id) order: updated_at > since, or with after_id the row-value
 * comparison (updated_at, id) > (since, after_id), which walks the (user_id, updated_at, id) index.
 * `table` is the alias to qualify the columns with when the query joins.
 */
export function changedAfter(q: FeedQuery, table?: string): RawBuilder<SqlBool> | undefined {
  if (q.updated_since === undefined) return undefined;
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  if (q.after_id === undefined) return sql<SqlBool>`${column('updated_at')} > ${q.updated_since}`;
  return sql<SqlBool>`(${column('updated_at')}, ${column('id')}) > (${q.updated_since}, ${q.after_id})`;
}

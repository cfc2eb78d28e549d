import { createHash } from 'node:crypto';
import { z } from 'zod';
import { UnprocessableError } from '../http/http-errors';
import { textIssue } from './common';

/** The `cursor` query parameter of a cursor-paged list. */
export const cursorParam = () =>
  z.string().optional().meta({ description: 'next_cursor of the previous page' });

/** A cursor-paged list's answer: `has_more`, `next_cursor` and the page's records under `field`. */
export function cursorPageOf<F extends string, R extends z.ZodType>(field: F, record: R) {
  return z.object({
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    ...({ [field]: z.array(record) } as { [K in F]: z.ZodArray<R> }),
  });
}

// The opaque cursor of the keyset-paged lists, as the client sees it: the token, its validation (a 422 at the
// `cursor` parameter) and the page fields `has_more` / `next_cursor`. The keyset query itself is the store's.

/** A keyset position: the sort instant and id of the last record of a page. */
export interface Position {
  t: number;
  i: string;
}

/** A fingerprint of the filters a cursor was made for; a cursor is refused with other filters. */
export function fingerprint(filters: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);
}

/** An opaque cursor: base64url JSON of the last position and the filters' fingerprint. */
export function encodeCursor(position: Position, filters: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ ...position, f: fingerprint(filters) })).toString('base64url');
}

export function decodeCursor(cursor: string, filters: Record<string, unknown>): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { t, i, f } = (parsed ?? {}) as { t?: unknown; i?: unknown; f?: unknown };
  // A position the server made: an integer instant and an id it could store (tampered ones never reach a query).
  if (
    typeof t !== 'number' ||
    !Number.isSafeInteger(t) ||
    typeof i !== 'string' ||
    i.length > 200 ||
    textIssue(i) !== null ||
    typeof f !== 'string'
  ) {
    throw UnprocessableError.at(
      ['query', 'cursor'],
      'Invalid cursor: pass next_cursor from the previous page unchanged',
      'cursor_invalid',
    );
  }
  if (f !== fingerprint(filters)) {
    throw UnprocessableError.at(
      ['query', 'cursor'],
      "Cursor was made for another list or other filters: repeat the first request's path and filters, or start again without a cursor",
      'cursor_mismatch',
    );
  }
  return { t, i };
}

/**
 * A page of rows fetched with `limit + 1`: the first `limit` rows, whether more follow, and the cursor that
 * resumes after the last row returned.
 */
function keysetPage<Row>(
  rows: Row[],
  limit: number,
  position: (row: Row) => Position,
  filters: Record<string, unknown>,
): { page: Row[]; has_more: boolean; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return {
    page,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(position(last), filters) : null,
  };
}

/**
 * One page of the cursor-paged list `list` (its name, e.g. `notifications`) with `filters` (the path's ids among
 * them): decodes `cursor` (bound to both, else a 422: a cursor of another list or subscription would read a
 * wrong page without a word), fetches `limit + 1` rows from the position it names (from the start without one)
 * and keeps the first `limit`, with `has_more` and the `next_cursor` that resumes after them.
 */
export async function cursorPage<Row>(
  query: { cursor?: string; limit: number },
  list: string,
  filters: Record<string, unknown>,
  position: (row: Row) => Position,
  fetch: (from: Position | undefined, take: number) => Promise<Row[]>,
): Promise<{ page: Row[]; has_more: boolean; next_cursor: string | null }> {
  const boundTo = { list, ...filters };
  const from = query.cursor === undefined ? undefined : decodeCursor(query.cursor, boundTo);
  return keysetPage(await fetch(from, query.limit + 1), query.limit, position, boundTo);
}

import { createHash } from 'node:crypto';
import { UnprocessableError } from './errors';

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
  if (typeof t !== 'number' || !Number.isFinite(t) || typeof i !== 'string' || typeof f !== 'string') {
    throw UnprocessableError.at(
      ['query', 'cursor'],
      'Invalid cursor: pass next_cursor from the previous page unchanged',
      'cursor_invalid',
    );
  }
  if (f !== fingerprint(filters)) {
    throw UnprocessableError.at(
      ['query', 'cursor'],
      "Cursor was made for different filters: repeat the first request's filters, or start again without a cursor",
      'cursor_mismatch',
    );
  }
  return { t, i };
}

/**
 * A page of rows fetched with `limit + 1`: the first `limit` rows, whether more follow, and the cursor that
 * resumes after the last row returned.
 */
export function keysetPage<Row>(
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

import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { devDataRequest } from '../shared';

/**
 * A place in a change feed: every change up to and including (`at`, `id`) has been read. An empty `id` means
 * "all of the millisecond `at`", i.e. the next change is the first one stamped after `at` (the server's
 * `updated_since` / `since` alone, which are exclusive).
 */
export interface Position {
  at: string;
  id: string;
}

/** One of the server's change feeds (README "Change feed (for syncs)"). */
export interface Feed {
  path: string;
  /**
   * `changes`: a list read with order=updated_at, updated_since and after_id (action items, conversations,
   * memories, goals). `tombstones`: GET /v1/dev/user/deleted with since and after_id.
   */
  kind: 'changes' | 'tombstones';
  /** The largest `limit` the list accepts: every page asks for that many. */
  pageSize: number;
  /** Query parameters sent with every page besides the position, e.g. `type` or `include_transcript`. */
  qs?: IDataObject;
}

/** The field that, with `id`, orders a feed's records. */
const stampOf = (feed: Feed, record: IDataObject) =>
  String(feed.kind === 'tombstones' ? record.deleted_at : record.updated_at);

/** Whether the change (`stamp`, `id`) lies after `position` (null: the start of the feed). Instants, not strings. */
export function isAfter(stamp: unknown, id: unknown, position: Position | null): boolean {
  if (position === null) return true;
  const at = Date.parse(String(stamp));
  const from = Date.parse(position.at);
  if (at !== from) return at > from;
  return position.id !== '' && String(id) > position.id;
}

function pageQuery(feed: Feed, position: Position | null): IDataObject {
  const afterId = position?.id ? position.id : undefined;
  if (feed.kind === 'tombstones') {
    return { ...feed.qs, since: position?.at, after_id: afterId, limit: feed.pageSize };
  }
  return {
    ...feed.qs,
    order: 'updated_at',
    updated_since: position?.at,
    after_id: afterId,
    limit: feed.pageSize,
  };
}

export interface Walk {
  /** The records of every page, in feed order; a record changed while paging can appear twice. */
  records: IDataObject[];
  /** The position of the last record read, or the starting position when there was none. */
  position: Position | null;
  /** False when the walk stopped early to stay within the poll budget: more changes are waiting. */
  complete: boolean;
}

/**
 * Reads a feed from `from` page by page (keyset: the last record's stamp and id) until a page comes back short.
 * With `budgetMs`, stops before a page that would likely end after the budget (always reading at least one
 * page), so a poll draining a large backlog returns what it has and leaves the rest to the next poll.
 * With `until`, stops after the page holding a record it accepts. Nothing is stored here: the caller moves the
 * remembered position once the whole poll succeeded.
 */
export async function walk(
  this: IPollFunctions,
  feed: Feed,
  from: Position | null,
  budgetMs?: number,
  until?: (record: IDataObject) => boolean,
): Promise<Walk> {
  const started = Date.now();
  let slowestPageMs = 0;
  let position = from;
  const records: IDataObject[] = [];
  for (;;) {
    const pageStarted = Date.now();
    const page = await devDataRequest.call(this, {
      method: 'GET',
      path: feed.path,
      qs: pageQuery(feed, position),
    });
    slowestPageMs = Math.max(slowestPageMs, Date.now() - pageStarted);
    if (!Array.isArray(page)) {
      throw new NodeOperationError(this.getNode(), `Unexpected answer from GET ${feed.path}`, {
        description: 'The DevData server did not answer with a list. Check the Base URL of the credential.',
      });
    }
    const last = page.at(-1) as IDataObject | undefined;
    if (last) {
      const next = { at: stampOf(feed, last), id: String(last.id) };
      // A page must move the position on; one that does not would be read again forever.
      if (!isAfter(next.at, next.id, position)) {
        throw new NodeOperationError(this.getNode(), `The change feed of ${feed.path} did not advance`, {
          description: `After ${JSON.stringify(position)} the server answered with a record at ${JSON.stringify(next)}. The server does not support the change feed (order=updated_at, updated_since, after_id); update it.`,
        });
      }
      position = next;
    }
    records.push(...(page as IDataObject[]));
    if (page.length < feed.pageSize) return { records, position, complete: true };
    if (until && (page as IDataObject[]).some(until)) return { records, position, complete: false };
    if (budgetMs !== undefined && Date.now() - started + slowestPageMs > budgetMs) {
      return { records, position, complete: false };
    }
  }
}

/** Each record once, at the place of its last appearance (its latest state), in feed order. */
export function latestStates(records: IDataObject[]): IDataObject[] {
  const last = new Map<string, number>();
  records.forEach((record, index) => last.set(String(record.id), index));
  return records.filter((record, index) => last.get(String(record.id)) === index);
}

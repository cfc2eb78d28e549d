import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { devDataRequest } from './request';

export interface ListRequest {
  path: string;
  qs?: IDataObject;
  itemIndex: number;
  /** The endpoint's largest `limit`: every page asks for this many (or fewer, to stop at the user's limit). */
  pageSize: number;
  /** How many records to return; undefined returns them all. */
  limit?: number;
}

/** How many records the next page asks for: a whole page, or what is left of the limit (0 once it is reached). */
function nextPageSize(list: ListRequest, read: number): number {
  return list.limit === undefined ? list.pageSize : Math.min(list.pageSize, list.limit - read);
}

/**
 * Reads an offset-paginated list (`limit` + `offset`, the body a JSON array) until a page comes back short
 * or `limit` records were read. Records created while it reads a newest-first list push the others down, so a
 * page may start with records read already: each record is kept once, by its id. (A record deleted meanwhile
 * pulls the others up, and the one that crosses a page boundary then is not read: offset paging, which the real
 * service's lists have, cannot tell.)
 */
export async function offsetPaginate(this: IExecuteFunctions, list: ListRequest): Promise<IDataObject[]> {
  const records: IDataObject[] = [];
  const read = new Set<unknown>();
  let offset = 0;
  for (;;) {
    const want = nextPageSize(list, records.length);
    if (want <= 0) break;
    const page = (await devDataRequest.call(this, {
      method: 'GET',
      path: list.path,
      qs: { ...list.qs, limit: want, offset },
      itemIndex: list.itemIndex,
      list: true,
    })) as IDataObject[];
    offset += page.length;
    for (const record of page) {
      if (record.id !== undefined && read.has(record.id)) continue;
      read.add(record.id);
      records.push(record);
    }
    if (page.length < want) break;
  }
  return records;
}

interface CursorPage {
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Reads a cursor-paginated list (`limit` + `cursor`, the body `{has_more, next_cursor, <key>: [...]}`),
 * passing each page's next_cursor to the next request while has_more is true.
 */
export async function cursorPaginate(
  this: IExecuteFunctions,
  list: ListRequest & { key: string },
): Promise<IDataObject[]> {
  const records: IDataObject[] = [];
  let cursor: string | undefined;
  for (;;) {
    const want = nextPageSize(list, records.length);
    if (want <= 0) break;
    const page = (await devDataRequest.call(this, {
      method: 'GET',
      path: list.path,
      qs: { ...list.qs, limit: want, cursor },
      itemIndex: list.itemIndex,
      list: list.key,
    })) as CursorPage & IDataObject;
    records.push(...(page[list.key] as IDataObject[]));
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return records;
}

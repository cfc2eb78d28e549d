import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { devDataRequest } from '../../shared';

/** Records read per page of a "From List" dropdown. */
const PAGE_SIZE = 100;
/** Pages one search reads at most while a filter finds few matches, so a dropdown never waits long. */
const MAX_PAGES_PER_SEARCH = 10;
/** How much of a long text (a memory, an action item) names it in a list. */
const NAME_LENGTH = 80;

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > NAME_LENGTH ? `${oneLine.slice(0, NAME_LENGTH - 1)}…` : oneLine;
}

/** The list entries, named by `nameOf`, whose name contains the typed filter (case-insensitive). */
function entries(records: IDataObject[], nameOf: (record: IDataObject) => string, filter?: string) {
  const wanted = filter?.trim().toLowerCase();
  return records
    .map((record) => ({ name: nameOf(record), value: String(record.id) }))
    .filter(
      (entry) => !wanted || entry.name.toLowerCase().includes(wanted) || entry.value === filter?.trim(),
    );
}

/**
 * The list search of a newest-first offset list: the next entries from the offset in `paginationToken`. The
 * server's search matches whole words (and not IDs), where a picker matches the part of a name or ID typed so far,
 * so a filter is applied here: while it matches little, further pages are read (up to MAX_PAGES_PER_SEARCH), and
 * scrolling goes on from where the search stopped.
 */
function offsetListSearch(path: string, nameOf: (record: IDataObject) => string) {
  return async function (
    this: ILoadOptionsFunctions,
    filter?: string,
    paginationToken?: string,
  ): Promise<INodeListSearchResult> {
    let offset = Number(paginationToken ?? 0);
    const results: INodeListSearchResult['results'] = [];
    for (let page = 0; page < MAX_PAGES_PER_SEARCH; page++) {
      const records = (await devDataRequest.call(this, {
        method: 'GET',
        path,
        qs: { limit: PAGE_SIZE, offset },
      })) as IDataObject[];
      results.push(...entries(records, nameOf, filter));
      offset += records.length;
      if (records.length < PAGE_SIZE) return { results };
      if (!filter || results.length >= PAGE_SIZE) break;
    }
    return { results, paginationToken: String(offset) };
  };
}

export const searchActionItems = offsetListSearch(
  '/v1/dev/user/action-items',
  (item) => `${item.completed ? '✓ ' : ''}${shorten(String(item.description))}`,
);

export const searchConversations = offsetListSearch('/v1/dev/user/conversations', (conversation) => {
  const title = String((conversation.structured as IDataObject | undefined)?.title ?? '') || 'Untitled';
  return `${shorten(title)} (${String(conversation.started_at ?? conversation.created_at).slice(0, 10)})`;
});

export const searchMemories = offsetListSearch('/v1/dev/user/memories', (memory) =>
  shorten(String(memory.content)),
);

export async function searchGoals(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  // Abandoned and achieved goals too: they can still be read, updated or deleted.
  const goals = (await devDataRequest.call(this, {
    method: 'GET',
    path: '/v1/dev/user/goals',
    qs: { limit: 1000, include_inactive: true },
  })) as IDataObject[];
  return {
    results: entries(goals, (goal) => `${shorten(String(goal.title))} (${String(goal.status)})`, filter),
  };
}

export async function searchDeveloperKeys(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  const keys = (await devDataRequest.call(this, { method: 'GET', path: '/v1/dev/keys' })) as IDataObject[];
  return { results: entries(keys, (key) => `${String(key.name)} (${String(key.key_prefix)})`, filter) };
}

export async function searchFolders(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  const folders = (await devDataRequest.call(this, {
    method: 'GET',
    path: '/v1/dev/user/folders',
  })) as IDataObject[];
  return { results: entries(folders, (folder) => String(folder.name), filter) };
}

export async function searchPeople(
  this: ILoadOptionsFunctions,
  filter?: string,
): Promise<INodeListSearchResult> {
  const { people } = (await devDataRequest.call(this, {
    method: 'GET',
    path: '/v1/dev/user/people',
  })) as { people: IDataObject[] };
  return { results: entries(people, (person) => String(person.name), filter) };
}

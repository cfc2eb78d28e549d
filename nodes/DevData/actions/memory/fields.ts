import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { MEMORY_CATEGORY_OPTIONS, listValues } from '../../../shared';
import { simplifyField } from '../common.description';
import type { RecordSpec } from '../crud';

export const contentField: INodeProperties = {
  displayName: 'Content',
  name: 'content',
  type: 'string',
  typeOptions: { rows: 2 },
  required: true,
  default: '',
  placeholder: 'e.g. Prefers meetings after 10am',
  description: 'The fact, preference or insight to remember (1–5000 characters)',
};

/** The Categories filter of the memory lists (Get Many, Search). */
export const categoriesFilter: INodeProperties = {
  displayName: 'Categories',
  name: 'categories',
  type: 'multiOptions',
  default: [],
  options: MEMORY_CATEGORY_OPTIONS,
  description: 'Return only memories in any of these categories',
};

/** The `categories` query parameter for the filters the user set: comma-separated, or absent for all. */
export function categoriesQuery(
  this: IExecuteFunctions,
  filters: IDataObject,
  itemIndex: number,
): string | undefined {
  const categories = listValues(this.getNode(), filters.categories, categoriesFilter.displayName, itemIndex);
  return categories.length ? categories.join(',') : undefined;
}

export const tagsField: INodeProperties = {
  displayName: 'Tags',
  name: 'tags',
  type: 'string',
  default: '',
  placeholder: 'e.g. work, schedule',
  description: 'Comma-separated tags (up to 20, each up to 50 characters)',
};

export const memoryFields: INodeProperties[] = [
  {
    displayName: 'Category',
    name: 'category',
    type: 'options',
    default: 'manual',
    options: MEMORY_CATEGORY_OPTIONS,
    description:
      'Category of the memory (default manual). Interesting, manual and system are the current ones; the ones marked older are still accepted and kept as given.',
  },
  tagsField,
  {
    displayName: 'Visibility',
    name: 'visibility',
    type: 'options',
    default: 'private',
    options: [
      { name: 'Private', value: 'private' },
      { name: 'Public', value: 'public' },
    ],
    description: 'Who may see the memory (default private)',
  },
];

/**
 * The wire fields of a memory collection: tags as a list. Tags are free text, so numbers an expression gives
 * (a spreadsheet column of years, say) are tags too.
 */
export function memoryWireFields(
  this: IExecuteFunctions,
  fields: IDataObject,
  itemIndex: number,
): IDataObject {
  const { tags, ...rest } = fields;
  if (tags === undefined) return rest;
  return {
    ...rest,
    tags: listValues(this.getNode(), tags, tagsField.displayName, itemIndex, { numbersAsText: true }),
  };
}

/**
 * The wire entry for a new memory from the item's parameters. A field whose expression gives null (an input field
 * that holds nothing) is left out, as toWireFields does: sent, a null Visibility was refused, failing a whole
 * Create Many batch, where leaving it out gives the server's default.
 */
export function newMemory(this: IExecuteFunctions, itemIndex: number): IDataObject {
  const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  const given = Object.fromEntries(
    Object.entries(additional).filter(([, value]) => value !== undefined && value !== null),
  );
  return {
    content: this.getNodeParameter('content', itemIndex) as string,
    ...memoryWireFields.call(this, given, itemIndex),
  };
}

export const memoryRecord: RecordSpec = {
  resource: 'memory',
  label: 'Memory',
  path: '/v1/dev/user/memories',
  idName: 'memoryId',
  searchListMethod: 'searchMemories',
  nameField: 'content',
};

/** Simplify for a memory read. */
export const simplifyMemoryField: INodeProperties = {
  ...simplifyField,
  description: `${simplifyField.description}: the memory's ID, content, category, tags and times`,
};

/** A memory as Simplify shows it: what it says and when, without the review and visibility flags. */
export function simplifyMemory({
  id,
  content,
  category,
  tags,
  created_at,
  updated_at,
}: IDataObject): IDataObject {
  return { id, content, category, tags, created_at, updated_at };
}

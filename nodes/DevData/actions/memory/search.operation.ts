import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { filters } from '../common.description';
import { searchLimitField, searchQueryField } from '../search';
import { booleanParameter, countOf } from '../utils';
import {
  categoriesFilter,
  categoriesQuery,
  memoryRecord,
  simplifyMemory,
  simplifyMemoryField,
} from './fields';

const searchLimit = searchLimitField('memories');

const properties: INodeProperties[] = [
  searchQueryField('memories', 'content', 'e.g. coffee preferences'),
  searchLimit,
  simplifyMemoryField,
  filters([categoriesFilter]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['memory'], operation: ['search'] } },
  properties,
);

/**
 * One item per memory found, most relevant first: `{memory, score}` as the API answers, or with Simplify the
 * simplified memory and its score.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const found = (await devDataRequest.call(this, {
    method: 'GET',
    path: `${memoryRecord.path}/search`,
    qs: {
      query: this.getNodeParameter('query', itemIndex) as string,
      limit: countOf.call(this, searchLimit, itemIndex),
      categories: categoriesQuery.call(this, filters, itemIndex),
    },
    itemIndex,
    list: true,
  })) as IDataObject[];
  if (!booleanParameter.call(this, simplifyMemoryField, itemIndex)) return found;
  return found.map(({ memory, score }) => ({ ...simplifyMemory(memory as IDataObject), score }));
}

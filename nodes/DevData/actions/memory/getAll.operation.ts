import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { offsetPaginate } from '../../../shared';
import { filters, returnAllOrLimit } from '../common.description';
import { booleanParameter, limitOf } from '../utils';
import {
  categoriesFilter,
  categoriesQuery,
  memoryRecord,
  simplifyMemory,
  simplifyMemoryField,
} from './fields';

/** The server's largest page of memories. */
export const PAGE_SIZE = 1000;

const properties: INodeProperties[] = [
  ...returnAllOrLimit(),
  simplifyMemoryField,
  filters([categoriesFilter]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['memory'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const records = await offsetPaginate.call(this, {
    path: memoryRecord.path,
    qs: { categories: categoriesQuery.call(this, filters, itemIndex) },
    itemIndex,
    pageSize: PAGE_SIZE,
    limit: limitOf.call(this, itemIndex),
  });
  return booleanParameter.call(this, simplifyMemoryField, itemIndex) ? records.map(simplifyMemory) : records;
}

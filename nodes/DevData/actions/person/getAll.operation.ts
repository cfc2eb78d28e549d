import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { returnAllOrLimit } from '../common.description';
import { limitOf } from '../utils';
import { personRecord } from './fields';

const properties: INodeProperties[] = [...returnAllOrLimit()];

export const description = updateDisplayOptions(
  { show: { resource: ['person'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  // The server returns every person in one answer, as {people: [...]} (it has no paging for people).
  const { people } = (await devDataRequest.call(this, {
    method: 'GET',
    path: personRecord.path,
    itemIndex,
    list: 'people',
  })) as { people: IDataObject[] };
  const limit = limitOf.call(this, itemIndex);
  return limit === undefined ? people : people.slice(0, limit);
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { returnAllOrLimit } from '../common.description';
import { limitOf } from '../utils';
import { developerKeyRecord } from './fields';

const properties: INodeProperties[] = [...returnAllOrLimit()];

export const description = updateDisplayOptions(
  { show: { resource: ['developerKey'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  // The server returns every active key of the user in one answer, newest first (it has no paging for keys).
  const keys = (await devDataRequest.call(this, {
    method: 'GET',
    path: developerKeyRecord.path,
    itemIndex,
    list: true,
  })) as IDataObject[];
  const limit = limitOf.call(this, itemIndex);
  return limit === undefined ? keys : keys.slice(0, limit);
}

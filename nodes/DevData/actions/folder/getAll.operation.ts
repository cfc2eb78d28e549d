import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { returnAllOrLimit } from '../common.description';
import { limitOf } from '../utils';
import { folderRecord } from './fields';

const properties: INodeProperties[] = [...returnAllOrLimit()];

export const description = updateDisplayOptions(
  { show: { resource: ['folder'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  // The server returns every folder in one answer (it has no paging for folders).
  const folders = (await devDataRequest.call(this, {
    method: 'GET',
    path: folderRecord.path,
    itemIndex,
    list: true,
  })) as IDataObject[];
  const limit = limitOf.call(this, itemIndex);
  return limit === undefined ? folders : folders.slice(0, limit);
}

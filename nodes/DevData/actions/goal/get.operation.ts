import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { goalRecord } from './fields';

const properties: INodeProperties[] = [recordLocator(goalRecord)];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, goalRecord, itemIndex),
  })) as IDataObject;
}

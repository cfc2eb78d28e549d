import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { additionalFields } from '../common.description';
import { contentField, memoryFields, memoryRecord, newMemory } from './fields';

const properties: INodeProperties[] = [contentField, additionalFields(memoryFields)];

export const description = updateDisplayOptions(
  { show: { resource: ['memory'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: memoryRecord.path,
    body: newMemory.call(this, itemIndex),
    itemIndex,
  })) as IDataObject;
}

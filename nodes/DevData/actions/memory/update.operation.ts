import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { byDisplayName, recordId } from '../common.description';
import { contentField, memoryFields, memoryWireFields } from './fields';

const properties: INodeProperties[] = [
  recordId('memoryId', 'Memory', 'searchMemories'),
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description: 'Only the fields added here are changed',
    options: byDisplayName([...memoryFields, { ...contentField, required: false }]),
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['memory'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('memoryId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    path: `/v1/dev/user/memories/${encodeURIComponent(id)}`,
    body: memoryWireFields(this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject),
    itemIndex,
    resource: 'Memory',
    id,
  })) as IDataObject;
}

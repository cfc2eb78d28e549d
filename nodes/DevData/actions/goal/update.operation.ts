import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { byDisplayName, recordId } from '../common.description';
import { toWireFields } from '../utils';
import { goalFields, titleField } from './fields';

const properties: INodeProperties[] = [
  recordId('goalId', 'Goal', 'searchGoals'),
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description: 'Only the fields added here are changed',
    options: byDisplayName([...goalFields, { ...titleField, required: false }]),
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('goalId', itemIndex, '', { extractValue: true }) as string;
  const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    path: `/v1/dev/user/goals/${encodeURIComponent(id)}`,
    body: toWireFields.call(this, fields, itemIndex, ['horizonAt']),
    itemIndex,
    resource: 'Goal',
    id,
  })) as IDataObject;
}

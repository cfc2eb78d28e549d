import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { recordId } from '../common.description';

const properties: INodeProperties[] = [
  recordId('goalId', 'Goal', 'searchGoals'),
  {
    displayName: 'Current Value',
    name: 'currentValue',
    type: 'number',
    typeOptions: { numberPrecision: 2 },
    required: true,
    default: 0,
    description: "The goal's new current value, between its minimum and maximum",
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['updateProgress'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('goalId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    path: `/v1/dev/user/goals/${encodeURIComponent(id)}/progress`,
    qs: { current_value: this.getNodeParameter('currentValue', itemIndex) as number },
    itemIndex,
    resource: 'Goal',
    id,
  })) as IDataObject;
}

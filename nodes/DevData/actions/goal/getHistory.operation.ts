import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { recordId } from '../common.description';

const properties: INodeProperties[] = [
  recordId('goalId', 'Goal', 'searchGoals'),
  {
    displayName: 'Days',
    name: 'days',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: 365 },
    default: 30,
    description: 'How many UTC days back from today to return (1–365)',
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['getHistory'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('goalId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'GET',
    path: `/v1/dev/user/goals/${encodeURIComponent(id)}/history`,
    qs: { days: this.getNodeParameter('days', itemIndex, 30) as number },
    itemIndex,
    resource: 'Goal',
    id,
  })) as IDataObject;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { recordId } from '../common.description';

const properties: INodeProperties[] = [recordId('goalId', 'Goal', 'searchGoals')];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('goalId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'GET',
    path: `/v1/dev/user/goals/${encodeURIComponent(id)}`,
    itemIndex,
    resource: 'Goal',
    id,
  })) as IDataObject;
}

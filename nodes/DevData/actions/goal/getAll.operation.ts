import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { operationOptions, returnAllOrLimit } from '../common.description';
import { booleanParameter, limitOf } from '../utils';
import { goalRecord, simplifyGoal, simplifyGoalField } from './fields';

/** The most goals the server returns; the goal list has no further pages. */
export const MAX_GOALS = 1000;

const properties: INodeProperties[] = [
  ...returnAllOrLimit('The server returns at most 1000 goals'),
  simplifyGoalField,
  operationOptions([
    {
      displayName: 'Include Inactive',
      name: 'includeInactive',
      type: 'boolean',
      default: true,
      description: 'Whether to include achieved and abandoned goals',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const limit = limitOf.call(this, itemIndex);
  const records = (await devDataRequest.call(this, {
    method: 'GET',
    path: goalRecord.path,
    qs: { limit: Math.min(limit ?? MAX_GOALS, MAX_GOALS), include_inactive: options.includeInactive },
    itemIndex,
    list: true,
  })) as IDataObject[];
  return booleanParameter.call(this, simplifyGoalField, itemIndex) ? records.map(simplifyGoal) : records;
}

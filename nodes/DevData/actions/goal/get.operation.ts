import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { booleanParameter } from '../utils';
import { goalRecord, simplifyGoal, simplifyGoalField } from './fields';

const properties: INodeProperties[] = [recordLocator(goalRecord), simplifyGoalField];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const record = (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, goalRecord, itemIndex),
  })) as IDataObject;
  return booleanParameter.call(this, simplifyGoalField, itemIndex) ? simplifyGoal(record) : record;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { goalRecord } from './fields';

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
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
  return (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, goalRecord, itemIndex, '/history'),
    qs: { days: this.getNodeParameter('days', itemIndex, 30) as number },
  })) as IDataObject;
}

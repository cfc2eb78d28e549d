import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { addressedRecord, recordLocator } from '../crud';
import { goalRecord } from './fields';

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
  {
    displayName: 'Current Value',
    name: 'currentValue',
    type: 'number',
    typeOptions: { numberPrecision: 2 },
    required: true,
    default: 0,
    description: "The goal's new current value; stored as given, even outside its Min Value–Max Value",
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['updateProgress'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, goalRecord, itemIndex, '/progress'),
    qs: { current_value: this.getNodeParameter('currentValue', itemIndex) as number },
  })) as IDataObject;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { byDisplayName, updateFields } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { toWireFields } from '../utils';
import { goalFields, goalRecord, horizonAtDate, titleField } from './fields';

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
  updateFields(byDisplayName([...goalFields, { ...titleField, required: false }])),
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, goalRecord, itemIndex),
    body: toWireFields.call(this, fields, itemIndex, [horizonAtDate]),
  })) as IDataObject;
}

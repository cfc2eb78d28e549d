import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { byDisplayName, clearFieldsOption, updateFields } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { changesOf, clearedFields, toWireFields, updateFieldsOf } from '../utils';
import { goalFields, goalRecord, horizonAtDate, titleField } from './fields';

/** The fields a goal may be without: Update removes them by sending null. */
const clearFieldsField = clearFieldsOption(
  goalFields,
  ['focusRank', 'horizonAt', 'unit', 'whyItMatters'],
  'Fields to remove from the goal (each is sent as null)',
);

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
  updateFields(byDisplayName([...goalFields, { ...titleField, required: false }, clearFieldsField])),
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const { clearFields = [], ...fields } = updateFieldsOf.call(this, itemIndex);
  const body = clearedFields.call(
    this,
    toWireFields.call(this, fields, itemIndex, [horizonAtDate], goalFields),
    clearFields,
    clearFieldsField,
    itemIndex,
  );
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, goalRecord, itemIndex),
    body: changesOf.call(this, body, itemIndex),
  })) as IDataObject;
}

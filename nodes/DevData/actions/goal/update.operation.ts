import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { byDisplayName, updateFields } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { snakeCase, toWireFields } from '../utils';
import { goalFields, goalRecord, horizonAtDate, titleField } from './fields';

/** The fields a goal may be without: Update removes them by sending null. */
const CLEARABLE = ['focusRank', 'horizonAt', 'unit', 'whyItMatters'];

const clearFieldsField: INodeProperties = {
  displayName: 'Clear Fields',
  name: 'clearFields',
  type: 'multiOptions',
  options: goalFields
    .filter((field) => CLEARABLE.includes(field.name))
    .map((field) => ({ name: field.displayName, value: field.name })),
  default: [],
  description: 'Fields to remove from the goal (each is sent as null)',
};

const properties: INodeProperties[] = [
  recordLocator(goalRecord),
  updateFields(byDisplayName([...goalFields, { ...titleField, required: false }, clearFieldsField])),
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const { clearFields = [], ...fields } = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
  const body = toWireFields.call(this, fields, itemIndex, [horizonAtDate]);
  for (const name of clearFields as string[]) {
    if (body[snakeCase(name)] !== undefined) {
      const displayName = goalFields.find((field) => field.name === name)?.displayName ?? name;
      throw new NodeOperationError(
        this.getNode(),
        `Set either "${displayName}" or clear it under "Clear Fields", not both`,
        { itemIndex },
      );
    }
    body[snakeCase(name)] = null;
  }
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, goalRecord, itemIndex),
    body,
  })) as IDataObject;
}

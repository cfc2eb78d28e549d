import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { updateFields } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { assertNotBoth, changesOf, toBoolean, toWireFields, updateFieldsOf } from '../utils';
import { actionItemRecord, completedField, descriptionField, dueAtDate, dueAtField } from './fields';

const clearDueAtField: INodeProperties = {
  displayName: 'Clear Due Date',
  name: 'clearDueAt',
  type: 'boolean',
  default: true,
  description: 'Whether to remove the due date (sends due_at: null)',
};

const properties: INodeProperties[] = [
  recordLocator(actionItemRecord),
  updateFields([clearDueAtField, completedField, { ...descriptionField, required: false }, dueAtField]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['actionItem'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const { clearDueAt: clear, ...fields } = updateFieldsOf.call(this, itemIndex);
  const clearDueAt = toBoolean.call(this, clear, clearDueAtField.displayName, itemIndex);
  assertNotBoth.call(this, { ...fields, clearDueAt }, dueAtField, clearDueAtField, itemIndex);
  const body = toWireFields.call(this, fields, itemIndex, [dueAtDate], [completedField]);
  if (clearDueAt === true) body.due_at = null;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, actionItemRecord, itemIndex),
    body: changesOf.call(this, body, itemIndex),
  })) as IDataObject;
}

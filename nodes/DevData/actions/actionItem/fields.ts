import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RecordSpec } from '../crud';
import { toWireFields, withoutEmpty, type DateField } from '../utils';

export const descriptionField: INodeProperties = {
  displayName: 'Description',
  name: 'description',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. Send the contract to Alex',
  description: 'What needs to be done (1–2000 characters)',
};

export const completedField: INodeProperties = {
  displayName: 'Completed',
  name: 'completed',
  type: 'boolean',
  default: false,
  description: 'Whether the action item is done; completing it sets completed_at to now, reopening clears it',
};

export const dueAtField: INodeProperties = {
  displayName: 'Due At',
  name: 'dueAt',
  type: 'dateTime',
  default: '',
  description:
    "When the action item is due. A date alone (e.g. 2026-12-01) means the end of that day in UTC (23:59:59.999Z); a date and time without a UTC offset is read in the workflow's timezone. Sent as UTC.",
};

/** Due At as a date-time field of a collection: a due date, so a date alone means the end of that UTC day. */
export const dueAtDate: DateField = { property: dueAtField, due: true };

/** The wire entry for a new action item from the item's parameters. */
export function newActionItem(this: IExecuteFunctions, itemIndex: number): IDataObject {
  const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  return {
    description: this.getNodeParameter('description', itemIndex) as string,
    ...toWireFields.call(
      this,
      withoutEmpty(additional, ['conversationId']),
      itemIndex,
      [dueAtDate],
      [completedField],
    ),
  };
}

export const actionItemRecord: RecordSpec = {
  resource: 'actionItem',
  label: 'Action Item',
  path: '/v1/dev/user/action-items',
  idName: 'actionItemId',
  searchListMethod: 'searchActionItems',
  nameField: 'description',
};

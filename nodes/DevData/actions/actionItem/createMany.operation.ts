import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createInBatches } from '../batch';
import { actionItemRecord, completedField, descriptionField, dueAtField, newActionItem } from './fields';

/** The server's largest action-item batch. */
export const MAX_BATCH = 50;

const properties: INodeProperties[] = [
  {
    displayName:
      'Every input item becomes one action item. They are sent in batches of up to 50, in input order; each output item is the created action item, linked to its input item.',
    name: 'createManyNotice',
    type: 'notice',
    default: '',
  },
  {
    ...descriptionField,
    description: 'What needs to be done; usually an expression such as {{ $json.task }}',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    description: "Optional fields to set; the server's defaults apply to the others",
    placeholder: 'Add Field',
    default: {},
    options: [completedField, dueAtField],
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['actionItem'], operation: ['createMany'] } },
  properties,
);

export async function executeBatch(
  this: IExecuteFunctions,
  items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
  return await createInBatches.call(this, items, {
    path: `${actionItemRecord.path}/batch`,
    key: 'action_items',
    maxPerRequest: MAX_BATCH,
    toEntry: newActionItem,
  });
}

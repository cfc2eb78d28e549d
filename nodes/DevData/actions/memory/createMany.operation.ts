import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createInBatches } from '../batch';
import { contentField, memoryFields, memoryRecord, newMemory } from './fields';

/** The server's largest memory batch. */
export const MAX_BATCH = 25;

const properties: INodeProperties[] = [
  {
    displayName:
      'Every input item becomes one memory. They are sent in batches of up to 25, in input order; each output item is the created memory, linked to its input item.',
    name: 'createManyNotice',
    type: 'notice',
    default: '',
  },
  { ...contentField, description: 'The fact to remember; usually an expression such as {{ $json.fact }}' },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    description: "Optional fields to set; the server's defaults apply to the others",
    placeholder: 'Add Field',
    default: {},
    options: memoryFields,
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['memory'], operation: ['createMany'] } },
  properties,
);

export async function executeBatch(
  this: IExecuteFunctions,
  items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
  return await createInBatches.call(this, items, {
    path: `${memoryRecord.path}/batch`,
    key: 'memories',
    maxPerRequest: MAX_BATCH,
    toEntry: newMemory,
  });
}

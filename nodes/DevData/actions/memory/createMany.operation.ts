import { createManyOperation } from '../batch';
import { additionalFields } from '../common.description';
import { contentField, memoryFields, memoryRecord, newMemory } from './fields';

/** The server's largest memory batch. */
export const MAX_BATCH = 25;

export const { description, executeBatch } = createManyOperation(
  'memory',
  'memory',
  [
    {
      ...contentField,
      description:
        'The fact, preference or insight to remember (1–5000 characters); usually an expression such as {{ $json.fact }}',
    },
    additionalFields(memoryFields),
  ],
  {
    path: `${memoryRecord.path}/batch`,
    key: 'memories',
    maxPerRequest: MAX_BATCH,
    toEntry: newMemory,
  },
);

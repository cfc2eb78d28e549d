import { createManyOperation } from '../batch';
import { additionalFields } from '../common.description';
import { actionItemRecord, completedField, descriptionField, dueAtField, newActionItem } from './fields';

/** The server's largest action-item batch. */
export const MAX_BATCH = 50;

export const { description, executeBatch } = createManyOperation(
  'actionItem',
  'action item',
  [
    {
      ...descriptionField,
      description:
        'What needs to be done (1–2000 characters); usually an expression such as {{ $json.task }}',
    },
    additionalFields([completedField, dueAtField]),
  ],
  {
    path: `${actionItemRecord.path}/batch`,
    key: 'action_items',
    maxPerRequest: MAX_BATCH,
    toEntry: newActionItem,
  },
);

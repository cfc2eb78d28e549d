import type { INodeProperties } from 'n8n-workflow';

import * as createFromSegments from './createFromSegments.operation';
import * as createFromText from './createFromText.operation';
import * as deleteConversation from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as search from './search.operation';
import * as update from './update.operation';

export { createFromSegments, createFromText, deleteConversation as delete, get, getAll, search, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with conversations',
    displayOptions: { show: { resource: ['conversation'] } },
    options: [
      {
        name: 'Create From Segments',
        value: 'createFromSegments',
        description: 'Create a conversation from speaker-labelled transcript segments',
        action: 'Create a conversation from segments',
      },
      {
        name: 'Create From Text',
        value: 'createFromText',
        description: 'Create a conversation from a block of text',
        action: 'Create a conversation from text',
      },
      {
        name: 'Delete',
        value: 'delete',
        description: 'Delete a conversation (its action items stay, no longer linked to it)',
        action: 'Delete a conversation',
      },
      {
        name: 'Get',
        value: 'get',
        description: 'Get a conversation',
        action: 'Get a conversation',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many conversations, newest first',
        action: 'Get many conversations',
      },
      {
        name: 'Search',
        value: 'search',
        description:
          'Find conversations by words in their title, overview or transcript, most relevant first (discarded ones are not searched, and conversations still in progress only with Include In Progress)',
        action: 'Search conversations',
      },
      {
        name: 'Update',
        value: 'update',
        description: 'Rename, star, discard or move a conversation',
        action: 'Update a conversation',
      },
    ],
    default: 'get',
  },
  ...createFromSegments.description,
  ...createFromText.description,
  ...deleteConversation.description,
  ...get.description,
  ...getAll.description,
  ...search.description,
  ...update.description,
];

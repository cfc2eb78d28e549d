import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as createMany from './createMany.operation';
import * as deleteActionItem from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export { create, createMany, deleteActionItem as delete, getAll, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with action items',
    displayOptions: { show: { resource: ['actionItem'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        description: 'Create an action item',
        action: 'Create an action item',
      },
      {
        name: 'Create Many',
        value: 'createMany',
        description: 'Create one action item per input item, in batches of up to 50',
        action: 'Create many action items',
      },
      {
        name: 'Delete',
        value: 'delete',
        description: 'Delete an action item',
        action: 'Delete an action item',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many action items, newest first',
        action: 'Get many action items',
      },
      {
        name: 'Update',
        value: 'update',
        description: 'Update the fields of an action item that you set',
        action: 'Update an action item',
      },
    ],
    default: 'create',
  },
  ...create.description,
  ...createMany.description,
  ...deleteActionItem.description,
  ...getAll.description,
  ...update.description,
];

import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteFolder from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export { create, deleteFolder as delete, getAll, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with folders',
    displayOptions: { show: { resource: ['folder'] } },
    options: [
      { name: 'Create', value: 'create', description: 'Create a folder', action: 'Create a folder' },
      {
        name: 'Delete',
        value: 'delete',
        description: 'Delete a folder (its conversations stay, in no folder)',
        action: 'Delete a folder',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many folders by their order, then oldest first, with their conversation counts',
        action: 'Get many folders',
      },
      { name: 'Update', value: 'update', description: 'Update a folder', action: 'Update a folder' },
    ],
    default: 'getAll',
  },
  ...create.description,
  ...deleteFolder.description,
  ...getAll.description,
  ...update.description,
];

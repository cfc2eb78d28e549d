import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as createMany from './createMany.operation';
import * as deleteMemory from './delete.operation';
import * as getAll from './getAll.operation';
import * as search from './search.operation';
import * as update from './update.operation';

export { create, createMany, deleteMemory as delete, getAll, search, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with memories',
    displayOptions: { show: { resource: ['memory'] } },
    options: [
      { name: 'Create', value: 'create', description: 'Create a memory', action: 'Create a memory' },
      {
        name: 'Create Many',
        value: 'createMany',
        description: 'Create one memory per input item, in batches of up to 25',
        action: 'Create many memories',
      },
      { name: 'Delete', value: 'delete', description: 'Delete a memory', action: 'Delete a memory' },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many memories, newest first',
        action: 'Get many memories',
      },
      {
        name: 'Search',
        value: 'search',
        description: 'Find memories by words in their content, most relevant first',
        action: 'Search memories',
      },
      { name: 'Update', value: 'update', description: 'Update a memory', action: 'Update a memory' },
    ],
    default: 'create',
  },
  ...create.description,
  ...createMany.description,
  ...deleteMemory.description,
  ...getAll.description,
  ...search.description,
  ...update.description,
];

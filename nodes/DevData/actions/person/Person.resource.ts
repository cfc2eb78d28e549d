import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deletePerson from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export { create, deletePerson as delete, getAll, update };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with people',
    displayOptions: { show: { resource: ['person'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        description: 'Create a person, or get the one that already has this name',
        action: 'Create a person',
      },
      { name: 'Delete', value: 'delete', description: 'Delete a person', action: 'Delete a person' },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many people, sorted by name',
        action: 'Get many people',
      },
      { name: 'Update', value: 'update', description: 'Rename a person', action: 'Update a person' },
    ],
    default: 'getAll',
  },
  ...create.description,
  ...deletePerson.description,
  ...getAll.description,
  ...update.description,
];

import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteKey from './delete.operation';
import * as getAll from './getAll.operation';
import * as getCurrent from './getCurrent.operation';

export { create, deleteKey as delete, getAll, getCurrent };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with developer keys',
    displayOptions: { show: { resource: ['developerKey'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        description:
          'Create a developer key for the same user, with scopes the key this node uses holds (needs keys:write)',
        action: 'Create a developer key',
      },
      {
        name: 'Get Current',
        value: 'getCurrent',
        description: 'Get the developer key this node uses: its name, display form and scopes',
        action: 'Get the current developer key',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: "Get many of the user's active developer keys, newest first (needs keys:read)",
        action: 'Get many developer keys',
      },
      {
        name: 'Revoke',
        value: 'delete',
        description:
          'Revoke a developer key: it is refused from its next request on (needs keys:write and every scope the revoked key holds)',
        action: 'Revoke a developer key',
      },
    ],
    default: 'getCurrent',
  },
  ...create.description,
  ...deleteKey.description,
  ...getAll.description,
  ...getCurrent.description,
];

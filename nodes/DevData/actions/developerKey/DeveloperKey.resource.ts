import type { INodeProperties } from 'n8n-workflow';

import * as getCurrent from './getCurrent.operation';

export { getCurrent };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with the developer key',
    displayOptions: { show: { resource: ['developerKey'] } },
    options: [
      {
        name: 'Get Current',
        value: 'getCurrent',
        description: 'Get the developer key this node uses: its name, display form and scopes',
        action: 'Get the current developer key',
      },
    ],
    default: 'getCurrent',
  },
  ...getCurrent.description,
];

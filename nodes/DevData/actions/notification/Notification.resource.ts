import type { INodeProperties } from 'n8n-workflow';

import * as send from './send.operation';

export { send };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with notifications',
    displayOptions: { show: { resource: ['notification'] } },
    options: [
      {
        name: 'Send',
        value: 'send',
        description: 'Push a notification with exact text to one user of your app',
        action: 'Send a notification',
      },
    ],
    default: 'send',
  },
  ...send.description,
];

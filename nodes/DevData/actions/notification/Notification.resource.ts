import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';
import * as send from './send.operation';

export { getAll, send };

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
        name: 'Get Many',
        value: 'getAll',
        description: 'List the notifications pushed to the user (their inbox), newest first',
        action: 'Get many notifications',
      },
      {
        name: 'Send',
        value: 'send',
        description: 'Push a notification with exact text to one user of your app',
        action: 'Send a notification',
      },
    ],
    default: 'send',
  },
  ...getAll.description,
  ...send.description,
];

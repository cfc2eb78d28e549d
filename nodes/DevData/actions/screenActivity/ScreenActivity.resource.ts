import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with screen activity',
    displayOptions: { show: { resource: ['screenActivity'] } },
    options: [
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many screen activity records, oldest first',
        action: 'Get many screen activity records',
      },
    ],
    default: 'getAll',
  },
  ...getAll.description,
];

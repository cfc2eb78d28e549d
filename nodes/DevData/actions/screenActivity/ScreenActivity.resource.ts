import type { INodeProperties } from 'n8n-workflow';

import * as createMany from './createMany.operation';
import * as getAll from './getAll.operation';

export { createMany, getAll };

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
        name: 'Create Many',
        value: 'createMany',
        description: 'Record many screen activity records, one per input item, in batches of up to 1000',
        action: 'Create many screen activity records',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many screen activity records, oldest first',
        action: 'Get many screen activity records',
      },
    ],
    default: 'getAll',
  },
  ...createMany.description,
  ...getAll.description,
];

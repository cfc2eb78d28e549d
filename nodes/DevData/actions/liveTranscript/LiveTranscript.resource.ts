import type { INodeProperties } from 'n8n-workflow';

import * as addSegments from './addSegments.operation';
import * as finish from './finish.operation';

export { addSegments, finish };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with a live transcript',
    displayOptions: { show: { resource: ['liveTranscript'] } },
    options: [
      {
        name: 'Add Segments',
        value: 'addSegments',
        description:
          "Add segments to a conversation as it happens; the user's apps receive them on their webhooks",
        action: 'Add segments to a live transcript',
      },
      {
        name: 'Finish',
        value: 'finish',
        description: 'End a live conversation; later segments for it are refused',
        action: 'Finish a live transcript',
      },
    ],
    default: 'addSegments',
  },
  ...addSegments.description,
  ...finish.description,
];

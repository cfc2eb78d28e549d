import type { INodeProperties } from 'n8n-workflow';

import * as build from './build.operation';

export { build };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with the answer to a DevData Transcript Trigger call',
    displayOptions: { show: { resource: ['proactiveReply'] } },
    options: [
      {
        name: 'Build',
        value: 'build',
        description:
          "Build the reply a DevData Transcript Trigger answers with: a prompt DevData fills with the user's data, turns into a notification and pushes",
        action: 'Build a proactive reply',
      },
    ],
    default: 'build',
  },
  ...build.description,
];

import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteGoal from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getHistory from './getHistory.operation';
import * as update from './update.operation';
import * as updateProgress from './updateProgress.operation';

export { create, deleteGoal as delete, get, getAll, getHistory, update, updateProgress };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    description: 'What to do with goals',
    displayOptions: { show: { resource: ['goal'] } },
    options: [
      // The value stays `delete` (the API's DELETE), but the goal is not removed: the label says what happens.
      {
        name: 'Abandon',
        value: 'delete',
        description:
          "Set a goal's status to abandoned (DevData never deletes goals): it leaves the default list but can still be read",
        action: 'Abandon a goal',
      },
      { name: 'Create', value: 'create', description: 'Create a goal', action: 'Create a goal' },
      { name: 'Get', value: 'get', description: 'Get a goal', action: 'Get a goal' },
      {
        name: 'Get History',
        value: 'getHistory',
        description: "Get a goal's value per day",
        action: 'Get the history of a goal',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        description: 'Get many goals, newest first',
        action: 'Get many goals',
      },
      { name: 'Update', value: 'update', description: 'Update a goal', action: 'Update a goal' },
      {
        name: 'Update Progress',
        value: 'updateProgress',
        description: "Set a goal's current value and record it in today's history",
        action: 'Update the progress of a goal',
      },
    ],
    default: 'get',
  },
  ...create.description,
  ...deleteGoal.description,
  ...get.description,
  ...getAll.description,
  ...getHistory.description,
  ...update.description,
  ...updateProgress.description,
];

import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { simplifyField } from '../common.description';

import type { RecordSpec } from '../crud';
import type { DateField } from '../utils';

export const GOAL_STATUS_OPTIONS = [
  { name: 'Abandoned', value: 'abandoned' },
  { name: 'Achieved', value: 'achieved' },
  { name: 'Background', value: 'background' },
  { name: 'Focused', value: 'focused' },
  { name: 'Paused', value: 'paused' },
];

export const titleField: INodeProperties = {
  displayName: 'Title',
  name: 'title',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. Run 100 km this month',
  description: 'Title of the goal (1–500 characters)',
};

const number = (displayName: string, name: string, description: string): INodeProperties => ({
  displayName,
  name,
  type: 'number',
  typeOptions: { numberPrecision: 2 },
  default: 0,
  description,
});

const horizonAtField: INodeProperties = {
  displayName: 'Horizon At',
  name: 'horizonAt',
  type: 'dateTime',
  default: '',
  description: "When the goal should be reached (no UTC offset means the workflow's timezone)",
};

/** Horizon At as a date-time field of a collection. */
export const horizonAtDate: DateField = { property: horizonAtField };

/** The fields both Create and Update take, sorted by display name. */
export const goalFields: INodeProperties[] = [
  number(
    'Current Value',
    'currentValue',
    'Where the goal stands now; stored as given, even outside Min Value–Max Value',
  ),
  {
    displayName: 'Desired Outcome',
    name: 'desiredOutcome',
    type: 'string',
    default: '',
    description: 'What reaching the goal looks like (up to 2000 characters)',
  },
  {
    displayName: 'Focus Rank',
    name: 'focusRank',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 1000 },
    default: 0,
    description: 'A rank of your own among focused goals (0–1000), stored as given: no list is sorted by it',
  },
  horizonAtField,
  number('Max Value', 'maxValue', 'Highest value the goal can take'),
  number('Min Value', 'minValue', 'Lowest value the goal can take'),
  {
    displayName: 'Status',
    name: 'status',
    type: 'options',
    default: 'focused',
    options: GOAL_STATUS_OPTIONS,
    description: 'Status of the goal; achieved and abandoned goals are inactive',
  },
  {
    displayName: 'Success Criteria',
    name: 'successCriteria',
    type: 'string',
    typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Criterion' },
    default: [],
    description: 'How to tell the goal is reached, one criterion per entry (up to 20, each 1–500 characters)',
  },
  number('Target Value', 'targetValue', 'The value that means the goal is reached'),
  {
    displayName: 'Unit',
    name: 'unit',
    type: 'string',
    default: '',
    placeholder: 'e.g. km',
    description: 'Unit of the values (up to 50 characters)',
  },
  {
    displayName: 'Why It Matters',
    name: 'whyItMatters',
    type: 'string',
    default: '',
    description: 'Why the goal is worth reaching (up to 2000 characters)',
  },
];

export const goalRecord: RecordSpec = {
  resource: 'goal',
  label: 'Goal',
  path: '/v1/dev/user/goals',
  idName: 'goalId',
  searchListMethod: 'searchGoals',
  nameField: 'title',
};

/** Simplify for a goal read. */
export const simplifyGoalField: INodeProperties = {
  ...simplifyField,
  description: `${simplifyField.description}: the goal without goal_id (the same as id) and metric (the same as goal_type, current_value, target_value, min_value, max_value and unit)`,
};

/**
 * A goal as Simplify shows it: each value once. The API answers `goal_id` beside `id` and `metric` beside the
 * fields it repeats, as the real service does; a model reading both wastes context and may take them for two things.
 */
export function simplifyGoal(record: IDataObject): IDataObject {
  const simplified = { ...record };
  delete simplified.goal_id;
  delete simplified.metric;
  return simplified;
}

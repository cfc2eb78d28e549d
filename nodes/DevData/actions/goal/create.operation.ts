import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { additionalFields, byDisplayName } from '../common.description';
import { toNumber, toWireFields } from '../utils';
import { goalFields, goalRecord, horizonAtDate, titleField } from './fields';

/** A numeric goal's Target Value. */
const targetValueField: INodeProperties = {
  displayName: 'Target Value',
  name: 'targetValue',
  type: 'number',
  typeOptions: { numberPrecision: 2 },
  required: true,
  default: 0,
  description: 'The value that means the goal is reached',
  displayOptions: { show: { goalType: ['numeric'] } },
};

const properties: INodeProperties[] = [
  titleField,
  {
    displayName: 'Goal Type',
    name: 'goalType',
    type: 'options',
    default: 'numeric',
    options: [
      {
        name: 'Boolean',
        value: 'boolean',
        description: 'Done or not done (0–1 unless Max Value is set; the target is the Max Value unless set)',
      },
      { name: 'Numeric', value: 'numeric', description: 'A number to reach; needs a target value' },
      {
        name: 'Scale',
        value: 'scale',
        description: 'A rating from 0 to 10 unless Max Value is set; the target is the Max Value unless set',
      },
    ],
    description: 'How progress is measured',
  },
  targetValueField,
  additionalFields(
    byDisplayName([
      ...goalFields.map((field) =>
        field.name === 'targetValue'
          ? { ...field, displayOptions: { hide: { '/goalType': ['numeric'] } } }
          : field,
      ),
      {
        displayName: 'Source',
        name: 'source',
        type: 'options',
        default: 'user',
        options: [
          { name: 'AI Suggested', value: 'ai_suggested' },
          { name: 'Imported', value: 'imported' },
          { name: 'User', value: 'user' },
        ],
        description: 'Where the goal comes from',
      },
    ]),
  ),
];

export const description = updateDisplayOptions(
  { show: { resource: ['goal'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const goalType = this.getNodeParameter('goalType', itemIndex) as string;
  const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
  const body: IDataObject = {
    title: this.getNodeParameter('title', itemIndex) as string,
    goal_type: goalType,
    ...toWireFields.call(this, additional, itemIndex, [horizonAtDate], goalFields),
  };
  // With Goal Type an expression (an AI agent's $fromAI too), the editor hides the numeric goal's own Target Value
  // and shows the one under Additional Fields: a Target Value set there is the one the user gave.
  const typeByExpression = String(
    this.getNodeParameter('goalType', itemIndex, '', { rawExpressions: true }),
  ).startsWith('=');
  if (goalType === 'numeric' && !(typeByExpression && body.target_value !== undefined)) {
    const target = this.getNodeParameter(targetValueField.name, itemIndex) as IDataObject[string];
    body.target_value = toNumber.call(this, target, targetValueField.displayName, itemIndex);
  }
  // A server that implements only the real service's goals requires a target for every type; the default sent is
  // the one devdata-server applies itself: the maximum (1 for a boolean goal, 10 for a scale).
  body.target_value ??= body.max_value ?? (goalType === 'boolean' ? 1 : 10);
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: goalRecord.path,
    body,
    itemIndex,
  })) as IDataObject;
}

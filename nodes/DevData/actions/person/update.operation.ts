import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { recordId } from '../common.description';
import { nameField } from './create.operation';

const properties: INodeProperties[] = [
  recordId('personId', 'Person', 'searchPeople'),
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description: 'Only the fields added here are changed',
    options: [
      { ...nameField, required: false, description: 'New name (2–40 characters, unique among your people)' },
    ],
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['person'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('personId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    path: `/v1/dev/user/people/${encodeURIComponent(id)}`,
    body: this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject,
    itemIndex,
    resource: 'Person',
    id,
  })) as IDataObject;
}

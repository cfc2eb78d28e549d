import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { additionalFields } from '../common.description';
import { actionItemRecord, completedField, descriptionField, dueAtField, newActionItem } from './fields';

const properties: INodeProperties[] = [
  descriptionField,
  additionalFields([
    completedField,
    {
      displayName: 'Conversation ID',
      name: 'conversationId',
      type: 'string',
      default: '',
      description:
        'The ID of the conversation the action item comes from (not its title); get it from Conversation → Get Many or Search',
    },
    dueAtField,
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['actionItem'], operation: ['create'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: actionItemRecord.path,
    body: newActionItem.call(this, itemIndex),
    itemIndex,
  })) as IDataObject;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { byDisplayName, operationOptions } from '../common.description';
import {
  conversationBody,
  conversationOptions,
  conversationRecord,
  createdOutput,
  includeTranscriptInOutputField,
  textSourceFields,
} from './fields';

const properties: INodeProperties[] = [
  {
    displayName: 'Text',
    name: 'text',
    type: 'string',
    typeOptions: { rows: 5 },
    required: true,
    default: '',
    description: 'The conversation as plain text (up to 200,000 characters)',
  },
  operationOptions(
    byDisplayName([...conversationOptions, includeTranscriptInOutputField, ...textSourceFields]),
  ),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['createFromText'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const { includeTranscriptInOutput, ...options } = this.getNodeParameter(
    'options',
    itemIndex,
    {},
  ) as IDataObject;
  const answer = (await devDataRequest.call(this, {
    method: 'POST',
    path: conversationRecord.path,
    body: {
      text: this.getNodeParameter('text', itemIndex) as string,
      ...conversationBody.call(this, options, itemIndex),
    },
    itemIndex,
  })) as IDataObject;
  return createdOutput.call(this, answer, includeTranscriptInOutput, itemIndex);
}

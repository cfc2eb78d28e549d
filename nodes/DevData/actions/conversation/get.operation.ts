import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { recordId } from '../common.description';

const properties: INodeProperties[] = [
  recordId('conversationId', 'Conversation', 'searchConversations'),
  {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    description: 'Further settings for this operation',
    placeholder: 'Add Option',
    default: {},
    options: [
      {
        displayName: 'Include Transcript',
        name: 'includeTranscript',
        type: 'boolean',
        default: true,
        description: 'Whether to include the transcript segments (transcript_segments)',
      },
    ],
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('conversationId', itemIndex, '', { extractValue: true }) as string;
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  return (await devDataRequest.call(this, {
    method: 'GET',
    path: `/v1/dev/user/conversations/${encodeURIComponent(id)}`,
    qs: { include_transcript: options.includeTranscript === true ? true : undefined },
    itemIndex,
    resource: 'Conversation',
    id,
  })) as IDataObject;
}

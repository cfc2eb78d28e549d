import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { operationOptions } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { conversationRecord, simplifyConversation, simplifyConversationField } from './fields';

const properties: INodeProperties[] = [
  recordLocator(conversationRecord),
  simplifyConversationField,
  operationOptions([
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: true,
      description:
        'Whether to include the transcript segments (transcript_segments); when not set, a simplified conversation includes them (capped) and a raw one does not',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const includeTranscript = (options.includeTranscript as boolean | undefined) ?? simplify;
  const record = (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, conversationRecord, itemIndex),
    qs: { include_transcript: includeTranscript ? true : undefined },
  })) as IDataObject;
  return simplify ? simplifyConversation(record) : record;
}

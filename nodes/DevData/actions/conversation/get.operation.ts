import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { operationOptions } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { booleanParameter, toBoolean } from '../utils';
import { conversationRecord, simplifyConversation, simplifyConversationField } from './fields';

const includeTranscriptOption: INodeProperties = {
  displayName: 'Include Transcript',
  name: 'includeTranscript',
  type: 'boolean',
  default: true,
  description:
    'Whether to include the transcript segments (transcript_segments); when not set, a simplified conversation includes them (capped) and a raw one does not',
};

const properties: INodeProperties[] = [
  recordLocator(conversationRecord),
  simplifyConversationField,
  operationOptions([includeTranscriptOption]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const simplify = booleanParameter.call(this, simplifyConversationField, itemIndex);
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const includeTranscript =
    toBoolean.call(this, options.includeTranscript, includeTranscriptOption.displayName, itemIndex) ??
    simplify;
  const record = (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, conversationRecord, itemIndex),
    qs: { include_transcript: includeTranscript ? true : undefined },
  })) as IDataObject;
  return simplify ? simplifyConversation(record) : record;
}

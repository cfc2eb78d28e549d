import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { byDisplayName, operationOptions } from '../common.description';
import { segmentsOf, segmentsProperties } from '../segments';
import {
  conversationBody,
  conversationOptions,
  conversationRecord,
  createdOutput,
  includeTranscriptInOutputField,
} from './fields';

const properties: INodeProperties[] = [
  ...segmentsProperties,
  operationOptions(
    byDisplayName([
      {
        displayName: 'Client Session ID',
        name: 'clientSessionId',
        type: 'string',
        default: '',
        description:
          'Idempotency key: sending the same value again returns the conversation created the first time instead of a new one',
      },
      ...conversationOptions,
      includeTranscriptInOutputField,
    ]),
  ),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['createFromSegments'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const { clientSessionId, includeTranscriptInOutput, ...rest } = options;
  const answer = (await devDataRequest.call(this, {
    method: 'POST',
    path: `${conversationRecord.path}/from-segments`,
    body: {
      transcript_segments: segmentsOf.call(this, itemIndex),
      ...(clientSessionId ? { client_session_id: clientSessionId } : {}),
      ...conversationBody.call(this, rest, itemIndex),
    },
    itemIndex,
  })) as IDataObject;
  return createdOutput.call(this, answer, includeTranscriptInOutput, itemIndex);
}

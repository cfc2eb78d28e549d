import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { operationOptions } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { conversationRecord } from './fields';

const properties: INodeProperties[] = [
  recordLocator(conversationRecord),
  operationOptions([
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: true,
      description: 'Whether to include the transcript segments (transcript_segments)',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['get'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  return (await devDataRequest.call(this, {
    method: 'GET',
    ...addressedRecord.call(this, conversationRecord, itemIndex),
    qs: { include_transcript: options.includeTranscript === true ? true : undefined },
  })) as IDataObject;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { segmentsOf, segmentsProperties } from '../segments';
import { sessionId, sessionIdOf, sessionPath } from './fields';

const properties: INodeProperties[] = [
  {
    displayName:
      "The server answers at once and sends the segments on to the webhooks of the user's apps (proactive notifications) afterwards. A finished session refuses more segments.",
    name: 'addSegmentsNotice',
    type: 'notice',
    default: '',
  },
  sessionId,
  ...segmentsProperties,
];

export const description = updateDisplayOptions(
  { show: { resource: ['liveTranscript'], operation: ['addSegments'] } },
  properties,
);

/** `{session_id, conversation_id, dispatched}`: the server has stored the segments (202). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = sessionIdOf.call(this, itemIndex);
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: `${sessionPath(id)}/segments`,
    body: { segments: segmentsOf.call(this, itemIndex) },
    itemIndex,
  })) as IDataObject;
}

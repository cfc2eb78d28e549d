import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { sessionId, sessionIdOf, sessionPath } from './fields';

export const description = updateDisplayOptions(
  { show: { resource: ['liveTranscript'], operation: ['finish'] } },
  [sessionId] as INodeProperties[],
);

/** `{session_id, conversation_id, finished_at}`; finishing a finished session answers the same again. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = sessionIdOf.call(this, itemIndex);
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: `${sessionPath(id)}/finish`,
    itemIndex,
    resource: 'Transcript session',
    id,
  })) as IDataObject;
}

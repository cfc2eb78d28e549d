import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { appIdOf, devDataRequest } from '../../../shared';

const properties: INodeProperties[] = [
  {
    displayName:
      'Uses the DevData App API credential (app ID and secret). The user must have installed the app; each app may send a user at most 10 direct notifications per hour.',
    name: 'sendNotice',
    type: 'notice',
    default: '',
  },
  {
    displayName: 'User ID',
    name: 'uid',
    type: 'string',
    required: true,
    default: '',
    description:
      "The DevData user ID of a user who has installed your app (not a name or email), e.g. the uid field of the DevData Transcript Trigger's output",
  },
  {
    displayName: 'Message',
    name: 'message',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
    description: 'The exact text to push (1–2000 characters)',
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['notification'], operation: ['send'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const appId = appIdOf(await this.getCredentials('devDataAppApi', itemIndex));
  const uid = this.getNodeParameter('uid', itemIndex) as string;
  return (await devDataRequest.call(this, {
    method: 'POST',
    path: `/v2/integrations/${encodeURIComponent(appId)}/notification`,
    qs: { uid, message: this.getNodeParameter('message', itemIndex) as string },
    credentialType: 'devDataAppApi',
    itemIndex,
    id: uid,
  })) as IDataObject;
}

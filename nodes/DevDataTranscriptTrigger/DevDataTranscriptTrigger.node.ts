import type {
  IHookFunctions,
  INodeType,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { firstDelivery } from '../shared';
import { parsePayload } from './payload';
import { isAutomatic, ownUrl, webhookRegistration } from './registration';
import { verifySignature } from './signature';

/** Answers the call itself (n8n's way for a trigger to refuse a request) and starts nothing. */
function refuse(this: IWebhookFunctions, status: number, message: string): IWebhookResponseData {
  this.getResponseObject().status(status).json({ message });
  return { noWebhookResponse: true };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export class DevDataTranscriptTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData Transcript Trigger',
    name: 'devDataTranscriptTrigger',
    icon: { light: 'file:devDataTranscriptTrigger.svg', dark: 'file:devDataTranscriptTrigger.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle:
      '={{$parameter["respond"] === "onReceived" ? "Without a notification" : "Replies with a notification"}}',
    description:
      "Starts the workflow when DevData sends your app a user's live transcript, and answers with a proactive notification",
    defaults: { name: 'DevData Transcript Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'devDataAppApi', required: true }],
    webhooks: [
      {
        name: 'default',
        httpMethod: 'POST',
        // As n8n's Webhook node does: the Respond parameter holds the response mode itself.
        responseMode: '={{$parameter["respond"]}}',
        // Only used when waiting for the last node. In "onReceived" mode n8n would send a non-empty responseData
        // as the body, so it is empty there and the webhook's own answer ({session_id}) goes out instead.
        responseData: '={{$parameter["respond"] === "lastNode" ? "firstEntryJson" : ""}}',
        // Not a full path: each trigger node answers at /webhook/<its webhookId>/devdata, so two workflows with a
        // DevData Transcript Trigger never claim the same URL.
        path: 'devdata',
      },
    ],
    properties: [
      {
        displayName: 'Registration',
        name: 'registration',
        type: 'options',
        noDataExpression: true,
        options: [
          {
            name: 'Automatic',
            value: 'automatic',
            description:
              "Point the app's webhook URL at this trigger's Production URL when the workflow is published (or at its Test URL while you listen for a test event), replacing the URL set before; unpublishing removes it again",
          },
          {
            name: 'Manual',
            value: 'manual',
            description:
              'Change nothing at DevData: paste the Production URL into your app in the DevData developer portal yourself',
          },
        ],
        default: 'automatic',
        description:
          'How DevData learns where to send transcripts. DevData must be able to reach the URLs above.',
      },
      {
        displayName:
          'Paste the Production URL above into your app\'s webhook URL in the DevData developer portal, triggered on "Transcript Processed", and publish the workflow',
        name: 'manualNotice',
        type: 'notice',
        default: '',
        displayOptions: { show: { registration: ['manual'] } },
      },
      {
        displayName: 'Respond',
        name: 'respond',
        type: 'options',
        noDataExpression: true,
        options: [
          {
            name: "With the Last Node's Notification",
            value: 'lastNode',
            description:
              'Wait for the workflow (DevData waits up to 15 seconds unless its DEVDATA_WEBHOOK_TIMEOUT_MS says otherwise) and answer with the first item of its last node: end the workflow with DevData → Proactive Reply → Build. A workflow that fails or ends without a notification pushes nothing (a message in that item is pushed as it is).',
          },
          {
            name: 'Without a Notification',
            value: 'onReceived',
            description:
              'Answer at once, so nothing is pushed, and run the workflow afterwards (e.g. to store the transcript or send a direct notification)',
          },
        ],
        default: 'lastNode',
        description: 'What DevData gets back for each call',
      },
    ],
  };

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        // Manual: nothing to register, so nothing is ever missing.
        if (!isAutomatic.call(this)) return true;
        const current = await webhookRegistration.call(this, 'GET');
        return current.webhook_url === ownUrl.call(this);
      },
      async create(this: IHookFunctions): Promise<boolean> {
        if (!isAutomatic.call(this)) return true;
        const url = ownUrl.call(this);
        // The app has one webhook URL: listening for a test event takes it from the published workflow, which
        // gets it back when the listening ends (delete).
        if (this.getMode() === 'manual') {
          const current = await webhookRegistration.call(this, 'GET');
          this.getWorkflowStaticData('node').restoreUrl = current.webhook_url ?? undefined;
        }
        const saved = await webhookRegistration.call(this, 'PUT', {
          webhook_url: url,
          triggers_on: 'transcript_processed',
        });
        if (saved.webhook_url !== url) {
          throw new NodeApiError(
            this.getNode(),
            { webhook_url: saved.webhook_url },
            {
              message: 'The DevData server did not keep the webhook URL',
              description: `It answered webhook_url ${String(saved.webhook_url)} instead of ${url}.`,
            },
          );
        }
        return true;
      },
      async delete(this: IHookFunctions): Promise<boolean> {
        if (!isAutomatic.call(this)) return true;
        const staticData = this.getWorkflowStaticData('node');
        const restoreUrl = typeof staticData.restoreUrl === 'string' ? staticData.restoreUrl : undefined;
        delete staticData.restoreUrl;
        const own = ownUrl.call(this);
        const current = await webhookRegistration.call(this, 'GET');
        // Another workflow or the developer portal has set another URL since: that one stays.
        if (current.webhook_url !== own) return true;
        if (restoreUrl && restoreUrl !== own) {
          await webhookRegistration.call(this, 'PUT', {
            webhook_url: restoreUrl,
            triggers_on: 'transcript_processed',
          });
        } else {
          await webhookRegistration.call(this, 'DELETE');
        }
        return true;
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const { webhookSecret } = await this.getCredentials<{ webhookSecret?: string }>('devDataAppApi');
    if (webhookSecret) {
      const request = this.getRequestObject();
      const now = Date.now();
      const signature = headerValue(this.getHeaderData()['x-signature']);
      // Pasted with a space or line break around it, as the App Secret is tolerated: a secret has none inside.
      const check = verifySignature(webhookSecret.trim(), request.rawBody, signature, now);
      if (!check.valid) return refuse.call(this, 401, check.reason);
      // DevData calls once and never again: the same signed call a second time is a replay (its query, which
      // the signature does not cover, may name another user), and starts nothing.
      const node = this.getNode();
      if (!firstDelivery(`${this.getWorkflow().id ?? ''}:${node.id}:${check.id}`, now)) {
        return refuse.call(this, 409, 'This signed call was received before: a replay starts nothing');
      }
    }

    const payload = parsePayload(this.getBodyData(), this.getQueryData());
    if (!payload.ok) return refuse.call(this, 400, payload.reason);

    const respond = this.getNodeParameter('respond', 'lastNode') as string;
    return {
      workflowData: [this.helpers.returnJsonArray([payload.item])],
      ...(respond === 'onReceived' ? { webhookResponse: { session_id: payload.item.session_id } } : {}),
    };
  }
}

import type {
  IDataObject,
  IHookFunctions,
  INodeType,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { firstDelivery } from '../shared';
import { chosenEvents, covers, eventsParameter } from './events';
import { verifyStandardWebhook } from './signature';
import {
  createSubscription,
  removeSubscription,
  storedSubscription,
  subscriptionExists,
} from './subscription';

/** One event as the server delivers it. */
interface DeliveredEvent {
  type: string;
  id: string;
  timestamp: string;
  data: IDataObject;
}

type ParsedEvent = { ok: true; event: DeliveredEvent } | { ok: false; reason: string };

const EXPECTED = 'The body must be {"type", "id", "timestamp", "data": {…}}';

/** Answers the call itself (n8n's way for a trigger to refuse a request) and starts nothing. */
function refuse(this: IWebhookFunctions, status: number, message: string): IWebhookResponseData {
  this.getResponseObject().status(status).json({ message });
  return { noWebhookResponse: true };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isObject(value: unknown): value is IDataObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the event from the body exactly as it was signed; its id must be the webhook-id the signature covers. */
function parseEvent(rawBody: Buffer | string, signedId: string): ParsedEvent {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString());
  } catch {
    return { ok: false, reason: `${EXPECTED}: it is not JSON` };
  }
  if (!isObject(body) || typeof body.type !== 'string' || typeof body.id !== 'string') {
    return { ok: false, reason: `${EXPECTED}: no type or id` };
  }
  if (body.id !== signedId) return { ok: false, reason: 'The body’s id is not the webhook-id header' };
  return {
    ok: true,
    event: {
      type: body.type,
      id: body.id,
      timestamp: typeof body.timestamp === 'string' ? body.timestamp : '',
      data: isObject(body.data) ? body.data : {},
    },
  };
}

export class DevDataTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'DevData Trigger',
    name: 'devDataTrigger',
    icon: { light: 'file:devDataTrigger.svg', dark: 'file:devDataTrigger.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{ ($parameter["events"] || []).join(", ") }}',
    description:
      'Starts the workflow the moment a DevData conversation, memory, action item, goal or notification changes, or live transcript segments arrive',
    eventTriggerDescription: 'Waiting for you to change a record in DevData',
    defaults: { name: 'DevData Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'devDataApi', required: true }],
    webhooks: [
      {
        name: 'default',
        httpMethod: 'POST',
        // Answer at once: the server waits 10 s at most, and retries what it does not see answered.
        responseMode: 'onReceived',
        // Empty: n8n would send a non-empty value itself as the body; this way the answer is its JSON
        // {"message": "Workflow was started"}.
        responseData: '',
        // Not a full path: each trigger node answers at /webhook/<its webhookId>/events.
        path: 'events',
      },
    ],
    properties: [
      {
        displayName:
          'DevData calls this trigger’s Production URL the moment a record changes. The credential’s developer key needs the webhooks:read and webhooks:write scopes, and the read scope of each chosen event’s records (memories:read for memory events, and so on). If the DevData server cannot reach this n8n, use the DevData Poll Trigger instead.',
        name: 'reachabilityNotice',
        type: 'notice',
        default: '',
      },
      eventsParameter,
    ],
  };

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        return await subscriptionExists.call(this);
      },
      async create(this: IHookFunctions): Promise<boolean> {
        return await createSubscription.call(this);
      },
      async delete(this: IHookFunctions): Promise<boolean> {
        return await removeSubscription.call(this);
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    // n8n runs a call to the test URL in mode `manual`, one to the production URL in mode `webhook`.
    const stored = storedSubscription(this.getWorkflowStaticData('node'), this.getMode() === 'manual');
    if (!stored) {
      return refuse.call(
        this,
        401,
        'This trigger holds no subscription secret: unpublish and publish the workflow again',
      );
    }
    const headers = this.getHeaderData();
    const { rawBody } = this.getRequestObject();
    const now = Date.now();
    const check = verifyStandardWebhook(
      stored.secret,
      {
        id: headerValue(headers['webhook-id']),
        timestamp: headerValue(headers['webhook-timestamp']),
        signature: headerValue(headers['webhook-signature']),
        rawBody,
      },
      now,
    );
    if (!check.valid) return refuse.call(this, 401, check.reason);

    const parsed = parseEvent(rawBody, check.id);
    if (!parsed.ok) return refuse.call(this, 400, parsed.reason);
    const { event } = parsed;

    // The server signs each attempt anew: a retry of an event this process already started the workflow for
    // carries another timestamp, and is answered, so the server stops sending it, and starts nothing. An exact
    // copy of a call taken, its timestamp too, is a replay by someone who saw it: refused. Per subscription: the
    // published workflow and a test listener of it have one each, and each receives the event under the same id.
    const node = this.getNode();
    const delivery = `${this.getWorkflow().id ?? ''}:${node.id}:${stored.subscriptionId}:${event.id}`;
    if (!firstDelivery(`${delivery}@${check.timestamp}`, now)) {
      return refuse.call(this, 401, 'Replayed call: this exact call was received before; it starts nothing');
    }
    if (!firstDelivery(delivery, now)) {
      return { webhookResponse: { message: 'Already received' } };
    }
    const events = chosenEvents(this.getNode(), this.getNodeParameter('events', []));
    if (!covers(events, event.type)) {
      return { webhookResponse: { message: `Not subscribed to ${event.type}` } };
    }

    const item: IDataObject = {
      ...event.data,
      event: event.type,
      event_id: event.id,
      event_timestamp: event.timestamp,
    };
    return { workflowData: [this.helpers.returnJsonArray([item])] };
  }
}

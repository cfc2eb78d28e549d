import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { devDataRequest } from '../shared';
import { subscribedEvents } from './events';

const WEBHOOKS = '/v1/dev/user/webhooks';
/** Longer workflow names are cut: the description only helps a person find the subscription in a list. */
const MAX_DESCRIPTION_LENGTH = 200;

/** A subscription as the server answers it (`secret` only when it is created). */
interface Subscription {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  secret?: string;
}

/** What the trigger keeps in its node's static data while its workflow is active. */
export interface StoredSubscription {
  /** The subscription's id on the server. */
  subscriptionId: string;
  /** Its signing secret (`whsec_…`), shown by the server only when the subscription is created. */
  secret: string;
  /** The URL it delivers to: this trigger's production URL, or its test URL while listening for a test event. */
  url: string;
  /** The events asked for, as subscribedEvents gives them. */
  events: string[];
}

/** The subscription the node's static data holds, if any. */
export function storedSubscription(staticData: IDataObject): StoredSubscription | undefined {
  const { subscriptionId, secret, url, events } = staticData;
  if (typeof subscriptionId !== 'string' || typeof secret !== 'string' || typeof url !== 'string')
    return undefined;
  return { subscriptionId, secret, url, events: Array.isArray(events) ? events.map(String) : [] };
}

function forget(staticData: IDataObject): void {
  delete staticData.subscriptionId;
  delete staticData.secret;
  delete staticData.url;
  delete staticData.events;
}

/** This trigger's URL for the current activation: the production URL, or the test URL while testing. */
function ownUrl(this: IHookFunctions): string {
  const url = this.getNodeWebhookUrl('default');
  if (!url) throw new NodeOperationError(this.getNode(), 'n8n gave this trigger no webhook URL');
  return url;
}

/** The events chosen in the node, as they are sent to the server. */
function wantedEvents(this: IHookFunctions): string[] {
  const events = subscribedEvents(this.getNodeParameter('events', []) as string[]);
  if (!events.length) {
    throw new NodeOperationError(this.getNode(), 'Choose at least one event in Events', {
      description:
        'The trigger has nothing to subscribe to: pick the changes that should start the workflow.',
    });
  }
  return events;
}

const isNotFound = (error: unknown) => error instanceof NodeApiError && error.httpCode === '404';

/** The error devDataRequest threw, as it was: both n8n error classes hand an instance of their own back. */
function passOn(this: IHookFunctions, error: unknown): NodeApiError | NodeOperationError {
  return error instanceof NodeOperationError
    ? new NodeOperationError(this.getNode(), error)
    : new NodeApiError(this.getNode(), error as JsonObject);
}

/** GET one subscription; undefined when the server no longer has it. */
async function fetchSubscription(this: IHookFunctions, id: string): Promise<Subscription | undefined> {
  try {
    return (await devDataRequest.call(this, {
      method: 'GET',
      path: `${WEBHOOKS}/${encodeURIComponent(id)}`,
    })) as Subscription;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw passOn.call(this, error);
  }
}

/** DELETE one subscription; one the server no longer has counts as deleted. */
async function deleteSubscription(this: IHookFunctions, id: string): Promise<void> {
  try {
    await devDataRequest.call(this, { method: 'DELETE', path: `${WEBHOOKS}/${encodeURIComponent(id)}` });
  } catch (error) {
    if (!isNotFound(error)) throw passOn.call(this, error);
  }
}

/**
 * Whether the subscription this node made for the current URL still exists on the server, active and for the
 * events chosen now. A subscription stored for the other URL (production while a test event is awaited, or the
 * reverse) is not this activation's.
 */
export async function subscriptionExists(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const stored = storedSubscription(staticData);
  if (!stored || stored.url !== ownUrl.call(this)) return false;
  const current = await fetchSubscription.call(this, stored.subscriptionId);
  if (!current) {
    forget(staticData);
    return false;
  }
  return (
    current.active !== false &&
    current.url === stored.url &&
    sameEvents(stored.events, wantedEvents.call(this))
  );
}

function sameEvents(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((event, index) => event === b[index]);
}

/** What the subscription says about itself in the server's list: which workflow and node made it. */
function descriptionOf(this: IHookFunctions): string {
  return `n8n workflow "${this.getWorkflow().name ?? this.getWorkflow().id ?? ''}", node "${this.getNode().name}"`.slice(
    0,
    MAX_DESCRIPTION_LENGTH,
  );
}

/**
 * Subscribes this trigger's URL to the chosen events and keeps the id and secret in the node's static data. A
 * subscription stored before for the same URL (other events, or disabled by the server after failing for a day)
 * is deleted first, so one trigger never has two.
 */
export async function createSubscription(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const url = ownUrl.call(this);
  const events = wantedEvents.call(this);
  const stored = storedSubscription(staticData);
  if (stored?.url === url) await deleteSubscription.call(this, stored.subscriptionId);

  const created = (await devDataRequest.call(this, {
    method: 'POST',
    path: WEBHOOKS,
    body: { url, events, description: descriptionOf.call(this) },
  })) as Partial<Subscription>;
  if (typeof created.id !== 'string' || typeof created.secret !== 'string') {
    throw new NodeApiError(this.getNode(), created as JsonObject, {
      message: 'The DevData server answered the subscription without its ID or secret',
      description: `POST ${WEBHOOKS} must answer {id, url, events, active, secret, …}.`,
    });
  }
  forget(staticData);
  Object.assign(staticData, { subscriptionId: created.id, secret: created.secret, url, events });
  return true;
}

/** Deletes the subscription this node made for the current URL and forgets it. */
export async function removeSubscription(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const stored = storedSubscription(staticData);
  if (!stored || stored.url !== ownUrl.call(this)) return true;
  await deleteSubscription.call(this, stored.subscriptionId);
  forget(staticData);
  return true;
}

import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { devDataRequest, issueAt, refusedTriggerUrlError } from '../shared';
import { chosenEvents, eventsParameter, subscribedEvents } from './events';

const WEBHOOKS = '/v1/dev/user/webhooks';
/** Longer descriptions are cut (in characters): it only helps a person find the subscription in a list. */
const MAX_DESCRIPTION_LENGTH = 200;

/** A subscription as the server answers it (`secret` only when it is created). */
interface Subscription {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  secret?: string;
}

/**
 * What the trigger keeps in its node's static data while its workflow is active: the production subscription at
 * the top level (where every version has kept it), the one a test listener makes under `testSubscription`, so
 * that neither activation ever mistakes the other's subscription for its own.
 */
export interface StoredSubscription {
  /** The subscription's id on the server. */
  subscriptionId: string;
  /** Its signing secret (`whsec_…`), shown by the server only when the subscription is created. */
  secret: string;
  /** The URL it delivers to: this trigger's production URL, or its test URL while listening for a test event. */
  url: string;
}

const TEST_SLOT = 'testSubscription';

/** The production (`test` false) or test subscription the node's static data holds, if any. */
export function storedSubscription(staticData: IDataObject, test: boolean): StoredSubscription | undefined {
  const slot = test ? staticData[TEST_SLOT] : staticData;
  if (typeof slot !== 'object' || slot === null) return undefined;
  const { subscriptionId, secret, url } = slot as IDataObject;
  if (typeof subscriptionId !== 'string' || typeof secret !== 'string' || typeof url !== 'string')
    return undefined;
  return { subscriptionId, secret, url };
}

function keep(staticData: IDataObject, test: boolean, subscription: StoredSubscription): void {
  forget(staticData, test);
  if (test) staticData[TEST_SLOT] = { ...subscription };
  else Object.assign(staticData, subscription);
}

function forget(staticData: IDataObject, test: boolean): void {
  if (test) {
    delete staticData[TEST_SLOT];
    return;
  }
  delete staticData.subscriptionId;
  delete staticData.secret;
  delete staticData.url;
  // Kept by earlier versions, which compared it instead of the server's events.
  delete staticData.events;
}

/**
 * Whether this activation listens for a test event: n8n runs checkExists and create in mode `manual` then (1.x
 * and 2.x alike), and in mode `trigger` when it publishes the workflow. (Not for delete: n8n runs it in mode
 * `internal` for both.)
 */
function isTestActivation(this: IHookFunctions): boolean {
  return this.getMode() === 'manual';
}

/** This trigger's URL for the current activation: the production URL, or the test URL while testing. */
function ownUrl(this: IHookFunctions): string {
  const url = this.getNodeWebhookUrl('default');
  if (!url) throw new NodeOperationError(this.getNode(), 'n8n gave this trigger no webhook URL');
  return url;
}

/** The events chosen in the node, as they are sent to the server. */
function wantedEvents(this: IHookFunctions): string[] {
  const events = chosenEvents(this.getNode(), this.getNodeParameter('events', []));
  if (!events.length) {
    throw new NodeOperationError(
      this.getNode(),
      `Choose at least one event in ${eventsParameter.displayName}`,
      {
        description:
          'The trigger has nothing to subscribe to: pick the changes that should start the workflow.',
      },
    );
  }
  return events;
}

/**
 * Whether the server answered that it has no such subscription (for this user). Not any 404: a server without
 * event webhooks, or another server at the Base URL (n8n's own address, say), answers 404 too, and taking that for
 * "gone" would forget a subscription that still delivers.
 */
const isNotFound = (error: unknown) =>
  error instanceof NodeApiError &&
  error.httpCode === '404' &&
  error.errorResponse?.detail === 'Webhook not found';

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

/** PATCHes one subscription active again; false when the server no longer has it. */
async function resumeSubscription(this: IHookFunctions, id: string): Promise<boolean> {
  try {
    await devDataRequest.call(this, {
      method: 'PATCH',
      path: `${WEBHOOKS}/${encodeURIComponent(id)}`,
      body: { active: true },
    });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw passOn.call(this, error);
  }
}

/**
 * Whether the subscription this activation made (production or test) still exists on the server, delivers to
 * this trigger's URL and has the events chosen now, as the server holds them: someone may have changed them
 * there. One that is not active (disabled by the server after failing for a day while n8n was out of reach, or
 * paused) is resumed rather than replaced: replacing it would delete the deliveries waiting on it, and its failed
 * ones listed for redelivery.
 */
export async function subscriptionExists(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const test = isTestActivation.call(this);
  const stored = storedSubscription(staticData, test);
  const url = ownUrl.call(this);
  if (!stored || stored.url !== url) return false;
  const current = await fetchSubscription.call(this, stored.subscriptionId);
  if (!current) {
    forget(staticData, test);
    return false;
  }
  if (current.url !== url || !sameEvents(current.events, wantedEvents.call(this))) return false;
  if (current.active !== false) return true;
  if (await resumeSubscription.call(this, stored.subscriptionId)) return true;
  forget(staticData, test);
  return false;
}

/** Whether two event lists subscribe to the same events: in any order, `*` covering the rest. */
function sameEvents(current: unknown, wanted: string[]): boolean {
  if (!Array.isArray(current)) return false;
  const normalised = subscribedEvents(current.map(String));
  return normalised.length === wanted.length && normalised.every((event, index) => event === wanted[index]);
}

/** What the subscription says about itself in the server's list: which workflow and node made it. */
function descriptionOf(this: IHookFunctions): string {
  const description = `n8n workflow "${this.getWorkflow().name ?? this.getWorkflow().id ?? ''}", node "${this.getNode().name}"`;
  // Cut between characters: half an emoji left at the end is text the server refuses, failing the activation.
  return Array.from(description).slice(0, MAX_DESCRIPTION_LENGTH).join('');
}

/**
 * The server's refusal of what n8n sent for the node (a 422 at `body.url` or `body.events`) as an error that names
 * what the user sees: the URL n8n made (not https, a private address, …), or the event in Events the server does
 * not know (a typo in a hand-written workflow, or a server older than this node). Undefined for any other failure.
 */
function refusalError(
  this: IHookFunctions,
  error: unknown,
  { url, events, test }: { url: string; events: string[]; test: boolean },
): NodeApiError | undefined {
  if (!(error instanceof NodeApiError) || error.httpCode !== '422') return undefined;
  const body = error.errorResponse;
  const urlRefusal = issueAt(body, 'body.url');
  if (urlRefusal) {
    return refusedTriggerUrlError(this.getNode(), body, {
      url,
      test,
      reason: urlRefusal.msg,
      alternative: 'use the DevData Poll Trigger instead, which needs no calls from the server',
    });
  }
  const eventRefusal = issueAt(body, 'body.events');
  const index = eventRefusal?.loc[2];
  if (eventRefusal && typeof index === 'number' && events[index] !== undefined) {
    return new NodeApiError(this.getNode(), body as JsonObject, {
      message: `The DevData server does not know the event "${events[index]}" in ${eventsParameter.displayName}`,
      description: `${eventRefusal.msg}. Choose the events from the list in ${eventsParameter.displayName}; if the event is there, this DevData server is older than the node: update it, or leave the event out.`,
      httpCode: '422',
      failure: { cause: 'configuration-invalid' },
    });
  }
  return undefined;
}

/**
 * Subscribes this trigger's URL to the chosen events and keeps the id and secret in the node's static data. The
 * subscription kept before for the same kind of activation is deleted first, so one trigger never has two: one
 * for other events, or one for the URL n8n had before its address (WEBHOOK_URL) changed. The other kind's
 * (production while a test event is awaited) is left alone.
 */
export async function createSubscription(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const test = isTestActivation.call(this);
  const url = ownUrl.call(this);
  const events = wantedEvents.call(this);
  const stored = storedSubscription(staticData, test);
  if (stored) await deleteSubscription.call(this, stored.subscriptionId);

  let created: Partial<Subscription>;
  try {
    created = (await devDataRequest.call(this, {
      method: 'POST',
      path: WEBHOOKS,
      body: { url, events, description: descriptionOf.call(this) },
    })) as Partial<Subscription>;
  } catch (error) {
    throw refusalError.call(this, error, { url, events, test }) ?? error;
  }
  if (typeof created.id !== 'string' || typeof created.secret !== 'string') {
    throw new NodeApiError(this.getNode(), created as JsonObject, {
      message: 'The DevData server answered the subscription without its ID or secret',
      description: `POST ${WEBHOOKS} must answer {id, url, events, active, secret, …}.`,
    });
  }
  keep(staticData, test, { subscriptionId: created.id, secret: created.secret, url });
  return true;
}

/**
 * Deletes the subscription this node made for the current URL and forgets it. n8n runs delete in the same mode
 * for both kinds of activation, so the URL tells which one ends.
 */
export async function removeSubscription(this: IHookFunctions): Promise<boolean> {
  const staticData = this.getWorkflowStaticData('node');
  const url = ownUrl.call(this);
  for (const test of [false, true]) {
    const stored = storedSubscription(staticData, test);
    if (stored?.url !== url) continue;
    await deleteSubscription.call(this, stored.subscriptionId);
    forget(staticData, test);
  }
  return true;
}

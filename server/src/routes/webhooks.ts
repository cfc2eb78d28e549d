import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { cursorPage } from '../contract/cursor';
import type { Scope } from '../contract/scopes';
import {
  ALL_EVENTS,
  createWebhookBody,
  deliveriesPage,
  EVENT_READ_SCOPES,
  EVENT_TYPES,
  type EventSelector,
  type EventType,
  listDeliveriesQuery,
  updateWebhookBody,
  webhook,
  webhookDelivery,
  webhookWithSecret,
} from '../contract/webhooks';
import { HttpError } from '../http/http-errors';
import { recordRoutes } from '../http/record-routes';
import { assertRegistrable } from '../outbound/registration';
import { createdAtPosition } from '../store/db/paging';

const SIGNING =
  'Each event is POSTed as JSON `{type, id, timestamp, data}` with the Standard Webhooks headers `webhook-id` ' +
  '(= `id`, the idempotency key), `webhook-timestamp` (epoch seconds of the attempt) and `webhook-signature` ' +
  '(`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret\u2019s key bytes; during the ' +
  'grace period after a rotation, a second one under the previous secret, space-separated).';

/**
 * The read scopes a key lacks for `events` (`*`: every event type), each with the first event that needs it: a
 * subscription receives its events' data, which a key may only route to a URL if it could read it.
 */
function missingReadScopes(events: readonly EventSelector[], held: readonly Scope[]): [Scope, string][] {
  const types = events.includes(ALL_EVENTS) ? EVENT_TYPES : (events as EventType[]);
  const missing = new Map<Scope, string>();
  for (const type of types) {
    const scope = EVENT_READ_SCOPES[type];
    if (scope && !held.includes(scope) && !missing.has(scope)) missing.set(scope, type);
  }
  return [...missing];
}

/** Refuses (403) a key that may not route the data of `events` to a URL, naming the scopes it lacks. */
function assertMayRoute(events: readonly EventSelector[], held: readonly Scope[]): void {
  const missing = missingReadScopes(events, held);
  if (missing.length > 0) {
    const named = missing.map(([scope, type]) => `${scope} (for ${type})`).join(', ');
    throw new HttpError(
      403,
      `Insufficient permissions. Required scope: ${named}: a subscription receives its events' data, so the key must be able to read it; use a key that holds it, or leave those events out`,
    );
  }
}

const webhooks: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.webhooks;
  const settings = app.config.events;

  // Creating or changing a subscription's events: after validation, so the events are known.
  app.addHook('preHandler', async (request) => {
    const events = (request.body as { events?: EventSelector[] } | undefined)?.events;
    if (events === undefined || !['POST', 'PATCH'].includes(request.method) || !request.developerKey) return;
    assertMayRoute(events, request.developerKey.scopes);
  });
  // Never from the response cache: the delivery worker changes subscriptions and deliveries outside the write
  // clock (a subscription failing for a day is disabled), so `item` serves the reads of one subscription.
  const routes = recordRoutes(app, '/webhooks/:webhook_id', { tags: ['Webhooks'], scopes: 'webhooks' });

  routes.create(
    {
      summary: 'Subscribe a URL to events',
      description:
        `Event types: ${EVENT_TYPES.join(', ')}; \`*\` for all. The URL must be https to a public address ` +
        '(loopback too in development mode): its host is resolved and checked now and at every call, and ' +
        'nothing is called now. The key must hold the read scope of each event\u2019s data (a 403 names the ' +
        'missing ones), here, when PATCH changes the events or the URL (then also for the events of pending ' +
        'deliveries, which follow the URL) and to redeliver. The secret is shown only in this answer and by ' +
        'rotate-secret. ' +
        SIGNING,
      body: createWebhookBody,
      response: webhookWithSecret,
    },
    async (userId, body) => {
      await assertRegistrable(app.outbound, body.url, ['body', 'url']);
      return repository.create(userId, body);
    },
  );

  routes.listAll(
    { summary: "The user's webhook subscriptions, oldest first", response: webhook.array() },
    (userId) => repository.list(userId),
  );

  routes.item(
    'GET',
    '',
    { summary: 'One webhook subscription', response: webhook },
    (userId, { webhook_id }) => repository.find(userId, webhook_id),
  );

  routes.update(
    {
      summary: 'Change a webhook subscription (only the fields sent)',
      description:
        'active: false pauses deliveries (they wait); active: true resumes them, also after the server ' +
        'disabled the subscription for failing a day. A new URL is checked as at creation.',
      body: updateWebhookBody,
      response: webhook,
    },
    async (userId, id, body, request) => {
      const held = request.developerKey?.scopes ?? [];
      // The caller's subscription first: another user's id is a 404 whatever the body says.
      await repository.find(userId, id);
      if (body.url !== undefined) await assertRegistrable(app.outbound, body.url, ['body', 'url']);
      // A new URL receives the subscription's events and its pending deliveries, whatever their events: without
      // their read scopes, a key that can only manage webhooks could send the user's data to a URL of its choice.
      return repository.update(userId, id, body, (routed) => assertMayRoute(routed, held));
    },
  );

  routes.remove({ summary: 'Delete a webhook subscription and its deliveries' }, (userId, id) =>
    repository.delete(userId, id),
  );

  routes.item(
    'POST',
    '/rotate-secret',
    {
      summary: 'Replace the signing secret',
      description: `The previous secret also signs every call for ${settings.secretGraceMs / 3_600_000} h.`,
      response: webhookWithSecret,
    },
    (userId, { webhook_id }) => repository.rotateSecret(userId, webhook_id, settings.secretGraceMs),
  );

  routes.item(
    'GET',
    '/deliveries',
    {
      summary: "A subscription's deliveries, newest first",
      description:
        'One delivery per event (and per redelivery): pending (next_attempt_at is when it is tried next), ' +
        'delivered, or failed after retries for a day. Pass next_cursor as cursor while has_more is true.',
      querystring: listDeliveriesQuery,
      response: deliveriesPage,
    },
    async (userId, { webhook_id }, query) => {
      const { page, ...more } = await cursorPage(
        query,
        'webhook deliveries',
        { webhook_id },
        createdAtPosition,
        (before, take) => repository.deliveries(userId, webhook_id, before, take),
      );
      return { ...more, deliveries: page };
    },
  );

  routes.item(
    'POST',
    '/deliveries/:delivery_id/redeliver',
    {
      summary: 'Send a delivery\u2019s event again',
      description:
        'A new delivery of the same event: the same webhook-id, so a receiver can tell it apart. The key must ' +
        'hold the read scope of the event\u2019s data (a 403 names it).',
      response: webhookDelivery,
    },
    (userId, { webhook_id, delivery_id }, _query, request) =>
      repository.redeliver(userId, webhook_id, delivery_id, (type) =>
        assertMayRoute([type], request.developerKey?.scopes ?? []),
      ),
  );

  routes.item(
    'POST',
    '/ping',
    {
      summary: 'Send a ping event to this subscription',
      description: 'Whatever events the subscription wants; `data` is `{webhook_id}`.',
      response: webhookDelivery,
    },
    (userId, { webhook_id }) => repository.ping(userId, webhook_id),
  );
};

export default webhooks;

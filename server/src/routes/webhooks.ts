import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId, scoped } from '../auth/hooks';
import { errors, idParam, success } from '../contract/common';
import { cursorPage } from '../contract/cursor';
import {
  createWebhookBody,
  deliveriesPage,
  EVENT_TYPES,
  listDeliveriesQuery,
  updateWebhookBody,
  webhook,
  webhookDelivery,
  webhookWithSecret,
} from '../contract/webhooks';
import { assertRegistrable } from '../outbound/registration';
import { createdAtPosition } from '../store/db/paging';

const TAGS = ['Webhooks'];
const read = scoped('webhooks:read', TAGS);
const write = scoped('webhooks:write', TAGS);
const webhookParams = idParam('webhook_id');
const deliveryParams = webhookParams.extend(idParam('delivery_id').shape);

const SIGNING =
  'Each event is POSTed as JSON `{type, id, timestamp, data}` with the Standard Webhooks headers `webhook-id` ' +
  '(= `id`, the idempotency key), `webhook-timestamp` (epoch seconds of the attempt) and `webhook-signature` ' +
  '(`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` under the secret\u2019s key bytes; during the ' +
  'grace period after a rotation, a second one under the previous secret, space-separated).';

const webhooks: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.webhooks;
  const settings = app.config.events;

  app.post(
    '/webhooks',
    write({
      summary: 'Subscribe a URL to events',
      description:
        `Event types: ${EVENT_TYPES.join(', ')}; \`*\` for all. The URL must be https to a public address ` +
        '(loopback too in development mode): its host is resolved and checked now and at every call, and ' +
        'nothing is called now. The secret is shown only in this answer and by rotate-secret. ' +
        SIGNING,
      body: createWebhookBody,
      response: { 200: webhookWithSecret, ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      await assertRegistrable(app.outbound, request.body.url, ['body', 'url']);
      return repository.create(callerId(request), request.body);
    },
  );

  app.get(
    '/webhooks',
    read({
      summary: "The user's webhook subscriptions, oldest first",
      response: { 200: webhook.array(), ...errors(401, 403, 429) },
    }),
    async (request) => repository.list(callerId(request)),
  );

  app.get(
    '/webhooks/:webhook_id',
    read({
      summary: 'One webhook subscription',
      params: webhookParams,
      response: { 200: webhook, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => repository.find(callerId(request), request.params.webhook_id),
  );

  app.patch(
    '/webhooks/:webhook_id',
    write({
      summary: 'Change a webhook subscription (only the fields sent)',
      description:
        'active: false pauses deliveries (they wait); active: true resumes them, also after the server ' +
        'disabled the subscription for failing a day. A new URL is checked as at creation.',
      params: webhookParams,
      body: updateWebhookBody,
      response: { 200: webhook, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => {
      const userId = callerId(request);
      // The caller's subscription first: another user's id is a 404 whatever the body says.
      await repository.find(userId, request.params.webhook_id);
      if (request.body.url !== undefined)
        await assertRegistrable(app.outbound, request.body.url, ['body', 'url']);
      return repository.update(userId, request.params.webhook_id, request.body);
    },
  );

  app.delete(
    '/webhooks/:webhook_id',
    write({
      summary: 'Delete a webhook subscription and its deliveries',
      params: webhookParams,
      response: { 200: success, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => {
      await repository.delete(callerId(request), request.params.webhook_id);
      return { success: true as const };
    },
  );

  app.post(
    '/webhooks/:webhook_id/rotate-secret',
    write({
      summary: 'Replace the signing secret',
      description: `The previous secret also signs every call for ${settings.secretGraceMs / 3_600_000} h.`,
      params: webhookParams,
      response: { 200: webhookWithSecret, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) =>
      repository.rotateSecret(callerId(request), request.params.webhook_id, settings.secretGraceMs),
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    read({
      summary: "A subscription's deliveries, newest first",
      description:
        'One delivery per event (and per redelivery): pending (next_attempt_at is when it is tried next), ' +
        'delivered, or failed after retries for a day. Pass next_cursor as cursor while has_more is true.',
      params: webhookParams,
      querystring: listDeliveriesQuery,
      response: { 200: deliveriesPage, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => {
      const userId = callerId(request);
      const { webhook_id: id } = request.params;
      const { page, ...more } = await cursorPage(request.query, {}, createdAtPosition, (before, take) =>
        repository.deliveries(userId, id, before, take),
      );
      return { ...more, deliveries: page };
    },
  );

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    write({
      summary: 'Send a delivery\u2019s event again',
      description: 'A new delivery of the same event: the same webhook-id, so a receiver can tell it apart.',
      params: deliveryParams,
      response: { 200: webhookDelivery, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) =>
      repository.redeliver(callerId(request), request.params.webhook_id, request.params.delivery_id),
  );

  app.post(
    '/webhooks/:webhook_id/ping',
    write({
      summary: 'Send a ping event to this subscription',
      description: 'Whatever events the subscription wants; `data` is `{webhook_id}`.',
      params: webhookParams,
      response: { 200: webhookDelivery, ...errors(401, 403, 404, 422, 429) },
    }),
    async (request) => repository.ping(callerId(request), request.params.webhook_id),
  );
};

export default webhooks;

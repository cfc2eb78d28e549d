// What an app does with its own secret (/v2/integrations/:app_id): send a user a notification, and set up and
// watch the transcript webhook that feeds proactive notifications. Tagged "Notifications" in the API docs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../contract/common';
import { cursorPage } from '../contract/cursor';
import {
  app as appSchema,
  directNotificationQuery,
  directNotificationResponse,
} from '../contract/notifications';
import { deliveriesPage, listDeliveriesQuery, putWebhookBody, webhookConfig } from '../contract/proactive';
import { HttpError } from '../http/http-errors';
import { assertRegistrable } from '../outbound/registration';
import { createdAtPosition } from '../store/db/paging';

const tags = ['Notifications'];
const params = z.object({ app_id: z.string() });

const appNotifications: FastifyPluginAsyncZod = async (app) => {
  const { apps, deliveries, proactive, users } = app.repositories;

  app.get(
    '/:app_id/app',
    {
      schema: {
        tags,
        summary: 'The app whose secret authenticates this request (proves the secret)',
        params,
        response: { 200: appSchema, ...errors(401) },
      },
    },
    async (request) => apps.findApp(request.params.app_id),
  );

  app.post(
    '/:app_id/notification',
    {
      schema: {
        tags,
        summary: 'Send a notification to one user of the app, pushed at once',
        params,
        querystring: directNotificationQuery,
        response: { 200: directNotificationResponse, ...errors(401, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const appId = request.params.app_id;
      const { uid, message } = request.query;
      const installed = await apps.findInstall(appId, uid);
      if (!installed) {
        await users.requireUser(uid);
        throw new HttpError(404, 'App is not installed for this user');
      }

      const now = Date.now();
      const limit = app.config.directNotificationsPerHour;
      const { count, expiresAt } = await proactive.countDirectNotification(appId, uid, now);
      const headers = {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - count)),
        'x-ratelimit-reset': String(Math.ceil(expiresAt / 1000)),
      };
      if (count > limit) {
        const retryAfter = Math.max(1, Math.ceil((expiresAt - now) / 1000));
        throw new HttpError(429, `Rate limit exceeded: at most ${limit} notifications per user per hour`, {
          ...headers,
          'retry-after': String(retryAfter),
        });
      }
      await app.pusher.push({
        userId: uid,
        appId,
        kind: 'direct',
        title: request.integrationApp!.name,
        text: message,
        generated: false,
      });
      return reply.headers(headers).send({ status: 'Ok' as const });
    },
  );

  app.get(
    '/:app_id/deliveries',
    {
      schema: {
        tags,
        summary: "The app's webhook deliveries (calls and what came of them), newest first",
        params,
        querystring: listDeliveriesQuery,
        response: { 200: deliveriesPage, ...errors(401, 422) },
      },
    },
    async (request) => {
      const filters = { app_id: request.params.app_id };
      const { page, ...more } = await cursorPage(request.query, filters, createdAtPosition, (before, take) =>
        deliveries.list(filters, before, take),
      );
      return { ...more, deliveries: page };
    },
  );

  app.get(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        summary: "The app's transcript webhook (webhook_url null when none)",
        params,
        response: { 200: webhookConfig, ...errors(401) },
      },
    },
    async (request) => ({
      triggers_on: 'transcript_processed' as const,
      webhook_url: (await apps.findApp(request.params.app_id)).external_integration?.webhook_url ?? null,
    }),
  );

  app.put(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        summary: "Set the app's transcript webhook (adds the external_integration capability)",
        params,
        body: putWebhookBody,
        response: { 200: webhookConfig, ...errors(401, 422) },
      },
    },
    async (request) => {
      await assertRegistrable(app.outbound, request.body.webhook_url, ['body', 'webhook_url']);
      return apps.setWebhook(request.params.app_id, request.body.webhook_url);
    },
  );

  app.delete(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        summary: "Remove the app's transcript webhook (webhook_url becomes null)",
        params,
        response: { 200: webhookConfig, ...errors(401) },
      },
    },
    async (request) => apps.setWebhook(request.params.app_id, null),
  );
};

export default appNotifications;

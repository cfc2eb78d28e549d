// What an app does with its own secret (/v2/integrations/:app_id): send a user a notification, and set up and
// watch the transcript webhook that feeds proactive notifications. Tagged "Notifications" in the API docs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { resetSeconds } from '../auth/rate-limit';
import { errors } from '../contract/common';
import {
  app as appSchema,
  directNotificationQuery,
  directNotificationResponse,
} from '../contract/notifications';
import { deliveriesPage, listDeliveriesQuery, putWebhookBody, webhookConfig } from '../contract/proactive';
import { HttpError } from '../http/http-errors';
import { assertRegistrable } from '../outbound/registration';
import { pageOfDeliveries } from './admin-deliveries';
import { directNotifications, type HourlyWindow } from '../usecases/direct-notification';

const tags = ['Notifications'];

/** The X-RateLimit-* headers of the hourly window of direct notifications. */
const rateLimitHeaders = ({ limit, remaining, resetAt }: HourlyWindow) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(resetSeconds(resetAt)),
});
const params = z.object({ app_id: z.string() });

const appNotifications: FastifyPluginAsyncZod = async (app) => {
  const { apps, deliveries } = app.repositories;
  const notifications = directNotifications(
    app.repositories,
    app.pusher,
    app.config.directNotificationsPerHour,
  );

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
      const sent = await notifications.send({
        appId: request.params.app_id,
        appName: request.integrationApp!.name,
        userId: request.query.uid,
        message: request.query.message,
      });
      if (sent.outcome === 'not_installed') throw new HttpError(404, 'App is not installed for this user');
      const headers = rateLimitHeaders(sent.window);
      if (sent.outcome === 'over_limit') {
        throw new HttpError(
          429,
          `Rate limit exceeded: this app may send this user at most ${sent.window.limit} notifications per hour`,
          { ...headers, 'retry-after': String(sent.retryAfterSeconds) },
        );
      }
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
    async (request) =>
      pageOfDeliveries(deliveries, request.query, 'app deliveries', { app_id: request.params.app_id }),
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

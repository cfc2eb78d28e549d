import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../contract/common';
import {
  app as appSchema,
  directNotificationQuery,
  directNotificationResponse,
} from '../contract/notifications';
import { deliveriesPage, listDeliveriesQuery, putWebhookBody, webhookConfig } from '../contract/proactive';
import { HttpError } from '../errors';
import { toApp } from '../store/accounts';
import { listDeliveries } from './deliveries';

const tags = ['Notifications'];
const security = [{ appSecret: [] }];
const params = z.object({ app_id: z.string() });
const HOUR_MS = 3_600_000;

const integrations: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  app.get(
    '/:app_id/app',
    {
      schema: {
        tags,
        security,
        summary: 'The app whose secret authenticates this request (proves the secret)',
        params,
        response: { 200: appSchema, ...errors(401) },
      },
    },
    async (request) =>
      toApp(
        await db
          .selectFrom('apps')
          .selectAll()
          .where('id', '=', request.params.app_id)
          .executeTakeFirstOrThrow(),
      ),
  );

  /** Counts one direct notification in the app's and user's clock hour; atomic on both databases. */
  async function countDirect(appId: string, userId: string, now: number) {
    const windowStart = now - (now % HOUR_MS);
    const expiresAt = windowStart + HOUR_MS;
    const row = await db
      .insertInto('rate_counters')
      .values({ key: `direct:${appId}:${userId}:${windowStart}`, count: 1, expires_at: expiresAt })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({ count: eb('rate_counters.count', '+', 1) })),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    if (row.count === 1) await db.deleteFrom('rate_counters').where('expires_at', '<=', now).execute();
    return { count: row.count, expiresAt };
  }

  app.post(
    '/:app_id/notification',
    {
      schema: {
        tags,
        security,
        summary: 'Send a notification to one user of the app, pushed at once',
        params,
        querystring: directNotificationQuery,
        response: { 200: directNotificationResponse, ...errors(401, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const appId = request.params.app_id;
      const { uid, message } = request.query;
      const installed = await db
        .selectFrom('app_installs')
        .select('user_id')
        .where('app_id', '=', appId)
        .where('user_id', '=', uid)
        .executeTakeFirst();
      if (!installed) {
        const user = await db.selectFrom('users').select('id').where('id', '=', uid).executeTakeFirst();
        throw new HttpError(404, user ? 'App is not installed for this user' : 'User not found');
      }

      const now = Date.now();
      const limit = app.config.directNotificationsPerHour;
      const { count, expiresAt } = await countDirect(appId, uid, now);
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
        security,
        summary: "The app's webhook deliveries (calls and what came of them), newest first",
        params,
        querystring: listDeliveriesQuery,
        response: { 200: deliveriesPage, ...errors(401, 422) },
      },
    },
    async (request) => listDeliveries(db, { app_id: request.params.app_id }, request.query),
  );

  async function readWebhook(appId: string) {
    const row = await db
      .selectFrom('apps')
      .select(['external_integration', 'capabilities'])
      .where('id', '=', appId)
      .executeTakeFirstOrThrow();
    const integration = row.external_integration
      ? (JSON.parse(row.external_integration) as { webhook_url?: string | null })
      : null;
    return {
      capabilities: JSON.parse(row.capabilities) as string[],
      config: {
        triggers_on: 'transcript_processed' as const,
        webhook_url: integration?.webhook_url ?? null,
      },
    };
  }

  async function writeWebhook(appId: string, webhookUrl: string | null, capabilities: string[]) {
    const config = { triggers_on: 'transcript_processed' as const, webhook_url: webhookUrl };
    await db
      .updateTable('apps')
      .set({
        external_integration: JSON.stringify(config),
        capabilities: JSON.stringify(capabilities),
        updated_at: Date.now(),
      })
      .where('id', '=', appId)
      .execute();
    return config;
  }

  app.get(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        security,
        summary: "The app's transcript webhook (webhook_url null when none)",
        params,
        response: { 200: webhookConfig, ...errors(401) },
      },
    },
    async (request) => (await readWebhook(request.params.app_id)).config,
  );

  app.put(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        security,
        summary: "Set the app's transcript webhook (adds the external_integration capability)",
        params,
        body: putWebhookBody,
        response: { 200: webhookConfig, ...errors(401, 422) },
      },
    },
    async (request) => {
      const { capabilities } = await readWebhook(request.params.app_id);
      const withCapability = capabilities.includes('external_integration')
        ? capabilities
        : [...capabilities, 'external_integration'];
      return writeWebhook(request.params.app_id, request.body.webhook_url, withCapability);
    },
  );

  app.delete(
    '/:app_id/webhook',
    {
      schema: {
        tags,
        security,
        summary: "Remove the app's transcript webhook (webhook_url becomes null)",
        params,
        response: { 200: webhookConfig, ...errors(401) },
      },
    },
    async (request) => {
      const { capabilities } = await readWebhook(request.params.app_id);
      return writeWebhook(request.params.app_id, null, capabilities);
    },
  );
};

export default integrations;

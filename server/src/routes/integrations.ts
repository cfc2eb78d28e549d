import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../contract/common';
import {
  app as appSchema,
  directNotificationQuery,
  directNotificationResponse,
} from '../contract/notifications';
import { HttpError } from '../errors';
import { push } from '../proactive/push';
import { toApp } from '../store/accounts';

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
      await push(app.store, {
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
};

export default integrations;

import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { errorBody } from './contract/common';
import { adminAuth, appAuth, developerAuth } from './auth/hooks';
import { configFromEnv, type ServerConfig } from './config';
import openapi from './plugins/openapi';
import errors from './plugins/errors';
import loadShedding from './plugins/load-shedding';
import actionItems from './routes/action-items';
import { Dispatcher } from './proactive/dispatcher';
import { Pusher } from './proactive/push';
import admin from './routes/admin';
import adminDeliveries from './routes/deliveries';
import conversations from './routes/conversations';
import deleted from './routes/deleted';
import folders from './routes/folders';
import goals from './routes/goals';
import integrations from './routes/integrations';
import key from './routes/key';
import memories from './routes/memories';
import notifications from './routes/notifications';
import people from './routes/people';
import screenActivity from './routes/screen-activity';
import transcripts from './routes/transcripts';
import type { Store } from './store/db';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: ServerConfig;
    /** Stores, streams and forwards notifications. */
    pusher: Pusher;
    /** The proactive pipeline's webhook calls; `dispatcher.idle()` waits for those under way. */
    dispatcher: Dispatcher;
  }
}

export interface AppOptions {
  store: Store;
  config?: Partial<ServerConfig>;
  logger?: FastifyServerOptions['logger'];
}

// Room for 1000 screen-activity rows or 500 long transcript segments in one request.
const BODY_LIMIT = 8 * 1024 * 1024;

export async function buildApp({ store, config, logger = false }: AppOptions) {
  const app = Fastify({ logger, bodyLimit: BODY_LIMIT }).withTypeProvider<ZodTypeProvider>();
  app.decorate('store', store);
  app.decorate('config', { ...configFromEnv(), ...config });
  app.decorate('pusher', new Pusher(store, app.config.pushUrl, app.log));
  app.decorate('dispatcher', new Dispatcher(store, app.config, app.pusher, app.log));
  app.decorateRequest('developerKey', null);
  app.decorateRequest('integrationApp', null);
  app.setSerializerCompiler(serializerCompiler);

  // While closing, answer in-flight requests with `Connection: close`, so keep-alive clients let go and
  // close() finishes once those responses are out (idle connections are closed at once).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  // Webhook calls still under way finish (each is bounded by its timeout) before the store may close.
  app.addHook('onClose', async () => {
    await app.dispatcher.idle();
  });

  await app.register(errors);
  await app.register(loadShedding);
  await app.register(openapi);

  // Healthy means able to serve: the database answers too, so a load balancer skips an instance that lost it.
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
        response: { 200: z.object({ status: z.literal('ok') }), 503: errorBody },
      },
    },
    async () => {
      await sql`select 1`.execute(app.store.db);
      return { status: 'ok' as const };
    },
  );

  await app.register(
    async (dev) => {
      dev.addHook('onRequest', developerAuth(app.config.rateLimit));
      await dev.register(key);
      await dev.register(screenActivity, { prefix: '/user' });
      await dev.register(actionItems, { prefix: '/user' });
      await dev.register(conversations, { prefix: '/user' });
      await dev.register(folders, { prefix: '/user' });
      await dev.register(memories, { prefix: '/user' });
      await dev.register(goals, { prefix: '/user' });
      await dev.register(people, { prefix: '/user' });
      await dev.register(notifications, { prefix: '/user' });
      await dev.register(transcripts, { prefix: '/user' });
      await dev.register(deleted, { prefix: '/user' });
    },
    { prefix: '/v1/dev' },
  );

  await app.register(
    async (scope) => {
      scope.addHook('onRequest', adminAuth);
      await scope.register(admin);
      await scope.register(adminDeliveries);
    },
    { prefix: '/v1/admin' },
  );

  await app.register(
    async (scope) => {
      scope.addHook('onRequest', appAuth);
      await scope.register(integrations);
    },
    { prefix: '/v2/integrations' },
  );

  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;

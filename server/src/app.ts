import { createHash } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from './contract/common';
import { serializerCompiler } from './contract/serializer';
import { adminAuth, appAuth, developerAuth, guard } from './auth/hooks';
import { assertPushUrlAllowed, configFromEnv, type ServerConfig } from './config';
import openapi from './http/openapi';
import errors, { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './http/error-handler';
import loadShedding from './http/load-shedding';
import { ResponseCache } from './http/response-cache';
import { RequestLog } from './http/request-log';
import actionItems from './routes/action-items';
import { Dispatcher } from './proactive/dispatcher';
import { Pusher } from './proactive/push';
import { EventDeliveryWorker } from './events/delivery-worker';
import { OutboundPolicy, type Resolve } from './outbound/policy';
import admin from './routes/admin';
import adminDeliveries from './routes/admin-deliveries';
import conversations from './routes/conversations';
import tombstones from './routes/tombstones';
import folders from './routes/folders';
import goals from './routes/goals';
import appNotifications from './routes/app-notifications';
import key from './routes/key';
import memories from './routes/memories';
import notifications from './routes/notifications';
import people from './routes/people';
import screenActivity from './routes/screen-activity';
import search from './routes/search';
import transcripts from './routes/transcripts';
import webhooks from './routes/webhooks';
import { FixedWindowLimiter, RedisWindowLimiter, type RequestLimiter } from './auth/rate-limit';
import { LocalBus, RedisBus, type Bus } from './cluster/bus';
import { RedisLink } from './cluster/redis';
import { buildRepositories, type Repositories } from './store';
import type { Store } from './store/db/database';
import type { RevokedKey } from './store/users';
import { ListenNotifyBus } from './cluster/listen-notify';
// After the routes: the contract's named schemas enter the OpenAPI document in the order they are first imported.
import mcp from './mcp/endpoint';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    /** Every repository, built once: what the routes and the proactive pipeline read and write through. */
    repositories: Repositories;
    config: ServerConfig;
    /** Stores, streams and forwards notifications. */
    pusher: Pusher;
    /** The proactive pipeline's webhook calls; `dispatcher.idle()` waits for those under way. */
    dispatcher: Dispatcher;
    /** Sends the events of the users' webhook subscriptions; started when the server is ready. */
    eventWorker: EventDeliveryWorker;
    /** Where webhooks and the push URL may point; checked at registration and on every call. */
    outbound: OutboundPolicy;
    /** Carries live notifications and key revocations to the other instances sharing the database. */
    bus: Bus;
    /** The connection to DEVDATA_REDIS_URL, when set. */
    redis: RedisLink | null;
    /** List and record answers kept while the data is unchanged (SQLite). */
    responseCache: ResponseCache;
  }
}

export interface AppOptions {
  store: Store;
  config?: Partial<ServerConfig>;
  logger?: FastifyServerOptions['logger'];
  /** Resolves the host names of outbound calls (DNS when omitted; tests pass their own). */
  resolve?: Resolve;
}

// Room for 1000 screen-activity rows or 500 long transcript segments in one request.
const BODY_LIMIT = 8 * 1024 * 1024;

export async function buildApp({ store, config, logger = false, resolve }: AppOptions) {
  const app = Fastify({
    logger,
    logController: new RequestLog(),
    bodyLimit: BODY_LIMIT,
    // `/x/` is `/x`: a trailing slash gets the same answer rather than another route's (the real service
    // redirects it to `/x`). A path parameter up to 500 characters reaches its schema, which names it when it is
    // too long (a session ID may have 200): the router's own refusal (414) is for longer ones.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.decorate('store', store);
  app.decorate('config', { ...configFromEnv(), ...config });
  app.decorate('redis', app.config.redisUrl ? new RedisLink(app.config.redisUrl, app.log) : null);
  app.decorate('bus', busFor(store, app.redis, app.log));
  app.decorate(
    'repositories',
    buildRepositories(store, {
      keyCacheTtlMs: app.config.keyCacheTtlMs,
      keyPrefix: app.config.keyPrefix,
      onKeyRevoked: (key) => app.bus.publish('key-revocations', key),
    }),
  );
  // Served once the link to the other instances is up (or its first attempt failed: it goes on trying).
  app.addHook('onReady', () => app.bus.start());
  app.bus.subscribe('key-revocations', (message) =>
    app.repositories.users.revokedElsewhere(message as RevokedKey),
  );
  // A revocation broadcast while this instance could not receive never arrives: once it can, its cached keys go,
  // and the keys its notification streams follow are read again (a stream of one revoked meanwhile ends).
  app.bus.onResumed(() => {
    app.repositories.users.forgetCachedKeys();
    void app.repositories.users.recheckWatchedKeys().catch(() => undefined);
  });
  app.decorate('responseCache', new ResponseCache(store.dataVersion, app.config.responseCacheMb * 1_000_000));
  app.decorate('outbound', new OutboundPolicy(app.config.allowLoopbackWebhooks, resolve));
  // Checked by configFromEnv too, before anything is written; here for a config given in code.
  assertPushUrlAllowed(app.outbound, app.config.pushUrl);
  app.decorate(
    'pusher',
    new Pusher(app.repositories.notifications, app.config.pushUrl, app.outbound, app.log, app.bus),
  );
  app.decorate('dispatcher', new Dispatcher(app.repositories, app.config, app.pusher, app.outbound, app.log));
  app.decorate(
    'eventWorker',
    new EventDeliveryWorker(app.repositories.webhooks, app.config.events, app.outbound, app.pusher, app.log),
  );
  app.addHook('onReady', async () => app.eventWorker.start());
  app.decorateRequest('developerKey', null);
  app.decorateRequest('integrationApp', null);
  app.setSerializerCompiler(serializerCompiler);

  // While closing, answer in-flight requests with `Connection: close`, so keep-alive clients let go and
  // close() finishes once those responses are out (idle connections are closed at once).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Webhook calls still under way finish (each is bounded by its timeout) before the store may close.
  app.addHook('onClose', async () => {
    await app.eventWorker.stop();
    await app.dispatcher.idle();
    await app.bus.close();
    await app.redis?.close();
  });

  await app.register(errors);
  await app.register(loadShedding);
  await app.register(openapi);

  // The root is where a browser lands first: the interactive docs.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/docs'));

  // Healthy means able to serve: the database answers too, so a load balancer skips an instance that lost it.
  // Redis (or the LISTEN connection) going away degrades what instances share but not serving: still a 200,
  // naming what is unavailable.
  const linkState = z.enum(['ok', 'unavailable']);
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['Health'],
        response: {
          200: z.object({
            status: z.literal('ok'),
            redis: linkState
              .optional()
              .meta({ description: 'With DEVDATA_REDIS_URL: whether Redis answers' }),
            listen: linkState.optional().meta({
              description: 'On PostgreSQL without Redis: whether the LISTEN connection to the others is up',
            }),
          }),
          503: errorBody,
        },
      },
    },
    async () => {
      await app.store.ping();
      const link = app.bus.transport === 'redis' ? 'redis' : 'listen';
      return app.bus.transport === 'local'
        ? { status: 'ok' as const }
        : { status: 'ok' as const, [link]: app.bus.state };
    },
  );

  // One rate limit per key across the developer API and the MCP endpoint.
  const developerLimiter = limiterFor(app.config.rateLimit, app.redis, store);
  await app.register(
    async (dev) => {
      guard(dev, developerAuth(developerLimiter), 'developerApiKey');
      await dev.register(key);
      const userRoutes = [
        screenActivity,
        actionItems,
        conversations,
        search,
        folders,
        memories,
        goals,
        people,
        notifications,
        transcripts,
        tombstones,
        webhooks,
      ];
      for (const routes of userRoutes) await dev.register(routes, { prefix: '/user' });
    },
    { prefix: '/v1/dev' },
  );
  await app.register(mcp, { limiter: developerLimiter });

  await app.register(
    async (scope) => {
      guard(scope, adminAuth, 'adminToken');
      await scope.register(admin);
      await scope.register(adminDeliveries);
    },
    { prefix: '/v1/admin' },
  );

  await app.register(
    async (scope) => {
      guard(scope, appAuth, 'appSecret');
      await scope.register(appNotifications);
    },
    { prefix: '/v2/integrations' },
  );

  return app;
}

/**
 * Names in Redis, which other deployments may share: `devdata:<digest of the database>:`, the same for every
 * instance given the same DEVDATA_DATABASE (its password left out).
 */
function redisPrefix(store: Store): string {
  let name = store.url;
  if (store.dialect === 'postgres') {
    const url = new URL(store.url);
    name = `${url.hostname}:${url.port || 5432}${url.pathname}`;
  }
  return `devdata:${createHash('sha256').update(name).digest('hex').slice(0, 16)}:`;
}

/** Redis when configured; else LISTEN/NOTIFY on PostgreSQL; else (SQLite, one process) nobody to tell. */
function busFor(store: Store, redis: RedisLink | null, log: FastifyBaseLogger): Bus {
  if (redis) return new RedisBus(redis, redisPrefix(store));
  if (store.dialect === 'postgres') return new ListenNotifyBus(store.url, store.db, log);
  return new LocalBus();
}

function limiterFor(limit: ServerConfig['rateLimit'], redis: RedisLink | null, store: Store): RequestLimiter {
  return redis
    ? new RedisWindowLimiter(limit.max, limit.windowMs, redis, redisPrefix(store))
    : new FixedWindowLimiter(limit.max, limit.windowMs);
}

export type App = Awaited<ReturnType<typeof buildApp>>;

import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from './http-errors';

/** How long a client should wait before retrying a request shed under load. */
const RETRY_AFTER_SECONDS = 2;

declare module 'fastify' {
  interface FastifyRequest {
    /** The 503 of a request shed on a route that answers it itself (`answersShed`); null when not shed. */
    shed: HttpError | null;
  }
  interface FastifyContextConfig {
    /**
     * The route answers a request shed under load itself, from `request.shed`, as its protocol has it (`/mcp`: a
     * tool call as a tool result); still before its key is checked or counted, as every shed request is.
     */
    answersShed?: boolean;
  }
}

/** The answer to a request shed under load. */
function overloaded(): HttpError {
  return new HttpError(503, 'The server is overloaded right now; retry shortly', {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
}

/**
 * Load shedding: while the event loop lags past `maxEventLoopDelayMs` (averaged over each sample), requests are
 * answered 503 with Retry-After at once instead of queueing behind the work already under way. 0 turns it off.
 */
async function loadSheddingPlugin(app: FastifyInstance) {
  app.decorateRequest('shed', null);
  // Off means no sampling either: the plugin's event-loop histogram, once enabled, runs until the process ends.
  if (app.config.maxEventLoopDelayMs === 0) return;
  const sampleInterval = app.config.loadSampleIntervalMs;
  // Starting up (migrations, compiling routes) lags the loop too, and a sample holds until the next one: shed
  // only once a sample taken wholly after start-up has replaced it, or a busy machine refuses the first requests.
  let shedFrom = Infinity;
  app.addHook('onReady', async () => {
    shedFrom = Date.now() + 2 * sampleInterval;
  });
  await app.register(underPressure, {
    maxEventLoopDelay: app.config.maxEventLoopDelayMs,
    sampleInterval,
    pressureHandler: async (request) => {
      if (Date.now() < shedFrom) return;
      if (!request.routeOptions.config.answersShed) throw overloaded();
      request.shed = overloaded();
    },
  });
}

export default fp(loadSheddingPlugin, { name: 'load-shedding' });

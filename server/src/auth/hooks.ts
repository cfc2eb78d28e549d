import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { nulPath } from '../contract/common';
import type { Scope } from '../contract/scopes';
import { HttpError } from '../http/http-errors';
import { resetSeconds, type RequestLimiter, type WindowCount } from './rate-limit';
import { bearerToken, hashSecret } from './secrets';

export interface DeveloperKey {
  id: string;
  userId: string;
  scopes: Scope[];
}

export interface IntegrationApp {
  id: string;
  name: string;
  capabilities: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    developerKey: DeveloperKey | null;
    integrationApp: IntegrationApp | null;
  }
  interface FastifyContextConfig {
    /** The scope a developer-API route needs. */
    scope?: Scope;
  }
}

const MALFORMED_HEADER = "Missing or invalid Authorization header. Must be 'Bearer API_KEY'";
const LAST_USED_RESOLUTION_MS = 60_000;

function unauthorized(detail: string): HttpError {
  return new HttpError(401, detail, { 'www-authenticate': 'Bearer' });
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Sets the X-RateLimit-* headers of `window` (the key's window after one more request) on `reply`; answers the 429
 * to give when that request is past the limit.
 */
export function rateLimitAnswer(
  reply: FastifyReply,
  limiter: RequestLimiter,
  window: WindowCount,
  now: number,
): HttpError | undefined {
  reply.header('x-ratelimit-limit', String(limiter.max));
  reply.header('x-ratelimit-remaining', String(window.remaining));
  reply.header('x-ratelimit-reset', String(resetSeconds(window.resetAt, now)));
  if (window.allowed) return undefined;
  const retryAfter = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  return new HttpError(429, `Rate limit exceeded. Retry after ${retryAfter} seconds`, {
    'retry-after': String(retryAfter),
  });
}

/**
 * Authenticates `/v1/dev/*` requests by developer key, applies the per-key rate limit, then checks the
 * route's scope. Runs before validation, so a bad key is a 401 and a missing scope a 403 whatever the input.
 */
export function developerAuth(limiter: RequestLimiter): onRequestAsyncHookHandler {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthorized(MALFORMED_HEADER);
    const { users } = request.server.repositories;
    // Both answer at once in the common case (a cached key, a limit counted in this process): awaited only when
    // they had to ask the database or Redis.
    const found = users.findActiveKey(token);
    const key = found instanceof Promise ? await found : found;
    if (!key) throw unauthorized('Invalid API Key');

    const now = Date.now();
    const counted = limiter.hit(key.id, now);
    const window = counted instanceof Promise ? await counted : counted;
    const refused = rateLimitAnswer(reply, limiter, window, now);
    if (refused) throw refused;

    if (key.last_used_at === null || now - key.last_used_at >= LAST_USED_RESOLUTION_MS) {
      // Bookkeeping: a read must not fail because this could not be written (e.g. SQLite locked by another
      // process); the next request tries again.
      await users
        .touchKey(key, now)
        .catch((error: unknown) => request.log.warn({ err: error }, 'could not record the key as used'));
    }
    request.developerKey = { id: key.id, userId: key.user_id, scopes: key.scopes };

    const required = request.routeOptions.config.scope;
    if (required && !request.developerKey.scopes.includes(required)) {
      throw new HttpError(403, `Insufficient permissions. Required scope: ${required}`);
    }
  };
}

/** Authenticates `/v1/admin/*` requests by admin token. */
export const adminAuth: onRequestAsyncHookHandler = async function authenticateAdmin(request) {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw unauthorized("Missing or invalid Authorization header. Must be 'Bearer ADMIN_TOKEN'");
  if (!(await request.server.repositories.adminTokens.isValid(token)))
    throw unauthorized('Invalid admin token');
};

/** Authenticates `/v2/integrations/{app_id}/*` requests by the secret of that app. */
export const appAuth: onRequestAsyncHookHandler = async function authenticateApp(request) {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw unauthorized("Missing or invalid Authorization header. Must be 'Bearer APP_SECRET'");
  const appId = (request.params as { app_id?: string }).app_id ?? '';
  // No app id holds a NUL, and PostgreSQL could not even compare one: such an id is simply unknown.
  const app = nulPath(appId) ? undefined : await request.server.repositories.apps.findAppCredentials(appId);
  // An unknown app and a wrong secret answer alike, so app ids cannot be probed.
  if (!app || !sameHash(app.secret_hash, hashSecret(token))) throw unauthorized('Invalid app ID or secret');
  request.integrationApp = { id: app.id, name: app.name, capabilities: app.capabilities };
};

/** The OpenAPI security schemes, one per kind of bearer the server takes (see http/openapi.ts). */
export type SecurityScheme = 'developerApiKey' | 'adminToken' | 'appSecret';

/**
 * Authenticates every route of `scope` with `hook`, and declares `scheme` on each of them in the OpenAPI document:
 * the document says what the server asks for because both come from this one call.
 */
export function guard(scope: FastifyInstance, hook: onRequestAsyncHookHandler, scheme: SecurityScheme) {
  scope.addHook('onRequest', hook);
  scope.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: [{ [scheme]: [] }] };
  });
}

/**
 * The options of a resource's developer-API routes that need `scope`: `scoped(scope, tags)(schema)` is
 * `{ config: { scope }, schema: { tags, ...schema } }`, so each route states only its own schema.
 */
export function scoped(scope: Scope, tags: string[]) {
  return <const S extends object>(schema: S) => ({ config: { scope }, schema: { tags, ...schema } });
}

/** The user whose developer key authenticated this request. */
export function callerId(request: FastifyRequest): string {
  if (!request.developerKey) throw new Error('developerAuth did not run for this route');
  return request.developerKey.userId;
}

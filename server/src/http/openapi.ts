import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { SecurityScheme } from '../auth/hooks';
import { OPERATION_IDS } from '../contract/operations';
import { MAX_PARAM_LENGTH } from './error-handler';

const TITLE = 'DevData developer API';

/**
 * The shared schemas (components) in the form of the document's version, OpenAPI 3.0: `nullable` rather than a
 * `null` type, `enum` rather than `const`. The provider writes them as JSON Schema 2020-12 unless told (it converts
 * the operations' own schemas by the document's version, not the components), which no 3.0 client generator takes.
 */
const componentsTransform = createJsonSchemaTransformObject({ zodToJsonConfig: { target: 'openapi-3.0' } });

/**
 * The document's tags, in the order the docs page shows them: first the six the interface lists for the developer
 * API, in its order, then this server's others.
 */
const TAGS: { name: string; description: string }[] = [
  { name: 'Memories', description: 'Timeless facts, preferences and insights about the user' },
  { name: 'Conversations', description: 'Transcripts with their generated summaries' },
  { name: 'Folders', description: 'Folders that organize conversations' },
  { name: 'Action Items', description: 'Tasks extracted from conversations or created manually' },
  { name: 'Goals', description: 'Goals with their progress history' },
  { name: 'API Keys', description: "The user's developer keys: list, create, revoke" },
  { name: 'Screen Activity', description: 'What was on the screen, a page at a time' },
  { name: 'People', description: 'The people the user talks with' },
  { name: 'Transcripts', description: "Live transcript sessions, sent on to the apps' webhooks" },
  { name: 'Notifications', description: "The user's inbox, and the apps' direct notifications and webhook" },
  { name: 'Change Feed', description: 'Deleted records, for syncs' },
  { name: 'Webhooks', description: "Event webhooks on changes to the user's data" },
  { name: 'Administration', description: 'Users, keys, apps and installs (admin token)' },
  { name: 'Health', description: 'Whether this instance can serve' },
];

const SECURITY_SCHEMES: Record<SecurityScheme, { type: 'http'; scheme: 'bearer'; description: string }> = {
  developerApiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'Developer key, svc_dev_… (or the DEVDATA_KEY_PREFIX set)',
  },
  appSecret: { type: 'http', scheme: 'bearer', description: 'App secret, sk_…' },
  adminToken: { type: 'http', scheme: 'bearer', description: 'Admin token, svc_admin_…' },
};

/** What a 401 means, by the credential the operation takes. */
const UNAUTHORIZED: Record<SecurityScheme, string> = {
  developerApiKey:
    "Missing, malformed, unknown or revoked developer key (send 'Authorization: Bearer API_KEY')",
  adminToken: "Missing, malformed or unknown admin token (send 'Authorization: Bearer ADMIN_TOKEN')",
  appSecret: "Unknown app, or a missing or wrong app secret (send 'Authorization: Bearer APP_SECRET')",
};

/** What each status the routes answer means, for responses the contract gives no description of their own. */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  200: 'Success',
  201: 'Created',
  202: 'Accepted; processed in the background',
  204: 'Done; no body',
  400: "A path parameter's percent-encoding is malformed (e.g. a '%' not followed by two hex digits)",
  403: 'The developer key lacks the scope this operation needs (the detail names it)',
  404: "Not found (another user's record is not found either)",
  409: 'Conflicts with the current state (the detail says how)',
  413: 'The body is larger than this endpoint accepts (the detail names the limit); send a smaller one',
  414: `A path parameter is longer than the ${MAX_PARAM_LENGTH} characters this server accepts`,
  415: "The body was not sent as JSON, or was sent with a Content-Encoding other than identity; send it uncompressed with 'Content-Type: application/json' and no Content-Encoding",
  422: 'Invalid input: each issue gives where (loc), what (msg) and its type',
  429: 'Rate limit exceeded; retry after the seconds in Retry-After',
  503: 'The database is out of reach or the server is overloaded; retry after the seconds in Retry-After',
};

/** Answers the contract cannot describe: the event stream's 200 is not JSON. */
const RESPONSES_BY_OPERATION: Record<string, Operation['responses']> = {
  streamNotifications: {
    200: {
      description:
        'An open stream of Server-Sent Events: `event: notification` with the Notification JSON as `data`, and `: heartbeat` comments',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
  },
};

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
const VALIDATION_ERROR_CONTENT = {
  'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } },
};

/** The methods whose requests Fastify reads a body of (none on GET or HEAD), whether the route declares one or not. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** The parts of the generated document that `describeResponses` completes. */
interface Operation {
  operationId?: string;
  parameters?: { in: string }[];
  security?: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: unknown }>;
}

/**
 * The answers of the shared request pipeline (error-handler.ts, load-shedding.ts), which the contract of a single
 * route does not list: every request's query and path are checked for text no field may hold (422); a body, read
 * on every method that has one even where the route declares none, may be too large (413), not JSON (415) or hold
 * fields a route without a body does not take (422); a path parameter may be malformed (400) or too long (414);
 * and any request may meet the database out of reach or be shed under load (503).
 */
function addPipelineResponses(method: string, operation: Operation) {
  const { responses } = operation;
  const add = (status: number, content: object) =>
    (responses[status] ??= { description: STATUS_DESCRIPTIONS[status], content });
  if (operation.parameters?.some((parameter) => parameter.in === 'path')) {
    add(400, ERROR_CONTENT);
    add(414, ERROR_CONTENT);
  }
  if (BODY_METHODS.has(method)) {
    add(413, ERROR_CONTENT);
    responses[415] = { description: STATUS_DESCRIPTIONS[415], content: ERROR_CONTENT };
  }
  add(422, VALIDATION_ERROR_CONTENT);
  add(503, ERROR_CONTENT);
}

/**
 * Completes each operation: the statuses every route can answer through the shared pipeline, the answers the
 * contract cannot describe, the description of every response, and no body on a 204.
 */
function describeResponses<D extends { paths?: object }>(document: D): D {
  for (const item of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const [method, operation] of Object.entries(item)) {
      const responses = { ...RESPONSES_BY_OPERATION[operation.operationId ?? ''], ...operation.responses };
      operation.responses = responses;
      addPipelineResponses(method, operation);
      const scheme = Object.keys(operation.security?.[0] ?? {})[0] as SecurityScheme | undefined;
      for (const [status, response] of Object.entries(responses)) {
        if (status === '204') delete response.content;
        if (response.description && response.description !== 'Default Response') continue;
        response.description =
          status === '401' && scheme ? UNAUTHORIZED[scheme] : (STATUS_DESCRIPTIONS[status] ?? '');
      }
    }
  }
  return document;
}

// The package's own icon, shown as the docs page's logo and favicon.
const LOGO = readFileSync(join(__dirname, '..', '..', 'assets', 'devdata.svg'));

/** The OpenAPI document generated from the zod contract, at /openapi.json, and a docs page at /docs. */
async function openapiPlugin(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      info: {
        title: TITLE,
        version: '1.0.0',
        description: 'Developer data, direct notifications and proactive notifications, self-hosted.',
      },
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: (input) => {
      const { schema, url } = jsonSchemaTransform(input);
      const operationId = OPERATION_IDS[`${String(input.route.method)} ${input.url}`];
      return { schema: operationId ? { ...schema, operationId } : schema, url };
    },
    transformObject: (input) => describeResponses(componentsTransform(input)),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    logo: { type: 'image/svg+xml', content: LOGO },
    theme: {
      title: TITLE,
      favicon: [{ filename: 'devdata.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: LOGO }],
    },
    // The page reads the document where clients do; relative, so it also works behind a path prefix.
    uiConfig: { urls: [{ url: '../openapi.json', name: TITLE }] },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

export default fp(openapiPlugin, { name: 'openapi' });

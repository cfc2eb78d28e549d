// POST /mcp (and /v1/mcp/sse): the Model Context Protocol over Streamable HTTP, stateless (no session: a new
// server and transport per request), so any instance answers any request. The developer key authenticates it as
// it does /v1/dev, by the same hook: a revoked key is a 401, and every POST counts against the key's rate limit, a
// batch once for each tool call in it. A browser page's request (it has an Origin) of an origin not allowed is a 403.
import { isIP } from 'node:net';
import type {
  FastifyBaseLogger,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { developerAuth, rateLimitAnswer, type DeveloperKey } from '../auth/hooks';
import { quoted } from '../contract/common';
import type { RequestLimiter } from '../auth/rate-limit';
import { HttpError } from '../http/http-errors';
import { originOf } from '../http/origin';
import { jsonBodyText } from '../http/request-body';
import { isUnavailable } from '../store/db/store-errors';
import { SERVER_VERSION } from '../version';
import {
  callTool,
  databaseUnavailable,
  issueProblem,
  refusal,
  TOOL_LIST,
  wrongTypeMessages,
  type ToolResult,
} from './calls';

/** Tool arguments are small: far below the developer API's 8 MB, which is there for batches of transcripts. */
const BODY_LIMIT = 1024 * 1024;
/** Where the endpoint answers: its own path, and the one the real service's hosted MCP server has. */
const MCP_PATHS = ['/mcp', '/v1/mcp/sse'] as const;

const INSTRUCTIONS =
  "Tools over one user's data on devdata-server: conversations (with transcripts), memories (facts about the " +
  'user), action items (tasks), goals and people. Ids come from the list tools; pass them as they are.';

/**
 * Whether a browser page at `origin` (its `Origin` header) may use the endpoint: its origin is one the operator
 * allows, or the address the request was sent to (`host`, its Host header) when that is an IP address or
 * localhost. A page whose host name was pointed at the server (DNS rebinding) sends a request of its own origin,
 * with that name as its Host too: a name is the server's own only when the operator names it.
 */
function originAllowed(origin: string, host: string | undefined, allowed: readonly string[]): boolean {
  const page = originOf(origin);
  if (page === null) return false;
  if (allowed.includes(page)) return true;
  const scheme = /^https?:/.exec(page)?.[0];
  if (scheme === undefined || host === undefined || originOf(`${scheme}//${host}`) !== page) return false;
  const name = new URL(page).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(name) !== 0 || name === 'localhost';
}

/**
 * Refuses (403) a request from a browser page of an origin not allowed (see originAllowed), before its body is
 * read or its key checked, as Streamable HTTP has a server do against DNS rebinding. A request without an `Origin`
 * (n8n, an IDE, a desktop app, curl: no browser page) passes.
 */
const checkOrigin: onRequestHookHandler = async (request) => {
  const origin = request.headers.origin;
  if (
    origin === undefined ||
    originAllowed(origin, request.headers.host, request.server.config.mcpAllowedOrigins)
  )
    return;
  throw new HttpError(
    403,
    `Origin ${quoted(origin)} may not use ${request.routeOptions.url}: a browser page is refused unless its ` +
      "origin is the server's own address or listed in DEVDATA_MCP_ALLOWED_ORIGINS (comma-separated)",
  );
};

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** The id of a tools/call request, if `message` is one. */
function toolCallId(message: unknown): string | number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  return method === 'tools/call' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/**
 * Counts each tool call of `batch` after its first against the key's limit (the POST counted as one), as if each
 * came in a POST of its own: a batch may not run more calls than as many POSTs could. Answers the calls past the
 * limit, by id, with the rate_limited tool result they get instead of running.
 */
async function countBatchCalls(
  batch: unknown[],
  limiter: RequestLimiter,
  key: DeveloperKey,
  reply: FastifyReply,
): Promise<Map<string | number, ToolResult>> {
  const limited = new Map<string | number, ToolResult>();
  const calls = batch.map(toolCallId).filter((id) => id !== undefined);
  for (const id of calls.slice(1)) {
    const now = Date.now();
    const refused = rateLimitAnswer(reply, limiter, await limiter.hit(key.id, now), now);
    if (refused === undefined) continue;
    reply.headers(refused.headers);
    limited.set(id, refusal('rate_limited', refused.detail));
  }
  return limited;
}

/**
 * Answers the tools/call request `id` with `result` here, without the SDK: as JSON, or to a client that takes an
 * event stream and no JSON as the one event of a stream, as the SDK's transport answers it.
 */
function answerToolCall(
  request: FastifyRequest,
  reply: FastifyReply,
  id: string | number,
  result: ToolResult,
) {
  const message = JSON.stringify({ jsonrpc: '2.0', id, result });
  if (!wantsEventStream(request.headers.accept)) return reply.type('application/json').send(message);
  return reply
    .type('text/event-stream')
    .header('cache-control', 'no-cache, no-transform')
    .send(`event: message\ndata: ${message}\n\n`);
}

/**
 * What keeps `message` (a body, or one message of a batch) from being a JSON-RPC 2.0 message, if anything. The
 * SDK refuses such a body as a parse error (-32700) without a reason, though it is JSON; JSON-RPC answers it as an
 * invalid request (-32600), and the reason lets a client fix it.
 */
function messageProblem(message: unknown): string | undefined {
  if (JSONRPCMessageSchema.safeParse(message).success) return undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message) || !('method' in message))
    return 'expected a request: an object with jsonrpc "2.0", a method, its params and an id';
  const schema = 'id' in message ? JSONRPCRequestSchema : JSONRPCNotificationSchema;
  const parsed = schema.safeParse(message, { reportInput: true, error: wrongTypeMessages });
  return parsed.error?.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown field ${issue.keys.map(quoted).join(', ')}: a request holds jsonrpc, id, method and params`;
      if (issue.code === 'invalid_union' && issue.path[0] === 'id')
        return 'id: expected a string or an integer';
      return issueProblem(issue, issue.path.join('.'));
    })
    .join('; ');
}

/**
 * The first problem of the body's messages, as an invalid request's message; undefined when every one is fine.
 * JSON-RPC 2.0 makes an empty batch an invalid request too, answered alone (there is no request to answer). So
 * is a batch the SDK's transport refuses whole, checked here before its tool calls count against the key's
 * limit: one of more than its MAX_BATCH_SIZE messages, or one with an initialize among other messages.
 */
function invalidRequest(body: unknown): string | undefined {
  if (Array.isArray(body) && body.length === 0)
    return 'Invalid Request: the batch is empty; send a message, or an array of them';
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE)
    return `Invalid Request: the batch has ${body.length} messages; send at most ${MAX_BATCH_SIZE} in one`;
  const messages = Array.isArray(body) ? body : [body];
  for (const [index, message] of messages.entries()) {
    const problem = messageProblem(message);
    if (problem === undefined) continue;
    const where = Array.isArray(body) ? `message ${index + 1} of the batch: ` : '';
    return `Invalid Request: ${where}${problem}`;
  }
  if (Array.isArray(body) && body.length > 1 && body.some((message) => isInitializeRequest(message)))
    return 'Invalid Request: initialize must be sent alone, not in a batch';
  return Array.isArray(body) ? repeatedId(body as JSONRPCMessage[]) : undefined;
}

/**
 * The SDK's transport refuses a request other than initialize whose MCP-Protocol-Version header names a version
 * it does not speak (400): its answer, given here before a batch's tool calls count against the key's limit.
 */
function unsupportedVersion(body: unknown, header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const version = Array.isArray(header) ? header.join(', ') : header;
  const messages = Array.isArray(body) ? body : [body];
  if (
    SUPPORTED_PROTOCOL_VERSIONS.includes(version) ||
    messages.some((message) => isInitializeRequest(message))
  )
    return undefined;
  return (
    `Bad Request: Unsupported protocol version: ${version} ` +
    `(supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`
  );
}

/**
 * Two requests of a batch with the same id, if any, as an invalid request's message. The transport answers by id:
 * the second would run (a write too) and its answer be lost.
 */
function repeatedId(batch: JSONRPCMessage[]): string | undefined {
  const seen = new Map<string | number, number>();
  for (const [index, message] of batch.entries()) {
    if (!isJSONRPCRequest(message)) continue;
    const first = seen.get(message.id);
    if (first !== undefined)
      return (
        `Invalid Request: message ${index + 1} of the batch has the id ${JSON.stringify(message.id)} of message ` +
        `${first + 1}: give each request its own id`
      );
    seen.set(message.id, index);
  }
  return undefined;
}

/**
 * The requests this server answers, each with the SDK's schema of it. The SDK parses a request by its schema only
 * once it has taken it, and answers a failure as -32603 (internal error) with zod's issues as JSON; checked here
 * first, such a request gets -32602 (invalid params) naming the param.
 */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * What is wrong with the params of `request`, if this server answers its method and they are not what it takes. A
 * tool call's arguments are left to the tool's own schema, which names an unknown one: the SDK's check of them
 * (a record, by zod's plain-object test) reads `arguments.constructor.prototype`, so a key named constructor would
 * fail it as "expected an object" or throw.
 */
function paramsProblem(request: JSONRPCRequest): string | undefined {
  if (!Object.hasOwn(REQUEST_SCHEMAS, request.method)) return undefined;
  const schema = REQUEST_SCHEMAS[request.method as keyof typeof REQUEST_SCHEMAS];
  const checked =
    request.method === 'tools/call' && isObject(request.params) && 'arguments' in request.params
      ? { ...request, params: { ...request.params, arguments: {} } }
      : request;
  const parsed = schema.safeParse(checked, { reportInput: true, error: wrongTypeMessages });
  if (parsed.success) return undefined;
  const problems = parsed.error.issues.map((issue) => issueProblem(issue, issue.path.join('.')));
  return `Invalid params for ${request.method}: ${problems.join('; ')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Takes each message `transport` receives before the SDK's server (connected to it already) does: answers a
 * request whose params its method does not take with -32602, and a tool call itself (the SDK's server would check
 * its arguments as a record again, see paramsProblem); hands every other message on. Whatever goes wrong here is
 * logged and answered: a tool call with an internal tool result, another request with -32603. A batch is answered
 * request by request; a tool call in `limited` with its result there, without running.
 */
function takeRequests(
  transport: StreamableHTTPServerTransport,
  key: DeveloperKey,
  limited: ReadonlyMap<string | number, ToolResult>,
  reply: FastifyReply,
  log: FastifyBaseLogger,
) {
  const deliver = transport.onmessage;
  const context = { userId: key.userId, repositories: reply.server.repositories };
  const send = (message: JSONRPCMessage) =>
    transport.send(message).catch((error: unknown) => log.error({ err: error }, 'MCP answer failed'));
  const answer = async (request: JSONRPCRequest): Promise<JSONRPCMessage | undefined> => {
    const problem = paramsProblem(request);
    if (problem !== undefined)
      return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: problem } };
    if (request.method !== 'tools/call') return undefined;
    const over = limited.get(request.id);
    if (over !== undefined) return { jsonrpc: '2.0', id: request.id, result: over };
    const { name, arguments: args } = request.params as { name: string; arguments?: unknown };
    const result = await callTool(name, args, context, key.scopes, log);
    return { jsonrpc: '2.0', id: request.id, result };
  };
  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message)) {
      deliver?.(message, extra);
      return;
    }
    const failed = (error: unknown): JSONRPCMessage => {
      log.error({ err: error, method: message.method }, 'MCP request failed');
      return message.method === 'tools/call'
        ? {
            jsonrpc: '2.0',
            id: message.id,
            result: refusal('internal', 'The server failed to run this tool'),
          }
        : {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: ErrorCode.InternalError, message: 'Internal error' },
          };
    };
    void (async () => {
      let answered: JSONRPCMessage | undefined;
      try {
        answered = await answer(message);
        if (answered === undefined) deliver?.(message, extra);
      } catch (error) {
        answered = failed(error);
      }
      if (answered !== undefined) await send(answered);
    })();
  };
}

/** The SDK's server: it answers initialize, ping and tools/list (tool calls are taken before it, see takeRequests). */
function mcpServer() {
  const server = new Server(
    { name: 'devdata-server', version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  return server;
}

/** The request's JSON-RPC message, or undefined when the body is not JSON. */
function parseMessage(body: string | null): unknown {
  if (body === null) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** What Streamable HTTP asks a client to accept, handed on to the SDK's transport whatever the client sent. */
const BOTH_FORMS = 'application/json, text/event-stream';

/** Whether the answer must be an event stream: the client accepts one and no JSON (nor every type). */
function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((part) => part.split(';', 1)[0].trim().toLowerCase());
  return (
    types.includes('text/event-stream') &&
    !types.some((type) => type === 'application/json' || type === 'application/*' || type === '*/*')
  );
}

/**
 * Hands the authenticated request to the SDK's MCP server and transport, made for it alone. From here the SDK writes
 * the response; the headers set so far (the rate limit's) go with it.
 */
async function answerWithSdk(
  request: FastifyRequest,
  reply: FastifyReply,
  message: unknown,
  limited: ReadonlyMap<string | number, ToolResult>,
) {
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsEventStream(request.headers.accept),
  });
  // The SDK refuses (406) a POST that does not accept both forms; the real service's endpoint answers any
  // Accept, its own documentation's curl sending none: JSON, or an event stream to a client that takes only that.
  request.raw.headers.accept = BOTH_FORMS;
  transport.onerror = (error) => request.log.error({ err: error }, 'MCP transport failed');
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    takeRequests(transport, request.developerKey as DeveloperKey, limited, reply, request.log);
    await transport.handleRequest(request.raw, reply.raw, message);
  } catch (error) {
    request.log.error({ err: error }, 'MCP request failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify(jsonRpcError(-32603, 'Internal error')));
    }
  }
}

const mcp: FastifyPluginAsync<{ limiter: RequestLimiter }> = async (app, { limiter }) => {
  const authenticate = developerAuth(limiter);

  // The body reaches the handler as text, read as the REST APIs read theirs (null when it is not UTF-8): a refusal
  // of a tool call's text (a NUL, say) is a tool result, not the developer API's 422. A Content-Encoding is the
  // same 415 as there, answered, like a body of another Content-Type or too large, before the key is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string | null;
    try {
      text = jsonBodyText(request, body as Buffer);
    } catch (error) {
      return done(error as HttpError);
    }
    done(null, text);
  });

  // Stateless, so no GET (a stream of server messages) or DELETE (ending a session): the server's 405 answers them,
  // naming POST. Also at the real service's path, so a client set up for it needs only another host.
  const handle: RouteHandlerMethod = async (request, reply) => {
    const message = parseMessage(request.body as string | null);
    const callId = toolCallId(message);
    // Shed under load (before the key is checked or counted, as on the REST routes): a tool call is answered as a
    // tool result a model can retry on; anything else as HTTP, the 503.
    if (request.shed !== null) {
      if (callId === undefined) throw request.shed;
      reply.headers(request.shed.headers);
      return answerToolCall(
        request,
        reply,
        callId,
        refusal('unavailable', 'The server is overloaded right now; try again in a few seconds'),
      );
    }
    try {
      await authenticate.call(app, request, reply);
    } catch (error) {
      // Over the limit, a tool call is answered as a tool result a model can wait on; anything else as HTTP.
      if (error instanceof HttpError && error.statusCode === 429 && callId !== undefined) {
        reply.headers(error.headers);
        return answerToolCall(request, reply, callId, refusal('rate_limited', error.detail));
      }
      // The key could not be looked up: answered as a tool that finds the database down is.
      if (isUnavailable(error) && callId !== undefined)
        return answerToolCall(request, reply, callId, databaseUnavailable(error, request.log));
      throw error;
    }
    if (message === undefined) {
      const what = request.body === null ? 'not UTF-8' : 'not JSON';
      return reply.code(400).send(jsonRpcError(-32700, `Parse error: the body is ${what}`));
    }
    const problem = invalidRequest(message);
    if (problem !== undefined) return reply.code(400).send(jsonRpcError(-32600, problem));
    const version = unsupportedVersion(message, request.headers['mcp-protocol-version']);
    if (version !== undefined) return reply.code(400).send(jsonRpcError(-32000, version));
    const limited = Array.isArray(message)
      ? await countBatchCalls(message, limiter, request.developerKey as DeveloperKey, reply)
      : new Map<string | number, ToolResult>();
    await answerWithSdk(request, reply, message, limited);
  };
  for (const path of MCP_PATHS)
    app.post(
      path,
      {
        bodyLimit: BODY_LIMIT,
        schema: { hide: true },
        config: { answersShed: true },
        onRequest: checkOrigin,
      },
      handle,
    );
};

export default mcp;

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBodyParser, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import {
  noBodyFieldMessage,
  quickCheck,
  textIssue,
  unknownFieldMessage,
  type ValidationIssue,
} from '../contract/common';
import { HttpError, UnprocessableError } from './http-errors';
import { jsonBodyText } from './request-body';
import { Conflict, isUnavailable, NotFound } from '../store/db/store-errors';

/** How long a client should wait before retrying while the database is out of reach. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** A custom issue may name its FastAPI `type` in `params.type` (see contract/change-feed.ts); others use zod's code. */
function issueType(issue: z.core.$ZodIssue): string {
  const type = issue.code === 'custom' ? issue.params?.type : undefined;
  return typeof type === 'string' ? type : issue.code;
}

/**
 * The fields of each strict object that met unknown keys while a request part was parsed, by the object the
 * request sent (zod's finished issue keeps that object, not the schema that knows the fields).
 */
type KnownFields = Map<unknown, string[]>;

/** A per-parse error map that notes, for each unknown-keys issue, the fields its object takes. */
function noteKnownFields(known: KnownFields): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
    known.set(issue.input, shape ? Object.keys(shape) : []);
    return undefined;
  };
}

/**
 * The most issues a 422 lists. A body of 600,000 unknown fields (8 MiB) was answered with as many issues: 80 MB,
 * built and sent over 9 s in which the server answered nothing else.
 */
const MAX_ISSUES_LISTED = 100;

/** `listed`, the first of `total` issues, and past them one more saying how many were left out. */
function withUnlisted(listed: ValidationIssue[], total: number): ValidationIssue[] {
  if (total <= listed.length) return listed;
  const unlisted = total - listed.length;
  return [
    ...listed,
    {
      loc: listed[0].loc.slice(0, 1),
      msg: `${unlisted} more issue${unlisted === 1 ? '' : 's'} like these not listed: fix those listed and send again`,
      type: 'too_many_issues',
    },
  ];
}

/** A request part that failed its zod schema; carries zod's issues so they become FastAPI-style `loc`s. */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(
    readonly part: string,
    readonly issues: z.core.$ZodIssue[],
    private readonly knownFields: KnownFields = new Map(),
  ) {
    super(issues.map((i) => i.message).join('; '));
  }

  toIssues(): ValidationIssue[] {
    const where = LOCATION[this.part] ?? this.part;
    const listed: ValidationIssue[] = [];
    let total = 0;
    for (const issue of this.issues) {
      const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      // One issue per unknown field, as FastAPI reports a model that forbids extra fields.
      if (issue.code === 'unrecognized_keys') {
        const known = this.knownFields.get(issue.input) ?? [];
        total += issue.keys.length;
        for (const key of issue.keys.slice(0, MAX_ISSUES_LISTED - listed.length))
          listed.push({
            loc: [where, ...path, key],
            msg: unknownFieldMessage(key, known),
            type: 'extra_forbidden',
          });
        continue;
      }
      total += 1;
      if (listed.length === MAX_ISSUES_LISTED) continue;
      // An absent body reaches the schema as null; anything else absent as undefined.
      const absent = issue.input === undefined || (issue.input === null && issue.path.length === 0);
      const missing = issue.code === 'invalid_type' && absent;
      listed.push({
        loc: [where, ...path],
        msg: missing ? 'Field required' : issue.message,
        type: missing ? 'missing' : issueType(issue),
      });
    }
    return withUnlisted(listed, total);
  }
}

/**
 * What is wrong with a body sent to a route that declares none: nothing when it is null or `{}` (what clients
 * send on a DELETE or an action), else each field as an unknown field, as any other body's, naming the query
 * parameter it probably meant. The real service ignores such a body; here it would be ignored while the action
 * went ahead (a secret given to rotate-secret, say), so it is refused instead.
 */
function noBodyIssues(body: unknown, querystring: unknown): ValidationIssue[] {
  if (body === null) return [];
  if (typeof body !== 'object' || Array.isArray(body)) {
    return [{ loc: ['body'], msg: 'This route takes no body: send none, or {}', type: 'extra_forbidden' }];
  }
  const parameters = querystring instanceof z.ZodObject ? Object.keys(querystring.shape) : [];
  const fields = Object.keys(body);
  const listed = fields.slice(0, MAX_ISSUES_LISTED).map((field) => ({
    loc: ['body', field],
    msg: noBodyFieldMessage(field, parameters),
    type: 'extra_forbidden',
  }));
  return withUnlisted(listed, fields.length);
}

/** The longest path parameter the router passes on to a route (app.ts); a longer one is its 414. */
export const MAX_PARAM_LENGTH = 500;

/** The methods a path may answer to, as the 405 `Allow` header lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A media type of the `+json` structured syntax suffix (RFC 6839), as Fastify writes it: `application/vnd.api+json`. */
const JSON_SUFFIX_TYPE = /^application\/[^\s/;]+\+json(?:;|$)/;

/** The 415 detail: the body must be JSON, and the header says so. */
function unsupportedMediaType(contentType: string | undefined): string {
  const sent = contentType
    ? `Content-Type '${contentType}' is not supported`
    : 'The body has no Content-Type';
  return `${sent}: send the body as JSON with 'Content-Type: application/json'`;
}

/**
 * One place that turns every failure into the interface's error bodies: 422 `{detail:[{loc,msg,type}]}` for
 * bad input, `{detail}` for other client errors (the store's NotFound a 404, its Conflict a 409), 503 with Retry-After while the database is out of reach, and a
 * bare 500 (logged) for our own faults.
 */
async function errorsPlugin(app: FastifyInstance) {
  app.setValidatorCompiler<z.ZodType>(({ schema, httpPart }) => {
    const quick = quickCheck(schema);
    return (data) => {
      if (quick?.(data)) return { value: data };
      const knownFields: KnownFields = new Map();
      const result = schema.safeParse(data, { reportInput: true, error: noteKnownFields(knownFields) });
      if (result.success) return { value: result.data };
      return { error: new RequestValidationError(httpPart ?? 'body', result.error.issues, knownFields) };
    };
  });

  // After authentication, like every other input check (the body is checked as it is parsed).
  app.addHook('preValidation', (request, _reply, done) => {
    const inPath = textIssue(request.params);
    if (inPath) return done(UnprocessableError.at(['path', ...inPath.path], inPath.msg, inPath.type));
    const inQuery = textIssue(request.query);
    if (inQuery) return done(UnprocessableError.at(['query', ...inQuery.path], inQuery.msg, inQuery.type));
    done();
  });

  // Every body is JSON: any other type (Fastify's text/plain parser included) is a 415 saying so (see below).
  // An empty JSON body is "no body", so routes that need none accept one and routes that need one say 422;
  // a route that declares no body schema takes none (the MCP endpoint, whose body is its own, parses it itself).
  app.removeAllContentTypeParsers();
  const parseJson: FastifyBodyParser<Buffer> = (request, body, done) => {
    let text: string | null;
    try {
      text = jsonBodyText(request, body);
    } catch (error) {
      return done(error as HttpError);
    }
    if (text === '') return done(null, undefined);
    // Decoding other bytes would store U+FFFD in place of what the client sent.
    if (text === null) {
      return done(
        UnprocessableError.at(
          ['body'],
          'JSON decode error: the body is not valid UTF-8; send it encoded as UTF-8',
          'json_invalid',
        ),
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(
        UnprocessableError.at(['body'], `JSON decode error: ${(error as Error).message}`, 'json_invalid'),
      );
    }
    // Checked before any schema sees the body: nothing after this point walks a value nested without bound.
    const issue = textIssue(parsed);
    if (issue) return done(UnprocessableError.at(['body', ...issue.path], issue.msg, issue.type));
    const { schema } = request.routeOptions;
    if (!request.is404 && schema?.body === undefined) {
      const issues = noBodyIssues(parsed, schema?.querystring);
      if (issues.length > 0) return done(new UnprocessableError(issues));
    }
    done(null, parsed);
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  // The real service (FastAPI) reads a body as JSON also when it comes without a Content-Type (Python's
  // `requests.post(url, data=json.dumps(body))` sends none) or as `application/<name>+json`, so those are JSON here
  // too. Any other type is refused (415) rather than guessed at.
  app.addContentTypeParser(JSON_SUFFIX_TYPE, { parseAs: 'buffer' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const type = request.headers['content-type'];
    if (type !== undefined) return done(new HttpError(415, unsupportedMediaType(type)));
    parseJson(request, body as Buffer, done);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof RequestValidationError) return reply.code(422).send({ detail: error.toIssues() });
    if (error instanceof UnprocessableError) return reply.code(422).send({ detail: error.issues });
    if (error instanceof HttpError)
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    if (error instanceof NotFound) return reply.code(404).send({ detail: error.message });
    if (error instanceof Conflict) return reply.code(409).send({ detail: error.message });
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send({ detail: unsupportedMediaType(request.headers['content-type']) });
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // The route's own limit (/mcp has a smaller one than the server's).
      const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0;
      return reply.code(413).send({
        detail: `Request body is larger than the ${limit / 1024 / 1024} MiB this endpoint accepts: send a smaller one (fewer or shorter records)`,
      });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: error.message });
    if (isUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
        .send({ detail: 'The database is unavailable right now; retry shortly' });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });

  // A known path asked with a method it does not serve is a 405 naming the methods it does (RFC 9110 §15.5.6).
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length === 0) return reply.code(404).send({ detail: 'Not Found' });
    return reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ detail: `Method ${request.method} not allowed on ${path}; allowed: ${allowed.join(', ')}` });
  });
}

export default fp(errorsPlugin, { name: 'errors' });

/**
 * Fastify answers some requests before any route or hook runs: a path with malformed percent-encoding
 * (FST_ERR_BAD_URL, 400), a path parameter over the router's length limit (FST_ERR_MAX_PARAM_LENGTH, 414).
 * These answer in the interface's `{detail}` shape with Fastify's status, like every other client error.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  // Fastify's own message for this one repeats the whole URL and leaves the limit out.
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `A path parameter is longer than the ${MAX_PARAM_LENGTH} characters this server accepts: no ID is that long, check the URL`
      : error.message;
  void reply.code(status).type('application/json; charset=utf-8').send({ detail });
}

/** The details of the protocol-level refusals, by status. */
const CLIENT_ERROR_DETAIL: Record<number, string> = {
  400: 'Malformed HTTP request',
  408: 'The request did not arrive in time',
  431: 'Request headers are larger than the server accepts',
};

/**
 * Node's HTTP parser refuses a request that is not HTTP, whose headers are too large, or that does not arrive in
 * time; no request object exists then, so the answer is written to the socket directly, as `{detail}` with the
 * status Fastify would use, and the connection is closed (its stream cannot be trusted past the error).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ detail: CLIENT_ERROR_DETAIL[status] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

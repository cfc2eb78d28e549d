import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { z } from 'zod';
import { NUL_MESSAGE, nulPath, type ValidationIssue } from '../contract/common';
import { HttpError, UnprocessableError } from '../errors';
import { isUnavailable } from '../store/errors';

/** How long a client should wait before retrying while the database is out of reach. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** A request part that failed its zod schema; carries zod's issues so they become FastAPI-style `loc`s. */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(
    readonly part: string,
    readonly issues: z.core.$ZodIssue[],
  ) {
    super(issues.map((i) => i.message).join('; '));
  }

  toIssues(): ValidationIssue[] {
    const where = LOCATION[this.part] ?? this.part;
    return this.issues.map((issue) => {
      // An absent body reaches the schema as null; anything else absent as undefined.
      const absent = issue.input === undefined || (issue.input === null && issue.path.length === 0);
      const missing = issue.code === 'invalid_type' && absent;
      return {
        loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
        msg: missing ? 'Field required' : issue.message,
        type: missing ? 'missing' : issue.code,
      };
    });
  }
}

/**
 * One place that turns every failure into the interface's error bodies: 422 `{detail:[{loc,msg,type}]}` for
 * bad input, `{detail}` for other client errors, 503 with Retry-After while the database is out of reach, and a
 * bare 500 (logged) for our own faults.
 */
async function errorsPlugin(app: FastifyInstance) {
  app.setValidatorCompiler<z.ZodType>(({ schema, httpPart }) => (data) => {
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) return { value: result.data };
    return { error: new RequestValidationError(httpPart ?? 'body', result.error.issues) };
  });

  // After authentication, like every other input check (the body is checked as it is parsed).
  app.addHook('preValidation', async (request) => {
    for (const [where, value] of [
      ['path', request.params],
      ['query', request.query],
    ] as const) {
      const at = nulPath(value);
      if (at) throw UnprocessableError.at([where, ...at], NUL_MESSAGE, 'string_nul');
    }
  });

  // An empty JSON body is "no body", so routes that need none accept one and routes that need one say 422.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch (error) {
      return done(
        UnprocessableError.at(['body'], `JSON decode error: ${(error as Error).message}`, 'json_invalid'),
      );
    }
    const at = nulPath(parsed);
    if (at) return done(UnprocessableError.at(['body', ...at], NUL_MESSAGE, 'string_nul'));
    done(null, parsed);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof RequestValidationError) return reply.code(422).send({ detail: error.toIssues() });
    if (error instanceof UnprocessableError) return reply.code(422).send({ detail: error.issues });
    if (error instanceof HttpError)
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
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

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
}

export default fp(errorsPlugin, { name: 'errors' });

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { callerId, scoped } from '../auth/hooks';
import { changeFeedDescription } from '../contract/change-feed';
import { errors, idParam, success } from '../contract/common';
import type { Scope } from '../contract/scopes';

type App = Parameters<FastifyPluginAsyncZod>[0];
const JSON_UTF8 = 'application/json; charset=utf-8';
/**
 * Inside the helpers a schema is any zod schema: the callers' types are checked at the helpers' signatures
 * (the handler's input is the schema's output, its result the response schema's input).
 */
type AnySchema = z.ZodType;

/**
 * Answers a read with the JSON of `read()`, from the response cache when nothing was written since it was last
 * answered. `key` names everything the answer depends on: the caller, the route, and the path and query as
 * checked (so unknown query parameters or another spelling of the same URL share one entry). The JSON is written
 * here, by the route's compiled serializer, so that the cache can keep it.
 */
function cachedAnswer(app: App, reply: FastifyReply, key: string, read: () => Promise<unknown>) {
  const send = (json: string | Buffer) => reply.type(JSON_UTF8).send(json);
  // The serializers that contract/serializer.ts compiles write strings.
  const answer = app.responseCache.answer(key, async () => reply.serialize(await read()) as string);
  if (!Buffer.isBuffer(answer)) return answer.then(send);
  // A kept answer is sent at once, without waiting on a promise: the handler then returns nothing.
  send(answer);
  return undefined;
}

/** What the OpenAPI document says of a route. */
export interface RouteDoc {
  summary: string;
  description?: string;
}

type Domain = Scope extends `${infer D}:${string}` ? D : never;
/** A domain with both a read and a write scope: `memories` for `memories:read` and `memories:write`. */
type ScopeDomain = { [D in Domain]: `${D}:read` | `${D}:write` extends Scope ? D : never }[Domain];

/** A developer-API resource: its OpenAPI tags, and the domain of the scopes that read and write it. */
interface RecordResource {
  tags: string[];
  scopes: ScopeDomain;
}

/** The names of the `:params` in a route path: `'goal_id'` for `/goals/:goal_id/history`. */
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The summary and description of a route's options, in the order the OpenAPI document lists them. */
function docOf({ summary, description }: RouteDoc): RouteDoc {
  return description === undefined ? { summary } : { summary, description };
}

/** Wording shared by the PATCH routes that keep updated_at when nothing changes. */
export function partialUpdateNote(record: string): string {
  return (
    'Sets updated_at to the write time when a stored value changes; a PATCH with an empty body or with ' +
    `the values ${record} already has changes nothing and keeps updated_at.`
  );
}

/** Wording shared by the DELETE routes that leave a tombstone of `type`. */
export function tombstoneNote(type: string): string {
  return `Leaves a tombstone (GET /v1/dev/user/deleted?type=${type}), written with the delete.`;
}

/**
 * Declares a resource's developer-API routes in its own route file; `itemPath` names one record, e.g.
 * `/memories/:memory_id` (the list is at `/memories`). `read`/`write` give a route its scope and tags (see
 * `scoped`); `list` (or `listAll`), `get`, `create`, `update` and `remove` declare the routes most record resources have,
 * and `item` any other route on one record, with the statuses they answer, so each route file states only what
 * is its own: the docs, the body, the record and the repository call. Other routes on the collection use
 * `read`/`write` with `app` directly.
 */
export function recordRoutes<ItemPath extends `/${string}/:${string}`>(
  app: App,
  itemPath: ItemPath,
  resource: RecordResource,
) {
  const read = scoped(`${resource.scopes}:read`, resource.tags);
  const write = scoped(`${resource.scopes}:write`, resource.tags);
  const [path, id] = itemPath.split('/:') as [string, string];
  const params = idParam(id);

  return {
    read,
    write,

    /**
     * GET `path`: the caller's records, filtered and ordered by `querystring`, which offers the change feed; the
     * route's description explains the feed, followed by `doc.description` when there is one.
     */
    list<Q extends z.ZodType, R extends z.ZodType>(
      doc: RouteDoc & { querystring: Q; response: R },
      list: (userId: string, query: z.output<Q>) => Promise<z.input<R>>,
    ) {
      const querystring: AnySchema = doc.querystring;
      const response: AnySchema = doc.response;
      app.get(
        path,
        read({
          summary: doc.summary,
          description: changeFeedDescription(doc.description),
          querystring,
          response: { 200: response, ...errors(401, 403, 422, 429) },
        }),
        (request, reply) => {
          const userId = callerId(request);
          const query = request.query as z.output<Q>;
          return cachedAnswer(app, reply, `${userId} ${path} ${JSON.stringify(query)}`, () =>
            list(userId, query),
          );
        },
      );
    },

    /**
     * GET `path` for a resource the caller has few of: all the caller's records in one answer, without a query
     * (so no paging and no change feed), never from the response cache.
     */
    listAll<R extends z.ZodType>(
      doc: RouteDoc & { response: R },
      list: (userId: string) => Promise<z.input<R>>,
    ) {
      app.get(
        path,
        read({ ...docOf(doc), response: { 200: doc.response as AnySchema, ...errors(401, 403, 429) } }),
        async (request) => list(callerId(request)),
      );
    },

    /**
     * GET `path/:id`: the caller's record (404 when it has none of that id), shaped by `querystring` when the
     * route has one.
     */
    get<Q extends z.ZodType, R extends z.ZodType>(
      doc: RouteDoc & { querystring?: Q; response: R },
      find: (userId: string, id: string, query: z.output<Q>) => Promise<z.input<R>>,
    ) {
      const querystring = doc.querystring as AnySchema | undefined;
      const response: AnySchema = doc.response;
      app.get(
        itemPath,
        read({
          ...docOf(doc),
          params,
          ...(querystring && { querystring }),
          response: { 200: response, ...errors(401, 403, 404, 422, 429) },
        }),
        (request, reply) => {
          const userId = callerId(request);
          const recordId = request.params[id];
          const query = request.query as z.output<Q>;
          // The id may hold any character: it comes last, or inside the JSON with the query.
          const key = querystring
            ? `${userId} ${itemPath} ${JSON.stringify([query, recordId])}`
            : `${userId} ${itemPath} ${recordId}`;
          return cachedAnswer(app, reply, key, () => find(userId, recordId, query));
        },
      );
    },

    /**
     * POST `path`: one new record, answered with 200 as the real service answers its creates; `notFound` when
     * the body may name a missing record.
     */
    create<B extends z.ZodType, R extends z.ZodType>(
      doc: RouteDoc & { body: B; response: R; notFound?: true },
      create: (userId: string, body: z.output<B>) => Promise<z.input<R>>,
    ) {
      const body: AnySchema = doc.body;
      const failures = doc.notFound ? errors(401, 403, 404, 422, 429) : errors(401, 403, 422, 429);
      app.post(
        path,
        write({ ...docOf(doc), body, response: { 200: doc.response as AnySchema, ...failures } }),
        async (request) => create(callerId(request), request.body as z.output<B>),
      );
    },

    /**
     * POST `path/batch`: the records in the body's `batch.field` array (see `batchCreate`), created all or none
     * (the whole batch is validated before the handler runs), answered with 200 `{ [field]: created,
     * created_count }`; an empty array answers `created_count: 0`.
     */
    createMany<F extends string, B extends z.ZodType<Record<F, unknown[]>>>(
      doc: RouteDoc,
      batch: { field: F; body: B; response: z.ZodType },
      createMany: (userId: string, records: z.output<B>[F]) => Promise<unknown[]>,
    ) {
      const { field } = batch;
      const body: AnySchema = batch.body;
      app.post(
        `${path}/batch`,
        write({ ...docOf(doc), body, response: { 200: batch.response, ...errors(401, 403, 422, 429) } }),
        async (request) => {
          const records = (request.body as z.output<B>)[field];
          // An empty batch creates nothing and is no error, as on the real service (a sync may have nothing new).
          const created = records.length === 0 ? [] : await createMany(callerId(request), records);
          return { [field]: created, created_count: created.length };
        },
      );
    },

    /**
     * PATCH `path/:id`: the fields sent, on the caller's record; `conflicts` when a change can clash (409). The
     * request is there for what the caller's key may do beyond its scope (webhooks.ts).
     */
    update<B extends z.ZodType, R extends z.ZodType>(
      doc: RouteDoc & { body: B; response: R; conflicts?: true },
      update: (userId: string, id: string, body: z.output<B>, request: FastifyRequest) => Promise<z.input<R>>,
    ) {
      const body: AnySchema = doc.body;
      const failures = doc.conflicts ? errors(401, 403, 404, 409, 422, 429) : errors(401, 403, 404, 422, 429);
      app.patch(
        itemPath,
        write({ ...docOf(doc), params, body, response: { 200: doc.response as AnySchema, ...failures } }),
        async (request) =>
          update(callerId(request), request.params[id], request.body as z.output<B>, request),
      );
    },

    /** DELETE `path/:id`: removes (or retires) the caller's record; answers `{success: true}`. */
    remove(doc: RouteDoc, remove: (userId: string, id: string) => Promise<unknown>) {
      app.delete(
        itemPath,
        write({ ...docOf(doc), params, response: { 200: success, ...errors(401, 403, 404, 422, 429) } }),
        async (request) => {
          await remove(callerId(request), request.params[id]);
          return { success: true as const };
        },
      );
    },

    /**
     * Any other route on one record, at `path/:id` + `suffix` (which may name more ids, as in
     * `/deliveries/:delivery_id/redeliver`): GET with the read scope, other methods with the write scope, never
     * from the response cache; 404 when the caller has no such record, 409 (`conflicts`) when the record's state
     * refuses it. `handle` gets the path's ids by name.
     */
    item<Suffix extends `/${string}` | '', Q extends z.ZodType, R extends z.ZodType>(
      method: 'GET' | 'POST' | 'PATCH',
      suffix: Suffix,
      doc: RouteDoc & { querystring?: Q; response: R; conflicts?: true },
      handle: (
        userId: string,
        ids: Record<PathParams<ItemPath> | PathParams<Suffix>, string>,
        query: z.output<Q>,
        request: FastifyRequest,
      ) => Promise<z.input<R>>,
    ) {
      const querystring = doc.querystring as AnySchema | undefined;
      const moreIds = [...suffix.matchAll(/:(\w+)/g)].map(([, name]) => idParam(name).shape);
      const allIds = moreIds.reduce((ids, shape) => ids.extend(shape), params);
      app.route({
        method,
        url: itemPath + suffix,
        ...(method === 'GET' ? read : write)({
          ...docOf(doc),
          params: allIds,
          ...(querystring && { querystring }),
          response: {
            200: doc.response as AnySchema,
            ...(doc.conflicts ? errors(401, 403, 404, 409, 422, 429) : errors(401, 403, 404, 422, 429)),
          },
        }),
        handler: async (request) =>
          handle(
            callerId(request),
            request.params as Record<PathParams<ItemPath> | PathParams<Suffix>, string>,
            request.query as z.output<Q>,
            request,
          ),
      });
    },
  };
}

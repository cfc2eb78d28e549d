// A small HTTP client for tests: real requests over the loopback, JSON in and out.
import { validationErrorBody } from '../../server/src/contract/common';
import { SCOPES, type Scope } from '../../server/src/contract/scopes';
import type { TestServer } from './server';

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** Query parameters; undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

export interface Client {
  get(path: string, query?: Query): Promise<Reply>;
  post(path: string, body?: unknown, query?: Query): Promise<Reply>;
  patch(path: string, body?: unknown, query?: Query): Promise<Reply>;
  put(path: string, body?: unknown, query?: Query): Promise<Reply>;
  delete(path: string, query?: Query): Promise<Reply>;
  /** Sends exactly these headers and raw body, for malformed-request tests. */
  raw(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<Reply>;
}

/**
 * A client for the server at `baseUrl`, sending `token` as the bearer. Either may be a function read at each
 * request, for a client made before its suite's server has started.
 */
export function client(baseUrl: string | (() => string), token?: string | (() => string)): Client {
  const url = (path: string, query?: Query) => {
    const u = new URL(path, typeof baseUrl === 'function' ? baseUrl() : baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  };
  const send = async (
    method: string,
    target: URL,
    headers: Record<string, string>,
    body?: string | Uint8Array,
  ) => {
    const response = await fetch(target, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text so the assertion shows it.
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  const auth = (): Record<string, string> => {
    const bearer = typeof token === 'function' ? token() : token;
    return bearer ? { authorization: `Bearer ${bearer}` } : {};
  };
  const json = (method: string) => (path: string, body?: unknown, query?: Query) =>
    send(
      method,
      url(path, query),
      { ...auth(), 'content-type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
  return {
    get: (path, query) => send('GET', url(path, query), auth()),
    post: json('POST'),
    patch: json('PATCH'),
    put: json('PUT'),
    delete: (path, query) => send('DELETE', url(path, query), auth()),
    raw: (method, path, init) => send(method, url(path), init.headers ?? {}, init.body),
  };
}

/** A client for the developer API with the init key (every scope); it may be made before the server starts. */
export function devClient(server: TestServer): Client {
  return client(
    () => server.baseUrl,
    () => server.init.developer_key,
  );
}

/** Posts `body` to `server`'s /mcp as JSON, as the SDK's client does, with `key` as bearer. */
export const postMcp = (server: TestServer, key: string, body: unknown, protocolVersion?: string) =>
  client(server.baseUrl, key).raw('POST', '/mcp', {
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(protocolVersion !== undefined && { 'mcp-protocol-version': protocolVersion }),
    },
    body: JSON.stringify(body),
  });

/** A client for the admin API with the init admin token; it may be made before the server starts. */
export function adminClient(server: TestServer): Client {
  return client(
    () => server.baseUrl,
    () => server.init.admin_token,
  );
}

/** A new user with a key holding `scopes` (every scope when omitted), made through the admin API. */
export async function newUser(
  server: TestServer,
  scopes?: Scope[],
): Promise<{ id: string; key: string; client: Client }> {
  const admin = adminClient(server);
  const user = await admin.post('/v1/admin/users', {
    name: `user-${Math.random().toString(36).slice(2, 8)}`,
  });
  expect(user.status).toBe(201);
  const key = await admin.post(`/v1/admin/users/${user.body.id}/keys`, {
    name: 'test',
    scopes: scopes ?? [...SCOPES],
  });
  expect(key.status).toBe(201);
  return { id: user.body.id, key: key.body.key, client: client(server.baseUrl, key.body.key) };
}

/** A key for the init user holding only `scopes`. */
export async function keyWithScopes(server: TestServer, scopes: Scope[]): Promise<Client> {
  const key = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
    name: 'scoped',
    scopes,
  });
  expect(key.status).toBe(201);
  return client(server.baseUrl, key.body.key);
}

/** The part of a zod schema tests need; structural, since the server's zod 4 is not the root's zod 3. */
interface Contract<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: unknown[] } };
}

/** Asserts that `value` satisfies the server's zod contract, showing zod's issues when it does not. */
export function expectShape<T>(schema: Contract<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Error(
      `Response does not match the contract: ${JSON.stringify(result.error.issues, null, 2)}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`,
    );
  }
  return result.data;
}

/** Awaits a reply, asserts its status (showing the body when it differs) and returns its body. */
export const ok = async (reply: Promise<{ status: number; body: unknown }>, status = 200) => {
  const r = await reply;
  expect({ status: r.status, body: r.status === status ? 'ok' : r.body }).toEqual({ status, body: 'ok' });
  return r.body as any;
};

/** Asserts a 422 in the interface's validation shape that names `loc` among its issues. */
export const expect422 = (reply: { status: number; body: unknown }, loc: (string | number)[]) => {
  expect(reply.status).toBe(422);
  const body = expectShape(validationErrorBody, reply.body);
  expect(body.detail.map((d) => d.loc)).toContainEqual(loc);
};

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { OPERATION_IDS } from '../../server/src/contract/operations';
import { client } from '../helpers/http';
import { DIALECTS, forSuite, startServer, type TestServer } from '../helpers/server';

// The OpenAPI document is the published contract, generated from server/src/contract/. A refactoring must
// leave it byte for byte as it is; a deliberate contract change updates openapi.snapshot.json in the same
// commit (write the body of GET /openapi.json to it), so the diff shows reviewers what clients will see.
const SNAPSHOT = join(__dirname, 'openapi.snapshot.json');

// The document does not depend on the database: one dialect is enough.
describe(`the OpenAPI document on ${DIALECTS[0]}`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(DIALECTS[0]);
  });
  afterAll(() => server.close());

  it('is byte for byte the committed snapshot', async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const served = await response.text();
    const snapshot = readFileSync(SNAPSHOT, 'utf8');
    // Structure first, for a readable diff; then the bytes, which also fix the order of keys.
    expect(JSON.parse(served)).toEqual(JSON.parse(snapshot));
    expect(served).toBe(snapshot);
  });
});

/** Every operation of the document, as [method, path, operation]. */
function operations(doc: any): [string, string, any][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as object).map(([method, op]) => [method, path, op] as [string, string, any]),
  );
}

// What the bearer of each scheme is called in the server's 401 detail.
const BEARER_NAME: Record<string, string> = {
  developerApiKey: 'API_KEY',
  adminToken: 'ADMIN_TOKEN',
  appSecret: 'APP_SECRET',
};

describe(`what the OpenAPI document promises, on ${DIALECTS[0]}`, () => {
  const server = forSuite(() => startServer(DIALECTS[0]));
  const doc = () => fetch(`${server.baseUrl}/openapi.json`).then((r) => r.json() as Promise<any>);

  it('names every operation once, verbNoun, with the interface’s listScreenActivity', async () => {
    const all = operations(await doc());
    expect(all.length).toBeGreaterThan(50);
    const ids = all.map(([method, path, op]) => ({ method, path, id: op.operationId }));
    for (const entry of ids) {
      expect({ ...entry, verbNoun: /^[a-z]+(?:[A-Z][a-z]+)+$/.test(entry.id ?? '') }).toEqual({
        ...entry,
        verbNoun: true,
      });
    }
    expect(new Set(ids.map((e) => e.id)).size).toBe(ids.length);
    expect(all.find(([m, p]) => m === 'get' && p === '/v1/dev/user/screen-activity')?.[2].operationId).toBe(
      'listScreenActivity',
    );
    // Every name in the table belongs to a route: none is left behind by a removed or renamed route.
    expect(ids.map((e) => e.id).sort()).toEqual(Object.values(OPERATION_IDS).sort());
  });

  it('lists its tags, the interface’s six for the developer API first and in its order, and every tag used', async () => {
    const document = await doc();
    const listed = (document.tags ?? []).map((tag: { name: string }) => tag.name);
    expect(listed.slice(0, 6)).toEqual([
      'Memories',
      'Conversations',
      'Folders',
      'Action Items',
      'Goals',
      'API Keys',
    ]);
    const used = new Set(operations(document).flatMap(([, , op]) => op.tags ?? []));
    expect([...used].sort()).toEqual([...listed].sort());
  });

  it('declares on every protected operation the scheme the server asks for, and on no other', async () => {
    const document = await doc();
    const anonymous = client(server.baseUrl);
    for (const [method, path, op] of operations(document)) {
      const concrete = path.replace(/\{(\w+)\}/g, 'some-$1');
      const reply = await anonymous.raw(method.toUpperCase(), concrete, {});
      const schemes = (op.security ?? []).flatMap((s: object) => Object.keys(s));
      if (reply.status !== 401) {
        expect({ method, path, status: reply.status, schemes }).toEqual({
          method,
          path,
          status: 200,
          schemes: [],
        });
        continue;
      }
      expect({ method, path, schemes: schemes.length }).toEqual({ method, path, schemes: 1 });
      expect(Object.keys(document.components.securitySchemes)).toContain(schemes[0]);
      expect({ method, path, detail: reply.body.detail }).toEqual({
        method,
        path,
        detail: expect.stringContaining(`'Bearer ${BEARER_NAME[schemes[0]]}'`),
      });
    }
    const dev = operations(document).filter(([, path]) => path.startsWith('/v1/dev/'));
    expect(dev.length).toBeGreaterThan(35);
    for (const [method, path, op] of dev) {
      expect({ method, path, security: op.security }).toEqual({
        method,
        path,
        security: [{ developerApiKey: [] }],
      });
    }
  });

  it('writes every schema, the shared ones too, in the OpenAPI 3.0 form its version announces', async () => {
    const document = await doc();
    expect(document.openapi).toMatch(/^3\.0\./);
    // OpenAPI 3.0's Schema Object: one of these types, nullable for null, enum for a constant; JSON Schema
    // 2020-12's forms (a "null" type, a list of types, const, $defs, prefixItems) are not in it, and a 3.0
    // client generator refuses the document or reads those fields as untyped.
    const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
    const found: string[] = [];
    const check = (schema: any, where: string): void => {
      if (schema === null || typeof schema !== 'object' || '$ref' in schema) return;
      if ('type' in schema && !TYPES.includes(schema.type))
        found.push(`${where}: type ${JSON.stringify(schema.type)}`);
      for (const keyword of ['const', '$defs', 'prefixItems', '$schema', 'unevaluatedProperties']) {
        if (keyword in schema) found.push(`${where}: ${keyword}`);
      }
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        check(property, `${where}.${name}`);
      for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
        (schema[keyword] ?? []).forEach((part: unknown, i: number) =>
          check(part, `${where}.${keyword}[${i}]`),
        );
      }
      for (const keyword of ['items', 'additionalProperties', 'not'])
        check(schema[keyword], `${where}.${keyword}`);
    };
    for (const [name, schema] of Object.entries(document.components.schemas)) check(schema, name);
    for (const [method, path, op] of operations(document)) {
      const where = `${method} ${path}`;
      for (const parameter of op.parameters ?? []) check(parameter.schema, `${where} ${parameter.name}`);
      for (const media of Object.values(op.requestBody?.content ?? {}) as any[])
        check(media.schema, `${where} body`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        for (const media of Object.values(response.content ?? {}) as any[])
          check(media.schema, `${where} ${status}`);
      }
    }
    expect(found).toEqual([]);
    // Where the interface shows null (folder_id, due_at), the 3.0 form says so.
    expect(document.components.schemas.Conversation.properties.folder_id).toEqual({
      type: 'string',
      nullable: true,
    });
    // The interface: loc is an array of string or integer.
    expect(
      document.components.schemas.ValidationError.properties.detail.items.properties.loc.items.anyOf.map(
        (part: { type: string }) => part.type,
      ),
    ).toEqual(['string', 'integer']);
    expect(document.components.schemas.ActionItem.properties.due_at).toMatchObject({
      type: 'string',
      format: 'date-time',
      nullable: true,
    });
  });

  it('documents the boolean query parameters as booleans, with their defaults', async () => {
    const document = await doc();
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: { name: string }) => p.name === name)?.schema;
    // The interface: include_transcript is a boolean, default false; include_inactive a flag (the real service's
    // bool = False). A client generator makes a string argument of a parameter typed string.
    expect(parameter('/v1/dev/user/conversations/{conversation_id}', 'include_transcript')).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(parameter('/v1/dev/user/conversations', 'include_transcript')).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(parameter('/v1/dev/user/conversations/search', 'include_transcript')).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(parameter('/v1/dev/user/goals', 'include_inactive')).toMatchObject({ type: 'boolean' });
    expect(parameter('/v1/dev/user/conversations', 'starred')).toMatchObject({ type: 'boolean' });
    expect(parameter('/v1/dev/user/conversations', 'include_discarded')).toMatchObject({ type: 'boolean' });
    expect(parameter('/v1/dev/user/action-items', 'completed')).toEqual({ type: 'boolean' });
  });

  it('describes every response, with the {detail} body on every error status', async () => {
    for (const [method, path, op] of operations(await doc())) {
      if (op.requestBody) {
        expect({ method, path, has415: '415' in op.responses }).toEqual({ method, path, has415: true });
        // Both headers that make a body unreadable are named.
        expect(op.responses['415'].description).toMatch(
          /Content-Type.*Content-Encoding|Content-Encoding.*Content-Type/,
        );
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const where = { method, path, status };
        expect({ ...where, description: response.description }).toEqual({
          ...where,
          description: expect.stringMatching(/\w{3}/),
        });
        expect(response.description).not.toBe('Default Response');
        if (Number(status) >= 400) {
          const schema = status === '422' ? 'ValidationError' : 'Error';
          expect({ ...where, content: response.content }).toEqual({
            ...where,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
          });
        }
        if (status === '204')
          expect({ ...where, content: response.content }).toEqual({ ...where, content: undefined });
      }
    }
  });
});

/**
 * The status the server answers a request whose head announces a body of `length` bytes, none of which is sent:
 * a body over the limit is refused on its Content-Length, before any of it arrives.
 */
function statusForAnnouncedBody(url: URL, method: string, headers: Record<string, string>, length: number) {
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(length) },
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        request.destroy();
      },
    );
    request.on('error', reject);
    request.flushHeaders();
  });
}

// Over the server's 8 MiB body limit.
const OVERSIZED = 9 * 1024 * 1024;

describe(`the OpenAPI document names what the server answers to bad requests, on ${DIALECTS[0]}`, () => {
  const server = forSuite(() => startServer(DIALECTS[0]));

  it('documents, on every operation, each status its shared request checks answer', async () => {
    const document = await fetch(`${server.baseUrl}/openapi.json`).then((r) => r.json() as Promise<any>);
    const tokens: Record<string, string> = {
      developerApiKey: server.init.developer_key,
      adminToken: server.init.admin_token,
      appSecret: server.init.app_secret,
    };
    const caller = client(server.baseUrl);
    const answered: object[] = [];
    const expected: object[] = [];
    for (const [method, path, op] of operations(document)) {
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const headers: Record<string, string> = scheme ? { authorization: `Bearer ${tokens[scheme]}` } : {};
      // The path with its parameters filled in: the first one `first` when given; the app's own ID where the
      // app secret authenticates, so requests get past authentication to the checks under test.
      const concrete = (first?: string) => {
        let index = 0;
        return path.replace(/\{(\w+)\}/g, (_, name: string) => {
          if (index++ === 0 && first !== undefined) return first;
          return name === 'app_id' ? server.init.app_id : `some-${name}`;
        });
      };
      const send = (target: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
        caller
          .raw(method.toUpperCase(), target, { headers: { ...headers, ...init.headers }, body: init.body })
          .then((reply) => reply.status);
      // Each provocation, the status the server must answer to it, and the request that provokes it.
      const provocations: [string, number, () => Promise<number>][] = [
        ['NUL in the query', 422, () => send(`${concrete()}?q=%00`)],
      ];
      if (['post', 'put', 'patch', 'delete'].includes(method)) {
        const url = new URL(concrete(), server.baseUrl);
        provocations.push(
          [
            'an oversized body',
            413,
            () => statusForAnnouncedBody(url, method.toUpperCase(), headers, OVERSIZED),
          ],
          [
            'a body that is not JSON',
            415,
            () => send(concrete(), { headers: { 'content-type': 'text/plain' }, body: 'hi' }),
          ],
          op.requestBody
            ? [
                'no body where one is needed',
                422,
                () => send(concrete(), { headers: { 'content-type': 'application/json' } }),
              ]
            : [
                'a body where none is taken',
                422,
                () =>
                  send(concrete(), {
                    headers: { 'content-type': 'application/json' },
                    body: '{"unexpected":1}',
                  }),
              ],
        );
      }
      if (path.includes('{')) {
        provocations.push(
          ['a malformed percent-encoding in the path', 400, () => send(concrete('a%zzb'))],
          ['an over-long path parameter', 414, () => send(concrete('a'.repeat(600)))],
        );
      }
      for (const [provoked, status, provoke] of provocations) {
        const answer = await provoke();
        answered.push({ method, path, provoked, status: answer, documented: String(answer) in op.responses });
        expected.push({ method, path, provoked, status, documented: true });
      }
    }
    expect(answered).toEqual(expected);
    // Oversized and empty bodies were tried on every operation that reads a body.
    expect(expected.filter((e: any) => e.status === 413).length).toBeGreaterThan(30);
  });
});

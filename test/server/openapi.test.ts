import { readFileSync } from 'node:fs';
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

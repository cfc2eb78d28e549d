import { client, devClient } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

// What HTTP itself promises a client, answered in the interface's `{detail}` shape: 415 names the media type to
// send, 405 lists the methods a known path serves, and the bearer scheme is matched whatever its case.
describe.each(DIALECTS)('HTTP semantics on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const bearer = () => ({ authorization: `Bearer ${server.init.developer_key}` });
  const JSON_HINT = "send the body as JSON with 'Content-Type: application/json'";

  it('answers a body without Content-Type, or with another type, 415 saying to send JSON', async () => {
    const api = devClient(server);
    const body = JSON.stringify({ description: 'Buy milk' });
    // fetch labels a string body text/plain; a Blob without a type goes out with no Content-Type at all.
    const untyped = await fetch(`${server.baseUrl}/v1/dev/user/action-items`, {
      method: 'POST',
      headers: bearer(),
      body: new Blob([body]),
    });
    expect(untyped.status).toBe(415);
    expect(await untyped.json()).toEqual({ detail: `The body has no Content-Type: ${JSON_HINT}` });

    for (const type of ['text/plain;charset=UTF-8', 'application/xml', 'application/x-www-form-urlencoded']) {
      const reply = await api.raw('POST', '/v1/dev/user/action-items', {
        headers: { ...bearer(), 'content-type': type },
        body,
      });
      expect({ type, status: reply.status, body: reply.body }).toEqual({
        type,
        status: 415,
        body: { detail: `Content-Type '${type}' is not supported: ${JSON_HINT}` },
      });
    }
    // The same body as JSON is accepted, and nothing was written by the refused ones.
    expect((await api.post('/v1/dev/user/action-items', { description: 'Buy milk' })).status).toBe(200);
    expect(await server.count('action_items')).toBe(1);
  });

  it('answers a wrong method on a known path 405 with Allow, and an unknown path 404', async () => {
    const api = devClient(server);
    const cases: [method: string, path: string, allow: string][] = [
      ['PUT', '/v1/dev/user/action-items', 'GET, HEAD, POST'],
      ['DELETE', '/v1/dev/user/goals', 'GET, HEAD, POST'],
      ['POST', '/v1/dev/user/goals/some-goal', 'GET, HEAD, PATCH, DELETE'],
      ['GET', '/v2/integrations/some-app/notification', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/v1/admin/users', 'GET, HEAD, POST'],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await api.raw(method, path, { headers: bearer() });
      expect({ method, path, status: reply.status, allow: reply.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expect(reply.body).toEqual({
        detail: `Method ${method} not allowed on ${path.split('?')[0]}; allowed: ${allow}`,
      });
    }
    // A query string does not hide the path.
    const queried = await api.raw('PATCH', '/v1/dev/user/screen-activity?limit=5', { headers: bearer() });
    expect(queried.status).toBe(405);
    expect(queried.headers.get('allow')).toBe('GET, HEAD, POST');

    for (const path of ['/v1/dev/user/nothing-here', '/v1/dev/user/goals/a/b/c', '/nowhere']) {
      for (const method of ['GET', 'POST']) {
        const reply = await api.raw(method, path, { headers: bearer() });
        expect({
          method,
          path,
          status: reply.status,
          body: reply.body,
          allow: reply.headers.get('allow'),
        }).toEqual({ method, path, status: 404, body: { detail: 'Not Found' }, allow: null });
      }
    }
  });

  it('accepts the bearer scheme in any case, and still refuses a malformed header', async () => {
    const key = server.init.developer_key;
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const reply = await client(server.baseUrl).raw('GET', '/v1/dev/user/action-items', {
        headers: { authorization: `${scheme} ${key}` },
      });
      expect({ scheme, status: reply.status }).toEqual({ scheme, status: 200 });
    }
    const admin = await client(server.baseUrl).raw('GET', '/v1/admin/users', {
      headers: { authorization: `bearer ${server.init.admin_token}` },
    });
    expect(admin.status).toBe(200);
    for (const header of [`Basic ${key}`, `Bearer${key}`, `Bearer ${key} extra`, 'bearer', `Token ${key}`]) {
      const reply = await client(server.baseUrl).raw('GET', '/v1/dev/user/action-items', {
        headers: { authorization: header },
      });
      expect({ header, status: reply.status, body: reply.body }).toEqual({
        header,
        status: 401,
        body: { detail: "Missing or invalid Authorization header. Must be 'Bearer API_KEY'" },
      });
    }
  });
});

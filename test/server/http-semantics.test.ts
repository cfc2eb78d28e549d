import { gzipSync } from 'node:zlib';
import { eventReceiver } from '../helpers/event-receiver';
import { client, devClient, newUser, ok } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

// What HTTP itself promises a client, answered in the interface's `{detail}` shape: 415 names the media type to
// send, 405 lists the methods a known path serves, the bearer scheme is matched whatever its case, and a route
// that takes no body refuses one with fields rather than ignoring it.
describe.each(DIALECTS)('HTTP semantics on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const bearer = () => ({ authorization: `Bearer ${server.init.developer_key}` });
  const JSON_HINT = "send the body as JSON with 'Content-Type: application/json'";

  it('reads a body without Content-Type, or typed application/<name>+json, as JSON, as the real service does', async () => {
    const api = devClient(server);
    const before = await server.count('action_items');
    // Python's `requests.post(url, data=json.dumps(body), headers={"Authorization": …})` sends no Content-Type;
    // the real service (FastAPI) parses such a body as JSON. fetch sends a Blob without a type the same way.
    const untyped = await fetch(`${server.baseUrl}/v1/dev/user/action-items`, {
      method: 'POST',
      headers: bearer(),
      body: new Blob([JSON.stringify({ description: 'Sent untyped' })]),
    });
    expect(untyped.status).toBe(200);
    expect(await untyped.json()).toMatchObject({ description: 'Sent untyped', completed: false });
    for (const type of ['application/vnd.api+json', 'application/merge-patch+json; charset=utf-8']) {
      const reply = await api.raw('POST', '/v1/dev/user/action-items', {
        headers: { ...bearer(), 'content-type': type },
        body: JSON.stringify({ description: type }),
      });
      expect({ type, status: reply.status, description: reply.body.description }).toEqual({
        type,
        status: 200,
        description: type,
      });
    }
    expect(await server.count('action_items')).toBe(before + 3);
    // Untyped, it is still JSON that is checked as JSON: not JSON is a 422, and a route that takes no body refuses
    // fields.
    const notJson = await fetch(`${server.baseUrl}/v1/dev/user/action-items`, {
      method: 'POST',
      headers: bearer(),
      body: new Blob(['description=Buy milk']),
    });
    expect(notJson.status).toBe(422);
    expect(((await notJson.json()) as { detail: unknown[] }).detail[0]).toMatchObject({
      loc: ['body'],
      type: 'json_invalid',
    });
    expect(await server.count('action_items')).toBe(before + 3);
  });

  it('answers a body of another type 415 saying to send JSON, and stores nothing', async () => {
    const api = devClient(server);
    const before = await server.count('action_items');
    const body = JSON.stringify({ description: 'Buy milk' });
    // fetch labels a string body text/plain.
    for (const type of [
      'text/plain;charset=UTF-8',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'application/+json',
    ]) {
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
    expect(await server.count('action_items')).toBe(before + 1);
  });

  it('answers a body with a Content-Encoding 415 saying to send it uncompressed, and storing nothing', async () => {
    const api = devClient(server);
    const before = await server.count('action_items');
    const json = Buffer.from(JSON.stringify({ description: 'Compressed' }));
    for (const [encoding, body] of [
      ['gzip', gzipSync(json)],
      ['br', json],
      ['deflate, gzip', json],
    ] as const) {
      const reply = await api.raw('POST', '/v1/dev/user/action-items', {
        headers: { ...bearer(), 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      });
      expect({ encoding, status: reply.status, body: reply.body }).toEqual({
        encoding,
        status: 415,
        body: {
          detail: `Content-Encoding '${encoding}' is not supported: send the body uncompressed, without a Content-Encoding header`,
        },
      });
    }
    expect(await server.count('action_items')).toBe(before);
    const identity = await api.raw('POST', '/v1/dev/user/action-items', {
      headers: { ...bearer(), 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: json,
    });
    expect(identity.status).toBe(200);
  });

  it('skips a UTF-8 byte order mark before a JSON body', async () => {
    const reply = await devClient(server).raw('POST', '/v1/dev/user/action-items', {
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"description":"After a BOM"}')]),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.description).toBe('After a BOM');
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

  it('refuses a body with fields on a route that takes none (422 extra_forbidden), and does nothing', async () => {
    const api = devClient(server);
    const receiver = await eventReceiver();
    try {
      const hook = await ok(api.post('/v1/dev/user/webhooks', { url: receiver.url, events: ['ping'] }));
      const ping = await ok(api.post(`/v1/dev/user/webhooks/${hook.id}/ping`));
      const item = await ok(api.post('/v1/dev/user/action-items', { description: 'Keep me' }));
      const goal = await ok(api.post('/v1/dev/user/goals', { title: 'Run', target_value: 10 }));
      const send = (method: string, path: string, body: string) =>
        api.raw(method, path, { headers: { ...bearer(), 'content-type': 'application/json' }, body });
      const noBody = (field: string) =>
        `Unknown field '${field}'; this route takes no body: send none, or {}`;
      const cases: [method: string, path: string, body: object, loc: (string | number)[], msg: string][] = [
        [
          'POST',
          `/v1/dev/user/webhooks/${hook.id}/rotate-secret`,
          { key: 'whsec_bWluZQ==' },
          ['body', 'key'],
          noBody('key'),
        ],
        ['POST', `/v1/dev/user/webhooks/${hook.id}/ping`, { data: {} }, ['body', 'data'], noBody('data')],
        [
          'POST',
          `/v1/dev/user/webhooks/${hook.id}/deliveries/${ping.id}/redeliver`,
          { force: true },
          ['body', 'force'],
          noBody('force'),
        ],
        ['DELETE', `/v1/dev/user/action-items/${item.id}`, { soft: true }, ['body', 'soft'], noBody('soft')],
        // The value a client meant to send in the query: the message says where it goes.
        [
          'PATCH',
          `/v1/dev/user/goals/${goal.id}/progress?current_value=3`,
          { current_value: 5 },
          ['body', 'current_value'],
          "Unknown field 'current_value'; this route takes no body: did you mean the query parameter 'current_value'?",
        ],
      ];
      for (const [method, path, body, loc, msg] of cases) {
        const reply = await send(method, path, JSON.stringify(body));
        expect({ method, path, status: reply.status, body: reply.body }).toEqual({
          method,
          path,
          status: 422,
          body: { detail: [{ loc, msg, type: 'extra_forbidden' }] },
        });
      }
      // A body that is not an object at all is refused as a whole.
      for (const body of ['[]', '"rotate"', '42', 'true']) {
        const reply = await send('POST', `/v1/dev/user/webhooks/${hook.id}/ping`, body);
        expect({ body, status: reply.status, detail: reply.body.detail }).toEqual({
          body,
          status: 422,
          detail: [
            { loc: ['body'], msg: 'This route takes no body: send none, or {}', type: 'extra_forbidden' },
          ],
        });
      }
      // Nothing happened: the secret, the item, the goal's value and the deliveries are as they were.
      const itemIds = async () =>
        ((await ok(api.get('/v1/dev/user/action-items'))) as { id: string }[]).map((i) => i.id);
      expect(await itemIds()).toContain(item.id);
      expect(await ok(api.get(`/v1/dev/user/goals/${goal.id}`))).toMatchObject({ current_value: 0 });
      expect(await server.count('webhook_deliveries', { subscription_id: hook.id })).toBe(1);
      const [{ secret }] = await server.store.db
        .selectFrom('webhook_subscriptions')
        .select('secret')
        .where('id', '=', hook.id)
        .execute();
      expect(secret).toBe(hook.secret);

      // No body, an empty one, null and {} are all "no body" (clients send each of them on a DELETE or an action).
      for (const body of [undefined, '', 'null', '{}']) {
        const reply = await api.raw('POST', `/v1/dev/user/webhooks/${hook.id}/ping`, {
          headers: { ...bearer(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body,
        });
        expect({ body, status: reply.status }).toEqual({ body, status: 200 });
      }
      await ok(send('POST', `/v1/dev/user/webhooks/${hook.id}/rotate-secret`, '{}'));
      await ok(send('DELETE', `/v1/dev/user/action-items/${item.id}`, '{}'));
      expect(await itemIds()).not.toContain(item.id);

      // The other APIs' routes without a body too; an unknown path with a body is still a 404.
      const admin = await client(server.baseUrl).raw(
        'DELETE',
        `/v1/admin/apps/${server.init.app_id}/installs/${server.init.user_id}`,
        {
          headers: {
            authorization: `Bearer ${server.init.admin_token}`,
            'content-type': 'application/json',
          },
          body: '{"user_id":"x"}',
        },
      );
      expect(admin.status).toBe(422);
      expect(admin.body.detail[0]).toMatchObject({ loc: ['body', 'user_id'], type: 'extra_forbidden' });
      const app = await client(server.baseUrl).raw(
        'POST',
        `/v2/integrations/${server.init.app_id}/notification?uid=${server.init.user_id}&message=Hello`,
        {
          headers: { authorization: `Bearer ${server.init.app_secret}`, 'content-type': 'application/json' },
          body: '{"message":"Hello"}',
        },
      );
      expect(app.status).toBe(422);
      expect(app.body.detail[0]).toMatchObject({
        loc: ['body', 'message'],
        msg: "Unknown field 'message'; this route takes no body: did you mean the query parameter 'message'?",
      });
      expect(await server.count('notifications')).toBe(0);
      const unknown = await send('POST', '/v1/dev/user/nothing-here', '{"a":1}');
      expect({ status: unknown.status, body: unknown.body }).toEqual({
        status: 404,
        body: { detail: 'Not Found' },
      });
    } finally {
      await receiver.close();
    }
  });

  it('answers a path with a trailing slash as the path without it', async () => {
    const api = devClient(server);
    const goal = await ok(api.post('/v1/dev/user/goals', { title: 'Walk', target_value: 5 }));
    const paths = [
      '/v1/dev/user/action-items',
      '/v1/dev/user/conversations',
      '/v1/dev/user/screen-activity',
      '/v1/dev/user/memories',
      '/v1/dev/user/goals',
      `/v1/dev/user/goals/${goal.id}`,
      `/v1/dev/user/goals/${goal.id}/history`,
      '/v1/dev/user/folders',
      '/v1/dev/user/people',
      '/v1/dev/user/webhooks',
      '/v1/dev/user/notifications',
      '/v1/dev/user/deleted',
      '/v1/dev/keys',
      '/v1/dev/key',
    ];
    for (const path of paths) {
      const plain = await api.get(path);
      const slashed = await api.get(`${path}/`);
      expect({ path, status: slashed.status, body: slashed.body }).toEqual({
        path,
        status: 200,
        body: plain.body,
      });
    }
    // Writes too; a method the path does not serve is still a 405 naming those it does, an unknown path a 404.
    const made = await ok(api.post('/v1/dev/user/action-items/', { description: 'Slashed' }));
    const patched = await ok(api.patch(`/v1/dev/user/action-items/${made.id}/`, { completed: true }));
    expect(patched.completed).toBe(true);
    const wrong = await api.raw('PATCH', '/v1/dev/user/action-items/', { headers: bearer() });
    expect({ status: wrong.status, allow: wrong.headers.get('allow') }).toEqual({
      status: 405,
      allow: 'GET, HEAD, POST',
    });
    expect((await api.get('/v1/dev/user/nothing-here/')).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/healthz/`)).status).toBe(200);
  });

  it('reads numbers in the query only as decimal, refusing hex, binary, blanks and exponents in counts', async () => {
    const user = await newUser(server);
    const api = user.client;
    for (let n = 0; n < 20; n++)
      await ok(api.post('/v1/dev/user/action-items', { description: `Item ${n}` }));
    const goal = await ok(api.post('/v1/dev/user/goals', { title: 'Read', target_value: 100 }));
    const progress = `/v1/dev/user/goals/${goal.id}/progress`;

    const refused: [path: string, name: string, value: string, type: string][] = [];
    for (const value of [
      '0x10',
      '0b101',
      '0o7',
      '1e1',
      '1E1',
      ' 5',
      '5 ',
      '',
      '+',
      '5.',
      '.5',
      '1_0',
      'Infinity',
    ]) {
      refused.push(['/v1/dev/user/action-items', 'limit', value, 'int_parsing']);
      refused.push(['/v1/dev/user/action-items', 'offset', value, 'int_parsing']);
      refused.push([`/v1/dev/user/goals/${goal.id}/history`, 'days', value, 'int_parsing']);
      // A value (not a count) may have an exponent, as JavaScript writes 1e-7 and the real service reads it.
      if (!/e/i.test(value)) refused.push([progress, 'current_value', value, 'float_parsing']);
    }
    refused.push([progress, 'current_value', '1e', 'float_parsing']);
    refused.push([progress, 'current_value', '1e999', 'float_parsing']);
    // A fraction where a whole number is wanted.
    refused.push(['/v1/dev/user/action-items', 'limit', '2.5', 'int_parsing']);
    refused.push(['/v1/dev/user/webhooks/x/deliveries', 'limit', '1e1', 'int_parsing']);
    refused.push(['/v1/dev/user/screen-activity', 'limit', '0x10', 'int_parsing']);
    for (const [path, name, value, type] of refused) {
      const reply =
        path === progress
          ? await api.patch(path, undefined, { [name]: value })
          : await api.get(path, { [name]: value });
      expect({ path, name, value, status: reply.status, issue: reply.body.detail?.[0] }).toEqual({
        path,
        name,
        value,
        status: 422,
        issue: { loc: ['query', name], msg: expect.stringContaining('decimal digits'), type },
      });
    }
    // Nothing was stored by the refused progress reports.
    expect(await ok(api.get(`/v1/dev/user/goals/${goal.id}`))).toMatchObject({ current_value: 0 });

    // Decimal is read as written: a sign, leading zeros, a fraction and an exponent where a number is wanted.
    expect(await ok(api.get('/v1/dev/user/action-items', { limit: '016' }))).toHaveLength(16);
    expect(await ok(api.get('/v1/dev/user/action-items', { limit: '+5', offset: '0018' }))).toHaveLength(2);
    expect(await ok(api.get('/v1/dev/user/action-items', { limit: '3', offset: '-0' }))).toHaveLength(3);
    for (const [value, stored] of [
      ['26', 26],
      ['-3.25', -3.25],
      ['+7', 7],
      ['0012.50', 12.5],
      ['1e1', 10],
      ['1E1', 10],
      ['-2.5e-7', -2.5e-7],
    ] as const) {
      const reply = await ok(api.patch(progress, undefined, { current_value: value }));
      expect({ value, stored: reply.current_value }).toEqual({ value, stored });
    }
    const history = await ok(api.get(`/v1/dev/user/goals/${goal.id}/history`, { days: '007' }));
    expect(history.days).toBe(7);
  });
});

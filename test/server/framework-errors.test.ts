// The framework's own refusals — malformed URLs, over-long path parameters, oversized headers and bodies, requests
// that are not HTTP — answer with the interface's `{detail}` body and the same status, over real sockets; and HEAD, which
// Fastify adds to every GET route, answers like the GET without a body, the notification stream included.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { devClient } from '../helpers/http';
import { DIALECTS, startServer, type TestServer } from '../helpers/server';

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `request` to a fresh connection and reads one answer: the head, then as many body bytes as
 * Content-Length says (none for HEAD), or up to the close. Fails when nothing complete comes within 30 s.
 */
function rawRequest(baseUrl: string, request: string | Buffer, head = false): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 30 s; got ${JSON.stringify(data.toString('latin1'))}`));
    }, 30_000);
    const finish = (reply: RawReply) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const parse = (closed: boolean) => {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(statusLine.split(' ')[1]);
      const rest = data.subarray(end + 4);
      if (head) return finish({ status, headers, body: rest.toString('utf8') });
      const length = headers['content-length'];
      if (length !== undefined && rest.length >= Number(length)) {
        return finish({ status, headers, body: rest.subarray(0, Number(length)).toString('utf8') });
      }
      if (closed) finish({ status, headers, body: rest.toString('utf8') });
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      parse(false);
    });
    socket.on('end', () => parse(true));
    socket.on('close', () => parse(true));
    socket.on('error', () => parse(true));
    socket.write(request);
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;

function expectDetail(reply: RawReply, status: number) {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(reply.body);
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  return body.detail as string;
}

describe.each(DIALECTS)('framework errors and HEAD (%s)', (dialect) => {
  let server: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    server = await startServer(dialect, { sseHeartbeatMs: 60_000 });
    auth = { authorization: `Bearer ${server.init.developer_key}` };
  });
  afterAll(() => server.close());

  test('malformed percent-encoding in a path is a 400 {detail}', async () => {
    for (const path of ['/v1/dev/user/goals/%zz', '/v1/dev/user/%E0%A4%A', '/%']) {
      const detail = expectDetail(await rawRequest(server.baseUrl, get(path, auth)), 400);
      expect(detail).toMatch(/not a valid url/i);
    }
  });

  test('an over-long path parameter is a 414 {detail}', async () => {
    const reply = await rawRequest(server.baseUrl, get(`/v1/dev/user/goals/${'a'.repeat(600)}`, auth));
    expect(expectDetail(reply, 414)).toBe(
      'A path parameter is longer than the 500 characters this server accepts: no ID is that long, check the URL',
    );
  });

  test('the path parameter limit SECURITY.md and the server manual state is the one enforced', async () => {
    const repo = join(__dirname, '..', '..');
    const security = /^\| a path parameter \| (\d[\d,]*) characters \(414 beyond\) \|$/m.exec(
      readFileSync(join(repo, 'SECURITY.md'), 'utf8'),
    );
    const manual = /414 a path parameter over (\d[\d,]*) characters/.exec(
      readFileSync(join(repo, 'server', 'README.md'), 'utf8'),
    );
    const stated = [security?.[1], manual?.[1]].map((text) => Number(text?.replaceAll(',', '')));
    expect(stated[0]).toBe(stated[1]);
    const limit = stated[0];
    const atLimit = await rawRequest(server.baseUrl, get(`/v1/dev/user/goals/${'a'.repeat(limit)}`, auth));
    expect(atLimit.status).not.toBe(414);
    const past = await rawRequest(server.baseUrl, get(`/v1/dev/user/goals/${'a'.repeat(limit + 1)}`, auth));
    expect(past.status).toBe(414);
  });

  test('headers past the size limit are a 431 {detail}', async () => {
    const reply = await rawRequest(server.baseUrl, get('/healthz', { 'x-big': 'a'.repeat(20_000) }));
    expect(expectDetail(reply, 431)).toMatch(/header/i);
  });

  test('a body over the limit is a 413 {detail} naming the limit and what to do, before the body has arrived', async () => {
    // The head announces 9 MiB and only the first bytes follow: the answer does not wait for the rest.
    const request =
      `POST /v1/dev/user/memories/batch HTTP/1.1\r\nHost: localhost\r\n` +
      `Authorization: ${auth.authorization}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${9 * 1024 * 1024}\r\nConnection: close\r\n\r\n{"memories":[`;
    const detail = expectDetail(await rawRequest(server.baseUrl, request), 413);
    expect(detail).toBe(
      'Request body is larger than the 8 MiB this endpoint accepts: send a smaller one (fewer or shorter records)',
    );
    // /mcp takes less, and says its own limit.
    const toMcp = request
      .replace('/v1/dev/user/memories/batch', '/mcp')
      .replace(`${9 * 1024 * 1024}`, `${2 * 1024 * 1024}`);
    expect(expectDetail(await rawRequest(server.baseUrl, toMcp), 413)).toBe(
      'Request body is larger than the 1 MiB this endpoint accepts: send a smaller one (fewer or shorter records)',
    );
  });

  test('a request that is not HTTP is a 400 {detail}', async () => {
    for (const garbage of [
      'NOT HTTP AT ALL\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n',
      'GET / HTTP/1.1\r\nHo st: x\r\n\r\n',
      Buffer.from([0, 1, 2, 3, 13, 10, 13, 10]),
    ]) {
      expectDetail(await rawRequest(server.baseUrl, garbage), 400);
    }
  });

  test('HEAD on a list answers like its GET, without a body', async () => {
    const dev = devClient(server);
    // Lists with rows in them, so the HEAD answers serialize real records.
    expect((await dev.post('/v1/dev/user/memories', { content: 'Likes tea' })).status).toBe(200);
    expect((await dev.post('/v1/dev/user/action-items', { description: 'Buy tea' })).status).toBe(200);
    expect((await dev.post('/v1/dev/user/people', { name: 'Ada' })).status).toBeLessThan(300);
    for (const path of [
      '/v1/dev/user/goals',
      '/v1/dev/user/action-items',
      '/v1/dev/user/conversations',
      '/v1/dev/user/memories',
      '/v1/dev/user/people',
      '/v1/dev/user/screen-activity',
      '/v1/dev/user/notifications',
      '/v1/dev/user/folders',
      '/healthz',
    ]) {
      const getReply = await dev.get(path);
      expect(getReply.status).toBe(200);
      const head = await rawRequest(
        server.baseUrl,
        `HEAD ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.init.developer_key}\r\n\r\n`,
        true,
      );
      expect({ path, status: head.status }).toEqual({ path, status: 200 });
      expect(head.headers['content-type']).toMatch(/^application\/json/);
      expect(head.body).toBe('');
    }
  });

  test('HEAD on every GET of /openapi.json answers the GET status without a body', async () => {
    const spec = (await devClient(server).get('/openapi.json')).body;
    const tokens: Record<string, string> = {
      developerApiKey: server.init.developer_key,
      adminToken: server.init.admin_token,
      appSecret: server.init.app_secret,
    };
    const seen: { path: string; get: number; head: number }[] = [];
    for (const [template, operations] of Object.entries<any>(spec.paths)) {
      if (!operations.get) continue;
      const scheme = Object.keys(operations.get.security?.[0] ?? {})[0];
      const path = template
        .replace('{app_id}', server.init.app_id)
        .replace('{user_id}', server.init.user_id)
        .replace(/\{[^}]+\}/g, 'x');
      const headers = scheme ? { authorization: `Bearer ${tokens[scheme]}` } : {};
      const getReply = await fetch(`${server.baseUrl}${path}`, { headers });
      // An event stream never ends: let go of it rather than read it to the end.
      if (getReply.headers.get('content-type')?.startsWith('text/event-stream')) {
        await getReply.body?.cancel();
        continue;
      }
      await getReply.arrayBuffer();
      const head = await rawRequest(
        server.baseUrl,
        `HEAD ${path} HTTP/1.1\r\nHost: localhost\r\n${scheme ? `Authorization: Bearer ${tokens[scheme]}\r\n` : ''}\r\n`,
        true,
      );
      expect(head.body).toBe('');
      seen.push({ path, get: getReply.status, head: head.status });
    }
    expect(seen.length).toBeGreaterThan(20);
    expect(seen).toEqual(seen.map((s) => ({ ...s, head: s.get })));
  });

  test('HEAD on a list without a key is the 401 {detail} head', async () => {
    const head = await rawRequest(
      server.baseUrl,
      'HEAD /v1/dev/user/goals HTTP/1.1\r\nHost: localhost\r\n\r\n',
      true,
    );
    expect(head.status).toBe(401);
    expect(head.body).toBe('');
  });

  // A stream that did not end would hold the request open until the test's timeout.
  test('HEAD on the notification stream answers its head and ends', async () => {
    const head = await rawRequest(
      server.baseUrl,
      `HEAD /v1/dev/user/notifications/stream HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.init.developer_key}\r\n\r\n`,
      true,
    );
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(head.body).toBe('');
  });
});

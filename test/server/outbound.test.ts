// Outbound calls cannot be aimed inward: webhook and push URLs must be https to public addresses, checked at
// registration (422 naming the field) and again when the call connects (a name that later resolves inward is
// refused before any socket connects); the development allowance adds loopback and nothing else; redirects are
// not followed. The server never connects anywhere but 127.0.0.1 here: every other range is proven refused at
// registration or by a resolver the test controls, never by connecting.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type LookupFunction } from 'node:net';
import { buildApp } from '../../server/src/app';
import { configFromEnv, loopbackAllowance } from '../../server/src/config';
import { deliveriesPage } from '../../server/src/contract/proactive';
import { addressKind, OutboundPolicy, type Resolve } from '../../server/src/outbound/policy';
import { openStore } from '../../server/src/store/db/database';
import { adminClient, client, devClient, expectShape, newUser } from '../helpers/http';
import { DIALECTS, loopbackOnlyResolve, startServer, type TestServer } from '../helpers/server';

/** A public address the tests only ever register, never call. */
const PUBLIC = '93.184.215.14';

/** Test DNS: fixed answers per name; anything else does not exist. `rebind` changes its answer on demand. */
function testResolver() {
  let rebindTo = PUBLIC;
  const answers: Record<string, string[]> = {
    'public.example.test': [PUBLIC],
    'v6.example.test': ['2606:4700:4700::1111'],
    'private.example.test': ['10.0.0.1'],
    'private172.example.test': ['172.16.5.4'],
    'home.example.test': ['192.168.1.1'],
    'metadata.example.test': ['169.254.169.254'],
    'link-local-v6.example.test': ['fe80::1'],
    'cgnat.example.test': ['100.64.0.7'],
    'ula.example.test': ['fd00:ec2::254'],
    'mapped.example.test': ['::ffff:127.0.0.1'],
    'mixed.example.test': [PUBLIC, '192.168.1.20'],
    'localhost.example.test': ['127.0.0.1'],
  };
  const resolve: Resolve = async (hostname) => {
    const found = hostname === 'rebind.example.test' ? [rebindTo] : answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, rebind: (address: string) => (rebindTo = address) };
}

describe('address classification', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['10.1.2.3', 'forbidden'],
    ['172.16.0.1', 'forbidden'],
    ['172.31.255.255', 'forbidden'],
    ['192.168.0.1', 'forbidden'],
    ['100.64.0.1', 'forbidden'],
    ['100.127.255.254', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['198.18.0.1', 'forbidden'],
    ['::ffff:127.0.0.1', 'forbidden'],
    ['::ffff:7f00:1', 'forbidden'],
    ['::ffff:10.0.0.1', 'forbidden'],
    ['::127.0.0.1', 'forbidden'],
    ['64:ff9b::a00:1', 'forbidden'],
    ['2002:7f00:1::', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['fc00::1', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['not-an-ip', 'forbidden'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

/**
 * IPv6 special-purpose ranges (IANA's registry) that no webhook may target, one literal address in each, with
 * the IPv4 address it embeds where it carries one. Checked by classification and at registration: never called.
 */
const SPECIAL_PURPOSE_V6: [address: string, range: string][] = [
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
  ['2001::1', 'Teredo 2001::/32'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:10::1', 'ORCHID 2001:10::/28'],
  ['2001:1f:ffff::1', 'ORCHID 2001:10::/28, its last address block'],
  ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
  ['2001:30::1', 'DETs 2001:30::/28'],
  ['2001:1::1', 'PCP anycast, IETF protocol assignments 2001::/23'],
  ['2001:4:112::1', 'AS112-v6, IETF protocol assignments 2001::/23'],
  ['2001:1ff:ffff::1', 'the end of IETF protocol assignments 2001::/23'],
  ['::ffff:0:7f00:1', 'IPv4-translated ::ffff:0:0:0/96 (127.0.0.1)'],
  ['::ffff:0:a00:1', 'IPv4-translated ::ffff:0:0:0/96 (10.0.0.1)'],
  ['100::1', 'discard-only 100::/64'],
  ['100:0:0:1::1', 'dummy prefix 100:0:0:1::/64'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'segment routing SIDs 5f00::/16'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fdff:ffff::1', 'unique-local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['febf::1', 'link-local fe80::/10'],
];

describe('IPv6 special-purpose ranges', () => {
  test.each(SPECIAL_PURPOSE_V6)('%s (%s) is forbidden', (address) => {
    expect(addressKind(address)).toBe('forbidden');
  });

  test.each([
    ['2001:200::1', 'the first ordinary allocation after 2001::/23'],
    ['2001:4860:4860::8888', 'a public resolver'],
    ['2606:4700:4700::1111', 'a public resolver'],
    ['2001:db9::1', 'just past 2001:db8::/32'],
    ['3fff:1000::1', 'just past 3fff::/20'],
  ])('%s (%s) stays public', (address) => {
    expect(addressKind(address)).toBe('public');
  });

  test('the policy refuses each before any lookup, even with the development allowance', async () => {
    const lookups: string[] = [];
    const resolve: Resolve = async (hostname) => {
      lookups.push(hostname);
      throw new Error('no lookup expected');
    };
    for (const allowLoopback of [false, true]) {
      const policy = new OutboundPolicy(allowLoopback, resolve);
      for (const [address] of SPECIAL_PURPOSE_V6) {
        const url = `https://[${address}]/hook`;
        expect({ url, refused: policy.preflight(url) }).toEqual({
          url,
          refused: expect.stringMatching(/is a private, reserved or metadata address$/),
        });
        expect(await policy.refusal(url)).toBe(policy.preflight(url));
      }
    }
    expect(lookups).toEqual([]);
  });
});

describe('the policy itself', () => {
  const { resolve } = testResolver();
  const production = new OutboundPolicy(false, resolve);
  const development = new OutboundPolicy(true, resolve);

  test('IPv4 written as a decimal, octal or hex number is the address it stands for', async () => {
    for (const url of [
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://0x7f.0.0.1/',
      'https://0x7f000001/',
      'https://127.1/',
    ]) {
      expect({ url, refused: await production.refusal(url) }).toEqual({
        url,
        refused: expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
      });
    }
    expect(await production.refusal('https://167772161/')).toMatch(/10\.0\.0\.1 is a private/);
  });

  /** Calls an agent's lookup as a socket would, before connecting; no socket exists in this test. */
  const lookupThrough = (lookup: LookupFunction, hostname: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolveLookup) =>
      lookup(hostname, { all }, (error, address) => resolveLookup({ error, address })),
    );
  const agentLookup = (agent: unknown) => (agent as { options: { lookup: LookupFunction } }).options.lookup;

  test('the agents refuse a forbidden resolved address before the socket connects', async () => {
    for (const hostname of [
      'private.example.test',
      'metadata.example.test',
      'cgnat.example.test',
      'ula.example.test',
      'mapped.example.test',
      'mixed.example.test',
      'localhost.example.test',
    ]) {
      for (const all of [true, false]) {
        const { error } = await lookupThrough(agentLookup(production.httpsAgent), hostname, all);
        expect({ hostname, code: error?.code }).toEqual({ hostname, code: 'EOUTBOUND_REFUSED' });
        expect(error?.message).toMatch(/outbound policy/);
      }
    }
    // A public answer passes through unchanged, in both lookup forms.
    expect(await lookupThrough(agentLookup(production.httpsAgent), 'public.example.test', true)).toEqual({
      error: null,
      address: [{ address: PUBLIC, family: 4 }],
    });
    expect(
      (await lookupThrough(agentLookup(production.httpsAgent), 'public.example.test', false)).address,
    ).toBe(PUBLIC);
    // Plain http reaches nothing public, even with the allowance; loopback it may.
    expect(
      (await lookupThrough(agentLookup(development.httpAgent), 'public.example.test', true)).error?.code,
    ).toBe('EOUTBOUND_REFUSED');
    expect(
      (await lookupThrough(agentLookup(development.httpAgent), 'localhost.example.test', true)).error,
    ).toBeNull();
    expect(
      (await lookupThrough(agentLookup(development.httpsAgent), 'private.example.test', true)).error?.code,
    ).toBe('EOUTBOUND_REFUSED');
  });

  test('DEVDATA_ALLOW_LOOPBACK_WEBHOOKS is a development setting', () => {
    expect(loopbackAllowance({})).toBe(false);
    expect(loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1' })).toBe(true);
    expect(loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '0' })).toBe(false);
    expect(() => loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: 'yes please' })).toThrow(
      /must be 1 or 0/,
    );
    expect(() => configFromEnv({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1', NODE_ENV: 'production' })).toThrow(
      /refused when NODE_ENV=production/,
    );
  });

  test('DEVDATA_ALLOW_LOOPBACK_WEBHOOKS takes true and false too, and its refusal says what it accepts', () => {
    expect(loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: 'true' })).toBe(true);
    expect(loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: 'false' })).toBe(false);
    expect(loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '' })).toBe(false);
    expect(() => loopbackAllowance({ DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: 'yes' })).toThrow(
      'DEVDATA_ALLOW_LOOPBACK_WEBHOOKS must be 1 or 0, got "yes" (accepted: 1 or true to allow, 0 or false to ' +
        'refuse; unset or empty means 0)',
    );
  });

  test('a push URL the policy refuses stops the server from starting', async () => {
    // The start checks the scheme and a literal address (a name is checked when each push connects).
    for (const pushUrl of ['http://ntfy.example.test/topic', 'https://[::1]/x', 'https://0177.0.0.1/x']) {
      const store = openStore('sqlite::memory:');
      try {
        await expect(
          buildApp({ store, config: { pushUrl, allowLoopbackWebhooks: false }, resolve }),
        ).rejects.toThrow(/DEVDATA_PUSH_URL/);
      } finally {
        await store.close();
      }
    }
  });
});

/**
 * Every form of an inward URL the issue lists, and the private ranges beside them: loopback written as a literal
 * in its several forms, every other range through a name the suite's resolver answers (no test names an address
 * outside loopback in a URL).
 */
const INWARD = [
  'https://localhost/hook',
  'https://127.0.0.1/hook',
  'https://0.0.0.0/hook',
  'https://[::]/hook',
  'https://[::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://2130706433/hook',
  'https://0177.0.0.1/hook',
  'https://private.example.test/hook',
  'https://private172.example.test/hook',
  'https://home.example.test/hook',
  'https://metadata.example.test/latest/meta-data/',
  'https://link-local-v6.example.test/hook',
  'https://cgnat.example.test/hook',
  'https://ula.example.test/hook',
  'https://mapped.example.test/hook',
  'https://mixed.example.test/hook',
  'https://nowhere.example.test/hook',
  'http://public.example.test/hook',
];

describe.each(DIALECTS)('webhook registration on %s', (dialect) => {
  describe('in production mode', () => {
    let server: TestServer;
    const dns = testResolver();
    beforeAll(async () => {
      // `localhost` resolves like a real resolver would, to loopback.
      const resolve: Resolve = async (hostname) =>
        hostname === 'localhost' ? [{ address: '127.0.0.1', family: 4 }] : dns.resolve(hostname);
      server = await startServer(dialect, { allowLoopbackWebhooks: false }, { resolve });
    });
    afterAll(() => server.close());

    test('PUT /webhook refuses every inward or plain-http URL with a 422 naming webhook_url', async () => {
      const app = client(server.baseUrl, server.init.app_secret);
      const path = `/v2/integrations/${server.init.app_id}/webhook`;
      const before = (await app.get(path)).body;
      for (const url of INWARD) {
        const reply = await app.put(path, { webhook_url: url });
        expect({ url, status: reply.status }).toEqual({ url, status: 422 });
        expect(reply.body.detail).toEqual([
          { loc: ['body', 'webhook_url'], msg: expect.stringMatching(/^URL /), type: 'url_refused' },
        ]);
      }
      expect((await app.get(path)).body).toEqual(before);

      // Public URLs are accepted, on an app no user installs: nothing is ever dispatched to what it stores.
      const uninstalled = await adminClient(server).post('/v1/admin/apps', {
        name: 'Never installed',
        capabilities: ['external_integration'],
        external_integration: {
          triggers_on: 'transcript_processed',
          webhook_url: 'https://public.example.test/',
        },
      });
      expect(uninstalled.status).toBe(201);
      const publicApp = client(server.baseUrl, uninstalled.body.app_secret);
      const publicPath = `/v2/integrations/${uninstalled.body.id}/webhook`;
      for (const url of [
        'https://public.example.test/hook?token=1',
        'https://v6.example.test/',
        `https://${PUBLIC}/h`,
      ]) {
        const reply = await publicApp.put(publicPath, { webhook_url: url });
        expect({ url, status: reply.status }).toEqual({ url, status: 200 });
        expect(reply.body.webhook_url).toBe(url);
      }
    });

    test('PUT /webhook and event subscriptions refuse IPv6 special-purpose addresses, naming the field', async () => {
      const app = client(server.baseUrl, server.init.app_secret);
      const path = `/v2/integrations/${server.init.app_id}/webhook`;
      const before = (await app.get(path)).body;
      const developer = devClient(server);
      for (const [address] of SPECIAL_PURPOSE_V6) {
        const url = `https://[${address}]/hook`;
        const reply = await app.put(path, { webhook_url: url });
        expect({ url, status: reply.status }).toEqual({ url, status: 422 });
        expect(reply.body.detail).toEqual([
          {
            loc: ['body', 'webhook_url'],
            msg: expect.stringMatching(/is a private, reserved or metadata address/),
            type: 'url_refused',
          },
        ]);
        const subscribed = await developer.post('/v1/dev/user/webhooks', { url, events: ['ping'] });
        expect({ url, status: subscribed.status }).toEqual({ url, status: 422 });
        expect(subscribed.body.detail).toEqual([
          expect.objectContaining({ loc: ['body', 'url'], type: 'url_refused' }),
        ]);
      }
      expect((await app.get(path)).body).toEqual(before);
      expect((await developer.get('/v1/dev/user/webhooks')).body).toEqual([]);
    });

    test('creating an app refuses an inward webhook with a 422 naming the field, and creates nothing', async () => {
      const admin = adminClient(server);
      const appsBefore = (await admin.get('/v1/admin/apps')).body.length;
      for (const url of [
        'https://2130706433/',
        'https://metadata.example.test/',
        'http://public.example.test/',
      ]) {
        const reply = await admin.post('/v1/admin/apps', {
          name: 'Inward',
          capabilities: ['external_integration'],
          external_integration: { triggers_on: 'transcript_processed', webhook_url: url },
        });
        expect({ url, status: reply.status }).toEqual({ url, status: 422 });
        expect(reply.body.detail[0]).toMatchObject({
          loc: ['body', 'external_integration', 'webhook_url'],
          type: 'url_refused',
        });
      }
      expect((await admin.get('/v1/admin/apps')).body).toHaveLength(appsBefore);
    });

    test('a name that resolves inward at call time is refused before connecting (DNS rebinding)', async () => {
      // What the rebound name points at: a TCP listener on 127.0.0.1 that counts every connection it gets.
      let connections = 0;
      const listener = createTcpServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const { port } = listener.address() as AddressInfo;
      try {
        // Registered while the name resolves to a public address…
        dns.rebind(PUBLIC);
        const created = await adminClient(server).post('/v1/admin/apps', {
          name: 'Rebinder',
          capabilities: ['external_integration'],
          external_integration: {
            triggers_on: 'transcript_processed',
            webhook_url: `https://rebind.example.test:${port}/hook`,
          },
        });
        expect(created.status).toBe(201);
        const user = await newUser(server);
        expect(
          (await adminClient(server).post(`/v1/admin/apps/${created.body.id}/installs`, { user_id: user.id }))
            .status,
        ).toBe(201);
        // …then it answers with loopback, and a transcript comes in.
        dns.rebind('127.0.0.1');
        const sent = await user.client.post('/v1/dev/user/transcripts/rebind/segments', {
          segments: [{ text: 'Hi', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
        });
        expect(sent.status).toBe(202);
        await server.app.dispatcher.idle();

        expect(connections).toBe(0);
        const deliveries = await client(server.baseUrl, created.body.app_secret).get(
          `/v2/integrations/${created.body.id}/deliveries`,
        );
        const [delivery] = expectShape(deliveriesPage, deliveries.body).deliveries;
        expect(delivery).toMatchObject({ outcome: 'network_error', status_code: null });
        expect(delivery.detail).toMatch(/outbound policy.*127\.0\.0\.1 is a loopback address/);
      } finally {
        dns.rebind(PUBLIC);
        await new Promise((resolve) => listener.close(resolve));
      }
    });
  });

  describe('with the development allowance', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer(
        dialect,
        { allowLoopbackWebhooks: true },
        { resolve: testResolver().resolve },
      );
    });
    afterAll(() => server.close());

    test('loopback is allowed, over http too; every other inward range is still refused', async () => {
      const app = client(server.baseUrl, server.init.app_secret);
      const path = `/v2/integrations/${server.init.app_id}/webhook`;
      for (const url of [
        'http://127.0.0.1:5678/webhook/x',
        'http://127.9.9.9/',
        'https://[::1]:8443/hook',
        'http://localhost.example.test/hook',
        'http://2130706433/',
      ]) {
        expect({ url, status: (await app.put(path, { webhook_url: url })).status }).toEqual({
          url,
          status: 200,
        });
      }
      for (const url of [
        'http://private.example.test/',
        'https://metadata.example.test/',
        'http://0.0.0.0/',
        'http://[::]/',
        'http://[::ffff:127.0.0.1]/',
        'https://private.example.test/',
        'https://mixed.example.test/',
        'http://public.example.test/',
      ]) {
        expect({ url, status: (await app.put(path, { webhook_url: url })).status }).toEqual({
          url,
          status: 422,
        });
      }
    });

    test('a loopback webhook registered under the allowance is refused once it is off, without connecting', async () => {
      let connections = 0;
      const listener = createTcpServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`;
      // The same database served by an instance with the production rules.
      const production = await buildApp({
        store: server.store,
        config: { allowLoopbackWebhooks: false },
        resolve: loopbackOnlyResolve,
      });
      const productionUrl = await production.listen({ host: '127.0.0.1', port: 0 });
      try {
        const created = await adminClient(server).post('/v1/admin/apps', {
          name: 'Earlier',
          capabilities: ['external_integration'],
          external_integration: { triggers_on: 'transcript_processed', webhook_url: url },
        });
        expect(created.status).toBe(201);
        const user = await newUser(server);
        await adminClient(server).post(`/v1/admin/apps/${created.body.id}/installs`, { user_id: user.id });
        const sent = await client(productionUrl, user.key).post('/v1/dev/user/transcripts/earlier/segments', {
          segments: [{ text: 'Hi', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
        });
        expect(sent.status).toBe(202);
        await production.dispatcher.idle();
        expect(connections).toBe(0);
        const deliveries = await client(server.baseUrl, created.body.app_secret).get(
          `/v2/integrations/${created.body.id}/deliveries`,
        );
        const [delivery] = expectShape(deliveriesPage, deliveries.body).deliveries;
        expect(delivery).toMatchObject({ outcome: 'network_error', status_code: null });
        expect(delivery.detail).toMatch(/outbound policy.*must use https/);
      } finally {
        await production.close();
        await new Promise((resolve) => listener.close(resolve));
      }
    });

    test('redirects are not followed', async () => {
      let followed = 0;
      const hooks = createHttpServer((req, res) => {
        if (req.url?.startsWith('/hook')) {
          res.writeHead(302, { location: '/elsewhere' }).end();
        } else {
          followed += 1;
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"session_id":"x"}');
        }
      });
      await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
        const created = await adminClient(server).post('/v1/admin/apps', {
          name: 'Redirector',
          capabilities: ['external_integration'],
          external_integration: { triggers_on: 'transcript_processed', webhook_url: url },
        });
        expect(created.status).toBe(201);
        const user = await newUser(server);
        await adminClient(server).post(`/v1/admin/apps/${created.body.id}/installs`, { user_id: user.id });
        await user.client.post('/v1/dev/user/transcripts/redirect/segments', {
          segments: [{ text: 'Hi', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
        });
        await server.app.dispatcher.idle();
        expect(followed).toBe(0);
        const deliveries = await client(server.baseUrl, created.body.app_secret).get(
          `/v2/integrations/${created.body.id}/deliveries`,
        );
        expect(expectShape(deliveriesPage, deliveries.body).deliveries[0]).toMatchObject({
          outcome: 'http_error',
          status_code: 302,
        });
      } finally {
        await new Promise((resolve) => hooks.close(resolve));
      }
    });
  });
});

describe('passwords and pushed text kept out of logs and start errors', () => {
  const lines: string[] = [];
  let server: TestServer;
  // Nothing listens there (a port of this suite's own, closed at once): the forward fails to connect.
  let closedPort = 0;

  beforeAll(async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const stream = { write: (line: string) => void lines.push(line) };
    server = await startServer(
      'sqlite',
      { pushUrl: `http://devdata:push-password@127.0.0.1:${closedPort}/topic` },
      { logger: { level: 'info', stream } },
    );
  });
  afterAll(() => server?.close());

  test('a push that fails is logged without the push URL’s password or the notification’s text', async () => {
    const app = client(server.baseUrl, server.init.app_secret);
    const sent = await app.post(`/v2/integrations/${server.init.app_id}/notification`, undefined, {
      uid: server.init.user_id,
      message: 'private-note-text',
    });
    expect(sent.status).toBe(200);
    await server.app.pusher.settle();
    const failed = lines.filter((line) => line.includes('push forward failed'));
    expect(failed).toHaveLength(1);
    // The request's own line (written when it is slow) has its URL, query included, as every request's has.
    const log = failed.join('\n');
    expect(log).not.toContain('push-password');
    // The Basic credentials axios made of the URL's user and password.
    expect(log).not.toContain(Buffer.from('devdata:push-password').toString('base64'));
    expect(log).not.toContain('private-note-text');
    // What failed is still said.
    expect(JSON.parse(failed[0])).toMatchObject({ code: 'ECONNREFUSED' });
  });

  test('a refused push URL stops the start without showing its password', async () => {
    const store = openStore('sqlite::memory:');
    try {
      const pushUrl = 'http://devdata:push-password@ntfy.example.test/topic';
      const start = buildApp({ store, config: { pushUrl, allowLoopbackWebhooks: false } });
      await expect(start).rejects.toThrow('DEVDATA_PUSH_URL must use https, got "http://devdata:***@');
      await expect(start).rejects.not.toThrow('push-password');
    } finally {
      await store.close();
    }
  });

  test('a database URL of an unsupported kind is refused without showing its password', () => {
    expect(() => openStore('mysql://devdata:db-password@127.0.0.1:3306/devdata')).toThrow(
      'Unsupported database URL "mysql://devdata:***@127.0.0.1:3306/devdata"',
    );
  });

  test('a URL setting that is not http(s) is refused without showing its password', () => {
    for (const name of ['DEVDATA_PUSH_URL', 'DEVDATA_LLM_BASE_URL']) {
      const start = () => configFromEnv({ [name]: 'ftp://devdata:setting-password@files.example.test/x' });
      expect(start).toThrow(`${name} must be an http(s) URL, got "ftp://devdata:***@files.example.test/x"`);
    }
  });
});

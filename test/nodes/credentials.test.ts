import type { INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { apiKey } from '../../server/src/contract/keys';
import { adminClient, expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import {
  CREDENTIAL_TYPES,
  CredentialsHelper,
  credentialsFor,
  DEVDATA_NODE_TYPE,
  FOREIGN_PAGE,
  jsonOut,
  NodeTypes,
  runDevData,
  startForeignServer,
  startNodeTestServer,
  type ForeignServer,
} from './helpers';
import { testCredential } from './helpers/credential-test';

const server = forSuite(() => startNodeTestServer());

describe('DevData Developer API credential', () => {
  test('its generic authentication sends the key as a bearer token', async () => {
    const node: INode = {
      id: '1',
      name: 'DevData',
      type: DEVDATA_NODE_TYPE,
      typeVersion: 1,
      position: [0, 0],
      parameters: {},
    };
    const workflow = new Workflow({
      nodes: [node],
      connections: {},
      active: false,
      nodeTypes: new NodeTypes(),
    });
    const helper = new CredentialsHelper({});
    const options = await helper.authenticate(
      { baseUrl: 'http://x', apiKey: 'svc_dev_0123' },
      'devDataApi',
      { url: 'http://x/v1/dev/key', headers: {} },
      workflow,
      node,
    );
    expect(options.headers).toEqual({ Authorization: 'Bearer svc_dev_0123' });
  });

  test('the credential test passes with a valid key', async () => {
    const result = await testCredential('devDataApi', credentialsFor(server).devDataApi);
    expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
    expect(server.requestsTo('GET', '/v1/dev/user/memories').at(-1)?.status).toBe(200);
  });

  test('the credential test fails with the 401 message for an unknown key and for a key without svc_dev_', async () => {
    for (const developerKey of ['svc_dev_00000000000000000000000000000000', 'sk_0123456789abcdef']) {
      const result = await testCredential('devDataApi', { baseUrl: server.baseUrl, apiKey: developerKey });
      expect(result.status).toBe('Error');
      expect(result.message).toMatch(/^Invalid API Key: .*Developer keys start with svc_dev_/);
    }
  });

  test('a revoked key fails the test', async () => {
    const admin = adminClient(server);
    const key = await admin.post(`/v1/admin/users/${server.init.user_id}/keys`, { name: 'short-lived' });
    expect(
      (await testCredential('devDataApi', { baseUrl: server.baseUrl, apiKey: key.body.key })).status,
    ).toBe('OK');
    expect((await admin.delete(`/v1/admin/keys/${key.body.id}`)).status).toBeLessThan(300);
    const result = await testCredential('devDataApi', {
      baseUrl: server.baseUrl,
      apiKey: key.body.key,
    });
    expect(result.message).toMatch(/^Invalid API Key/);
  });

  test('a Base URL with a path (or a trailing slash) is told apart from a bad key', async () => {
    const { apiKey: developerKey } = credentialsFor(server).devDataApi;
    expect(
      (await testCredential('devDataApi', { baseUrl: `${server.baseUrl}/`, apiKey: developerKey })).status,
    ).toBe('OK');
    const wrong = await testCredential('devDataApi', {
      baseUrl: `${server.baseUrl}/api`,
      apiKey: developerKey,
    });
    expect(wrong.message).toMatch(/^No DevData developer API at this Base URL/);
    // A Base URL with the API's own /v1 (…/v1/v1/dev/… was asked) says to leave it out.
    const withV1 = await testCredential('devDataApi', {
      baseUrl: `${server.baseUrl}/v1/`,
      apiKey: developerKey,
    });
    expect(withV1.message).toMatch(
      /^No DevData developer API at this Base URL .* without \/v1 or another path/,
    );
  });

  test('no part of the form depends on a secret, which n8n never hands back to a saved credential', () => {
    // n8n shows a saved credential with its secrets blanked: a notice keyed on one would show for every key.
    for (const type of Object.values(CREDENTIAL_TYPES)) {
      const secrets = type.properties.filter((p) => p.typeOptions?.password).map((p) => p.name);
      for (const property of type.properties) {
        const keys = [
          ...Object.keys(property.displayOptions?.show ?? {}),
          ...Object.keys(property.displayOptions?.hide ?? {}),
        ];
        expect({ [`${type.name}.${property.name}`]: keys.filter((key) => secrets.includes(key)) }).toEqual({
          [`${type.name}.${property.name}`]: [],
        });
      }
    }
  });

  test('the node refuses a key without svc_dev_ or omi_dev_ before sending anything', async () => {
    const before = server.requests.length;
    const credentials = credentialsFor(server, 'sk_not_a_developer_key');
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error?.message).toBe('The Developer Key must start with svc_dev_ or omi_dev_');
    expect(server.requests.length).toBe(before);
  });
});

describe('DevData App API credential', () => {
  test('the credential test passes with the app ID and secret, and fails with a wrong secret', async () => {
    const app = credentialsFor(server).devDataAppApi;
    expect(await testCredential('devDataAppApi', app)).toEqual({
      status: 'OK',
      message: 'Connection successful!',
    });
    const wrong = await testCredential('devDataAppApi', {
      ...app,
      appSecret: 'sk_ffffffffffffffffffffffffffffffff',
    });
    expect(wrong.message).toMatch(/^Invalid app ID or secret/);
    const otherApp = await testCredential('devDataAppApi', { ...app, appId: 'another-app' });
    expect(otherApp.message).toMatch(/^Invalid app ID or secret/);
    const withV2 = await testCredential('devDataAppApi', { ...app, baseUrl: `${server.baseUrl}/v2` });
    expect(withV2.message).toMatch(
      /^No DevData integrations API at this Base URL .* without \/v2 or another path/,
    );
  });

  test('spaces around the App ID are ignored, as around the App Secret and the Base URL', async () => {
    const app = credentialsFor(server).devDataAppApi;
    const pasted = { ...app, appId: ` ${String(app.appId)}\n`, baseUrl: ` ${server.baseUrl}/ ` };
    expect(await testCredential('devDataAppApi', pasted)).toEqual({
      status: 'OK',
      message: 'Connection successful!',
    });
    const result = await runDevData(
      server,
      {
        resource: 'notification',
        operation: 'send',
        uid: server.init.user_id,
        message: 'pasted with spaces',
      },
      { credentials: { devDataAppApi: pasted } },
    );
    expect(jsonOut(result)).toEqual([{ status: 'Ok' }]);
  });

  test('the webhook signing secret is optional', async () => {
    const app = credentialsFor(server).devDataAppApi;
    expect(app).not.toHaveProperty('webhookSecret');
    const result = await runDevData(
      server,
      {
        resource: 'notification',
        operation: 'send',
        uid: server.init.user_id,
        message: 'no webhook secret needed',
      },
      { credentials: { devDataAppApi: app } },
    );
    expect(jsonOut(result)).toEqual([{ status: 'Ok' }]);
  });
});

describe('Developer Key → Get Current', () => {
  test('returns the key the node uses, with its scopes and display form', async () => {
    const user = await newUser(server, ['memories:read', 'goals:read']);
    const out = jsonOut(
      await runDevData(
        server,
        { resource: 'developerKey', operation: 'getCurrent' },
        { credentials: credentialsFor(server, user.key) },
      ),
    );
    const key = expectShape(apiKey, out[0]);
    expect(key.scopes).toEqual(['memories:read', 'goals:read']);
    expect(key.key_prefix).toBe(`svc_dev_${user.key.slice(8, 12)}...${user.key.slice(-4)}`);
  });
});

describe('a credential test against a Base URL that is not a DevData server', () => {
  let page: ForeignServer;
  let notFound: ForeignServer;
  let empty: ForeignServer;
  beforeAll(async () => {
    // n8n's own address answers any path with its editor's page; an Express app without the route, 404.
    page = await startForeignServer(200, 'text/html; charset=utf-8', FOREIGN_PAGE);
    notFound = await startForeignServer(404, 'text/html; charset=utf-8', FOREIGN_PAGE);
    empty = await startForeignServer(200, undefined, '');
  });
  afterAll(async () => Promise.all([page.close(), notFound.close(), empty.close()]));

  test('DevData Developer API: a web page (200 text/html) fails the test and says to check the Base URL', async () => {
    const { apiKey: developerKey } = credentialsFor(server).devDataApi;
    const result = await testCredential('devDataApi', { baseUrl: page.baseUrl, apiKey: developerKey });
    expect(result).toEqual({
      status: 'Error',
      message:
        'No DevData developer API at this Base URL: GET /v1/dev/user/memories answered with a web page (HTML), not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080, not n8n’s own address.',
    });
    const missing = await testCredential('devDataApi', { baseUrl: notFound.baseUrl, apiKey: developerKey });
    expect(missing.message).toMatch(
      /^No DevData developer API at this Base URL \(GET \/v1\/dev\/user\/memories answered 404\)/,
    );
    const nothing = await testCredential('devDataApi', { baseUrl: empty.baseUrl, apiKey: developerKey });
    expect(nothing.message).toMatch(
      /^No DevData developer API at this Base URL: .* answered with an empty body/,
    );
  });

  test('DevData App API: a web page (200 text/html) fails the test and says to check the Base URL', async () => {
    const app = credentialsFor(server).devDataAppApi;
    const result = await testCredential('devDataAppApi', { ...app, baseUrl: page.baseUrl });
    expect(result).toEqual({
      status: 'Error',
      message:
        'No DevData integrations API at this Base URL: the test request answered with a web page (HTML), not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080, not n8n’s own address.',
    });
    const missing = await testCredential('devDataAppApi', { ...app, baseUrl: notFound.baseUrl });
    expect(missing.message).toMatch(
      /^No DevData integrations API at this Base URL \(the test request answered 404\)/,
    );
    const nothing = await testCredential('devDataAppApi', { ...app, baseUrl: empty.baseUrl });
    expect(nothing.message).toMatch(
      /^No DevData integrations API at this Base URL: .* answered with an empty body/,
    );
  });

  test('DevData Developer API: another JSON service (an object where DevData answers a list) fails the test', async () => {
    const { apiKey: developerKey } = credentialsFor(server).devDataApi;
    const json = await startForeignServer(200, 'application/json', '{"status":"ok"}');
    try {
      const result = await testCredential('devDataApi', { baseUrl: json.baseUrl, apiKey: developerKey });
      expect(result.status).toBe('Error');
      expect(result.message).toMatch(/^No DevData developer API at this Base URL: .* a JSON object/);
    } finally {
      await json.close();
    }
  });

  test('a real DevData server still passes, also for a user without memories (an empty list)', async () => {
    const user = await newUser(server, ['memories:read']);
    expect(await testCredential('devDataApi', { baseUrl: server.baseUrl, apiKey: user.key })).toEqual({
      status: 'OK',
      message: 'Connection successful!',
    });
    expect(server.requestsTo('GET', '/v1/dev/user/memories').at(-1)?.status).toBe(200);
  });

  test('nothing listening: n8n reports only the error code, which no rule can change', async () => {
    // n8n's CredentialsTester answers a request without a response with its error code before any rule applies;
    // the node's own error for the same Base URL says what to check ("Could not reach the DevData server at …").
    const { apiKey: developerKey } = credentialsFor(server).devDataApi;
    const result = await testCredential('devDataApi', {
      baseUrl: 'http://127.0.0.1:9',
      apiKey: developerKey,
    });
    expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
  });
});

describe('a credential pasted with spaces around it, or a Base URL without its scheme', () => {
  test('spaces around the Base URL and the Developer Key are ignored, as the server ignores them', async () => {
    const credentials = credentialsFor(server);
    credentials.devDataApi = {
      baseUrl: `  ${server.baseUrl}/  `,
      apiKey: ` ${String(credentials.devDataApi.apiKey)} `,
    };
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error).toBeUndefined();
    expect(jsonOut(result)).toHaveLength(1);
  });

  test('a Base URL without http:// or https:// fails, saying so', async () => {
    const credentials = credentialsFor(server);
    const withoutScheme = server.baseUrl.replace(/^http:\/\//, '');
    credentials.devDataApi = { ...credentials.devDataApi, baseUrl: withoutScheme };
    const result = await runDevData(
      server,
      { resource: 'developerKey', operation: 'getCurrent' },
      { credentials },
    );
    expect(result.error?.message).toBe(
      `The Base URL must start with http:// or https://, not "${withoutScheme}"`,
    );
  });
});

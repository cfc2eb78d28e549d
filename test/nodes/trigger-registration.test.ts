// The DevData Transcript Trigger's webhookMethods (checkExists, create, delete) run in n8n-core's HookContext, as n8n's
// ActiveWorkflowManager runs them on activation and deactivation, against the real devdata-server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { client, type Client } from '../helpers/http';
import { forSuite } from '../helpers/server';
import {
  appCredentials,
  FOREIGN_PAGE,
  proactiveWorkflow,
  serveWorkflow,
  startForeignServer,
  startNodeTestServer,
  TRIGGER_WEBHOOK_ID,
  type ForeignServer,
  type ServedWorkflow,
} from './helpers';

const server = forSuite(() => startNodeTestServer());
let app: Client;
let served: ServedWorkflow[] = [];
beforeAll(async () => {
  app = client(server.baseUrl, server.init.app_secret);
});
afterEach(async () => {
  await Promise.all(served.map((s) => s.close()));
  served = [];
  await app.delete(webhookPath());
});

const webhookPath = () => `/v2/integrations/${server.init.app_id}/webhook`;
const registered = async () => {
  const reply = await app.get(webhookPath());
  expect(reply.status).toBe(200);
  return reply.body.webhook_url as string | null;
};
const requestsToWebhook = () => server.requestsTo('GET', webhookPath()).length + writes();
const writes = () =>
  server.requestsTo('PUT', webhookPath()).length + server.requestsTo('DELETE', webhookPath()).length;

async function serve(...args: Parameters<typeof serveWorkflow>) {
  const workflow = await serveWorkflow(...args);
  served.push(workflow);
  return workflow;
}

test('Automatic: activation registers the production URL, deactivation removes it', async () => {
  const workflow = await serve(proactiveWorkflow(), appCredentials(server));
  expect(await registered()).toBeNull();
  expect(await workflow.runHook('checkExists')).toBe(false);

  await workflow.activate();
  expect(await registered()).toBe(`${workflow.baseUrl}/webhook/${TRIGGER_WEBHOOK_ID}/devdata`);
  expect(await registered()).toBe(workflow.webhookUrl());
  expect(server.requestsTo('PUT', webhookPath()).map((r) => r.status)).toEqual([200]);
  expect(await workflow.runHook('checkExists')).toBe(true);

  // Activating again (n8n restarts, say) finds it and writes nothing.
  const before = writes();
  await workflow.activate('init');
  expect(writes()).toBe(before);

  await workflow.deactivate();
  expect(await registered()).toBeNull();
  expect(await workflow.runHook('checkExists')).toBe(false);
});

test('Automatic: a Base URL and an App ID pasted with spaces (and a trailing slash) around them register as without', async () => {
  // The credential's test and every other DevData request trim them; registration did not, and failed saying the
  // service has no registration API.
  const credentials = appCredentials(server);
  const app = credentials.devDataAppApi;
  credentials.devDataAppApi = { ...app, baseUrl: ` ${server.baseUrl}/ `, appId: ` ${String(app.appId)} ` };
  const workflow = await serve(proactiveWorkflow(), credentials);
  await workflow.activate();
  expect(await registered()).toBe(workflow.webhookUrl());
  await workflow.deactivate();
  expect(await registered()).toBeNull();
});

test('Automatic: registering also gives the app the external_integration capability', async () => {
  const workflow = await serve(proactiveWorkflow(), appCredentials(server));
  await workflow.activate();
  const me = await app.get(`/v2/integrations/${server.init.app_id}/app`);
  expect(me.body.capabilities).toContain('external_integration');
  expect(me.body.external_integration).toEqual({
    triggers_on: 'transcript_processed',
    webhook_url: workflow.webhookUrl(),
  });
});

test('Automatic: the last activation wins, and deactivating leaves a URL that is not its own', async () => {
  const first = await serve(proactiveWorkflow(), appCredentials(server));
  const second = await serve(proactiveWorkflow(), appCredentials(server));
  await first.activate();
  await second.activate();
  expect(await registered()).toBe(second.webhookUrl());

  const deletesBefore = server.requestsTo('DELETE', webhookPath()).length;
  await first.deactivate();
  expect(await registered()).toBe(second.webhookUrl());
  expect(server.requestsTo('DELETE', webhookPath()).length).toBe(deletesBefore);

  // A URL set in the developer portal in the meantime stays too.
  const portal = 'https://127.0.0.1:9/devdata';
  expect((await app.put(webhookPath(), { webhook_url: portal })).status).toBe(200);
  await second.deactivate();
  expect(await registered()).toBe(portal);
});

test('Automatic, listening for a test event: the test URL (/webhook-test/…) is registered', async () => {
  const workflow = await serve(proactiveWorkflow(), appCredentials(server), { mode: 'manual' });
  await workflow.activate();
  expect(await registered()).toBe(`${workflow.baseUrl}/webhook-test/${TRIGGER_WEBHOOK_ID}/devdata`);
  await workflow.deactivate();
  expect(await registered()).toBeNull();
});

test('Automatic, listening for a test event of a published workflow: its URL comes back afterwards', async () => {
  const published = await serve(proactiveWorkflow(), appCredentials(server), { workflowId: 'wf-coach' });
  const listening = await serve(proactiveWorkflow(), appCredentials(server), {
    mode: 'manual',
    workflowId: 'wf-coach',
  });
  await published.activate();
  await listening.activate();
  expect(await registered()).toBe(listening.webhookUrl());
  await listening.deactivate();
  expect(await registered()).toBe(published.webhookUrl());
  expect(await published.runHook('checkExists')).toBe(true);
  await published.deactivate();
  expect(await registered()).toBeNull();
});

test('Manual: activation and deactivation make no request at all', async () => {
  const workflow = await serve(
    proactiveWorkflow({ trigger: { registration: 'manual' } }),
    appCredentials(server),
  );
  const portal = 'https://127.0.0.1:9/pasted-by-hand';
  expect((await app.put(webhookPath(), { webhook_url: portal })).status).toBe(200);
  const before = requestsToWebhook();
  expect(await workflow.runHook('checkExists')).toBe(true);
  await workflow.activate();
  expect(await workflow.runHook('create')).toBe(true);
  await workflow.deactivate();
  expect(requestsToWebhook()).toBe(before);
  expect(await registered()).toBe(portal);
});

test('a wrong app secret fails activation with a NodeApiError that points at the credential', async () => {
  const credentials = appCredentials(server);
  credentials.devDataAppApi.appSecret = 'sk_00000000000000000000000000000000';
  const workflow = await serve(proactiveWorkflow(), credentials);
  const error = await workflow.activate().then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.name).toBe('NodeApiError');
  expect(error?.message).toBe(
    'Authorization failed: check the App ID and App Secret of the DevData App API credential',
  );
  expect(await registered()).toBeNull();
});

describe('a service that cannot register webhooks', () => {
  let other: Server;
  let otherUrl: string;
  beforeAll(async () => {
    // Answers every request 404, as a DevData service without the registration API does.
    other = createServer((_, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => other.close(() => resolve())));

  test('Automatic fails activation and says to use Manual', async () => {
    const credentials = appCredentials({ ...server, baseUrl: otherUrl });
    const workflow = await serve(proactiveWorkflow(), credentials);
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe('This DevData service has no webhook registration API');
    expect((error as { description?: string }).description).toContain('Set Registration to Manual');
  });

  test('an unreachable server fails activation with a NodeApiError that names the request', async () => {
    const credentials = appCredentials({ ...server, baseUrl: 'http://127.0.0.1:9' });
    const workflow = await serve(proactiveWorkflow(), credentials);
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe('Could not reach the DevData server to read the app’s webhook URL');
    expect((error as { description?: string }).description).toMatch(
      /^GET http:\/\/127\.0\.0\.1:9\/v2\/integrations\/.+\/webhook failed: .*Check the Base URL/,
    );
  });
});

describe('a Base URL that is not a DevData server', () => {
  let foreign: ForeignServer;
  beforeAll(async () => {
    foreign = await startForeignServer(404, 'text/html; charset=utf-8', FOREIGN_PAGE);
  });
  afterAll(async () => foreign.close());

  test('Automatic fails activation naming the Base URL, not the page and not "use Manual"', async () => {
    const credentials = appCredentials({ ...server, baseUrl: foreign.baseUrl });
    const workflow = await serve(proactiveWorkflow(), credentials);
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe(
      `The server at ${foreign.baseUrl} did not answer as a DevData server (HTTP 404, text/html)`,
    );
    expect(error?.description).toMatch(
      /^GET \/v2\/integrations\/.+\/webhook answered with text\/html where a DevData server answers with JSON: .*Check the Base URL in the DevData App API credential/,
    );
    expect(`${error?.message} ${error?.description}`).not.toContain('<');
  });
});

describe('a server whose outbound rules refuse n8n’s address', () => {
  // Without the development allowance a devdata-server takes only https URLs at public addresses, so the
  // trigger's http://127.0.0.1 URLs are refused at registration.
  const strict = forSuite(() => startNodeTestServer({ allowLoopbackWebhooks: false }));

  test.each([
    ['published', 'Production URL', 'webhook'],
    ['listening for a test event', 'Test URL', 'manual'],
  ] as const)('%s: activation fails naming the %s and n8n’s N8N_WEBHOOK_URL', async (_, which, mode) => {
    const workflow = await serve(proactiveWorkflow(), appCredentials(strict), { mode });
    const error = await workflow.activate().then(
      () => undefined,
      (e: Error & { description?: string }) => e,
    );
    expect(error?.name).toBe('NodeApiError');
    expect(error?.message).toBe(`The DevData server refuses this trigger's ${which}: URL must use https`);
    expect(error?.description).toMatch(
      new RegExp(
        `^It refused ${workflow.webhookUrl().replace(/[.?]/g, '\\$&')}\\..*n8n's N8N_WEBHOOK_URL \\(WEBHOOK_URL on n8n 1\\.x\\)`,
      ),
    );
    expect(error?.message).not.toContain('body.webhook_url');
  });
});

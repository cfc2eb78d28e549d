// Both credential types' tests as n8n's credentials dialog runs them (POST /rest/credentials/test, signed in as
// the owner), shared by the 2.x and 1.x suites: against the suite's devdata-server with the keys `init` made, against a
// loopback server answering a web page (200 text/html, as n8n's own address or another web server does), and
// with a wrong secret. n8n 1.x answers the wrong secret with its own text (N8N_1_UNAUTHORIZED).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ICredentialTestRequest } from 'n8n-workflow';
import { DevDataApi } from '../../credentials/DevDataApi.credentials';
import { DevDataAppApi } from '../../credentials/DevDataAppApi.credentials';
import type { DevdataServer, n8nSession } from './harness.ts';

type Session = Awaited<ReturnType<typeof n8nSession>>;

/** The message of the credential test's rule that matches this response code or first body character. */
function ruleMessage(test: ICredentialTestRequest, match: { code?: number; firstChar?: string }): string {
  const rules = (test.rules ?? []) as Array<{ type: string; properties: Record<string, any> }>;
  const rule = rules.find((r) =>
    match.code !== undefined
      ? r.type === 'responseCode' && r.properties.value === match.code
      : r.type === 'responseSuccessBody' &&
        r.properties.key === '0' &&
        r.properties.value === match.firstChar,
  );
  if (!rule) throw new Error(`no rule for ${JSON.stringify(match)}`);
  return rule.properties.message as string;
}

/** A web server on 127.0.0.1 that answers every request with a 200 HTML page; the requests it got are kept. */
export async function startWebPageServer() {
  const requests: Array<{ url: string; accept?: string }> = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', accept: req.headers.accept });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html>\n<html><head><title>Not DevData</title></head><body>Hello</body></html>\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Tests each credential with the data the editor would send for the credential the suite imported (ids of
 * harness.n8nCredentials), as n8n's editor does when "Retry" is pressed after an edit; returns n8n's answers.
 */
export async function runCredentialTests(session: Session, devdata: DevdataServer) {
  const web = await startWebPageServer();
  const c = devdata.credentials;
  const test = async (id: string, name: string, type: string, data: Record<string, string>) => {
    const response = await session.post('/credentials/test', { credentials: { id, name, type, data } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /credentials/test: ${response.status} ${text}`);
    return JSON.parse(text).data as { status: string; message: string };
  };
  const developer = (baseUrl: string, apiKey: string) =>
    test('devDataApiDemo01', 'DevData Developer API', 'devDataApi', { baseUrl, apiKey });
  const app = (baseUrl: string, appSecret: string) =>
    test('devDataAppDemo01', 'DevData App API', 'devDataAppApi', {
      baseUrl,
      appId: c.app_id,
      appSecret,
      webhookSecret: c.webhook_secret,
    });
  try {
    const results = {
      developer: {
        valid: await developer(devdata.baseUrl, c.developer_key),
        webPage: await developer(web.baseUrl, c.developer_key),
        wrongKey: await developer(devdata.baseUrl, `${c.developer_key.slice(0, -4)}0000`),
      },
      app: {
        valid: await app(devdata.baseUrl, c.app_secret),
        webPage: await app(web.baseUrl, c.app_secret),
        wrongKey: await app(devdata.baseUrl, `${c.app_secret.slice(0, -4)}0000`),
      },
      webPageRequests: [...web.requests],
      appId: c.app_id,
    };
    return results;
  } finally {
    await web.close();
  }
}

/**
 * n8n 1.x's answer to a request the server refused (any status): n8n 1.x never reaches a test's responseCode
 * rules. Its CredentialsTester reads the status from the request error's `cause`, but n8n-workflow 1.x's
 * ExecutionBaseError declares a `cause` class field, which resets the cause Error's constructor set, and keeps a
 * cause only when it is not an Error. So the test fails with the error's own message, n8n's text for the status.
 */
export const N8N_1_UNAUTHORIZED = 'Authorization failed - please check your credentials';

/**
 * What n8n answers: on both lines, the server passes and a web page fails with the credential's message; a wrong
 * key fails with the credential's 401 message on 2.x and with n8n's own 401 text on 1.x (N8N_1_UNAUTHORIZED).
 */
export function expectCredentialTestResults(
  results: Awaited<ReturnType<typeof runCredentialTests>>,
  line: 1 | 2,
) {
  const developerTest = new DevDataApi().test;
  const appTest = new DevDataAppApi().test;
  expect(results.developer.valid).toEqual({ status: 'OK', message: 'Connection successful!' });
  expect(results.app.valid).toEqual({ status: 'OK', message: 'Connection successful!' });
  expect(results.developer.webPage).toEqual({
    status: 'Error',
    message: ruleMessage(developerTest, { firstChar: '<' }),
  });
  expect(results.developer.webPage.message).toMatch(/^No DevData developer API at this Base URL/);
  expect(results.app.webPage).toEqual({ status: 'Error', message: ruleMessage(appTest, { firstChar: '<' }) });
  expect(results.app.webPage.message).toMatch(/^No DevData integrations API at this Base URL/);
  if (line === 2) {
    expect(results.developer.wrongKey).toEqual({
      status: 'Error',
      message: ruleMessage(developerTest, { code: 401 }),
    });
    expect(results.developer.wrongKey.message).toMatch(/^Invalid API Key/);
    expect(results.app.wrongKey).toEqual({ status: 'Error', message: ruleMessage(appTest, { code: 401 }) });
    expect(results.app.wrongKey.message).toMatch(/^Invalid app ID or secret/);
  } else {
    expect(results.developer.wrongKey).toEqual({ status: 'Error', message: N8N_1_UNAUTHORIZED });
    expect(results.app.wrongKey).toEqual({ status: 'Error', message: N8N_1_UNAUTHORIZED });
  }
  // The web page was asked for what the tests ask DevData: JSON, from the paths the tests read.
  expect(results.webPageRequests.map((r) => r.url.split('?')[0])).toEqual([
    '/v1/dev/user/memories',
    `/v2/integrations/${encodeURIComponent(results.appId)}/app`,
  ]);
  for (const request of results.webPageRequests) expect(request.accept).toBe('application/json');
}

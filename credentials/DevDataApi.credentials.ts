import type {
  IAuthenticateRuleResponseCode,
  IAuthenticateRuleResponseSuccessBody,
  ICredentialDataDecryptedObject,
  Icon,
  ICredentialTestRequest,
  ICredentialType,
  IHttpRequestOptions,
  INodeProperties,
} from 'n8n-workflow';

// n8n types a test's rules as a list of one kind, but its CredentialsTester (n8n 2.41) checks each rule's type in
// both of its loops: responseCode rules when the request failed with a status, responseSuccessBody rules on a 2xx.
// So one list holds both kinds. n8n 1.x (1.123) runs the responseSuccessBody rules the same way but never reaches
// the responseCode ones: its request errors lose their cause (n8n-workflow 1.x's ExecutionBaseError declares a
// `cause` field, which resets it), so a refused request fails there with n8n's own text for the status (a 401:
// "Authorization failed - please check your credentials"). test/e2e/credential-tests.ts runs both lines.
type TestRule = IAuthenticateRuleResponseCode | IAuthenticateRuleResponseSuccessBody;

export class DevDataApi implements ICredentialType {
  name = 'devDataApi';

  displayName = 'DevData Developer API';

  icon: Icon = { light: 'file:../nodes/DevData/devData.svg', dark: 'file:../nodes/DevData/devData.dark.svg' };

  documentationUrl = 'https://github.com/devdata/n8n-nodes-devdata#credentials';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'http://127.0.0.1:8080',
      placeholder: 'https://devdata.example.com',
      description:
        'Address of the DevData server, without a trailing path (the node adds /v1/dev/…). A self-hosted devdata-server listens on http://127.0.0.1:8080 by default.',
      required: true,
    },
    {
      displayName: 'Developer Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'svc_dev_…',
      description:
        'A developer API key, from the DevData app (Settings → Developer → Create Key) or, for a self-hosted devdata-server, the one <code>npm start</code> / <code>devdata-server init</code> prints. It starts with svc_dev_ (or omi_dev_, from a server issuing the real service’s prefix) — an app secret (sk_…) or an admin token does not work here. The key’s scopes decide what the node may read and write.',
      required: true,
    },
  ];

  // A function, not an expression: n8n evaluates a generic header in its expression isolate for every request,
  // and n8n 2.41 hands a workflow's isolate back while a sibling poll trigger is still paging ("No bridge
  // acquired for this context").
  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    requestOptions: IHttpRequestOptions,
  ): Promise<IHttpRequestOptions> {
    requestOptions.headers = {
      ...requestOptions.headers,
      Authorization: `Bearer ${String(credentials.apiKey ?? '').trim()}`,
    };
    return requestOptions;
  }

  // Reads one memory, as the real service's own CLI checks a key: a server that implements only the real
  // service's developer API has no GET /v1/dev/key, and a key holds memories:read unless made without it.
  // The answer is taken as text: n8n checks a 2xx only with responseSuccessBody rules, which compare one value of
  // the first output item's json for equality, and a parsed empty list (a user without memories) has no first item
  // (n8n's test then fails on reading it). As text, a DevData answer is one item starting "[", and another server's
  // web page starts "<". It asks for JSON, as the node does: n8n's own address then answers 404 (its editor's page
  // goes to a request that accepts anything), which the 404 rule names.
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
      url: '/v1/dev/user/memories',
      qs: { limit: 1 },
      method: 'GET',
      headers: { Accept: 'application/json' },
      encoding: 'text',
    },
    rules: [
      {
        type: 'responseCode',
        properties: {
          value: 401,
          message:
            'Invalid API Key: the server rejected this developer key. Developer keys start with svc_dev_ or omi_dev_ (an app secret, sk_…, belongs in the DevData App API credential); check that the whole key was pasted and that it has not been revoked.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 403,
          message:
            'The developer key is valid but lacks the memories:read scope, which this test reads one memory with. Save the credential anyway if your workflows only use what the key’s other scopes allow.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 404,
          message:
            'No DevData developer API at this Base URL (GET /v1/dev/user/memories answered 404). Check the Base URL: it is the server address only, without /v1 or another path (the node adds those), e.g. http://127.0.0.1:8080.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 429,
          message: 'Rate limit exceeded: the key is valid but made too many requests. Try again in a minute.',
        },
      },
      // Key "0" is the text's first character (n8n reads it with lodash's get); it is undefined for an empty body.
      {
        type: 'responseSuccessBody',
        properties: {
          key: '0',
          value: '<',
          message:
            'No DevData developer API at this Base URL: GET /v1/dev/user/memories answered with a web page (HTML), not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080, not n8n’s own address.',
        },
      },
      // DevData answers this request with a list ("["): an object is another JSON service at this address.
      {
        type: 'responseSuccessBody',
        properties: {
          key: '0',
          value: '{',
          message:
            'No DevData developer API at this Base URL: GET /v1/dev/user/memories answered with a JSON object where DevData answers with the list of memories. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080, with the right port.',
        },
      },
      {
        type: 'responseSuccessBody',
        properties: {
          key: '0',
          value: undefined,
          message:
            'No DevData developer API at this Base URL: GET /v1/dev/user/memories answered with an empty body, not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080.',
        },
      },
    ] satisfies TestRule[] as ICredentialTestRequest['rules'],
  };
}

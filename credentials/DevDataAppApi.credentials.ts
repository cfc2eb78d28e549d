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

export class DevDataAppApi implements ICredentialType {
  name = 'devDataAppApi';

  displayName = 'DevData App API';

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
        'Address of the DevData server, without a trailing path (the node adds /v2/integrations/…). A self-hosted devdata-server listens on http://127.0.0.1:8080 by default.',
      required: true,
    },
    {
      displayName: 'App ID',
      name: 'appId',
      type: 'string',
      default: '',
      description:
        'The identifier of your app, from the developer portal (or <code>devdata-server init</code>)',
      required: true,
    },
    {
      displayName: 'App Secret',
      name: 'appSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'sk_…',
      description:
        'The app secret shown once when the app was created (it starts with sk_). Sent as a bearer token.',
      required: true,
    },
    {
      displayName: 'Webhook Signing Secret',
      name: 'webhookSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'whsec_…',
      description:
        'Recommended when you use the DevData Transcript Trigger: with it, the trigger refuses calls DevData did not sign; without it, anyone who knows the trigger’s URL can start the workflow. Not needed for sending notifications.',
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
      Authorization: `Bearer ${String(credentials.appSecret ?? '').trim()}`,
    };
    return requestOptions;
  }

  // GET /v2/integrations/{app_id}/app answers with the app's record only when the secret belongs to that app.
  // It asks for JSON and takes the answer as text, as the DevData Developer API credential's test does: a DevData
  // answer starts "{", and another server's web page starts "<".
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
      url: '=/v2/integrations/{{encodeURIComponent($credentials.appId.trim())}}/app',
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
            'Invalid app ID or secret: the server did not accept this App Secret for this App ID. Check both values (the secret starts with sk_).',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 404,
          message:
            'No DevData integrations API at this Base URL (the test request answered 404). Check the Base URL: it is the server address only, without /v2 or another path (the node adds those), e.g. http://127.0.0.1:8080.',
        },
      },
      // Key "0" is the text's first character (n8n reads it with lodash's get); it is undefined for an empty body.
      {
        type: 'responseSuccessBody',
        properties: {
          key: '0',
          value: '<',
          message:
            'No DevData integrations API at this Base URL: the test request answered with a web page (HTML), not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080, not n8n’s own address.',
        },
      },
      {
        type: 'responseSuccessBody',
        properties: {
          key: '0',
          value: undefined,
          message:
            'No DevData integrations API at this Base URL: the test request answered with an empty body, not DevData’s JSON. Check the Base URL: it is the DevData server’s address only, e.g. http://127.0.0.1:8080.',
        },
      },
    ] satisfies TestRule[] as ICredentialTestRequest['rules'],
  };
}

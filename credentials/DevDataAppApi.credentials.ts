import type {
  ICredentialDataDecryptedObject,
  Icon,
  ICredentialTestRequest,
  ICredentialType,
  IHttpRequestOptions,
  INodeProperties,
} from 'n8n-workflow';

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
      Authorization: `Bearer ${String(credentials.appSecret ?? '')}`,
    };
    return requestOptions;
  }

  // GET /v2/integrations/{app_id}/app answers with the app's record only when the secret belongs to that app.
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
      url: '=/v2/integrations/{{encodeURIComponent($credentials.appId)}}/app',
      method: 'GET',
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
            'No DevData integrations API at this Base URL (the test request answered 404). Check the Base URL: it is the server address only, e.g. http://127.0.0.1:8080.',
        },
      },
    ],
  };
}

import type {
  IDataObject,
  IHookFunctions,
  IHttpRequestMethods,
  IN8nHttpFullResponse,
  JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
  appIdOf,
  devDataApiError,
  foreignAnswerError,
  isForeignAnswer,
  issueAt,
  refusedTriggerUrlError,
} from '../shared';

/** What GET/PUT/DELETE /v2/integrations/{app_id}/webhook answer. */
interface WebhookConfig {
  triggers_on: string;
  webhook_url: string | null;
}

const WHAT: Record<string, string> = {
  GET: 'read the app’s webhook URL',
  PUT: 'register the webhook URL',
  DELETE: 'remove the webhook URL',
};

/** Whether this trigger registers its URL itself ("Automatic") or the user pastes it in the portal. */
export function isAutomatic(this: IHookFunctions): boolean {
  return this.getNodeParameter('registration', 'automatic') === 'automatic';
}

/** This trigger's URL for the current activation: the production URL, or the test URL while testing. */
export function ownUrl(this: IHookFunctions): string {
  const url = this.getNodeWebhookUrl('default');
  if (!url) throw new NodeOperationError(this.getNode(), 'n8n gave this trigger no webhook URL');
  return url;
}

/**
 * One request to the app's webhook registration, `/v2/integrations/{app_id}/webhook`, with the app secret.
 * Every failure becomes a NodeApiError that says what to check; nothing is swallowed.
 */
export async function webhookRegistration(
  this: IHookFunctions,
  method: IHttpRequestMethods,
  body?: IDataObject,
): Promise<WebhookConfig> {
  const credentials = await this.getCredentials('devDataAppApi');
  // Pasted with spaces around them, as the credential's test and the DevData node tolerate.
  const baseUrl = String(credentials.baseUrl ?? '')
    .trim()
    .replace(/\/+$/, '');
  const path = `/v2/integrations/${encodeURIComponent(appIdOf(credentials))}/webhook`;
  const url = `${baseUrl}${path}`;

  let response: IN8nHttpFullResponse;
  try {
    response = (await this.helpers.httpRequestWithAuthentication.call(this, 'devDataAppApi', {
      method,
      url,
      body,
      json: true,
      returnFullResponse: true,
      ignoreHttpStatusErrors: true,
    })) as IN8nHttpFullResponse;
  } catch (error) {
    // Only the text of the cause: given its code (ECONNREFUSED…), n8n would replace this message with a generic one.
    const cause = (error as Error).message;
    throw new NodeApiError(this.getNode(), { message: cause } as JsonObject, {
      message: `Could not reach the DevData server to ${WHAT[method]}`,
      description: `${method} ${url} failed: ${cause}. Check the Base URL of the DevData App API credential, and that the server is running.`,
    });
  }

  // Another server at the Base URL (n8n's own address, a web page): its HTML is no answer of a DevData service.
  if (isForeignAnswer(response.headers, response.body)) {
    throw foreignAnswerError(
      this.getNode(),
      { method, path, baseUrl, status: response.statusCode, headers: response.headers },
      { credentialType: 'devDataAppApi' },
    );
  }
  if (response.statusCode === 404 || response.statusCode === 405) {
    throw new NodeApiError(this.getNode(), (response.body ?? {}) as JsonObject, {
      message: 'This DevData service has no webhook registration API',
      description: `${method} ${url} answered HTTP ${response.statusCode}. Set Registration to Manual and paste the trigger's Production URL into the app's webhook URL in the DevData developer portal.`,
      httpCode: String(response.statusCode),
    });
  }
  const urlRefusal = response.statusCode === 422 ? issueAt(response.body, 'body.webhook_url') : undefined;
  if (urlRefusal) {
    throw refusedTriggerUrlError(this.getNode(), response.body, {
      url: String(body?.webhook_url),
      // n8n registers the Test URL in mode manual, while listening for a test event.
      test: this.getMode() === 'manual',
      reason: urlRefusal.msg,
    });
  }
  if (response.statusCode >= 400) {
    throw devDataApiError(this.getNode(), response.statusCode, response.body, {
      credentialType: 'devDataAppApi',
    });
  }
  const config = response.body as Partial<WebhookConfig> | undefined;
  if (typeof config !== 'object' || config === null || !('webhook_url' in config)) {
    throw new NodeApiError(this.getNode(), (config ?? {}) as JsonObject, {
      message: `The DevData server's answer is not a webhook configuration`,
      description: `${method} ${url} answered without webhook_url.`,
    });
  }
  return { triggers_on: String(config.triggers_on ?? ''), webhook_url: config.webhook_url ?? null };
}

import type {
  IDataObject,
  INode,
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestMethods,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  IN8nHttpFullResponse,
  IPollFunctions,
  JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { DevDataCredentialType } from './credentials';
import {
  devDataApiError,
  foreignAnswerError,
  isForeignAnswer,
  itemMessage,
  networkErrorCode,
  unreachableError,
  type FailureContext,
  type ForeignAnswer,
} from './errors';

/**
 * The node contexts that send requests: execute(), a polling trigger's poll(), a webhook trigger's webhookMethods,
 * and the dropdowns' methods.
 */
export type DevDataRequestContext =
  IExecuteFunctions | IPollFunctions | IHookFunctions | ILoadOptionsFunctions;

/** How often a 429, or a 503 of a request that is safe to repeat, is retried before the node gives up. */
const MAX_RETRIES = 3;
/** The longest Retry-After the node waits for; a longer wait fails at once (e.g. the hourly notification cap). */
export const MAX_RETRY_AFTER_SECONDS = 60;

// devdata-server's default prefix, and the real service's (which a devdata-server may issue, DEVDATA_KEY_PREFIX).
const DEVELOPER_KEY_PREFIXES = ['svc_dev_', 'omi_dev_'];

// A 503 (the server's database out of reach) may follow a write the database applied but could not confirm, so
// only requests that leave the same state when repeated are retried on it: a repeated create could duplicate a
// record, and a repeated delete would answer 404. A 429 is always retried: the server did nothing.
const REPEATABLE_METHODS: ReadonlySet<IHttpRequestMethods> = new Set(['GET', 'PATCH']);

function isRetryable(status: number, method: IHttpRequestMethods): boolean {
  return status === 429 || (status === 503 && REPEATABLE_METHODS.has(method));
}

export interface DevDataRequest {
  method: IHttpRequestMethods;
  /** Path below the Base URL, starting with a slash, e.g. `/v1/dev/user/goals`. */
  path: string;
  qs?: IDataObject;
  body?: IDataObject;
  /** The credential to authenticate with; the developer key unless said otherwise. */
  credentialType?: DevDataCredentialType;
  itemIndex?: number;
  /** For error messages: the kind of record and its id. */
  resource?: string;
  id?: string;
  batchItemIndex?: FailureContext['batchItemIndex'];
  /** The answer is a list: the body itself (true), or the body's field of this name (a cursor page's records). */
  list?: true | string;
}

/**
 * Drops query values that hold nothing (undefined, '', or null, as an expression mapping a missing input field
 * gives), so a filter the user left empty is not sent at all: n8n would send null as an empty value.
 */
function compact(qs: IDataObject | undefined): IDataObject | undefined {
  if (!qs) return undefined;
  return Object.fromEntries(
    Object.entries(qs).filter(([, value]) => value !== undefined && value !== '' && value !== null),
  );
}

/**
 * The server's Retry-After in seconds, or undefined when it sent none. It may be a date (RFC 9110 §10.2.3), as a
 * proxy in front of the server may send it: the seconds until then.
 */
function serverRetryAfter(headers: IDataObject): number | undefined {
  const header = headers['retry-after'];
  if (header === undefined || header === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const at = Date.parse(String(header));
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** Seconds to wait before retrying: the server's Retry-After, or an exponential backoff when it sent none. */
function retryAfterSeconds(headers: IDataObject, attempt: number): number {
  return serverRetryAfter(headers) ?? 2 ** attempt;
}

async function baseUrlOf(this: DevDataRequestContext, request: DevDataRequest): Promise<string> {
  const credentialType = request.credentialType ?? 'devDataApi';
  const credentials = await this.getCredentials(credentialType, request.itemIndex);
  // Pasted with a space around it, as the credential (and the server) tolerate.
  const apiKey = String(credentials.apiKey ?? '').trim();
  if (
    credentialType === 'devDataApi' &&
    !DEVELOPER_KEY_PREFIXES.some((prefix) => apiKey.startsWith(prefix))
  ) {
    throw new NodeOperationError(this.getNode(), 'The Developer Key must start with svc_dev_ or omi_dev_', {
      itemIndex: request.itemIndex,
      description:
        'The DevData Developer API credential holds something that is not a developer key. Create a developer key in the DevData app (Settings → Developer) and paste all of it; a self-hosted devdata-server must issue keys with one of these prefixes (its DEVDATA_KEY_PREFIX). For notifications, use the DevData App API credential.',
    });
  }
  const baseUrl = String(credentials.baseUrl ?? '')
    .trim()
    .replace(/\/+$/, '');
  if (!/^https?:\/\//i.test(baseUrl)) {
    throw new NodeOperationError(
      this.getNode(),
      `The Base URL must start with http:// or https://, not "${baseUrl}"`,
      {
        itemIndex: request.itemIndex,
        description: `Check the Base URL in the ${credentialType === 'devDataAppApi' ? 'DevData App API' : 'DevData Developer API'} credential: the DevData server's address only, e.g. http://127.0.0.1:8080.`,
      },
    );
  }
  return baseUrl;
}

function isList(body: unknown, list: true | string): boolean {
  if (list === true) return Array.isArray(body);
  return typeof body === 'object' && body !== null && Array.isArray((body as IDataObject)[list]);
}

/** A 2xx answer without the list a DevData server answers with: another JSON server at the Base URL. */
function notAListError(node: INode, request: DevDataRequest, baseUrl: string): NodeOperationError {
  return new NodeOperationError(
    node,
    itemMessage(
      `No DevData developer API at this Base URL: ${request.method} ${request.path} answered without the list of records`,
      request.itemIndex,
    ),
    {
      itemIndex: request.itemIndex,
      description: `The server at ${baseUrl} answered with JSON that is not a DevData list. Check the Base URL in the DevData Developer API credential: the DevData server's address only, e.g. http://127.0.0.1:8080, with the right port.`,
    },
  );
}

/** What a foreign answer's error names: the request and the answer's status and headers, not its body. */
function answerOf(request: DevDataRequest, baseUrl: string, response: IN8nHttpFullResponse): ForeignAnswer {
  return {
    method: request.method,
    path: request.path,
    baseUrl,
    status: response.statusCode,
    headers: response.headers,
  };
}

/**
 * Sends one request to the DevData server with the node's credential and returns the parsed body. A 429, and a
 * 503 of a read or an update, is retried after the server's Retry-After (at most MAX_RETRIES times); every other
 * error becomes a NodeApiError that carries the server's detail, and an answer that is not JSON (another server at
 * the Base URL) one that names the Base URL.
 */
export async function devDataRequest<T = unknown>(
  this: DevDataRequestContext,
  request: DevDataRequest,
): Promise<T> {
  const credentialType = request.credentialType ?? 'devDataApi';
  const baseUrl = await baseUrlOf.call(this, request);
  const options: IHttpRequestOptions = {
    method: request.method,
    url: `${baseUrl}${request.path}`,
    qs: compact(request.qs),
    body: request.body,
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
  };
  const context = { credentialType, itemIndex: request.itemIndex };

  for (let attempt = 0; ; attempt++) {
    let response: IN8nHttpFullResponse;
    try {
      response = (await this.helpers.httpRequestWithAuthentication.call(
        this,
        credentialType,
        options,
      )) as IN8nHttpFullResponse;
    } catch (error) {
      const code = networkErrorCode(error);
      // n8n's own NodeApiError for anything else (it hands an existing one back unchanged).
      if (code === undefined) throw new NodeApiError(this.getNode(), error as JsonObject);
      throw unreachableError(this.getNode(), code, baseUrl, context);
    }
    // A server that is not DevData (n8n's own address, a web page) answers with HTML: neither a result to hand on
    // nor a detail to show as the error's message.
    const foreign = isForeignAnswer(response.headers, response.body);
    if (response.statusCode < 400 && !foreign) {
      if (request.list !== undefined && !isList(response.body, request.list))
        throw notAListError(this.getNode(), request, baseUrl);
      return response.body as T;
    }

    if (isRetryable(response.statusCode, request.method) && attempt < MAX_RETRIES) {
      const wait = retryAfterSeconds(response.headers, attempt);
      if (wait <= MAX_RETRY_AFTER_SECONDS) {
        await sleep(wait * 1000);
        continue;
      }
    }
    if (foreign) throw foreignAnswerError(this.getNode(), answerOf(request, baseUrl, response), context);
    throw devDataApiError(this.getNode(), response.statusCode, response.body, {
      credentialType,
      baseUrl,
      resource: request.resource,
      id: request.id,
      body: request.body,
      itemIndex: request.itemIndex,
      batchItemIndex: request.batchItemIndex,
      retries: isRetryable(response.statusCode, request.method) ? attempt : undefined,
      retryAfterSeconds: serverRetryAfter(response.headers),
    });
  }
}

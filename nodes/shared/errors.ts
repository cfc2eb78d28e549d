import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { DevDataCredentialType } from './credentials';

/**
 * A message about one input item, ending with which one, as every error of an item does: "… (input item 2)".
 * Without an item (a trigger's poll or activation), the message alone.
 */
export function itemMessage(message: string, itemIndex: number | undefined): string {
  return itemIndex === undefined ? message : `${message} (input item ${itemIndex})`;
}

/** What failed, so a 404 can name the record and a batch error the input item. */
export interface FailureContext {
  credentialType: DevDataCredentialType;
  /** The Base URL the request went to, for a 404 of a path the server has no route for. */
  baseUrl?: string;
  /** The kind of record, as the user reads it, e.g. "Action item". */
  resource?: string;
  /** The id the request addressed, for 404 messages (with the app credential, the User ID a notification is for). */
  id?: string;
  /** The body sent, where a 404 of another record (a Folder of a conversation) finds that record's id. */
  body?: IDataObject;
  itemIndex?: number;
  /** Maps a 422 `loc` inside a batch body to the input item it came from. */
  batchItemIndex?: (loc: Array<string | number>) => number | undefined;
  /** Set when a retryable answer (429, or 503 of a read or an update) is given up on after retrying. */
  retries?: number;
  /** The answer's Retry-After, in seconds, when it sent one: how long the server asks the node to wait. */
  retryAfterSeconds?: number;
}

/** How the advice for a failure a wait ends (429, 503) starts: what to do in an execution. */
const RUN_AGAIN = 'Run the workflow again';

/**
 * `error` with the advice of a failure a wait ends (the server unavailable or out of reach, a rate limit) replaced
 * by `advice`, for a caller to whom running the workflow again means nothing (an active trigger's poll); any other
 * error as it is.
 */
export function withWaitAdvice(error: unknown, advice: string): unknown {
  const cause = error instanceof NodeApiError ? error.failure?.cause : undefined;
  if (cause !== 'temporarily-unavailable' && cause !== 'rate-limited') return error;
  const failure = error as NodeApiError;
  const situation = (failure.description ?? '').split(` ${RUN_AGAIN}`)[0];
  failure.description = situation ? `${situation} ${advice}` : advice;
  return failure;
}

/** A wait as a person reads it: "40 seconds", "37 minutes" (rounded up). */
function waitText(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/**
 * An answer to a path (404) or method (405) the server has no route for, as FastAPI and devdata-server word it,
 * rather than to a record that does not exist (whose detail names the record, e.g. "Goal not found").
 */
function isMissingEndpoint(status: number, detail: string | undefined): boolean {
  return (status === 404 && detail === 'Not Found') || status === 405;
}

/**
 * The record a 404 is about. The server's detail "<Thing> not found" names it: when that is a record the body refers
 * to by `<thing>_id` (a conversation's folder_id, an action item's conversation_id) rather than the record the
 * request addressed, it is that one; otherwise the addressed record, if any.
 */
function missingRecord(
  detail: string | undefined,
  context: FailureContext,
): { thing: string; id: string | undefined; referenced: boolean } | undefined {
  const thing = /^(.+) not found$/.exec(detail ?? '')?.[1];
  const addressed = context.resource !== undefined && context.id !== undefined;
  if (thing !== undefined && thing.toLowerCase() !== context.resource?.toLowerCase()) {
    const id = context.body?.[`${thing.toLowerCase().replace(/ /g, '_')}_id`];
    if (typeof id === 'string') return { thing, id, referenced: true };
  }
  return addressed ? { thing: context.resource!, id: context.id, referenced: false } : undefined;
}

/**
 * What to check when the server has no route for a request: a path in the Base URL (…/v1, as API references print
 * it) before the node's own, else the operation may be one only devdata-server offers.
 */
function missingEndpointAdvice(context: FailureContext): string {
  const credential = CREDENTIAL_NAMES[context.credentialType];
  const path = context.baseUrl === undefined ? '' : new URL(context.baseUrl).pathname.replace(/\/+$/, '');
  if (path !== '') {
    const added = context.credentialType === 'devDataAppApi' ? '/v2/integrations/…' : '/v1/dev/…';
    return `The Base URL in the ${credential} credential ends in the path ${path}: it is the DevData server's address only, e.g. http://127.0.0.1:8080 (the node adds ${added}). Remove the path, unless the server is served below it.`;
  }
  if (context.credentialType === 'devDataAppApi')
    return `Check the Base URL in the ${credential} credential: the DevData server's address only, e.g. http://127.0.0.1:8080.`;
  return 'A server that offers only the core developer API (memories, conversations, action items, goals, keys) has no folder writes, people, screen activity, current-key lookup or event webhooks (the DevData Trigger): these need a devdata-server. Check the Base URL too.';
}

export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
}

function isIssueList(detail: unknown): detail is ValidationIssue[] {
  return (
    Array.isArray(detail) &&
    detail.every(
      (issue) =>
        typeof issue === 'object' &&
        issue !== null &&
        Array.isArray(issue.loc) &&
        typeof issue.msg === 'string',
    )
  );
}

/** The first issue of a 422 body whose `loc` (joined with dots, e.g. `body.events.2`) is `prefix` or lies under it. */
export function issueAt(body: unknown, prefix: string): ValidationIssue | undefined {
  const detail = typeof body === 'object' && body !== null ? (body as IDataObject).detail : undefined;
  if (!isIssueList(detail)) return undefined;
  return detail.find((issue) => `${issue.loc.join('.')}.`.startsWith(`${prefix}.`));
}

/**
 * The server's refusal (`reason`) of a URL n8n made for a trigger, naming it as n8n shows it (Production or Test
 * URL) and what to change: the user never typed it, n8n made it from its own address. `alternative` is what else
 * the user can do.
 */
export function refusedTriggerUrlError(
  node: INode,
  body: unknown,
  refusal: { url: string; test: boolean; reason: string; alternative?: string },
): NodeApiError {
  const shown = refusal.test ? 'Test URL' : 'Production URL';
  return new NodeApiError(node, (body ?? {}) as JsonObject, {
    message: `The DevData server refuses this trigger's ${shown}: ${refusal.reason}`,
    description: `It refused ${refusal.url}. The server calls only addresses it is allowed to: https at a public address (a devdata-server started with DEVDATA_ALLOW_LOOPBACK_WEBHOOKS=1 also loopback, for development). The trigger's URLs start with n8n's N8N_WEBHOOK_URL (WEBHOOK_URL on n8n 1.x): set it to such an address at which the server reaches this n8n (a tunnel, say), restart n8n and publish the workflow again${refusal.alternative ? `, or ${refusal.alternative}` : ''}.`,
    httpCode: '422',
    failure: { cause: 'configuration-invalid' },
  });
}

/** `["body", "action_items", 3, "due_at"]` → `body.action_items[3].due_at`. */
function formatLoc(loc: Array<string | number>): string {
  return loc.reduce<string>(
    (path, part) => (typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${part}` : part),
    '',
  );
}

function detailText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' && body ? body : undefined;
  const detail = (body as IDataObject).detail;
  if (typeof detail === 'string') return detail;
  if (isIssueList(detail)) return detail.map((i) => `${formatLoc(i.loc)}: ${i.msg}`).join('; ');
  return undefined;
}

/**
 * Turns a non-2xx answer of the DevData server into a NodeApiError whose message says what to do and whose
 * description is the server's own `detail`.
 */
export function devDataApiError(
  node: INode,
  status: number,
  body: unknown,
  context: FailureContext,
): NodeApiError {
  const detail = detailText(body);
  const errorResponse = (
    typeof body === 'object' && body !== null ? body : { detail: detail ?? '' }
  ) as JsonObject;
  let itemIndex = context.itemIndex;
  let message: string;
  let description = detail;
  let failure: NodeApiError['failure'];

  if (isMissingEndpoint(status, detail)) {
    return new NodeApiError(node, errorResponse, {
      message: `The server at the Base URL does not offer this operation (HTTP ${status})`,
      description: `${detail ?? 'No such endpoint'}. ${missingEndpointAdvice(context)}`,
      httpCode: String(status),
      itemIndex,
      failure: { cause: 'configuration-invalid' },
    });
  }

  switch (status) {
    case 401:
      message =
        context.credentialType === 'devDataAppApi'
          ? 'Authorization failed: check the App ID and App Secret of the DevData App API credential'
          : 'Authorization failed: check the Developer Key of the DevData Developer API credential';
      failure = { cause: 'credential-invalid' };
      break;
    case 403: {
      const scope = /Required scope: (\S+)/.exec(detail ?? '')?.[1];
      message = scope
        ? `Forbidden: the developer key lacks the "${scope}" scope`
        : `Forbidden: ${detail ?? 'the developer key may not do this'}`;
      description = scope
        ? `${detail}. Create a developer key that holds the ${scope} scope and put it in the credential.`
        : detail;
      failure = { cause: 'credential-invalid' };
      break;
    }
    case 404: {
      const missing = missingRecord(detail, context);
      message = missing
        ? `${missing.thing} not found: no ${missing.thing.toLowerCase()} with ID "${missing.id}" exists for this user`
        : (detail ?? 'Not found');
      if (missing?.referenced)
        description = `${detail}: the ${missing.thing.toLowerCase()} this item refers to does not exist. Choose it from the list, or give its ID (not its name).`;
      if (context.credentialType === 'devDataAppApi') {
        // The server's detail ("User not found") does not say which of the items' users it is.
        if (context.id !== undefined) message = `${message} (User ID "${context.id}")`;
        description = `${detail ?? 'Not found'}. Check the User ID, and that this user has installed the app of the credential's App ID.`;
      }
      failure = { cause: 'configuration-invalid' };
      break;
    }
    case 422: {
      const issues = isIssueList((body as IDataObject | null)?.detail)
        ? ((body as IDataObject).detail as ValidationIssue[])
        : [];
      const first = issues[0];
      if (first && context.batchItemIndex) itemIndex = context.batchItemIndex(first.loc) ?? itemIndex;
      // A batch names the input item the refused entry came from; a single item's request is that item.
      message = issues.length
        ? itemMessage(
            `Invalid input: ${issues.map((i) => `${formatLoc(i.loc)}: ${i.msg}`).join('; ')}`,
            context.batchItemIndex ? itemIndex : undefined,
          )
        : `Invalid input: ${detail ?? 'the server refused the request'}`;
      failure = { cause: 'configuration-invalid' };
      break;
    }
    case 429:
      message =
        context.retries !== undefined && context.retries > 0
          ? `Rate limit exceeded: still limited after ${context.retries} retries`
          : 'Rate limit exceeded';
      // What to do: wait as long as the server asks (the hourly notification cap's detail does not say how long).
      description = `${detail ?? 'Too many requests'}. ${
        context.retryAfterSeconds === undefined
          ? `${RUN_AGAIN} in a moment.`
          : `${RUN_AGAIN} in ${waitText(context.retryAfterSeconds)} (the server's Retry-After), not before.`
      }`;
      failure = { cause: 'rate-limited' };
      break;
    case 503:
      message =
        context.retries !== undefined && context.retries > 0
          ? `The DevData server is temporarily unavailable: still unavailable after ${context.retries} retries`
          : 'The DevData server is temporarily unavailable';
      // retries is unset for a create or delete, which the node never repeats (see request.ts); 0 for a read or an
      // update when the Retry-After was longer than the node waits.
      description =
        context.retries === undefined
          ? `${detail ?? 'Service unavailable'}. The server may have made the change before it lost its database: check whether it did before you run the workflow again.`
          : context.retries === 0 && context.retryAfterSeconds !== undefined
            ? `${detail ?? 'Service unavailable'}. ${RUN_AGAIN} in ${waitText(context.retryAfterSeconds)} (the server's Retry-After), not before.`
            : `${detail ?? 'Service unavailable'}. ${RUN_AGAIN} in a moment, or turn on Retry On Fail in the node's settings.`;
      failure = { cause: 'temporarily-unavailable' };
      break;
    default:
      message =
        status >= 500
          ? `The DevData server failed to handle the request (HTTP ${status})`
          : `The DevData server refused the request (HTTP ${status})${detail ? `: ${detail}` : ''}`;
      if (status >= 500) failure = { cause: 'temporarily-unavailable' };
  }

  return new NodeApiError(node, errorResponse, {
    message,
    description,
    httpCode: String(status),
    itemIndex,
    failure,
  });
}

const CREDENTIAL_NAMES: Record<DevDataCredentialType, string> = {
  devDataApi: 'DevData Developer API',
  devDataAppApi: 'DevData App API',
};

/** A JSON media type: application/json, or a +json one such as application/problem+json. */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/;

/** The media type an answer named, without its parameters (e.g. "text/html"), or undefined if it named none. */
function mediaTypeOf(headers: IDataObject | undefined): string | undefined {
  const value = headers?.['content-type'];
  const mediaType = String(Array.isArray(value) ? value[0] : (value ?? ''))
    .split(';')[0]
    .trim()
    .toLowerCase();
  return mediaType || undefined;
}

/**
 * Whether an answer carries something other than the JSON every DevData answer carries: a web page or plain text,
 * as a server that is not DevData answers (n8n itself answers any path with its editor's page). The node sends
 * `json: true`, so a JSON body arrives parsed and any other body as a string. An empty body (a 204) is not foreign.
 */
export function isForeignAnswer(headers: IDataObject | undefined, body: unknown): boolean {
  if (typeof body !== 'string' || body.trim() === '') return false;
  return !JSON_MEDIA_TYPE.test(mediaTypeOf(headers) ?? '');
}

/** The request that got a foreign answer, and the answer's status and headers (never its body). */
export interface ForeignAnswer {
  method: string;
  /** The path below the Base URL, e.g. `/v1/dev/user/goals`. */
  path: string;
  baseUrl: string;
  status: number;
  headers: IDataObject | undefined;
}

/**
 * An answer that is not DevData's JSON (see isForeignAnswer): names the Base URL and what it answered (status and
 * content type, not the page itself), and says to check the Base URL.
 */
export function foreignAnswerError(
  node: INode,
  answer: ForeignAnswer,
  context: Pick<FailureContext, 'credentialType' | 'itemIndex'>,
): NodeApiError {
  const mediaType = mediaTypeOf(answer.headers);
  const what = mediaType ?? 'no content type';
  const elsewhere =
    answer.status >= 500
      ? 'the Base URL may be the address of another server, such as n8n itself, or of a proxy whose DevData server is down'
      : 'the Base URL may be the address of another server, such as n8n itself';
  return new NodeApiError(node, { detail: `HTTP ${answer.status}, ${what}` } as JsonObject, {
    message: `The server at ${answer.baseUrl} did not answer as a DevData server (HTTP ${answer.status}, ${what})`,
    description: `${answer.method} ${answer.path} answered with ${mediaType ?? 'a body without a content type'} where a DevData server answers with JSON: ${elsewhere}. Check the Base URL in the ${CREDENTIAL_NAMES[context.credentialType]} credential: the DevData server's address only, e.g. http://127.0.0.1:8080 for a self-hosted devdata-server, with the right port.`,
    httpCode: String(answer.status),
    itemIndex: context.itemIndex,
    failure: { cause: answer.status >= 500 ? 'temporarily-unavailable' : 'configuration-invalid' },
  });
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'Nothing accepted the connection at this address',
  ENOTFOUND: 'The host name could not be found',
  EAI_AGAIN: 'The host name could not be looked up',
  ETIMEDOUT: 'The server did not answer in time',
  ECONNABORTED: 'The server did not answer in time',
  ECONNRESET: 'The connection was closed before the server answered',
  EHOSTUNREACH: 'The host cannot be reached from n8n',
};

/**
 * The system error code of a request that got no answer (ECONNREFUSED, ENOTFOUND, …), wherever n8n put it. Other
 * codes (a TLS certificate refused, an invalid URL) are not "unreachable": n8n's own error says what they are.
 */
export function networkErrorCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause && typeof cause === 'object' && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(NETWORK_REASONS, code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A request that got no answer at all: names the Base URL tried and what to check, where n8n alone says
 * "ECONNREFUSED".
 */
export function unreachableError(
  node: INode,
  code: string,
  baseUrl: string,
  context: Pick<FailureContext, 'credentialType' | 'itemIndex'>,
): NodeApiError {
  const reason = NETWORK_REASONS[code] ?? 'The request got no answer';
  // The code stays out of the message and the error response: NodeApiError would replace the message with its
  // generic one for that code.
  return new NodeApiError(node, { detail: reason } as JsonObject, {
    message: `Could not reach the DevData server at ${baseUrl}`,
    description: `${reason} (${code}). Check the Base URL in the ${CREDENTIAL_NAMES[context.credentialType]} credential: the server's address only, e.g. http://127.0.0.1:8080 for a self-hosted devdata-server, with the right port. Check too that the server is running and that n8n can reach it.`,
    itemIndex: context.itemIndex,
    failure: { cause: 'temporarily-unavailable' },
  });
}

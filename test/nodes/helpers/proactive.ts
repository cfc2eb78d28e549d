// Workflows around the DevData Transcript Trigger, and signed calls to it.
import { createHmac } from 'node:crypto';
import type { INodeParameters } from 'n8n-workflow';
import type { TestServer } from '../../helpers/server';
import type { TestCredentials } from './credentials-helper';
import { DEVDATA_NODE_TYPE, DEVDATA_TRIGGER_NODE_TYPE } from './node-types';
import type { WorkflowJson } from './workflow';

export const TRIGGER_NODE = 'DevData Transcript Trigger';
export const REPLY_NODE = 'Proactive Reply';
/** The webhookId n8n gives the trigger node when it is added to a workflow. */
export const TRIGGER_WEBHOOK_ID = '6f1c1e0a-3d4b-4c55-9a1e-2b7d8c9e0f11';

export interface ProactiveWorkflowOptions {
  /** The trigger's parameters (registration, respond). */
  trigger?: INodeParameters;
  /** The Proactive Reply → Build node's parameters; no such node when null. */
  reply?: INodeParameters | null;
}

/** DevData Transcript Trigger → DevData (Proactive Reply → Build), as n8n exports it. */
export function proactiveWorkflow(options: ProactiveWorkflowOptions = {}): WorkflowJson {
  const reply =
    options.reply === undefined
      ? { prompt: '=Say hello to {{user_name}} about: {{ $json.transcript }}' }
      : options.reply;
  const nodes: WorkflowJson['nodes'] = [
    {
      id: 'b1a2c3d4-0001-4e5f-8a9b-0c1d2e3f4a01',
      name: TRIGGER_NODE,
      type: DEVDATA_TRIGGER_NODE_TYPE,
      typeVersion: 1,
      position: [0, 0],
      webhookId: TRIGGER_WEBHOOK_ID,
      parameters: options.trigger ?? {},
      credentials: { devDataAppApi: { id: 'cred-app', name: 'DevData App API account' } },
    },
  ];
  if (reply) {
    nodes.push({
      id: 'b1a2c3d4-0002-4e5f-8a9b-0c1d2e3f4a02',
      name: REPLY_NODE,
      type: DEVDATA_NODE_TYPE,
      typeVersion: 1,
      position: [220, 0],
      parameters: { resource: 'proactiveReply', operation: 'build', ...reply },
    });
  }
  return {
    name: 'DevData proactive',
    nodes,
    connections: reply ? { [TRIGGER_NODE]: { main: [[{ node: REPLY_NODE, type: 'main', index: 0 }]] } } : {},
  };
}

/** The DevData App API credential for `server`'s app, with its webhook signing secret unless told otherwise. */
export function appCredentials(
  server: Pick<TestServer, 'baseUrl' | 'init'>,
  webhookSecret: string = server.init.webhook_secret,
): TestCredentials {
  return {
    devDataAppApi: {
      baseUrl: server.baseUrl,
      appId: server.init.app_id,
      appSecret: server.init.app_secret,
      webhookSecret,
    },
  };
}

/** `t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`, computed here independently of the server. */
export function signature(secret: string, body: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

export interface PostedReply {
  status: number;
  body: any;
}

/** POSTs `body` (a string is sent as is) to `url` with `headers`, as DevData's dispatcher does. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<PostedReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: keep the text so the assertion shows it.
  }
  return { status: response.status, body: parsed };
}

// Workflows around the DevData node, and a devdata-server that records the requests it answers.
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import type { ServerConfig } from '../../../server/src/config';
import { startServer, type Dialect, type StartOptions, type TestServer } from '../../helpers/server';
import type { TestCredentials } from './credentials-helper';
import { DEVDATA_NODE_TYPE, MANUAL_TRIGGER_NODE_TYPE } from './node-types';
import { runWorkflow, type RunResult, type WorkflowJson } from './workflow';

export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  status: number;
  /** When the answer was sent (epoch ms). */
  answeredAt: number;
}

export interface NodeTestServer extends TestServer {
  /** Every request the server answered, in order (recorded by an onResponse hook). */
  requests: LoggedRequest[];
  /** The requests with this method whose path is `path` exactly. */
  requestsTo(method: string, path: string): LoggedRequest[];
}

/** Starts the real server in this process (on SQLite unless told otherwise) with a request log. */
export async function startNodeTestServer(
  config: Partial<ServerConfig> = {},
  { dialect = 'sqlite', connectVia }: { dialect?: Dialect; connectVia?: StartOptions['connectVia'] } = {},
): Promise<NodeTestServer> {
  const requests: LoggedRequest[] = [];
  const server = await startServer(dialect, config, {
    connectVia,
    beforeListen: (app) => {
      app.addHook('onResponse', async (request, reply) => {
        const url = new URL(request.url, 'http://server');
        requests.push({
          method: request.method,
          path: url.pathname,
          query: url.searchParams,
          status: reply.statusCode,
          answeredAt: Date.now(),
        });
      });
    },
  });
  return Object.assign(server, {
    requests,
    requestsTo: (method: string, path: string) =>
      requests.filter((r) => r.method === method && r.path === path),
  });
}

export const TRIGGER = 'When clicking ‘Execute workflow’';
export const NODE = 'DevData';

export interface DevDataWorkflowOptions {
  /** Items the trigger puts out (pinned data, as in a manual run with pinned data); one empty item if not set. */
  items?: Array<Record<string, any>>;
  /** The node's "On Error" setting. */
  onError?: INode['onError'];
  /** The credential the node uses; the developer API unless the operation is Notification → Send. */
  credential?: 'devDataApi' | 'devDataAppApi';
  /** Workflow settings, e.g. the timezone. */
  settings?: WorkflowJson['settings'];
}

/** A workflow as n8n exports it: Manual Trigger → DevData with `parameters`. */
export function devDataWorkflow(
  parameters: INodeParameters,
  options: DevDataWorkflowOptions = {},
): WorkflowJson {
  const credential =
    options.credential ??
    (parameters.resource === 'notification' && parameters.operation === 'send'
      ? 'devDataAppApi'
      : 'devDataApi');
  return {
    name: `DevData ${String(parameters.resource)} ${String(parameters.operation)}`,
    nodes: [
      {
        id: 'c4a5a7d2-0001-4d7e-9a43-6f0a7b1c0001',
        name: TRIGGER,
        type: MANUAL_TRIGGER_NODE_TYPE,
        typeVersion: 1,
        position: [0, 0],
        parameters: {},
      },
      {
        id: 'c4a5a7d2-0002-4d7e-9a43-6f0a7b1c0002',
        name: NODE,
        type: DEVDATA_NODE_TYPE,
        typeVersion: 1,
        position: [220, 0],
        parameters: parameters as INodeParameters,
        credentials: { [credential]: { id: 'cred-1', name: 'DevData account' } },
        ...(options.onError ? { onError: options.onError } : {}),
      },
    ],
    connections: { [TRIGGER]: { main: [[{ node: NODE, type: 'main', index: 0 }]] } },
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.items
      ? { pinData: { [TRIGGER]: options.items.map((json) => ({ json: json as IDataObject })) } }
      : {}),
  };
}

/** Credentials for both credential types, pointing at `server` with its init key and app. */
export function credentialsFor(
  server: TestServer,
  developerKey = server.init.developer_key,
): TestCredentials {
  return {
    devDataApi: { baseUrl: server.baseUrl, apiKey: developerKey },
    devDataAppApi: { baseUrl: server.baseUrl, appId: server.init.app_id, appSecret: server.init.app_secret },
  };
}

/** Runs Manual Trigger → DevData against `server` and returns the run. */
export async function runDevData(
  server: TestServer,
  parameters: Record<string, any>,
  options: DevDataWorkflowOptions & { credentials?: TestCredentials } = {},
): Promise<RunResult> {
  return await runWorkflow(
    devDataWorkflow(parameters, options),
    options.credentials ?? credentialsFor(server),
  );
}

/** The DevData node's output items' json, failing the test with the node's error if it failed. */
export function jsonOut(result: RunResult, outputIndex = 0): Array<Record<string, any>> {
  if (result.error)
    throw new Error(`The workflow failed: ${result.error.message} (${result.error.description ?? ''})`);
  return result.output(NODE, outputIndex).map((item) => item.json);
}

// Runs a real n8n workflow (the JSON n8n exports) through n8n-core's execution engine: WorkflowExecute runs
// every node as n8n does, the DevData node makes real HTTP requests, and credentials come from the test.
import { randomUUID } from 'node:crypto';
import { ExecutionLifecycleHooks, ExternalSecretsProxy, WorkflowExecute } from 'n8n-core';
import type {
  IConnections,
  INode,
  INodeExecutionData,
  IPinData,
  IRun,
  IWorkflowBase,
  IWorkflowExecuteAdditionalData,
  IWorkflowSettings,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { CredentialsHelper, type TestCredentials } from './credentials-helper';
import { NodeTypes } from './node-types';

/** A workflow as n8n exports it (Download / the public API), optionally with pinned trigger data. */
export interface WorkflowJson {
  name?: string;
  nodes: INode[];
  connections: IConnections;
  settings?: IWorkflowSettings;
  pinData?: IPinData;
}

export interface RunResult {
  run: IRun;
  /** Items a node put out on one of its outputs (0: main or success, 1: the error output) in its last run. */
  output(nodeName: string, outputIndex?: number): INodeExecutionData[];
  /** The error that stopped the workflow, if one did. */
  error: IRun['data']['resultData']['error'];
  /** The error a node ended with (a node that failed without Continue On Fail). */
  nodeError(nodeName: string): IRun['data']['resultData']['error'];
}

const URL_BASE = 'http://localhost:5678';

// n8n's logger reports every node error on stdout; the tests assert errors themselves (N8N_LOG_LEVEL=info
// shows them again).
process.env.N8N_LOG_LEVEL ??= 'silent';

/** What n8n passes to every node execution, with what a test run needs and nothing it does not. */
export function additionalDataFor(
  workflow: IWorkflowBase,
  credentials: TestCredentials,
  executionId: string,
): IWorkflowExecuteAdditionalData {
  const notAvailable = (what: string) => async () => {
    throw new Error(`${what} is not available in node tests`);
  };
  return {
    credentialsHelper: new CredentialsHelper(credentials),
    hooks: new ExecutionLifecycleHooks('manual', executionId, workflow),
    externalSecretsProxy: new ExternalSecretsProxy(),
    executeWorkflow: notAvailable('executeWorkflow'),
    getRunExecutionData: async () => undefined,
    getRuntimeCredential: async () => undefined,
    startRunnerTask: notAvailable('The task runner'),
    logAiEvent: () => {},
    currentNodeExecutionIndex: 0,
    variables: {},
    restApiUrl: `${URL_BASE}/rest`,
    instanceBaseUrl: `${URL_BASE}/`,
    formBaseUrl: `${URL_BASE}/form`,
    formWaitingBaseUrl: `${URL_BASE}/form-waiting`,
    formTestBaseUrl: `${URL_BASE}/form-test`,
    webhookBaseUrl: `${URL_BASE}/webhook`,
    webhookWaitingBaseUrl: `${URL_BASE}/webhook-waiting`,
    webhookTestBaseUrl: `${URL_BASE}/webhook-test`,
    mcpBaseUrl: `${URL_BASE}/mcp`,
    mcpTestBaseUrl: `${URL_BASE}/mcp-test`,
  };
}

/** Runs `json` from its trigger, as clicking "Execute workflow" in n8n does, and returns what every node did. */
export async function runWorkflow(json: WorkflowJson, credentials: TestCredentials): Promise<RunResult> {
  const workflowData: IWorkflowBase = {
    id: 'test-workflow',
    name: json.name ?? 'test',
    active: false,
    isArchived: false,
    activeVersionId: null,
    nodes: json.nodes,
    connections: json.connections,
    settings: { executionOrder: 'v1', ...json.settings },
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const workflow = new Workflow({
    id: workflowData.id,
    name: workflowData.name,
    nodes: workflowData.nodes,
    connections: workflowData.connections,
    settings: workflowData.settings,
    active: false,
    nodeTypes: new NodeTypes(),
  });
  const additionalData = additionalDataFor(workflowData, credentials, randomUUID());
  const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow, pinData: json.pinData });
  return toRunResult(run);
}

/** What a finished execution did, node by node. */
export function toRunResult(run: IRun): RunResult {
  const lastRun = (nodeName: string) => run.data.resultData.runData[nodeName]?.at(-1);
  return {
    run,
    error: run.data.resultData.error,
    output: (nodeName, outputIndex = 0) => {
      const task = lastRun(nodeName);
      if (!task) throw new Error(`Node "${nodeName}" did not run`);
      return task.data?.main?.[outputIndex] ?? [];
    },
    nodeError: (nodeName) => lastRun(nodeName)?.error,
  };
}

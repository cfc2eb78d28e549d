// Serves a workflow's webhook nodes the way n8n does, over real HTTP on the loopback: n8n's CLI (which runs
// webhooks in a real instance) is not a package we can import, so this is a small node:http server that does
// what its webhook handler does (packages/cli/src/webhooks/webhook-helpers.ts, executeWebhook) with the real
// pieces from n8n-core: the raw body is read and JSON bodies parsed as n8n's body parser does; the node's
// webhook() runs in n8n-core's WebhookContext; responseMode and responseData come from the node's webhook
// description, evaluated by n8n's expression engine against the node's parameters; a workflow started by the
// call runs in WorkflowExecute from the webhook node's output; "onReceived" answers at once and "lastNode" with
// the first item of the last node. Activation runs the node's webhookMethods in n8n-core's HookContext, as n8n's
// ActiveWorkflowManager does (checkExists, then create when missing; delete on deactivation).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
  IDataObject,
  IHttpRequestMethods,
  INode,
  IWebhookData,
  IWebhookResponseData,
  IWorkflowBase,
  IWorkflowExecuteAdditionalData,
  WebhookSetupMethodNames,
  WorkflowActivateMode,
  WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';
import type { TestCredentials } from './credentials-helper';
import { NodeTypes } from './node-types';
import { additionalDataFor, toRunResult, type RunResult, type WorkflowJson } from './workflow';

/** One HTTP call a webhook answered, and what it started. */
export interface WebhookCall {
  method: string;
  path: string;
  status: number;
  /** The workflow execution the call started, once finished; undefined when it started none. */
  execution?: Promise<RunResult>;
}

export interface ServedWorkflow {
  /** `http://127.0.0.1:<port>`: n8n's instance base here. */
  baseUrl: string;
  /** The URL n8n gives a webhook node (getNodeWebhookUrl('default')): production, or test in manual mode. */
  webhookUrl(nodeName?: string): string;
  /** Every call made to a webhook, in order. */
  calls: WebhookCall[];
  /** The executions webhook calls started, once finished, in order. */
  executions(): Promise<RunResult[]>;
  /** Activates the workflow as n8n does: per webhook, checkExists, and create when it answers false. */
  activate(activation?: WorkflowActivateMode): Promise<void>;
  /** Deactivates it: delete, per webhook. */
  deactivate(): Promise<void>;
  /** A webhook node's static data, as its webhookMethods and webhook() read and write it. */
  staticData(nodeName?: string): IDataObject;
  /** Runs one of a webhook node's webhookMethods in a HookContext and returns what it returned. */
  runHook(method: WebhookSetupMethodNames, nodeName?: string): Promise<boolean | undefined>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** 'webhook' serves the production URLs (/webhook/…); 'manual' the test URLs (/webhook-test/…). */
  mode?: 'webhook' | 'manual';
  /** The workflow's id: the same for a published workflow and a test run of it, as in n8n. */
  workflowId?: string;
}

type Request = IncomingMessage & {
  rawBody: Buffer;
  body: unknown;
  query: Record<string, string | string[]>;
  params: Record<string, string>;
  contentType: string;
  header(name: string): string | undefined;
};

type Response = ServerResponse & {
  status(code: number): Response;
  json(body: unknown): Response;
  send(body?: unknown): Response;
};

/** The parts of an Express response a node uses (status, json, send), on node:http's response. */
function expressResponse(res: ServerResponse): Response {
  const response = res as Response;
  response.status = (code) => {
    response.statusCode = code;
    return response;
  };
  response.json = (body) => {
    if (!response.headersSent) response.setHeader('content-type', 'application/json; charset=utf-8');
    response.end(JSON.stringify(body));
    return response;
  };
  response.send = (body) => {
    if (body === undefined || body === null) response.end();
    else if (Buffer.isBuffer(body)) response.end(body);
    else if (typeof body === 'string') {
      if (!response.headersSent) response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(body);
    } else response.json(body);
    return response;
  };
  return response;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts serving `json`'s webhook nodes with `credentials`. */
export async function serveWorkflow(
  json: WorkflowJson,
  credentials: TestCredentials,
  options: ServeOptions = {},
): Promise<ServedWorkflow> {
  const mode: WorkflowExecuteMode = options.mode ?? 'webhook';
  const isTest = mode === 'manual';
  const workflowData: IWorkflowBase = {
    id: options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`,
    name: json.name ?? 'test',
    active: !isTest,
    isArchived: false,
    activeVersionId: null,
    nodes: json.nodes,
    connections: json.connections,
    settings: { executionOrder: 'v1', ...json.settings },
    staticData: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const nodeTypes = new NodeTypes();
  const toWorkflow = () =>
    new Workflow({
      id: workflowData.id,
      name: workflowData.name,
      nodes: workflowData.nodes,
      connections: workflowData.connections,
      settings: workflowData.settings,
      staticData: workflowData.staticData,
      active: workflowData.active,
      nodeTypes,
    });

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const prefix = isTest ? '/webhook-test/' : '/webhook/';

  const additionalData = (): IWorkflowExecuteAdditionalData => {
    const data = additionalDataFor(workflowData, credentials, randomUUID());
    return {
      ...data,
      instanceBaseUrl: `${baseUrl}/`,
      restApiUrl: `${baseUrl}/rest`,
      webhookBaseUrl: `${baseUrl}/webhook`,
      webhookTestBaseUrl: `${baseUrl}/webhook-test`,
      webhookWaitingBaseUrl: `${baseUrl}/webhook-waiting`,
    };
  };

  /** The webhooks of every enabled node, as n8n's WebhookService.getNodeWebhooks computes them. */
  const webhooksOf = (workflow: Workflow, data: IWorkflowExecuteAdditionalData): IWebhookData[] =>
    Object.values(workflow.nodes).flatMap((node) => {
      if (node.disabled) return [];
      const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
      return (nodeType.description.webhooks ?? []).flatMap((description) => {
        const path = workflow.expression.getSimpleParameterValue(node, description.path, mode, {});
        if (path === undefined) return [];
        const isFullPath = workflow.expression.getSimpleParameterValue(
          node,
          description.isFullPath,
          'internal',
          {},
          undefined,
          false,
        ) as boolean;
        const httpMethod = workflow.expression.getSimpleParameterValue(
          node,
          description.httpMethod,
          mode,
          {},
          undefined,
          'GET',
        ) as IHttpRequestMethods;
        return [
          {
            httpMethod,
            node: node.name,
            path: NodeHelpers.getNodeWebhookPath(workflow.id, node, String(path), isFullPath),
            webhookDescription: description,
            workflowId: workflow.id,
            workflowExecuteAdditionalData: data,
            webhookId: node.webhookId,
            isTest,
          },
        ];
      });
    });

  const hookWorkflow = toWorkflow();
  const hookData = additionalData();
  const webhookFor = (nodeName?: string) => {
    const webhooks = webhooksOf(hookWorkflow, hookData);
    const webhook = nodeName ? webhooks.find((w) => w.node === nodeName) : webhooks[0];
    if (!webhook) throw new Error(`No webhook node ${nodeName ?? ''} in the workflow`);
    return webhook;
  };
  const runHook = async (method: WebhookSetupMethodNames, nodeName?: string, activation = 'activate') => {
    const webhook = webhookFor(nodeName);
    const node = hookWorkflow.getNode(webhook.node)!;
    const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
    const fn = nodeType.webhookMethods?.[webhook.webhookDescription.name]?.[method];
    if (!fn) return undefined;
    const hookMode: WorkflowExecuteMode = isTest ? 'manual' : 'trigger';
    const context = new HookContext(
      hookWorkflow,
      node,
      hookData,
      hookMode,
      (isTest ? 'manual' : activation) as WorkflowActivateMode,
      webhook,
    );
    return await fn.call(context);
  };

  const calls: WebhookCall[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', baseUrl);
    const response = expressResponse(res);
    const call: WebhookCall = { method: req.method ?? '', path: url.pathname, status: 0 };
    calls.push(call);
    res.on('finish', () => (call.status = res.statusCode));

    const workflow = toWorkflow();
    const data = additionalData();
    const webhook = webhooksOf(workflow, data).find(
      (w) => `${prefix}${w.path}` === url.pathname && w.httpMethod === req.method,
    );
    if (!webhook) {
      response.status(404).json({
        code: 404,
        message: `The requested webhook "${req.method} ${url.pathname}" is not registered.`,
      });
      return;
    }

    // n8n's rawBodyReader + parseBody: the bytes as sent, and JSON parsed from them. (n8n reads and parses the
    // body of every call to a version-1 node that has no "binaryData" option, whatever its content type.)
    const rawBody = await readBody(req);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const query: Record<string, string | string[]> = {};
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      query[key] = values.length > 1 ? values : values[0];
    }
    const request = Object.assign(req, {
      rawBody,
      body: {} as unknown,
      query,
      params: {},
      contentType,
      header: (name: string) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
    }) as Request;
    if (contentType === 'application/json' && rawBody.length > 0) {
      try {
        request.body = JSON.parse(rawBody.toString('utf8'));
      } catch (error) {
        response
          .status(422)
          .json({ code: 422, message: 'Failed to parse request body', hint: (error as Error).message });
        return;
      }
    }

    data.httpRequest = request as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
    data.httpResponse = response as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
    const node = workflow.getNode(webhook.node) as INode;
    const responseMode = workflow.expression.getSimpleParameterValue(
      node,
      webhook.webhookDescription.responseMode,
      mode,
      {},
      undefined,
      'onReceived',
    ) as string;
    const responseCode = workflow.expression.getSimpleParameterValue(
      node,
      webhook.webhookDescription.responseCode as string | undefined,
      mode,
      {},
      undefined,
      200,
    ) as number;
    const responseData = workflow.expression.getComplexParameterValue(
      node,
      webhook.webhookDescription.responseData,
      mode,
      {},
      undefined,
      'firstEntryJson',
    ) as string | undefined;

    const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
    let result: IWebhookResponseData;
    try {
      result = await nodeType.webhook!.call(
        new WebhookContext(workflow, node, data, mode, webhook, [], null),
      );
    } catch {
      response
        .status(500)
        .json({ code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' });
      return;
    }
    const answered = () => result.noWebhookResponse === true || res.headersSent || res.writableEnded;
    if (result.workflowData === undefined) {
      if (!answered())
        response
          .status(responseCode)
          .json(
            result.webhookResponse !== undefined
              ? result.webhookResponse
              : { message: 'Webhook call received' },
          );
      return;
    }

    const runExecutionData = createRunExecutionData({
      executionData: { nodeExecutionStack: [{ node, data: { main: result.workflowData }, source: null }] },
    });
    const execution = Promise.resolve(
      new WorkflowExecute(additionalData(), mode, runExecutionData).processRunExecutionData(workflow),
    ).then(toRunResult);
    call.execution = execution;

    if (responseMode === 'onReceived') {
      if (!answered()) {
        const body =
          responseData === 'noData'
            ? undefined
            : responseData
              ? responseData
              : result.webhookResponse !== undefined
                ? result.webhookResponse
                : { message: 'Workflow was started' };
        if (body === undefined) response.status(responseCode).end();
        else response.status(responseCode).send(body);
      }
      await execution;
      return;
    }
    if (responseMode !== 'lastNode')
      throw new Error(`The harness serves onReceived and lastNode, not ${responseMode}`);

    const run = await execution;
    if (answered()) return;
    const { lastNodeExecuted, runData } = run.run.data.resultData;
    const lastTask = lastNodeExecuted ? runData[lastNodeExecuted]?.at(-1) : undefined;
    if (run.error || lastTask?.error) {
      response.status(500).json({ message: 'Error in workflow' });
      return;
    }
    if (!lastTask) {
      response
        .status(responseCode)
        .json({ message: 'Workflow executed successfully but the last node did not return any data' });
      return;
    }
    const firstItem = lastTask.data?.main?.[0]?.[0];
    if (responseData === 'firstEntryJson') {
      if (!firstItem) response.status(500).json({ code: 0, message: 'No item to return was found' });
      else response.status(responseCode).json(firstItem.json);
      return;
    }
    response
      .status(responseCode)
      .json((lastTask.data?.main?.[0] ?? []).map((item) => item.json as IDataObject));
  };

  server.on('request', (req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) expressResponse(res).status(500).json({ message: error.message });
      else res.end();
    });
  });

  return {
    baseUrl,
    calls,
    webhookUrl: (nodeName) => `${baseUrl}${prefix}${webhookFor(nodeName).path}`,
    executions: async () =>
      await Promise.all(calls.flatMap((call) => (call.execution ? [call.execution] : []))),
    staticData: (nodeName) =>
      hookWorkflow.getStaticData('node', hookWorkflow.getNode(webhookFor(nodeName).node)!),
    runHook: async (method, nodeName) => await runHook(method, nodeName),
    activate: async (activation = 'activate') => {
      for (const webhook of webhooksOf(hookWorkflow, hookData)) {
        if (!(await runHook('checkExists', webhook.node, activation)))
          await runHook('create', webhook.node, activation);
      }
    },
    deactivate: async () => {
      for (const webhook of webhooksOf(hookWorkflow, hookData)) await runHook('delete', webhook.node);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

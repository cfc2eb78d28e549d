// The DevData node as an AI Agent's tool in a real n8n 2.x (issue 28): n8n's AI Agent with its OpenAI Chat Model
// pointed, through the credential's base URL, at a scripted OpenAI-compatible server on 127.0.0.1 that stands in
// for the LLM. The stand-in answers with the tool calls this test chooses (create an action item, search the
// action items, read a conversation with a 2,000-segment transcript), then a final message; n8n runs the DevData
// tools against a devdata-server process. The test checks what the model was offered, what it got back (the long
// conversation under 20 kB), and what the server holds afterwards. The same agent then works through n8n's MCP
// Client Tool connected to devdata-server's /mcp (Streamable HTTP, the developer key as bearer).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_NAME } from '../helpers/package.ts';
import {
  devdataApi,
  n8nCredentials,
  prepareN8n,
  Processes,
  serverRequests,
  startDevdataServer,
  tail,
  type DevdataServer,
  type N8nInstance,
} from './harness.ts';
import { DEV_CREDENTIAL } from './workflows.ts';

const WORKFLOW_ID = 'e2eAiAgentTools01';
const DEVDATA_TOOL = `${PACKAGE_NAME}.devDataTool`;
const ACTION_ITEM = 'Send Anna the slides from the design review';
const FINAL_ANSWER = 'I added the follow-up and found it in your action items.';

/** A chat completion request as the stand-in received it. */
interface ModelRequest {
  stream?: boolean;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: any } }>;
  messages: Array<{ role: string; content: any; tool_call_id?: string; tool_calls?: any[] }>;
}

/**
 * The scripted model: the n-th request (counted by the tool results it carries) gets the n-th step. A step is a
 * tool call by tool name and arguments, or the final text. Streams (SSE) when the request asks for it.
 */
function scriptedModel(steps: Array<{ tool: string; args: Record<string, unknown> } | { text: string }>) {
  const requests: ModelRequest[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no ${request.method} ${request.url} here` } }));
        return;
      }
      const parsed = JSON.parse(body) as ModelRequest;
      requests.push(parsed);
      const done = parsed.messages.filter((m) => m.role === 'tool').length;
      const step = steps[Math.min(done, steps.length - 1)];
      // The MCP Client Tool offers the server's tools prefixed with its node's name: call the one offered.
      const offered = (parsed.tools ?? []).map((t) => t.function.name);
      const toolName =
        'text' in step
          ? ''
          : (offered.find((name) => name === step.tool || name.endsWith(`_${step.tool}`)) ?? step.tool);
      const message =
        'text' in step
          ? { role: 'assistant', content: step.text }
          : {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${done}`,
                  type: 'function',
                  function: { name: toolName, arguments: JSON.stringify(step.args) },
                },
              ],
            };
      const finish = 'text' in step ? 'stop' : 'tool_calls';
      const base = { id: `chatcmpl-${requests.length}`, created: 1_764_000_000, model: 'scripted' };
      const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
      if (parsed.stream) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const delta =
          'text' in step
            ? { role: 'assistant', content: step.text }
            : {
                role: 'assistant',
                tool_calls: message.tool_calls!.map((call, index) => ({ index, ...call })),
              };
        const chunk = (choice: unknown, extra = {}) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [choice], ...extra })}\n\n`;
        response.write(chunk({ index: 0, delta, finish_reason: null }));
        response.write(chunk({ index: 0, delta: {}, finish_reason: finish }, { usage }));
        response.end('data: [DONE]\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
    });
  });
  return {
    requests,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Manual Trigger → AI Agent, with the OpenAI Chat Model and two DevData tools attached. */
function agentWorkflow() {
  let nodes = 0;
  const node = (name: string, type: string, typeVersion: number, parameters: object, extra = {}) => ({
    id: `a9e1c0de-0000-4000-8000-${String(++nodes).padStart(12, '0')}`,
    name,
    type,
    typeVersion,
    position: [nodes * 200, 0],
    parameters,
    ...extra,
  });
  const toAgent = () => ({ ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] });
  return {
    id: WORKFLOW_ID,
    name: 'E2E AI Agent with DevData tools',
    active: false,
    nodes: [
      node('Start', 'n8n-nodes-base.manualTrigger', 1, {}),
      node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3.1, {
        promptType: 'define',
        text: 'Add a follow-up: send Anna the slides from the design review. Then check it is in my action items.',
        options: { systemMessage: 'You manage the user’s action items with the tools you have.' },
      }),
      node(
        'OpenAI Chat Model',
        '@n8n/n8n-nodes-langchain.lmChatOpenAi',
        1.3,
        {
          model: { __rl: true, mode: 'id', value: 'scripted-model' },
          responsesApiEnabled: false,
          options: {},
        },
        { credentials: { openAiApi: { id: 'openAiStandIn001', name: 'Stand-in model' } } },
      ),
      node(
        'Create action item',
        DEVDATA_TOOL,
        1,
        {
          resource: 'actionItem',
          operation: 'create',
          description: "={{ $fromAI('description', 'What needs to be done, as one sentence', 'string') }}",
        },
        { credentials: DEV_CREDENTIAL },
      ),
      node(
        'Get conversation',
        DEVDATA_TOOL,
        1,
        {
          resource: 'conversation',
          operation: 'get',
          conversationId: {
            __rl: true,
            mode: 'id',
            value: "={{ $fromAI('conversationId', 'The ID of the conversation', 'string') }}",
          },
        },
        { credentials: DEV_CREDENTIAL },
      ),
      node(
        'Search action items',
        DEVDATA_TOOL,
        1,
        {
          resource: 'actionItem',
          operation: 'getAll',
          limit: 10,
          filters: { query: "={{ $fromAI('query', 'Words to find in the action items', 'string') }}" },
        },
        { credentials: DEV_CREDENTIAL },
      ),
    ],
    connections: {
      Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
      'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
      'Create action item': toAgent(),
      'Search action items': toAgent(),
      'Get conversation': toAgent(),
    },
    settings: { executionOrder: 'v1' },
  };
}

/** Manual Trigger → AI Agent with the OpenAI Chat Model and n8n's MCP Client Tool on devdata-server's /mcp. */
function mcpAgentWorkflow(mcpUrl: string) {
  return {
    id: MCP_WORKFLOW_ID,
    name: 'E2E AI Agent with the DevData MCP server',
    active: false,
    nodes: [
      {
        id: 'a9e1c0de-0000-4000-8001-000000000001',
        name: 'Start',
        type: 'n8n-nodes-base.manualTrigger',
        typeVersion: 1,
        position: [0, 0],
        parameters: {},
      },
      {
        id: 'a9e1c0de-0000-4000-8001-000000000002',
        name: 'AI Agent',
        type: '@n8n/n8n-nodes-langchain.agent',
        typeVersion: 3.1,
        position: [200, 0],
        parameters: {
          promptType: 'define',
          text: 'Add a follow-up: book the venue for the offsite. Then check it is in my action items.',
        },
      },
      {
        id: 'a9e1c0de-0000-4000-8001-000000000003',
        name: 'OpenAI Chat Model',
        type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
        typeVersion: 1.3,
        position: [200, 200],
        parameters: {
          model: { __rl: true, mode: 'id', value: 'scripted-model' },
          responsesApiEnabled: false,
          options: {},
        },
        credentials: { openAiApi: { id: 'openAiStandIn002', name: 'Stand-in model (MCP)' } },
      },
      {
        id: 'a9e1c0de-0000-4000-8001-000000000004',
        name: 'DevData MCP',
        type: '@n8n/n8n-nodes-langchain.mcpClientTool',
        typeVersion: 1.4,
        position: [400, 200],
        parameters: {
          endpointUrl: mcpUrl,
          serverTransport: 'httpStreamable',
          authentication: 'bearerAuth',
          include: 'selected',
          includeTools: ['create_action_item', 'get_action_items', 'get_conversation_by_id'],
        },
        credentials: { httpBearerAuth: { id: 'devdataMcpBearer1', name: 'DevData MCP key' } },
      },
    ],
    connections: {
      Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
      'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
      'DevData MCP': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
    },
    settings: { executionOrder: 'v1' },
  };
}

const MCP_WORKFLOW_ID = 'e2eAiAgentMcp0001';
const MCP_ACTION_ITEM = 'Book the venue for the offsite';
const processes = new Processes();
const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-agent-'));
/** The arguments of the Get conversation call: the id of the long conversation, known once it is made. */
const longConversation: { conversationId?: string } = {};
const model = scriptedModel([
  { tool: 'Create_action_item', args: { description: ACTION_ITEM } },
  { tool: 'Search_action_items', args: { query: 'Anna slides' } },
  { tool: 'Get_conversation', args: longConversation },
  { text: FINAL_ANSWER },
]);
/** The arguments of the MCP get_conversation_by_id call: the MCP user's long conversation, known once it is made. */
const mcpLongConversation: { conversation_id?: string } = {};
const mcpModel = scriptedModel([
  { tool: 'create_action_item', args: { description: MCP_ACTION_ITEM } },
  { tool: 'get_action_items', args: { query: 'venue offsite' } },
  { tool: 'get_conversation_by_id', args: mcpLongConversation },
  { text: FINAL_ANSWER },
]);
let devdata: DevdataServer;
let n8n: N8nInstance;
/** The developer key of the user the MCP agent works for (a user of its own, so both scenarios count alone). */
let mcpUserKey: string;

/** Makes a finished conversation with a 2,000-segment transcript for the key's user (a live session takes 500 a call). */
async function longConversationOf(token: string): Promise<string> {
  let conversationId = '';
  for (let batch = 0; batch < 4; batch++) {
    const appended = await devdataApi(devdata, '/v1/dev/user/transcripts/long-call/segments', {
      token,
      method: 'POST',
      body: {
        segments: Array.from({ length: 500 }, (_, i) => ({
          text: `Segment ${batch * 500 + i}: the plan, the budget, and who follows up with Anna next week.`,
          speaker: 'SPEAKER_00',
          is_user: i % 2 === 0,
          start: (batch * 500 + i) * 5,
          end: (batch * 500 + i) * 5 + 4,
        })),
      },
    });
    expect(appended.status).toBe(202);
    conversationId = appended.body.conversation_id;
  }
  // Finished, so the agent's Get Many tool lists it (lists answer completed conversations).
  const finished = await devdataApi(devdata, '/v1/dev/user/transcripts/long-call/finish', {
    token,
    method: 'POST',
  });
  expect(finished.status).toBe(200);
  return conversationId;
}

beforeAll(async () => {
  const modelUrl = await model.listen();
  const mcpModelUrl = await mcpModel.listen();
  devdata = await startDevdataServer(processes, workDir);
  const admin = { token: devdata.credentials.admin_token };
  const mcpUser = await devdataApi(devdata, '/v1/admin/users', {
    ...admin,
    method: 'POST',
    body: { name: 'mcp' },
  });
  const mcpKey = await devdataApi(devdata, `/v1/admin/users/${mcpUser.body.id}/keys`, {
    ...admin,
    method: 'POST',
    body: {
      name: 'mcp',
      scopes: ['action_items:read', 'action_items:write', 'conversations:read', 'conversations:write'],
    },
  });
  expect(mcpKey.status).toBe(201);
  mcpUserKey = mcpKey.body.key;
  longConversation.conversationId = await longConversationOf(devdata.credentials.developer_key);
  mcpLongConversation.conversation_id = await longConversationOf(mcpUserKey);
  const workflowsDir = join(workDir, 'workflows');
  mkdirSync(workflowsDir);
  const file = join(workflowsDir, 'agent.json');
  writeFileSync(file, JSON.stringify(agentWorkflow()));
  const mcpFile = join(workflowsDir, 'agent-mcp.json');
  writeFileSync(mcpFile, JSON.stringify(mcpAgentWorkflow(`${devdata.baseUrl}/mcp`)));
  n8n = await prepareN8n(processes, {
    workDir,
    credentials: [
      ...n8nCredentials(devdata.baseUrl, devdata.credentials),
      {
        id: 'openAiStandIn001',
        name: 'Stand-in model',
        type: 'openAiApi',
        data: { apiKey: 'sk-stand-in-not-secret', url: modelUrl },
      },
      {
        id: 'openAiStandIn002',
        name: 'Stand-in model (MCP)',
        type: 'openAiApi',
        data: { apiKey: 'sk-stand-in-not-secret', url: mcpModelUrl },
      },
      {
        id: 'devdataMcpBearer1',
        name: 'DevData MCP key',
        type: 'httpBearerAuth',
        data: { token: mcpUserKey },
      },
    ],
    workflowFiles: [file, mcpFile],
    publish: [],
  });
}, 900_000);

afterAll(async () => {
  await processes.stopAll();
  await model.close();
  await mcpModel.close();
});

test('the AI Agent creates an action item through the DevData tool, finds it with the search, reads a long conversation', async () => {
  let result: any;
  try {
    result = await n8n.execute(WORKFLOW_ID);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- devdata-server ---\n${tail(devdata.logFile, 20)}`);
  }
  expect(result.status).toBe('success');
  const runData = result.data.resultData.runData;
  expect(runData['AI Agent'].at(-1).data.main[0][0].json.output).toBe(FINAL_ANSWER);

  // The model was offered both tools, with the parameters' descriptions as their schema says.
  expect(model.requests).toHaveLength(4);
  const offered = Object.fromEntries(model.requests[0].tools!.map((t) => [t.function.name, t.function]));
  expect(Object.keys(offered).sort()).toEqual([
    'Create_action_item',
    'Get_conversation',
    'Search_action_items',
  ]);
  expect(offered.Create_action_item.parameters.properties.description).toMatchObject({
    type: 'string',
    description: 'What needs to be done, as one sentence',
  });
  expect(offered.Search_action_items.parameters.properties.query.description).toBe(
    'Words to find in the action items',
  );

  // What the server holds is exactly what the tool call asked for.
  const items = (await devdataApi(devdata, '/v1/dev/user/action-items?limit=1000')).body as any[];
  expect(items.map((i) => [i.description, i.completed])).toEqual([[ACTION_ITEM, false]]);

  // The search went to the server with the model's words, and its answer (the new item) reached the model.
  const searches = await serverRequests(devdata, 'GET', '/v1/dev/user/action-items');
  expect(
    searches.some((url) => new URL(url, devdata.baseUrl).searchParams.get('query') === 'Anna slides'),
  ).toBe(true);
  const toolResults = model.requests[3].messages
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  expect(toolResults).toHaveLength(3);
  expect(toolResults[0]).toContain(items[0].id);
  expect(toolResults[1]).toContain(items[0].id);
  expect(toolResults[1]).toContain(ACTION_ITEM);

  // The 2,000-segment conversation reached the model under 20 kB: simplified, the first 50 segments and the
  // count of the rest (the node's default).
  expect(Buffer.byteLength(toolResults[2])).toBeLessThan(20_000);
  expect(toolResults[2]).toContain(longConversation.conversationId);
  expect(toolResults[2]).toContain('Segment 49:');
  expect(toolResults[2]).not.toContain('Segment 50:');
  expect(toolResults[2]).toContain('"transcript_segments_omitted":1950');
});

test("the AI Agent does the same through n8n's MCP Client Tool on devdata-server's /mcp", async () => {
  const result = await n8n.execute(MCP_WORKFLOW_ID);
  expect(result.status).toBe('success');
  expect(result.data.resultData.runData['AI Agent'].at(-1).data.main[0][0].json.output).toBe(FINAL_ANSWER);

  expect(mcpModel.requests).toHaveLength(4);
  const offered = Object.fromEntries(mcpModel.requests[0].tools!.map((t) => [t.function.name, t.function]));
  expect(Object.keys(offered).sort()).toEqual([
    'DevData_MCP_create_action_item',
    'DevData_MCP_get_action_items',
    'DevData_MCP_get_conversation_by_id',
  ]);
  expect(offered.DevData_MCP_create_action_item.parameters.properties.description.description).toBe(
    'What is to be done (1–2000 characters)',
  );

  // The MCP user's items are exactly what the tool call asked for.
  const items = (await devdataApi(devdata, '/v1/dev/user/action-items?limit=1000', { token: mcpUserKey }))
    .body as any[];
  expect(items.map((i) => [i.description, i.completed])).toEqual([[MCP_ACTION_ITEM, false]]);
  const toolResults = mcpModel.requests[3].messages
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  expect(toolResults).toHaveLength(3);
  expect(toolResults[0]).toContain(items[0].id);
  expect(toolResults[1]).toContain(items[0].id);
  expect(toolResults[1]).toContain(MCP_ACTION_ITEM);
  // The 2,000-segment conversation through MCP: under 20 kB, the start of the transcript only, up to the segment
  // the answer says the next part starts at.
  expect(Buffer.byteLength(toolResults[2])).toBeLessThan(20_000);
  expect(toolResults[2]).toContain(mcpLongConversation.conversation_id);
  // (n8n may hand the tool's JSON text on inside a JSON string, its quotes escaped)
  expect(toolResults[2]).toMatch(/transcript_segments_total\\?":2000/);
  const next = Number(/transcript_next_segment_offset\\?":(\d+)/.exec(toolResults[2])?.[1]);
  expect(next).toBeGreaterThan(0);
  expect(toolResults[2]).toContain('Segment 0:');
  expect(toolResults[2]).toContain(`Segment ${next - 1}:`);
  expect(toolResults[2]).not.toContain(`Segment ${next}:`);
});

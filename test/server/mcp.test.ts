// The MCP endpoint (issue 28), driven by the official TypeScript SDK's client over real HTTP on both databases:
// the tools it lists, each tool against what the REST API stores and answers, refusals as tool results with the
// real service's error codes (scopes, bad arguments, unknown ids, the rate limit), a revoked key, the size of a
// long conversation's result, and generated hostile arguments.
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { allowedOriginsSetting } from '../../server/src/config';
import type { Scope } from '../../server/src/contract/scopes';
import { toolAnswer } from '../../server/src/mcp/budget';
import { HOSTILE_SEARCH_QUERIES, mcpToolCalls } from '../helpers/fuzz';
import { adminClient, client, devClient, newUser, ok, postMcp } from '../helpers/http';
import { startDatabaseProxy } from '../helpers/proxy';
import { DIALECTS, forSuite, PG_ADMIN_URL, startServer, type TestServer } from '../helpers/server';

const ERROR_CODES = [
  'invalid_arguments',
  'not_found',
  'authorization_denied',
  'rate_limited',
  'unavailable',
  'internal',
];

const TOOL_NAMES = [
  'complete_action_item',
  'create_action_item',
  'create_memory',
  'delete_action_item',
  'delete_memory',
  'edit_action_item',
  'edit_memory',
  'get_action_items',
  'get_conversation_by_id',
  'get_conversations',
  'get_goal',
  'get_goals',
  'get_memories',
  'get_people',
  'search_conversations',
  'search_memories',
];

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

/** An MCP client connected to `server`'s /mcp with `key` as bearer (and `origin`, as a browser page's client). */
async function connect(server: TestServer, key: string, path = '/mcp', origin?: string): Promise<Client> {
  const mcp = new Client({ name: 'devdata-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, server.baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...(origin && { origin }) } },
  });
  await mcp.connect(transport);
  return mcp;
}

async function call(mcp: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await mcp.callTool({ name, arguments: args })) as ToolResult;
}

/** The answer of a tool that succeeded. */
async function answer(mcp: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(mcp, name, args);
  expect({ name, isError: result.isError ?? false, content: result.structuredContent }).toMatchObject({
    isError: false,
  });
  expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** The refusal of a tool call: its error code and message, shown the same in the text. */
async function refusal(mcp: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await call(mcp, name, args);
  expect(result.isError).toBe(true);
  const error = result.structuredContent?.error as { code: string; message: string };
  expect(ERROR_CODES).toContain(error.code);
  expect(result.content[0].text).toBe(`${error.code}: ${error.message}`);
  return error;
}

/** How the SDK's client reports a 401 of the endpoint. */
const UNAUTHORIZED = { code: 401, message: expect.stringContaining('Invalid API Key') };

/** A JSON-RPC tools/call of create_memory with `id`, its content naming the id. */
const createMemoryCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'create_memory', arguments: { content: `Fact ${id}` } },
});

/** How the endpoint answers a body that is no JSON-RPC request, with `message` saying why. */
const invalidRequest = (message: string) => ({
  status: 400,
  body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${message}` } },
});

/**
 * A POST of `body` as JSON to `path` on `server`, by node:http to 127.0.0.1, with `headers`: a Host of another name
 * too (fetch sends the URL's), as a browser sends it to a server its page's name was pointed at.
 */
function postAs(server: TestServer, path: string, headers: Record<string, string>, body: unknown) {
  const text = JSON.stringify(body);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const sent = httpRequest(
      {
        host: '127.0.0.1',
        port: new URL(server.baseUrl).port,
        method: 'POST',
        path,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(text),
          ...headers,
        },
      },
      (reply) => {
        let answer = '';
        reply.setEncoding('utf8');
        reply.on('data', (chunk: string) => (answer += chunk));
        reply.on('end', () => resolve({ status: reply.statusCode ?? 0, body: JSON.parse(answer) }));
      },
    );
    sent.on('error', reject);
    sent.end(text);
  });
}

/** The 403 of a browser page's request from `origin` to `path`. */
const originRefused = (origin: string, path = '/mcp') => ({
  status: 403,
  body: {
    detail:
      `Origin '${origin}' may not use ${path}: a browser page is refused unless its origin is the server's own ` +
      'address or listed in DEVDATA_MCP_ALLOWED_ORIGINS (comma-separated)',
  },
});

/** The bytes of a tool result as sent: its text and structuredContent together, in UTF-8. */
const wireSize = (result: ToolResult) => Buffer.byteLength(JSON.stringify(result));

describe.each(DIALECTS)('MCP endpoint on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const admin = adminClient(server);
  const open: Client[] = [];
  const connected = async (key: string) => {
    const mcp = await connect(server, key);
    open.push(mcp);
    return mcp;
  };
  afterAll(async () => {
    await Promise.all(open.map((mcp) => mcp.close()));
  });

  /** A user with a key holding `scopes` (every scope when absent): its id, REST client and MCP client. */
  const userWith = async (scopes?: Scope[]) => {
    const user = await newUser(server, scopes);
    return { ...user, mcp: await connected(user.key) };
  };

  it('lists its tools, each with a description and described arguments', async () => {
    const { mcp } = await userWith();
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    // Each has a title a client shows a person (protocol 2025-06-18), also where a 2025-03-26 client looks for it,
    // and says of each hint what it is: an absent one reads as its default (destructive, not idempotent, open).
    for (const tool of tools)
      expect({ name: tool.name, title: tool.title, annotations: tool.annotations }).toEqual({
        name: tool.name,
        title: expect.stringMatching(/^[A-Z][a-z]+ [a-z ]+$/),
        annotations: {
          title: tool.title,
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: false,
        },
      });
    expect(new Set(tools.map((tool) => tool.title)).size).toBe(tools.length);
    expect(tools.find((tool) => tool.name === 'get_conversation_by_id')?.title).toBe('Read a conversation');
    for (const tool of tools) {
      expect(tool.description).toMatch(/Needs the key scope [a-z_]+:(read|write)\.$/);
      expect(tool.inputSchema.type).toBe('object');
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect({
          tool: tool.name,
          name,
          description: (property as { description?: string }).description,
        }).toEqual({
          tool: tool.name,
          name,
          description: expect.stringMatching(/\w{3}/),
        });
      }
    }
    // An argument that takes null says what null does: for an edit, no change (as the REST PATCH takes it), but
    // for an action item's due_at that the date is removed.
    for (const tool of tools)
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}))
        if (JSON.stringify(property).includes('"null"'))
          expect({
            tool: tool.name,
            name,
            description: (property as { description: string }).description,
          }).toEqual({
            tool: tool.name,
            name,
            description: expect.stringContaining('null'),
          });
    const argument = (tool: string, name: string) =>
      (
        tools.find((listed) => listed.name === tool)?.inputSchema.properties?.[name] as {
          description: string;
        }
      ).description;
    for (const name of ['content', 'category', 'visibility', 'tags'])
      expect(argument('edit_memory', name)).toMatch(/; null: no change$/);
    for (const name of ['description', 'completed'])
      expect(argument('edit_action_item', name)).toMatch(/; null: no change$/);
    expect(argument('edit_action_item', 'due_at')).toMatch(/; null removes it$/);
    // Both engines stem, so a query's words match in any form on either; a search falls back to any word, the
    // action item list's filter never (the search tests show both).
    for (const tool of ['search_conversations', 'search_memories'])
      expect(argument(tool, 'query')).toMatch(
        /those with every word, in any of its forms \(meetings finds meeting\), or when none has them all, those with any/,
      );
    expect(argument('get_action_items', 'query')).toMatch(
      /every word must match, in any of its forms \(meetings finds meeting\)/,
    );
    // Dates are described in words, not by zod's ~600-character regular expressions (the server checks them as
    // strictly: see the refusals of bad dates). What null means for each nullable argument takes about 100 bytes.
    // A client gives the model each tool's name, description and arguments; its title and hints are for the client.
    const modelReads = tools.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    }));
    expect(Buffer.byteLength(JSON.stringify(modelReads))).toBeLessThan(15_000);
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeLessThan(17_500);
    expect(JSON.stringify(tools)).not.toContain('pattern');
    // A date filter is told as a string or null, as due_at is, not as a union of two strings in a union with
    // null; and an integer is bounded only where the bound says something.
    for (const [tool, name] of [
      ['get_conversations', 'start_date'],
      ['search_conversations', 'end_date'],
      ['get_action_items', 'start_date'],
      ['create_action_item', 'due_at'],
    ]) {
      const { description, ...schema } = tools.find((listed) => listed.name === tool)!.inputSchema
        .properties![name] as Record<string, unknown>;
      expect({ tool, name, schema, description }).toEqual({
        tool,
        name,
        schema: { type: ['string', 'null'] },
        description: expect.stringContaining('null'),
      });
    }
    expect(JSON.stringify(tools)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const get = tools.find((tool) => tool.name === 'get_conversation_by_id');
    expect(get?.inputSchema.required).toEqual(['conversation_id']);
    expect(get?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((tool) => tool.name === 'delete_memory')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    // An edit, a completion or a delete repeated with the same arguments leaves the record as the first call left
    // it, so a client may retry one whose answer it lost; a create repeated makes a second record.
    const idempotent = tools
      .filter((tool) => tool.annotations?.readOnlyHint === false && tool.annotations.idempotentHint === true)
      .map((tool) => tool.name)
      .sort();
    expect(idempotent).toEqual([
      'complete_action_item',
      'delete_action_item',
      'delete_memory',
      'edit_action_item',
      'edit_memory',
    ]);
    // Only a create is "only additive updates", the protocol's destructiveHint false: an edit overwrites.
    const destructive = tools
      .filter((tool) => tool.annotations?.readOnlyHint === false && tool.annotations.destructiveHint === true)
      .map((tool) => tool.name)
      .sort();
    expect(destructive).toEqual(idempotent);
    for (const name of ['create_memory', 'create_action_item'])
      expect(tools.find((tool) => tool.name === name)?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
      });
  });

  it('reads conversations, goals and people as the REST API answers them', async () => {
    const user = await userWith();
    const rest = user.client;
    const anna = await rest.post('/v1/dev/user/people', { name: 'Anna' });
    expect(anna.status).toBe(200);
    const created = await rest.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [
        {
          text: 'Anna, I will send you the budget on Friday.',
          speaker: 'SPEAKER_00',
          is_user: true,
          start: 0,
          end: 4,
        },
        {
          text: 'Thanks, that works for me.',
          speaker: 'SPEAKER_01',
          person_id: anna.body.id,
          start: 4,
          end: 7,
        },
      ],
      structured: { title: 'Budget call with Anna' },
    });
    expect(created.status).toBe(200);
    const goal = await rest.post('/v1/dev/user/goals', {
      title: 'Run 100 km',
      goal_type: 'numeric',
      target_value: 100,
    });
    expect(goal.status).toBe(200);

    const listed = await answer(user.mcp, 'get_conversations', {});
    expect(listed.conversations).toEqual((await rest.get('/v1/dev/user/conversations')).body);
    expect(listed.conversations.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    const inRange = await answer(user.mcp, 'get_conversations', {
      start_date: '2000-01-01',
      end_date: '2001-01-01',
    });
    expect(inRange.conversations).toEqual([]);

    const one = await answer(user.mcp, 'get_conversation_by_id', { conversation_id: created.body.id });
    const { transcript_segments: segments, ...record } = (
      await rest.get(`/v1/dev/user/conversations/${created.body.id}`, { include_transcript: true })
    ).body;
    expect(one).toEqual({
      ...record,
      transcript_segments: segments.map(
        ({ text, speaker_name, speaker_id, person_id, is_user, start, end }: Record<string, unknown>) => ({
          text,
          speaker_name,
          speaker_id,
          ...(person_id === null ? {} : { person_id }),
          is_user,
          start,
          end,
        }),
      ),
      transcript_segments_total: 2,
      transcript_segment_offset: 0,
      transcript_next_segment_offset: null,
    });
    // Who said what, by the ids get_people answers.
    const people = (await answer(user.mcp, 'get_people')).people;
    expect(one.transcript_segments.map((segment: any) => [segment.speaker_id, segment.person_id])).toEqual([
      [0, undefined],
      [1, people.find((person: { name: string }) => person.name === 'Anna').id],
    ]);

    expect((await answer(user.mcp, 'get_goals')).goals).toEqual((await rest.get('/v1/dev/user/goals')).body);
    expect(await answer(user.mcp, 'get_goal', { goal_id: goal.body.id })).toEqual(goal.body);
    expect(await answer(user.mcp, 'get_people')).toEqual((await rest.get('/v1/dev/user/people')).body);
  });

  it('searches conversations, memories and action items as the REST search answers', async () => {
    const user = await userWith();
    const rest = user.client;
    for (const [title, text] of [
      ['Budget call with Anna', 'Anna, I will send you the quarterly budget on Friday.'],
      ['Train to Berlin', 'The train leaves at nine; bring the tickets.'],
    ]) {
      const made = await rest.post('/v1/dev/user/conversations', { text, structured: { title } });
      expect(made.status).toBe(200);
    }
    for (const content of ['Anna keeps the team budget', 'Likes trains']) {
      expect((await rest.post('/v1/dev/user/memories', { content })).status).toBe(200);
    }
    for (const description of ['Send Anna the budget', 'Buy train tickets']) {
      expect((await rest.post('/v1/dev/user/action-items', { description })).status).toBe(200);
    }

    const conversations = await answer(user.mcp, 'search_conversations', { query: 'budget Anna' });
    const restConversations = (await rest.get('/v1/dev/user/conversations/search', { query: 'budget Anna' }))
      .body;
    expect(conversations.results).toEqual(restConversations);
    expect(conversations.results.map((r: any) => r.conversation.structured.title)).toEqual([
      'Budget call with Anna',
    ]);
    expect(
      (await answer(user.mcp, 'search_conversations', { query: 'budget', end_date: '2000-01-01' })).results,
    ).toEqual([]);

    const memories = await answer(user.mcp, 'search_memories', { query: '"team budget"' });
    expect(memories.results).toEqual(
      (await rest.get('/v1/dev/user/memories/search', { query: '"team budget"' })).body,
    );
    expect(memories.results.map((r: any) => r.memory.content)).toEqual(['Anna keeps the team budget']);

    const items = await answer(user.mcp, 'get_action_items', { query: 'tickets' });
    expect(items.action_items).toEqual(
      (await rest.get('/v1/dev/user/action-items', { query: 'tickets' })).body,
    );
    expect(items.action_items.map((i: any) => i.description)).toEqual(['Buy train tickets']);

    expect(await refusal(user.mcp, 'search_memories', { query: '***' })).toEqual({
      code: 'invalid_arguments',
      message: expect.stringMatching(/^query: query needs at least one word/),
    });
    expect((await refusal(user.mcp, 'search_conversations', {})).message).toBe('query: required');
  });

  it("lists and finds a live session's conversation only with include_in_progress, and by default once finished", async () => {
    const user = await userWith();
    const rest = user.client;
    const made = await rest.post('/v1/dev/user/conversations', { text: 'Pelican migration, made whole' });
    const session = await rest.post('/v1/dev/user/transcripts/pelican-session/segments', {
      segments: [{ text: 'pelican migration live', start: 0, end: 1 }],
    });
    expect(session.status).toBe(202);
    const live = session.body.conversation_id;

    const shown = async (args: Record<string, unknown>) => {
      const listed = (await answer(user.mcp, 'get_conversations', args)).conversations;
      const found = (await answer(user.mcp, 'search_conversations', { query: 'pelican', ...args })).results;
      return {
        listed: listed.map((c: any) => [c.id, c.status]).sort(),
        found: found.map((r: any) => [r.conversation.id, r.conversation.status]).sort(),
      };
    };
    const done = [made.body.id, 'completed'];
    expect(await shown({})).toEqual({ listed: [done], found: [done] });
    expect(await shown({ include_in_progress: false })).toEqual({ listed: [done], found: [done] });
    const both = [[live, 'in_progress'], done].sort();
    expect(await shown({ include_in_progress: true })).toEqual({ listed: both, found: both });

    expect((await rest.post('/v1/dev/user/transcripts/pelican-session/finish')).status).toBe(200);
    const finished = [[live, 'completed'], done].sort();
    expect(await shown({})).toEqual({ listed: finished, found: finished });
  });

  it("answers the real service's eight MCP tools at its path, by its names, given the arguments its tools take", async () => {
    // At the real service's path too, as a client set up for it connects.
    const user = await userWith();
    const atItsPath = await connect(server, user.key, '/v1/mcp/sse');
    open.push(atItsPath);
    user.mcp = atItsPath;
    expect((await atItsPath.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES);
    const rest = user.client;
    const work = await ok(
      rest.post('/v1/dev/user/conversations', {
        text: 'We planned the pelican survey for the spring.',
        started_at: '2026-03-02T09:00:00Z',
        structured: { title: 'Pelican survey', category: 'work' },
      }),
    );
    await ok(
      rest.post('/v1/dev/user/conversations', {
        text: 'A pelican flew over the lake on our walk.',
        started_at: '2026-03-03T09:00:00Z',
        structured: { title: 'Walk', category: 'personal' },
      }),
    );
    // As its tools' input schemas give them: categories as arrays, dates as yyyy-mm-dd, limit and offset.
    const listed = await answer(user.mcp, 'get_conversations', {
      start_date: '2026-03-01',
      end_date: '2026-03-31',
      categories: ['work'],
      limit: 20,
      offset: 0,
    });
    expect(listed.conversations.map((c: { id: string }) => c.id)).toEqual([work.id]);
    const one = await answer(user.mcp, 'get_conversation_by_id', { conversation_id: work.id });
    expect(one).toMatchObject({ id: work.id, structured: { title: 'Pelican survey' } });
    const found = await answer(user.mcp, 'search_conversations', {
      query: 'pelican survey',
      start_date: '2026-03-01',
      end_date: '2026-03-02',
      limit: 10,
    });
    expect(found.results.map((r: { conversation: { id: string } }) => r.conversation.id)).toEqual([work.id]);

    const memory = await answer(user.mcp, 'create_memory', {
      content: 'Sam counts pelicans every spring',
      category: 'interesting',
    });
    expect(memory).toMatchObject({ content: 'Sam counts pelicans every spring', category: 'interesting' });
    const memories = await answer(user.mcp, 'get_memories', {
      categories: ['interesting'],
      limit: 100,
      offset: 0,
    });
    expect(memories.memories.map((m: { id: string }) => m.id)).toEqual([memory.id]);
    const edited = await answer(user.mcp, 'edit_memory', {
      memory_id: memory.id,
      content: 'Sam counts herons',
    });
    expect(edited).toMatchObject({ id: memory.id, content: 'Sam counts herons', edited: true });
    const searched = await answer(user.mcp, 'search_memories', { query: 'herons', limit: 10 });
    expect(searched.results.map((r: { memory: { id: string } }) => r.memory.id)).toEqual([memory.id]);
    expect(await answer(user.mcp, 'delete_memory', { memory_id: memory.id })).toEqual({ success: true });
    expect((await rest.get('/v1/dev/user/memories')).body).toEqual([]);
  });

  it("takes a null start_date or end_date as no bound, as the real service's tools do", async () => {
    const user = await userWith();
    await ok(user.client.post('/v1/dev/user/conversations', { text: 'The heron survey starts in May.' }));
    await ok(user.client.post('/v1/dev/user/action-items', { description: 'Count the herons' }));
    const noBounds = { start_date: null, end_date: null };
    for (const [name, args] of [
      ['get_conversations', {}],
      ['search_conversations', { query: 'heron' }],
      ['get_action_items', {}],
      ['get_action_items', { query: 'herons' }],
    ] as const) {
      const unbounded = await answer(user.mcp, name, args);
      expect(Object.values(unbounded)[0]).toHaveLength(1);
      expect({ name, answer: await answer(user.mcp, name, { ...args, ...noBounds }) }).toEqual({
        name,
        answer: unbounded,
      });
    }
  });

  it('takes null for an optional argument that takes no null of its own as that argument left out', async () => {
    const user = await userWith();
    const conversation = await ok(
      user.client.post('/v1/dev/user/conversations', { text: 'The heron survey starts in May.' }),
    );
    await ok(user.client.post('/v1/dev/user/action-items', { description: 'Count the herons' }));
    await ok(user.client.post('/v1/dev/user/memories', { content: 'Likes herons' }));
    // As a model sends them when its function calling makes every argument required, the optional ones nullable.
    const { tools } = await user.mcp.listTools();
    const nulls = (tool: string) =>
      Object.fromEntries(
        Object.keys(tools.find((listed) => listed.name === tool)?.inputSchema.properties ?? {}).map(
          (name) => [name, null],
        ),
      );
    for (const [name, args] of [
      ['get_conversations', {}],
      ['search_conversations', { query: 'heron' }],
      ['get_conversation_by_id', { conversation_id: conversation.id }],
      ['get_memories', {}],
      ['search_memories', { query: 'herons' }],
      ['get_action_items', {}],
      ['get_goals', {}],
      ['get_people', {}],
    ] as const) {
      const left = await answer(user.mcp, name, args);
      expect({ name, answer: await answer(user.mcp, name, { ...nulls(name), ...args }) }).toEqual({
        name,
        answer: left,
      });
    }
    const made = await answer(user.mcp, 'create_memory', {
      ...nulls('create_memory'),
      content: 'Likes owls',
    });
    expect(made).toMatchObject({
      content: 'Likes owls',
      category: 'manual',
      visibility: 'private',
      tags: [],
    });
    const item = await answer(user.mcp, 'create_action_item', {
      ...nulls('create_action_item'),
      description: 'Count the owls',
    });
    expect(item).toMatchObject({ description: 'Count the owls', completed: false, due_at: null });
    // A required argument's null is still refused as what it is.
    expect(await refusal(user.mcp, 'search_memories', { ...nulls('search_memories') })).toEqual({
      code: 'invalid_arguments',
      message: 'query: expected a string, got null',
    });
  });

  it('creates, lists, updates and deletes memories, and what it writes is what REST reads', async () => {
    const user = await userWith();
    const created = await answer(user.mcp, 'create_memory', {
      content: 'Anna prefers tea to coffee',
      tags: ['anna'],
    });
    expect(created).toMatchObject({
      content: 'Anna prefers tea to coffee',
      category: 'manual',
      tags: ['anna'],
    });
    expect((await user.client.get('/v1/dev/user/memories')).body).toEqual([created]);
    expect((await answer(user.mcp, 'get_memories', { categories: ['manual'] })).memories).toEqual([created]);
    expect((await answer(user.mcp, 'get_memories', { categories: ['work'] })).memories).toEqual([]);

    const updated = await answer(user.mcp, 'edit_memory', {
      memory_id: created.id,
      content: 'Anna drinks green tea',
    });
    expect(updated).toMatchObject({
      id: created.id,
      content: 'Anna drinks green tea',
      edited: true,
      tags: ['anna'],
    });
    expect((await user.client.get('/v1/dev/user/memories')).body).toEqual([updated]);

    expect(await answer(user.mcp, 'delete_memory', { memory_id: created.id })).toEqual({ success: true });
    expect((await user.client.get('/v1/dev/user/memories')).body).toEqual([]);
    expect(await refusal(user.mcp, 'delete_memory', { memory_id: created.id })).toEqual({
      code: 'not_found',
      message: 'Memory not found',
    });
  });

  it('creates, lists, updates, completes and deletes action items', async () => {
    const user = await userWith();
    const created = await answer(user.mcp, 'create_action_item', {
      description: 'Send Anna the budget',
      due_at: '2026-12-04T17:00:00+01:00',
    });
    expect(created).toMatchObject({
      description: 'Send Anna the budget',
      completed: false,
      due_at: '2026-12-04T16:00:00.000Z',
    });
    const other = await answer(user.mcp, 'create_action_item', { description: 'Book the train' });
    expect((await user.client.get('/v1/dev/user/action-items')).body).toEqual([other, created]);
    expect((await answer(user.mcp, 'get_action_items', { limit: 1 })).action_items).toEqual([other]);

    const moved = await answer(user.mcp, 'edit_action_item', { action_item_id: created.id, due_at: null });
    expect(moved).toMatchObject({ id: created.id, due_at: null, completed: false });
    const done = await answer(user.mcp, 'complete_action_item', { action_item_id: created.id });
    expect(done).toMatchObject({ id: created.id, completed: true, completed_at: expect.any(String) });
    expect((await answer(user.mcp, 'get_action_items', { completed: true })).action_items).toEqual([done]);
    expect((await answer(user.mcp, 'get_action_items', { completed: false })).action_items).toEqual([other]);

    expect(await answer(user.mcp, 'delete_action_item', { action_item_id: other.id })).toEqual({
      success: true,
    });
    expect((await user.client.get('/v1/dev/user/action-items')).body).toEqual([done]);
  });

  it('refuses a missing scope as a tool result naming the scope, and changes nothing', async () => {
    const user = await userWith(['memories:read']);
    expect(await refusal(user.mcp, 'create_memory', { content: 'x' })).toEqual({
      code: 'authorization_denied',
      message: 'Insufficient permissions. Required scope: memories:write',
    });
    for (const [tool, scope] of [
      ['get_conversations', 'conversations:read'],
      ['search_conversations', 'conversations:read'],
      ['get_action_items', 'action_items:read'],
      ['complete_action_item', 'action_items:write'],
      ['get_goals', 'goals:read'],
      ['get_people', 'people:read'],
    ]) {
      // The scope is checked before the arguments, as on the REST routes.
      expect((await refusal(user.mcp, tool, { no_such: 1 })).message).toBe(
        `Insufficient permissions. Required scope: ${scope}`,
      );
    }
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    expect((await answer(user.mcp, 'get_memories')).memories).toEqual([]);
  });

  it('refuses bad arguments and unknown or foreign ids as tool results with their codes', async () => {
    const user = await userWith();
    const stranger = await userWith();
    const theirs = await answer(stranger.mcp, 'create_memory', { content: 'Not yours' });

    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['create_memory', {}, 'invalid_arguments', /^content: required$/],
      ['create_memory', { content: '   ' }, 'invalid_arguments', /^content: /],
      [
        'create_memory',
        { content: 'x', categroy: 'work' },
        'invalid_arguments',
        /Unknown field 'categroy'; did you mean 'category'\?/,
      ],
      ['create_memory', { content: 'a\u0000b' }, 'invalid_arguments', /^content: Text must not contain NUL/],
      ['create_memory', { content: 'x', category: 'nonsense' }, 'invalid_arguments', /^category: /],
      ['get_memories', { limit: 0 }, 'invalid_arguments', /^limit: /],
      ['get_memories', { limit: '5' }, 'invalid_arguments', /^limit: /],
      [
        'get_conversations',
        { start_date: 'last week' },
        'invalid_arguments',
        /^start_date: Expected a date such as 2026-11-21 \(that whole UTC day\) or an ISO 8601 date-time such as 2026-11-21T09:30:00Z$/,
      ],
      [
        'get_action_items',
        { end_date: '2026-02-30' },
        'invalid_arguments',
        /^end_date: Expected a date such as 2026-11-21/,
      ],
      [
        'edit_action_item',
        { action_item_id: 'x', due_at: '2026-11-21T24:00:00Z' },
        'invalid_arguments',
        /^due_at: Expected an ISO 8601 date-time/,
      ],
      [
        'create_action_item',
        { description: 'x', due_at: 'tomorrow' },
        'invalid_arguments',
        /^due_at: Expected an ISO 8601 date-time such as 2026-11-21T09:30:00Z or 2026-11-21T10:30:00\+01:00$/,
      ],
      ['get_conversation_by_id', { conversation_id: 'missing' }, 'not_found', /^Conversation not found$/],
      ['edit_memory', { memory_id: theirs.id, content: 'Mine now' }, 'not_found', /^Memory not found$/],
      ['get_goal', { goal_id: 'x'.repeat(101) }, 'invalid_arguments', /^goal_id: /],
      ['create_action_item', { description: 'x', conversation_id: 'missing' }, 'not_found', /not found$/],
      ['no_such_tool', {}, 'invalid_arguments', /^Unknown tool 'no_such_tool'/],
      // A name the caller sent is repeated cut short, not whole.
      ['t'.repeat(100_000), {}, 'invalid_arguments', /^Unknown tool 't{100}…'; tools: get_conversations, /],
      [
        'create_memory',
        { content: 'x', [`${'k'.repeat(100_000)}\u0000`]: 1 },
        'invalid_arguments',
        /^k{100}…: Text must not contain NUL/,
      ],
      // However many arguments are wrong, the refusal names ten and counts the rest.
      [
        'create_memory',
        { content: 'x', ...Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra${i}`, i])) },
        'invalid_arguments',
        /^(Unknown field 'extra\d+'; fields here: content, category, visibility, tags; ){10}and 490 more like these$/,
      ],
    ];
    for (const [tool, args, code, message] of cases) {
      const error = await refusal(user.mcp, tool, args);
      expect({ tool, args, code: error.code, message: error.message }).toEqual({
        tool,
        args,
        code,
        message: expect.stringMatching(message),
      });
    }
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    expect((await stranger.client.get('/v1/dev/user/memories')).body).toEqual([theirs]);
  });

  it('says what an argument of the wrong type should be and what it got, and "required" only when it is missing', async () => {
    const user = await userWith();
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_conversations', { query: 'roadmap', limit: '5' }, 'limit: expected an integer, got a string'],
      ['search_conversations', { query: 123 }, 'query: expected a string, got 123'],
      ['search_conversations', { limit: 5 }, 'query: required'],
      ['get_action_items', { completed: 'true' }, 'completed: expected true or false, got a string'],
      ['get_conversations', { limit: 1.5 }, 'limit: expected an integer, got 1.5'],
      ['get_memories', { categories: 'work' }, 'categories: expected an array, got a string'],
      ['create_memory', { content: 'x', tags: ['ok', 7] }, 'tags.1: expected a string, got 7'],
      ['edit_memory', { memory_id: null, content: 'x' }, 'memory_id: expected a string, got null'],
      ['edit_memory', { content: 'x' }, 'memory_id: required'],
      ['get_goal', { goal_id: { id: 'x' } }, 'goal_id: expected a string, got an object'],
      ['get_people', { x: 1 }, "Unknown field 'x'; fields here: offset"],
    ];
    for (const [tool, args, message] of cases) {
      const error = await refusal(user.mcp, tool, args);
      expect({ tool, args, error }).toEqual({ tool, args, error: { code: 'invalid_arguments', message } });
    }
  });

  it('answers arguments that are no object with a tool result, and GET and DELETE with 405', async () => {
    const { key } = await newUser(server);
    const reply = await postMcp(server, key, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_memories', arguments: [1] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: 'invalid_arguments: arguments must be an object' }],
        structuredContent: { error: { code: 'invalid_arguments', message: 'arguments must be an object' } },
        isError: true,
      },
    });
    for (const method of ['GET', 'DELETE']) {
      const refused = await client(server.baseUrl, key).raw(method, '/mcp', {
        headers: { authorization: `Bearer ${key}` },
      });
      expect({
        method,
        status: refused.status,
        allow: refused.headers.get('allow'),
        body: refused.body,
      }).toEqual({
        method,
        status: 405,
        allow: 'POST',
        body: { detail: `Method ${method} not allowed on /mcp; allowed: POST` },
      });
    }
  });

  it('answers a tool call alike alone and in a batch: null arguments as none, others of no object after the tool and its scope', async () => {
    const { key } = await newUser(server, ['goals:read']);
    const callWith = (name: string, args: unknown) => ({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const cases: [string, unknown, Record<string, unknown>][] = [
      ['get_goals', null, { goals: [] }],
      [
        'create_memory',
        [1],
        {
          error: {
            code: 'authorization_denied',
            message: 'Insufficient permissions. Required scope: memories:write',
          },
        },
      ],
      [
        'no_such_tool',
        'x',
        {
          error: {
            code: 'invalid_arguments',
            message: expect.stringMatching(/^Unknown tool 'no_such_tool'/),
          },
        },
      ],
      ['get_goals', 5, { error: { code: 'invalid_arguments', message: 'arguments must be an object' } }],
    ];
    for (const [name, args, structured] of cases) {
      const alone = await postMcp(server, key, callWith(name, args));
      const batched = await postMcp(server, key, [
        callWith(name, args),
        { jsonrpc: '2.0', id: 4, method: 'ping' },
      ]);
      expect({ name, args, alone: alone.body.result.structuredContent }).toEqual({
        name,
        args,
        alone: structured,
      });
      const inBatch = batched.body.find((answer: { id: number }) => answer.id === 3);
      expect({ name, args, batched: inBatch.result.structuredContent }).toEqual({
        name,
        args,
        batched: structured,
      });
    }
  });

  it("refuses a browser page of another origin with 403 before the key is checked or counted, and takes its own address's", async () => {
    const user = await newUser(server);
    const port = new URL(server.baseUrl).port;
    const post = (headers: Record<string, string>, path = '/mcp') =>
      client(server.baseUrl, user.key).raw('POST', path, {
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(createMemoryCall(1)),
      });
    const withKey = { authorization: `Bearer ${user.key}` };
    // Another site, another port or scheme of the server's address, a sandboxed page (null), two Origin headers.
    for (const origin of [
      'https://evil.example',
      'http://127.0.0.1:1',
      `https://127.0.0.1:${Number(port) + 1}`,
      'null',
      `${server.baseUrl}, https://evil.example`,
    ]) {
      const refused = await post({ ...withKey, origin });
      expect({ origin, status: refused.status, body: refused.body }).toEqual({
        origin,
        ...originRefused(origin),
      });
      // Refused before the key is counted: no rate-limit headers.
      expect(refused.headers.get('x-ratelimit-remaining')).toBeNull();
    }
    const withoutKey = await post({ origin: 'https://evil.example' });
    expect({ status: withoutKey.status, body: withoutKey.body }).toEqual(
      originRefused('https://evil.example'),
    );
    const atItsPath = await post({ ...withKey, origin: 'https://evil.example' }, '/v1/mcp/sse');
    expect({ status: atItsPath.status, body: atItsPath.body }).toEqual(
      originRefused('https://evil.example', '/v1/mcp/sse'),
    );
    // A page whose name was pointed at the server (DNS rebinding) sends its own origin, and that name as Host.
    const rebound = await postAs(
      server,
      '/mcp',
      { ...withKey, host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      createMemoryCall(2),
    );
    expect(rebound).toEqual(originRefused(`http://evil.example:${port}`));
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    await expect(connect(server, user.key, '/mcp', 'https://evil.example')).rejects.toMatchObject({
      code: 403,
    });

    // A page of the address the request goes to, an IP address or localhost, is the server's own.
    const own = await post({ ...withKey, origin: server.baseUrl });
    expect(own.status).toBe(200);
    expect(own.body.result.isError).toBeUndefined();
    for (const host of [`localhost:${port}`, `[::1]:${port}`]) {
      const reply = await postAs(
        server,
        '/mcp',
        { ...withKey, host, origin: `http://${host}` },
        createMemoryCall(3),
      );
      expect({ host, status: reply.status, isError: reply.body.result?.isError }).toEqual({
        host,
        status: 200,
        isError: undefined,
      });
    }
    expect(await server.count('memories', { user_id: user.id })).toBe(3);
    const mcp = await connect(server, user.key, '/mcp', server.baseUrl);
    open.push(mcp);
    expect((await answer(mcp, 'get_memories')).memories).toHaveLength(3);
  });

  describe('with DEVDATA_MCP_ALLOWED_ORIGINS', () => {
    const allowing = forSuite(() =>
      startServer(dialect, {
        mcpAllowedOrigins: allowedOriginsSetting(
          ' https://Chat.example.com:443/ ,, http://localhost:5173,chrome-extension://abcdefghijklmnop',
        ),
      }),
    );

    it('takes a browser page of an origin it lists, and refuses others', async () => {
      const { key } = await newUser(allowing);
      const mcp = await connect(allowing, key, '/mcp', 'https://chat.example.com');
      open.push(mcp);
      expect((await answer(mcp, 'create_memory', { content: 'Anna likes tea' })).content).toBe(
        'Anna likes tea',
      );
      const post = (origin: string) =>
        client(allowing.baseUrl, key).raw('POST', '/mcp', {
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', origin },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      // A browser extension's pages send their own scheme.
      for (const origin of ['http://localhost:5173', 'chrome-extension://abcdefghijklmnop']) {
        const listed = await post(origin);
        expect({ origin, status: listed.status, body: listed.body }).toEqual({
          origin,
          status: 200,
          body: { jsonrpc: '2.0', id: 1, result: {} },
        });
      }
      for (const origin of [
        'https://chat.example.com:8443',
        'http://chat.example.com',
        'http://localhost:5174',
        'chrome-extension://ponmlkjihgfedcba',
      ]) {
        const refused = await post(origin);
        expect({ origin, status: refused.status, body: refused.body }).toEqual({
          origin,
          ...originRefused(origin),
        });
      }
    });
  });

  it('refuses a request or notification whose MCP-Protocol-Version it does not speak with 400, and takes one it speaks or none', async () => {
    const user = await newUser(server);
    const post = (body: unknown, version?: string) => postMcp(server, user.key, body, version);
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    for (const [body, version] of [
      [ping, '1999-01-01'],
      [ping, ''],
      [ping, '2025-06-18, 2025-11-25'],
      [initialized, 'latest'],
      [createMemoryCall(1), '2025-13-01'],
    ] as const) {
      const refused = await post(body, version);
      expect({ version, status: refused.status, body: refused.body }).toEqual({
        version,
        status: 400,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
          },
        },
      });
    }
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    // Each version it speaks, and none (a client of 2025-03-26 sends none); initialize comes before one is agreed.
    for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, undefined]) {
      const answered = await post(ping, version);
      expect({ version, status: answered.status, body: answered.body }).toEqual({
        version,
        status: 200,
        body: { jsonrpc: '2.0', id: 1, result: {} },
      });
    }
    expect((await post(initialized, '2025-06-18')).status).toBe(202);
    const initialize = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      },
      '1999-01-01',
    );
    expect(initialize.status).toBe(200);
    expect(initialize.body.result.protocolVersion).toBe('2025-06-18');
  });

  it('answers a POST whatever it accepts, as the real service does: JSON, or an event stream to a client taking only that', async () => {
    const { key } = await newUser(server);
    const post = (accept: string | undefined) =>
      client(server.baseUrl, key).raw('POST', '/v1/mcp/sse', {
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(accept ? { accept } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    // The real service's documentation tests its endpoint with curl, which sends `Accept: */*` (fetch sends it
    // too when none is given); the SDK's transport alone would refuse that with 406.
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/event-stream']) {
      const reply = await post(accept);
      expect({
        accept,
        status: reply.status,
        type: reply.headers.get('content-type'),
        id: reply.body?.id,
        tools: Array.isArray(reply.body?.result?.tools),
      }).toEqual({ accept, status: 200, type: 'application/json', id: 1, tools: true });
    }
    // Its documentation's custom client accepts only an event stream: the answer is one event holding it.
    const streamed = await post('text/event-stream');
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const data = /^data: (.*)$/m.exec(String(streamed.body));
    expect(data).not.toBeNull();
    expect(JSON.parse(data![1])).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { tools: expect.any(Array) },
    });
  });

  it('answers params its method does not take with -32602 naming the param, and an empty batch with -32600', async () => {
    const { key } = await newUser(server);
    const request = (id: number, method: string, params?: unknown) => ({
      jsonrpc: '2.0',
      id,
      method,
      params,
    });
    const invalidParams = (id: number, message: string) => ({
      jsonrpc: '2.0',
      id,
      error: { code: -32602, message },
    });
    const cases: [unknown, string][] = [
      [{ name: 5 }, 'Invalid params for tools/call: params.name: expected a string, got 5'],
      [{ arguments: {} }, 'Invalid params for tools/call: params.name: required'],
      [undefined, 'Invalid params for tools/call: params: required'],
    ];
    for (const [params, message] of cases) {
      const reply = await postMcp(server, key, request(3, 'tools/call', params));
      expect({ params, status: reply.status, body: reply.body }).toEqual({
        params,
        status: 200,
        body: invalidParams(3, message),
      });
    }
    const list = await postMcp(server, key, request(4, 'tools/list', { cursor: 5 }));
    expect(list.body).toEqual(
      invalidParams(4, 'Invalid params for tools/list: params.cursor: expected a string, got 5'),
    );
    const initialize = await postMcp(server, key, request(5, 'initialize', { protocolVersion: 2025 }));
    expect(initialize.body).toEqual(
      invalidParams(
        5,
        'Invalid params for initialize: params.protocolVersion: expected a string, got 2025; ' +
          'params.capabilities: required; params.clientInfo: required',
      ),
    );

    // In a batch, the request with bad params is refused and the others are answered.
    const batch = await postMcp(server, key, [
      request(1, 'tools/list'),
      request(2, 'tools/call', { name: 5 }),
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(2);
    expect(batch.body.find((answer: { id: number }) => answer.id === 1).result.tools).toHaveLength(
      TOOL_NAMES.length,
    );
    expect(batch.body.find((answer: { id: number }) => answer.id === 2)).toEqual(
      invalidParams(2, 'Invalid params for tools/call: params.name: expected a string, got 5'),
    );

    const empty = await postMcp(server, key, []);
    expect({ status: empty.status, body: empty.body }).toEqual(
      invalidRequest('the batch is empty; send a message, or an array of them'),
    );
  });

  it('refuses a batch that gives two requests the same id with -32600, running none of them', async () => {
    const user = await newUser(server);
    const create = (id: number | string, content: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'create_memory', arguments: { content } },
    });
    // Answered by id, the second would be written and its answer lost.
    const reply = await postMcp(server, user.key, [
      create(7, 'First'),
      create('8', 'Other'),
      create(7, 'Second'),
    ]);
    expect({ status: reply.status, body: reply.body }).toEqual(
      invalidRequest('message 3 of the batch has the id 7 of message 1: give each request its own id'),
    );
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    // The same number as a string is another id.
    const distinct = await postMcp(server, user.key, [create(7, 'First'), create('7', 'Second')]);
    expect(distinct.body).toHaveLength(2);
    expect(await server.count('memories', { user_id: user.id })).toBe(2);
  });

  it('answers JSON that is not a JSON-RPC request with -32600 saying what is wrong, and the body not JSON with -32700', async () => {
    const { key } = await newUser(server);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const cases: [unknown, string][] = [
      [{ ...list, params: 5 }, 'params: expected an object, got 5'],
      [{ ...list, method: 5 }, 'method: expected a string, got 5'],
      [{ ...list, id: { n: 1 } }, 'id: expected a string or an integer'],
      [{ ...list, id: 1.5 }, 'id: expected a string or an integer'],
      [{ ...list, jsonrpc: '1.0' }, 'jsonrpc: Invalid input: expected "2.0"'],
      [{ ...list, extra: 1 }, "unknown field 'extra': a request holds jsonrpc, id, method and params"],
      [
        { ...list, ['k'.repeat(100_000)]: 1 },
        `unknown field '${'k'.repeat(100)}…': a request holds jsonrpc, id, method and params`,
      ],
      ['tools/list', 'expected a request: an object with jsonrpc "2.0", a method, its params and an id'],
      [
        [list, 3],
        'message 2 of the batch: expected a request: an object with jsonrpc "2.0", a method, its params and an id',
      ],
    ];
    for (const [body, message] of cases) {
      const reply = await postMcp(server, key, body);
      expect({ body, answer: { status: reply.status, body: reply.body } }).toEqual({
        body,
        answer: invalidRequest(message),
      });
    }

    const notJson = await client(server.baseUrl, key).raw('POST', '/mcp', {
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc": "2.0",',
    });
    expect({ status: notJson.status, body: notJson.body }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the body is not JSON' },
      },
    });
    const notUtf8 = await client(server.baseUrl, key).raw('POST', '/mcp', {
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: Buffer.from([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'), 0xff, 0x22, 0x7d]),
    });
    expect({ status: notUtf8.status, body: notUtf8.body }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the body is not UTF-8' },
      },
    });
  });

  it("refuses a compressed body with the REST API's 415, as a body of another type, and skips a UTF-8 byte order mark", async () => {
    const { key } = await newUser(server);
    const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
      client(server.baseUrl, key).raw('POST', '/mcp', {
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const ping = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    const gzipped = await post(gzipSync(ping), { 'content-encoding': 'gzip' });
    expect({ status: gzipped.status, body: gzipped.body }).toEqual({
      status: 415,
      body: {
        detail:
          "Content-Encoding 'gzip' is not supported: send the body uncompressed, without a Content-Encoding header",
      },
    });
    const plainText = await post(ping, { 'content-type': 'text/plain' });
    expect(plainText.status).toBe(415);
    expect(Object.keys(plainText.body)).toEqual(['detail']);

    const afterMark = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ping]));
    expect({ status: afterMark.status, body: afterMark.body }).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, result: {} },
    });
  });

  it('refuses a revoked key, and a call without a key', async () => {
    const key = await admin.post(`/v1/admin/users/${server.init.user_id}/keys`, {
      name: 'mcp',
      scopes: ['memories:read'],
    });
    expect(key.status).toBe(201);
    const mcp = await connected(key.body.key);
    expect(Array.isArray((await answer(mcp, 'get_memories')).memories)).toBe(true);
    expect((await admin.delete(`/v1/admin/keys/${key.body.id}`)).status).toBe(204);
    await expect(mcp.callTool({ name: 'get_memories', arguments: {} })).rejects.toMatchObject(UNAUTHORIZED);
    await expect(connect(server, key.body.key)).rejects.toMatchObject(UNAUTHORIZED);
    await expect(connect(server, 'svc_dev_nonsense')).rejects.toMatchObject(UNAUTHORIZED);
  });

  /** A conversation of 2,000 segments (a live session's four appends of 500) with these texts; its id. */
  const longConversation = async (rest: ReturnType<typeof client>, text: (n: number) => string) => {
    const session = `long-${Math.random().toString(36).slice(2)}`;
    let conversationId = '';
    for (let part = 0; part < 4; part++) {
      const appended = await rest.post(`/v1/dev/user/transcripts/${session}/segments`, {
        segments: Array.from({ length: 500 }, (_, k) => {
          const n = part * 500 + k;
          return {
            text: text(n),
            speaker: `SPEAKER_0${n % 3}`,
            is_user: n % 3 === 0,
            start: n * 5,
            end: n * 5 + 4.5,
          };
        }),
      });
      expect(appended.status).toBe(202);
      conversationId = appended.body.conversation_id;
    }
    expect((await rest.post(`/v1/dev/user/transcripts/${session}/finish`)).status).toBe(200);
    return conversationId;
  };

  const TRANSCRIPTS: [string, (n: number) => string][] = [
    [
      'ASCII',
      (n) =>
        `Segment ${n}: we went through the quarterly budget line by line and agreed on "the next steps".`,
    ],
    [
      'Japanese',
      (n) => `第${n}節：今日は四半期の予算について一行ずつ話し合い、アンナさんと次の段取りを決めました。`,
    ],
    ['emoji', (n) => `${n} ${'😀🎉🚀'.repeat(16)}`],
  ];

  it.each(TRANSCRIPTS)(
    'keeps a 2,000-segment %s conversation under 20 kB by default, and pages through all of it by transcript_segment_offset',
    async (_, text) => {
      const user = await userWith();
      const conversationId = await longConversation(user.client, text);
      const read = await call(user.mcp, 'get_conversation_by_id', { conversation_id: conversationId });
      expect(read.isError).toBeUndefined();
      expect(wireSize(read)).toBeLessThan(20_000);
      const first = read.structuredContent as Record<string, any>;
      expect(first).toMatchObject({ transcript_segments_total: 2000, transcript_segment_offset: 0 });
      expect(first.transcript_segments.length).toBeGreaterThan(10);
      expect(first.transcript_next_segment_offset).toBe(first.transcript_segments.length);
      expect(first.omitted).toBe(
        `Transcript segments ${first.transcript_segments.length}–1999 are not shown: call get_conversation_by_id with ` +
          `transcript_segment_offset ${first.transcript_segments.length} for the next ones.`,
      );
      expect(first.transcript_segments.map((s: { text: string }) => s.text)).toEqual(
        Array.from({ length: first.transcript_segments.length }, (_, n) => text(n)),
      );

      // Asked for more, each answer still has a cap; the offsets reach every segment, in order.
      const texts: string[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const part = await call(user.mcp, 'get_conversation_by_id', {
          conversation_id: conversationId,
          transcript_segment_offset: offset,
          max_transcript_segments: 1000,
        });
        expect(wireSize(part)).toBeLessThanOrEqual(100_000);
        const page = part.structuredContent as Record<string, any>;
        expect(page.transcript_segment_offset).toBe(offset);
        expect(page.transcript_segments.length).toBeGreaterThan(0);
        texts.push(...page.transcript_segments.map((s: { text: string }) => s.text));
        offset = page.transcript_next_segment_offset;
      }
      expect(texts).toEqual(Array.from({ length: 2000 }, (_, n) => text(n)));
      const few = await answer(user.mcp, 'get_conversation_by_id', {
        conversation_id: conversationId,
        transcript_segment_offset: 1998,
        max_transcript_segments: 5,
      });
      expect(few.transcript_segments.map((s: { text: string }) => s.text)).toEqual([text(1998), text(1999)]);
      expect(few.transcript_next_segment_offset).toBeNull();
      expect(few.omitted).toBeUndefined();
      const past = await answer(user.mcp, 'get_conversation_by_id', {
        conversation_id: conversationId,
        transcript_segment_offset: 5000,
      });
      expect(past).toMatchObject({ transcript_segments: [], transcript_next_segment_offset: null });
    },
  );

  it('cuts a segment too long for the answer, ending in …, and gives it whole when asked for more', async () => {
    const user = await userWith();
    const long = '長い話'.repeat(3000);
    const made = await user.client.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [
        { text: long, start: 0, end: 60 },
        { text: 'short', start: 60, end: 61 },
      ],
    });
    expect(made.status).toBe(200);
    const read = await call(user.mcp, 'get_conversation_by_id', { conversation_id: made.body.id });
    expect(wireSize(read)).toBeLessThanOrEqual(18_000);
    const [cut] = (read.structuredContent as Record<string, any>).transcript_segments;
    expect(cut.text).toMatch(/^(長い話)+.?.?…$/);
    expect(long.startsWith(cut.text.slice(0, -1))).toBe(true);
    const at = Array.from(cut.text).length - 1;
    expect(read.structuredContent).toMatchObject({
      transcript_next_segment_offset: 1,
      transcript_next_text_offset: at,
      omitted: expect.stringContaining(
        `Segment 0's text is cut to fit at character ${at} of 9000, ending in …: call get_conversation_by_id ` +
          `with transcript_segment_offset 0 and transcript_text_offset ${at} for the rest of it.`,
      ),
    });
    const rest = await answer(user.mcp, 'get_conversation_by_id', {
      conversation_id: made.body.id,
      transcript_text_offset: at,
      max_transcript_segments: 2,
    });
    expect(rest.transcript_segments.map((s: { text: string }) => s.text)).toEqual([long.slice(at), 'short']);
    expect(rest).not.toHaveProperty('transcript_next_text_offset');
    const whole = await answer(user.mcp, 'get_conversation_by_id', {
      conversation_id: made.body.id,
      max_transcript_segments: 1,
    });
    expect(whole.transcript_segments.map((s: { text: string }) => s.text)).toEqual([long]);
  });

  it('reads on in a conversation made from a text longer than any answer, by transcript_text_offset', async () => {
    const user = await userWith();
    // A create from text keeps its text as one segment, of up to 200,000 characters.
    const text = Array.from({ length: 25_000 }, (_, n) => `w${n}`).join(' ') + ' 終わり🎉';
    const made = await user.client.post('/v1/dev/user/conversations', { text });
    expect(made.status).toBe(200);
    let read = '';
    let textOffset = 0;
    for (let calls = 0; calls < 50; calls += 1) {
      const part = await call(user.mcp, 'get_conversation_by_id', {
        conversation_id: made.body.id,
        transcript_text_offset: textOffset,
        max_transcript_segments: 1,
      });
      expect(wireSize(part)).toBeLessThanOrEqual(100_000);
      const page = part.structuredContent as Record<string, any>;
      const [segment] = page.transcript_segments;
      if (page.transcript_next_text_offset === undefined) {
        read += segment.text;
        break;
      }
      expect(segment.text.endsWith('…')).toBe(true);
      read += segment.text.slice(0, -1);
      expect(page.transcript_next_text_offset).toBe(Array.from(read).length);
      textOffset = page.transcript_next_text_offset;
    }
    expect(read).toBe(text);
    expect(textOffset).toBeGreaterThan(0);
    const past = await refusal(user.mcp, 'get_conversation_by_id', {
      conversation_id: made.body.id,
      transcript_text_offset: Array.from(text).length,
    });
    expect(past).toEqual({
      code: 'invalid_arguments',
      message: `transcript_text_offset: segment 0's text has ${Array.from(text).length} characters; give less`,
    });
  });

  it('keeps huge summaries under 20 kB by default in a read, a list and a search, saying what was cut', async () => {
    const user = await userWith();
    const structured = (n: number) => ({
      title: `予算会議 ${n} ${'長'.repeat(480)}`,
      overview: `予算 budget ${'概要'.repeat(2490)}`,
      events: Array.from({ length: 100 }, (_, e) => ({
        title: `Event ${e} ${'😀'.repeat(240)}`,
        description: '説明'.repeat(2500),
        start: '2026-12-01T09:00:00Z',
      })),
    });
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const made = await user.client.post('/v1/dev/user/conversations', {
        text: `Budget meeting ${n}`,
        structured: structured(n),
      });
      expect(made.status).toBe(200);
      ids.push(made.body.id);
    }
    for (const [name, args] of [
      ['get_conversation_by_id', { conversation_id: ids[0] }],
      ['get_conversations', {}],
      ['get_conversations', { limit: 3 }],
      ['search_conversations', { query: 'budget' }],
    ] as const) {
      const result = await call(user.mcp, name, args);
      expect({ name, args, isError: result.isError, size: wireSize(result) < 20_000 }).toEqual({
        name,
        args,
        isError: undefined,
        size: true,
      });
      expect(result.structuredContent?.omitted).toMatch(/summary.*cut, ending in …/);
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    }
    const listed = await answer(user.mcp, 'get_conversations', { limit: 3 });
    expect(listed.omitted).toMatch(/get_conversation_by_id with its id gives it whole/);
    const [newest] = listed.conversations;
    expect(newest.structured.overview).toMatch(/^予算 budget (概要)+.?…$/);
    // Asked for no segments, a read has a larger cap and shows more of the summary.
    const summary = await call(user.mcp, 'get_conversation_by_id', {
      conversation_id: ids[0],
      max_transcript_segments: 0,
    });
    expect(wireSize(summary)).toBeLessThanOrEqual(100_000);
    expect(summary.structuredContent?.structured.overview.length).toBeGreaterThan(
      newest.structured.overview.length,
    );
  });

  it('gives a read asked for no segments its whole budget for the summary, and says to ask so only when no count was given', async () => {
    const user = await userWith();
    // About 60 kB as sent (its JSON counts twice): over half of a read's 100,000 bytes, within all of them.
    const structured = {
      title: 'Budget review',
      overview: 'We went through the budget.',
      events: Array.from({ length: 20 }, (_, e) => ({
        title: `Event ${e}`,
        description: `Event ${e}: ${'we planned the budget line by line. '.repeat(42)}`,
        start: '2026-12-01T09:00:00Z',
      })),
    };
    const made = await user.client.post('/v1/dev/user/conversations', { text: 'Budget review', structured });
    expect(made.status).toBe(200);
    const whole = (await user.client.get(`/v1/dev/user/conversations/${made.body.id}`)).body.structured;

    const summaryOnly = await answer(user.mcp, 'get_conversation_by_id', {
      conversation_id: made.body.id,
      max_transcript_segments: 0,
    });
    expect(summaryOnly.structured).toEqual(whole);
    expect(summaryOnly.omitted ?? '').not.toMatch(/summary/);

    const cutNote = (omitted: string) => omitted.match(/In the summary, [^:.]*(: [^.]*)?\./)?.[0];
    const withSegments = await answer(user.mcp, 'get_conversation_by_id', {
      conversation_id: made.body.id,
      max_transcript_segments: 5,
    });
    expect(withSegments.structured).not.toEqual(whole);
    expect(cutNote(withSegments.omitted)).toBe(
      "In the summary, summary texts (title, overview, events' and action items' titles and descriptions) longer " +
        'than 1000 characters are cut, ending in …, and events and action items past the first 100 left out: ' +
        'ask with max_transcript_segments 0 for more of it.',
    );
    const byDefault = await answer(user.mcp, 'get_conversation_by_id', { conversation_id: made.body.id });
    expect(cutNote(byDefault.omitted)).toMatch(/: ask with max_transcript_segments 0 for more of it\.$/);
  });

  it('keeps a read asked for no segments within its budget when the summary alone just fits it', async () => {
    const user = await userWith();
    const events = Array.from({ length: 24 }, (_, e) => ({
      title: `Event ${e}`,
      description: `Event ${e}: ${'we planned the budget line by line. '.repeat(52)}`,
      start: '2026-12-01T09:00:00Z',
    }));
    const summaryOnly = async (overview: string) => {
      const made = await user.client.post('/v1/dev/user/conversations', {
        text: 'Budget review',
        structured: { title: 'Budget review', overview, events },
      });
      expect(made.status).toBe(200);
      return call(user.mcp, 'get_conversation_by_id', {
        conversation_id: made.body.id,
        max_transcript_segments: 0,
      });
    };
    // The summary's own bytes as sent, without the answer's transcript fields and notes.
    const summaryBytes = (result: ToolResult) => {
      const answerOnly = new Set([
        'transcript_segments',
        'transcript_segments_total',
        'transcript_segment_offset',
        'transcript_next_segment_offset',
        'omitted',
      ]);
      const record = Object.fromEntries(
        Object.entries(result.structuredContent!).filter(([key]) => !answerOnly.has(key)),
      );
      return Buffer.byteLength(JSON.stringify(toolAnswer(record)));
    };
    const shorter = await summaryOnly('We went through the budget.');
    const room = 100_000 - summaryBytes(shorter);
    expect(room).toBeGreaterThan(0);
    // Each character of the overview counts twice (its JSON text and structuredContent): this summary alone takes
    // 99,999 or 100,000 bytes, all of the read's budget, which leaves none for the answer's other fields.
    const fitting = await summaryOnly(`We went through the budget.${'x'.repeat(Math.floor(room / 2))}`);
    expect(wireSize(fitting)).toBeLessThanOrEqual(100_000);
  });

  it('shows the first records of a list that does not fit, and the offset for the next ones', async () => {
    const user = await userWith();
    for (let n = 0; n < 10; n++) {
      const made = await user.client.post('/v1/dev/user/memories', {
        content: `${n} ${'記憶'.repeat(1000)}`,
      });
      expect(made.status).toBe(200);
    }
    const listed = await call(user.mcp, 'get_memories', { offset: 2 });
    expect(wireSize(listed)).toBeLessThanOrEqual(18_000);
    const shown = listed.structuredContent?.memories.length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(8);
    expect(listed.structuredContent?.omitted).toBe(
      `Only the first ${shown} of 8 fit in this answer's 18000 bytes: call again with offset ${2 + shown} for the next ones.`,
    );
  });

  it('keeps a list of long goals within its budget too, and reaches the others by offset', async () => {
    const user = await userWith();
    const ids: string[] = [];
    for (let n = 0; n < 8; n++) {
      const made = await ok(
        user.client.post('/v1/dev/user/goals', {
          title: `Goal ${n}`,
          goal_type: 'numeric',
          target_value: 100,
          desired_outcome: 'Outcome '.repeat(125),
          success_criteria: Array.from({ length: 3 }, () => 'Criterion '.repeat(30)),
          why_it_matters: 'Why '.repeat(125),
        }),
      );
      ids.unshift(made.id);
    }
    const seen: string[] = [];
    let pages = 0;
    while (seen.length < ids.length) {
      const listed = await call(user.mcp, 'get_goals', { offset: seen.length });
      expect(listed.isError).toBeUndefined();
      expect(wireSize(listed)).toBeLessThanOrEqual(18_000);
      const goals = listed.structuredContent?.goals as { id: string }[];
      seen.push(...goals.map((goal) => goal.id));
      pages += 1;
      if (seen.length < ids.length)
        expect(listed.structuredContent?.omitted).toMatch(
          `call again with offset ${seen.length} for the next ones`,
        );
    }
    expect(seen).toEqual(ids);
    expect(pages).toBeGreaterThan(1);
  });

  it('keeps a long list of people within its budget, and reaches the others by offset', async () => {
    const user = await userWith();
    for (let n = 0; n < 80; n++)
      await ok(user.client.post('/v1/dev/user/people', { name: `Person ${100 + n} ${'Q'.repeat(25)}` }));
    const all = (await user.client.get('/v1/dev/user/people')).body.people.map((p: { id: string }) => p.id);
    expect(all).toHaveLength(80);
    const seen: string[] = [];
    while (seen.length < all.length) {
      const listed = await call(user.mcp, 'get_people', { offset: seen.length });
      expect(listed.isError).toBeUndefined();
      expect(wireSize(listed)).toBeLessThanOrEqual(18_000);
      seen.push(...(listed.structuredContent?.people as { id: string }[]).map((person) => person.id));
      if (seen.length < all.length)
        expect(listed.structuredContent?.omitted).toMatch(
          `call again with offset ${seen.length} for the next ones`,
        );
    }
    expect(seen).toEqual(all);
  });

  it('refuses an argument named constructor, prototype or __proto__ as an unknown field, whatever its value', async () => {
    const user = await userWith();
    // The SDK's client, as an agent would send it.
    for (const value of [null, 1, 'x', {}, []]) {
      expect({ value, error: await refusal(user.mcp, 'get_people', { constructor: value }) }).toEqual({
        value,
        error: {
          code: 'invalid_arguments',
          message: "Unknown field 'constructor'; fields here: offset",
        },
      });
    }
    // Every tool, by hand: JSON text keeps __proto__ a key.
    const values = ['null', '1', '"x"', '{}', '[]', '{"prototype":null}'];
    for (const name of TOOL_NAMES) {
      for (const key of ['constructor', 'prototype', '__proto__']) {
        for (const value of values) {
          const body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"${name}","arguments":{"${key}":${value}}}}`;
          const reply = await client(server.baseUrl).raw('POST', '/mcp', {
            headers: {
              authorization: `Bearer ${user.key}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body,
          });
          expect({
            body,
            status: reply.status,
            id: reply.body?.id,
            error: reply.body?.result?.structuredContent?.error,
          }).toEqual({
            body,
            status: 200,
            id: 5,
            error: { code: 'invalid_arguments', message: expect.stringContaining(`Unknown field '${key}'`) },
          });
        }
      }
    }
  });

  it('answers generated hostile tool calls without a 5xx or a protocol error, each refusal with its code', async () => {
    const user = await userWith();
    const memory = await answer(user.mcp, 'create_memory', { content: 'seed' });
    const item = await answer(user.mcp, 'create_action_item', { description: 'seed' });
    const { tools } = await user.mcp.listTools();
    const bodies = fc.sample(
      mcpToolCalls(
        tools.map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema })),
        // Strings are drawn from these too: ids, and queries an engine's syntax would take as operators.
        [memory.id, item.id, 'missing', ...HOSTILE_SEARCH_QUERIES],
      ),
      { numRuns: 300, seed: 28_002 },
    );
    const codes: Record<string, number> = {};
    for (const body of bodies) {
      const reply = await client(server.baseUrl).raw('POST', '/mcp', {
        headers: {
          authorization: `Bearer ${user.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      expect({ body: body.slice(0, 300), status: reply.status, error: reply.body?.error }).toEqual({
        body: body.slice(0, 300),
        status: 200,
        error: undefined,
      });
      const result = reply.body.result as ToolResult;
      const code = result.isError ? result.structuredContent?.error.code : 'ok';
      expect(['ok', ...ERROR_CODES.filter((c) => c !== 'internal' && c !== 'unavailable')]).toContain(code);
      codes[code] = (codes[code] ?? 0) + 1;
    }
    expect(codes.ok).toBeGreaterThan(0);
    expect(codes.invalid_arguments).toBeGreaterThan(0);
    // The lists still answer.
    expect((await devClient(server).get('/v1/dev/user/memories')).status).toBe(200);
  });
});

describe.each(DIALECTS)('MCP endpoint rate limit on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect, { rateLimit: { max: 4, windowMs: 60_000 } }));

  it('answers a tool call over the key’s limit with a rate_limited tool result', async () => {
    const { key } = await newUser(server);
    // initialize and its notification are two requests, the first call a third.
    const mcp = await connect(server, key);
    try {
      expect((await mcp.callTool({ name: 'get_memories', arguments: {} })).isError).toBeUndefined();
      expect((await mcp.callTool({ name: 'get_memories', arguments: {} })).isError).toBeUndefined();
      const limited = (await mcp.callTool({ name: 'get_memories', arguments: {} })) as ToolResult;
      expect(limited.isError).toBe(true);
      expect(limited.structuredContent?.error).toEqual({
        code: 'rate_limited',
        message: expect.stringMatching(/^Rate limit exceeded. Retry after \d+ seconds$/),
      });
      // The REST API shares the limit.
      expect((await client(server.baseUrl, key).get('/v1/dev/user/memories')).status).toBe(429);
    } finally {
      await mcp.close();
    }
  });

  it('answers a client taking only an event stream past the limit with the rate_limited result as an event too', async () => {
    const { key } = await newUser(server);
    const post = () =>
      client(server.baseUrl, key).raw('POST', '/mcp', {
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'get_memories', arguments: {} },
        }),
      });
    const events: unknown[] = [];
    for (let n = 0; n < 5; n++) {
      const reply = await post();
      expect({ status: reply.status, type: reply.headers.get('content-type') }).toEqual({
        status: 200,
        type: expect.stringMatching(/^text\/event-stream/),
      });
      const data = /^data: (.*)$/m.exec(String(reply.body));
      expect(data).not.toBeNull();
      events.push(JSON.parse(data![1]));
    }
    expect(events.slice(0, 4)).toEqual(
      Array(4).fill({
        jsonrpc: '2.0',
        id: 9,
        result: expect.objectContaining({ structuredContent: { memories: [] } }),
      }),
    );
    expect(events[4]).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      result: { isError: true, structuredContent: { error: { code: 'rate_limited' } } },
    });
  });

  it('counts each tool call of a batch as a request, answering those past the limit with rate_limited unrun', async () => {
    const user = await newUser(server);
    // Six calls against a limit of 4: the POST counts the first, each other one counts itself.
    const reply = await postMcp(server, user.key, [
      { jsonrpc: '2.0', id: 0, method: 'tools/list' },
      ...[1, 2, 3, 4, 5, 6].map(createMemoryCall),
    ]);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
    const byId = new Map<number, any>(reply.body.map((answer: { id: number }) => [answer.id, answer]));
    expect(byId.get(0).result.tools).toHaveLength(TOOL_NAMES.length);
    for (const id of [1, 2, 3, 4]) expect(byId.get(id).result.isError).toBeUndefined();
    for (const id of [5, 6])
      expect(byId.get(id).result.structuredContent.error).toEqual({
        code: 'rate_limited',
        message: expect.stringMatching(/^Rate limit exceeded. Retry after \d+ seconds$/),
      });
    expect(await server.count('memories', { user_id: user.id })).toBe(4);
    // Past the limit, a whole batch is the 429 a single POST gets, and none of it runs.
    const again = await postMcp(server, user.key, [createMemoryCall(7), createMemoryCall(8)]);
    expect(again.status).toBe(429);
    expect(await server.count('memories', { user_id: user.id })).toBe(4);
  });

  it('refuses a batch the transport would refuse whole before its tool calls count against the limit', async () => {
    const user = await newUser(server);
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const post = (body: unknown, version?: string) => postMcp(server, user.key, body, version);
    // Each of these POSTs counts once, as any POST does, and runs nothing: its calls count for nothing more.
    const tooMany = await post(Array.from({ length: 101 }, (_, n) => createMemoryCall(n + 1)));
    expect({ status: tooMany.status, body: tooMany.body }).toEqual(
      invalidRequest('the batch has 101 messages; send at most 100 in one'),
    );
    expect(tooMany.headers.get('x-ratelimit-remaining')).toBe('3');
    const withInitialize = await post([initialize, createMemoryCall(1), createMemoryCall(2)]);
    expect({ status: withInitialize.status, body: withInitialize.body }).toEqual(
      invalidRequest('initialize must be sent alone, not in a batch'),
    );
    expect(withInitialize.headers.get('x-ratelimit-remaining')).toBe('2');
    const unknownVersion = await post([createMemoryCall(1), createMemoryCall(2)], '1999-01-01');
    expect(unknownVersion.status).toBe(400);
    expect(unknownVersion.body.error).toEqual({
      code: -32000,
      message: expect.stringMatching(
        /^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: /,
      ),
    });
    expect(unknownVersion.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    // The last request the limit leaves runs.
    const last = await post(createMemoryCall(9), '2025-06-18');
    expect(last.status).toBe(200);
    expect(last.body.result.isError).toBeUndefined();
    expect(await server.count('memories', { user_id: user.id })).toBe(1);
  });
});

(DIALECTS.includes('postgres') ? describe : describe.skip)(
  'MCP endpoint while PostgreSQL is out of reach',
  () => {
    const setup = forSuite(async () => {
      const proxy = await startDatabaseProxy(PG_ADMIN_URL);
      const server = await startServer('postgres', {}, { connectVia: proxy.route });
      return {
        proxy,
        server,
        close: async () => {
          await proxy.up().catch(() => undefined);
          await server.close();
          await proxy.down();
        },
      };
    });

    it('answers a tool call with an unavailable tool result, writes nothing, and serves again once it is back', async () => {
      const { proxy, server } = setup;
      const mcp = await connect(server, server.init.developer_key);
      try {
        expect((await mcp.callTool({ name: 'get_goals', arguments: {} })).isError).toBeUndefined();
        await proxy.down();
        // The key was checked a moment ago (it is kept for a while), so the call reaches its tool.
        for (const [name, args] of [
          ['get_goals', {}],
          ['create_action_item', { description: 'Written during the outage' }],
        ] as const) {
          const result = (await mcp.callTool({ name, arguments: args })) as ToolResult;
          expect({ name, isError: result.isError, error: result.structuredContent?.error }).toEqual({
            name,
            isError: true,
            error: {
              code: 'unavailable',
              message: 'The database is out of reach; try again in a few seconds',
            },
          });
        }
        await proxy.up();
        // The pool finds its way back within a few attempts.
        let result: ToolResult;
        let attempts = 0;
        do {
          result = (await mcp.callTool({
            name: 'create_action_item',
            arguments: { description: 'After' },
          })) as ToolResult;
          attempts += 1;
        } while (result.isError && attempts < 20);
        expect(result.structuredContent).toMatchObject({ description: 'After' });
        expect(await server.count('action_items')).toBe(1);
      } finally {
        await mcp.close();
      }
    });

    it('answers a tool call whose key it cannot look up (not cached yet) with an unavailable tool result', async () => {
      const { proxy, server } = setup;
      const made = await adminClient(server).post(`/v1/admin/users/${server.init.user_id}/keys`, {
        name: 'never used yet',
        scopes: ['goals:read'],
      });
      expect(made.status).toBe(201);
      await proxy.down();
      try {
        const reply = await client(server.baseUrl, made.body.key).raw('POST', '/mcp', {
          headers: {
            authorization: `Bearer ${made.body.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'get_goals', arguments: {} },
          }),
        });
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({
          id: 7,
          result: { isError: true, structuredContent: { error: { code: 'unavailable' } } },
        });
      } finally {
        await proxy.up();
      }
    });
  },
);

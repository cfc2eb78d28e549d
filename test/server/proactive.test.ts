// The proactive pipeline end to end over real HTTP: live segments in → the app's webhook (a real node:http
// receiver here) → reply → template → generation (a real local OpenAI-compatible endpoint) → inbox, SSE
// stream and push URL → delivery log. Also every drop reason, transport failures and the circuit breaker.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { notificationsPage } from '../../server/src/contract/notifications';
import {
  deliveriesPage,
  segmentsAccepted,
  sessionFinished,
  webhookConfig,
} from '../../server/src/contract/proactive';
import { DELIVERY_RETENTION_MS } from '../../server/src/proactive/dispatcher';
import { verify } from '../../server/src/proactive/signature';
import { adminClient, client, expectShape, newUser, type Client } from '../helpers/http';
import { DIALECTS, startServer, type TestServer } from '../helpers/server';

interface Received {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer =
  | {
      status?: number;
      json?: unknown;
      text?: string;
      bytes?: number;
      raw?: Buffer;
      contentType?: string;
      headers?: Record<string, string>;
    }
  | 'hang';

/** A real HTTP server on a free loopback port that records each request and answers what `handler` says. */
async function receiver(handler: (request: Received) => Answer | Promise<Answer>) {
  const calls: Received[] = [];
  const server: Server = createServer((req, res) => {
    // Decoded once whole: a character split across two chunks would otherwise turn into two U+FFFD.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://localhost');
      const received = { path: url.pathname, query: url.searchParams, headers: req.headers, body };
      calls.push(received);
      const answer = await handler(received);
      if (answer === 'hang') return;
      res.on('error', () => undefined);
      if (answer.bytes !== undefined) {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < answer.bytes! && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      const text = answer.raw ?? answer.text ?? JSON.stringify(answer.json ?? {});
      res.writeHead(answer.status ?? 200, {
        'content-type': answer.contentType ?? (answer.text ? 'text/plain' : 'application/json'),
        ...answer.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (path: string) => calls.filter((c) => c.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

/**
 * A fake OpenAI-compatible LLM: "FAIL" in the prompt → 500, "SHORT" → "ok", "EMOJI" → four emoji (4 characters,
 * 8 UTF-16 units), "NUL" → "LLM says:\u0000 <prompt>", "LONE" → "LLM says:\ud800 <prompt>" (a lone surrogate,
 * sent as the JSON escape), else "LLM says: <prompt>".
 */
function fakeLlm() {
  return receiver(({ body }) => {
    const prompt = (JSON.parse(body) as { messages: { content: string }[] }).messages[0].content;
    if (prompt.includes('FAIL')) return { status: 500, json: { error: 'boom' } };
    const content = prompt.includes('SHORT')
      ? 'ok'
      : prompt.includes('EMOJI')
        ? '🎉🎉🎉🎉'
        : `LLM says:${prompt.includes('NUL') ? '\u0000' : prompt.includes('LONE') ? '\ud800' : ''} ${prompt}`;
    return { json: { choices: [{ message: { role: 'assistant', content } }] } };
  });
}

interface TestApp {
  id: string;
  secret: string;
  webhookSecret: string;
  client: Client;
}

async function makeApp(
  server: TestServer,
  input: {
    name: string;
    webhookUrl?: string;
    capabilities?: string[];
    scopes?: string[];
  },
): Promise<TestApp> {
  const capabilities = input.capabilities ?? ['external_integration', 'proactive_notification'];
  const created = await adminClient(server).post('/v1/admin/apps', {
    name: input.name,
    capabilities,
    ...(input.webhookUrl
      ? { external_integration: { triggers_on: 'transcript_processed', webhook_url: input.webhookUrl } }
      : {}),
    // Scopes only with the capability, as the admin API takes them.
    ...(capabilities.includes('proactive_notification')
      ? { proactive_notification: { scopes: input.scopes ?? ['user_name'] } }
      : {}),
  });
  expect(created.status).toBe(201);
  return {
    id: created.body.id,
    secret: created.body.app_secret,
    webhookSecret: created.body.webhook_secret,
    client: client(server.baseUrl, created.body.app_secret),
  };
}

async function install(server: TestServer, appId: string, userId: string, granted: string[] = ['user_name']) {
  const reply = await adminClient(server).post(`/v1/admin/apps/${appId}/installs`, {
    user_id: userId,
    granted_scopes: granted,
  });
  expect(reply.status).toBe(201);
}

/**
 * An install whose grant the admin API no longer takes (scopes the app does not declare), as a database written
 * before that check may hold one: stored directly.
 */
async function installAsBefore(server: TestServer, appId: string, userId: string, granted: string[]) {
  await server.store.db
    .insertInto('app_installs')
    .values({
      app_id: appId,
      user_id: userId,
      granted_scopes: JSON.stringify(granted),
      created_at: Date.now(),
    })
    .execute();
}

const segments = (text: string) => ({
  segments: [
    { text, speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1.5 },
    { text: 'Sounds good.', speaker: 'SPEAKER_01', is_user: false, start: 1.5, end: 2 },
  ],
});

/** Reads Server-Sent Events from a stream until one named `event` arrives. */
async function openStream(baseUrl: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/v1/dev/user/notifications/stream`, {
    headers: { authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    response,
    async next(event: string, timeoutMs = 30_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const frames = buffer.split('\n\n');
        for (let i = 0; i < frames.length - 1; i += 1) {
          const lines = frames[i].split('\n');
          if (lines.includes(`event: ${event}`)) {
            buffer = frames.slice(i + 1).join('\n\n');
            return lines.find((l) => l.startsWith('data: '))!.slice('data: '.length);
          }
        }
        if (Date.now() > deadline) throw new Error(`no "${event}" event; got ${buffer}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

/** A webhook reply asking for a notification with this prompt. */
const notify = (prompt: string, params: string[] = []) => ({
  json: { session_id: 's', notification: { prompt, params } },
});

async function deliveriesOf(app: TestApp) {
  const reply = await app.client.get(`/v2/integrations/${app.id}/deliveries`, { limit: 100 });
  expect(reply.status).toBe(200);
  return expectShape(deliveriesPage, reply.body).deliveries;
}

describe.each(DIALECTS)('proactive pipeline on %s', (dialect) => {
  let server: TestServer;
  let hooks: Receiver;
  let llm: Receiver;
  let pushes: Receiver;
  const replies = new Map<string, (call: Received) => Answer | Promise<Answer>>();
  const settle = () => server.app.dispatcher.idle();

  beforeAll(async () => {
    hooks = await receiver((call) => replies.get(call.path)?.(call) ?? { status: 404 });
    llm = await fakeLlm();
    pushes = await receiver(() => ({ text: 'ok' }));
    server = await startServer(dialect, {
      llmBaseUrl: llm.url,
      llmModel: 'test-model',
      llmApiKey: 'llm-key',
      pushUrl: `${pushes.url}/devdata`,
      // Far beyond any answer here, even on a busy machine: a slow reply must not turn into a timeout. Timeouts
      // have their own test with a hanging webhook and a server of its own.
      webhookTimeoutMs: 30_000,
    });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all([hooks.close(), llm.close(), pushes.close()]);
  });

  it('segments → signed webhook → template → generation → inbox, stream, push URL and delivery log', async () => {
    const user = await newUser(server);
    await user.client.post('/v1/dev/user/memories', { content: 'Loves green tea' });
    await user.client.post('/v1/dev/user/conversations', {
      text: 'We planned the trip.',
      structured: { title: 'Trip planning', overview: 'Booked trains to Lyon' },
    });
    const app = await makeApp(server, {
      name: 'Coach',
      webhookUrl: `${hooks.url}/hook/main?token=abc`,
      scopes: ['user_name', 'user_facts', 'user_context'],
    });
    // user_chat is granted but not declared by the app: it must stay literal.
    await installAsBefore(server, app.id, user.id, ['user_name', 'user_facts', 'user_context', 'user_chat']);
    const userName = (await adminClient(server).get('/v1/admin/users')).body.find(
      (u: { id: string }) => u.id === user.id,
    ).name;
    replies.set('/hook/main', ({ query }) => ({
      json: {
        session_id: query.get('session_id'),
        notification: {
          prompt:
            'Hi {{user_name}}!\nFacts:\n{{user_facts}}\nContext:\n{{ user_context }}\nChat: {{user_chat}} {{nope}}',
          params: ['user_name', 'user_facts', 'user_context'],
        },
      },
    }));

    const stream = await openStream(server.baseUrl, user.key);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const accepted = await user.client.post('/v1/dev/user/transcripts/sess-1/segments', segments('Hello!'));
    expect(accepted.status).toBe(202);
    const body = expectShape(segmentsAccepted, accepted.body);
    expect(body).toMatchObject({ session_id: 'sess-1', dispatched: 1 });
    await settle();

    // The webhook call: query, body, and an HMAC the test recomputes itself.
    const [call] = hooks.callsTo('/hook/main');
    expect(call.query.get('session_id')).toBe('sess-1');
    expect(call.query.get('uid')).toBe(user.id);
    expect(call.query.get('token')).toBe('abc');
    expect(call.headers['content-type']).toMatch(/application\/json/);
    // Each segment whole, in the real service's shape, with the ids the conversation stores them under. The
    // user's id is in the body too: the real service's hey_omi and teacher apps read the body's uid, else take
    // session_id for it (there it is the user's id) and would push to a user named after the session.
    const sent = JSON.parse(call.body);
    expect(sent).toEqual({
      session_id: 'sess-1',
      uid: user.id,
      segments: [
        {
          id: expect.any(String),
          text: 'Hello!',
          speaker: 'SPEAKER_00',
          speaker_id: 0,
          is_user: true,
          person_id: null,
          start: 0,
          end: 1.5,
        },
        {
          id: expect.any(String),
          text: 'Sounds good.',
          speaker: 'SPEAKER_01',
          speaker_id: 1,
          is_user: false,
          person_id: null,
          start: 1.5,
          end: 2,
        },
      ],
    });
    const signature = String(call.headers['x-signature']);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature);
    expect(match).not.toBeNull();
    expect(Math.abs(Number(match![1]) - Date.now() / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', app.webhookSecret)
      .update(`${match![1]}.${call.body}`)
      .digest('hex');
    expect(match![2]).toBe(expected);
    expect(verify(app.webhookSecret, call.body, signature)).toBe(true);
    expect(verify(app.webhookSecret, call.body + ' ', signature)).toBe(false);

    // The LLM got the filled prompt: granted-and-declared variables filled, the others literal.
    const llmCall = llm.calls.at(-1)!;
    expect(llmCall.path).toBe('/chat/completions');
    expect(llmCall.headers.authorization).toBe('Bearer llm-key');
    const request = JSON.parse(llmCall.body);
    expect(request.model).toBe('test-model');
    const prompt = request.messages[0].content as string;
    expect(prompt).toBe(
      `Hi ${userName}!\nFacts:\n- Loves green tea\nContext:\n- Hello! Sounds good.: Hello! Sounds good.\n` +
        '- Trip planning: Booked trains to Lyon\nChat: {{user_chat}} {{nope}}',
    );

    // Pushed: inbox, stream, push URL.
    const inbox = expectShape(notificationsPage, (await user.client.get('/v1/dev/user/notifications')).body);
    expect(inbox.notifications).toHaveLength(1);
    expect(inbox.notifications[0]).toMatchObject({
      app_id: app.id,
      kind: 'proactive',
      title: 'Coach',
      text: `LLM says: ${prompt}`,
      generated: true,
    });
    const event = JSON.parse(await stream.next('notification'));
    expect(event).toEqual(inbox.notifications[0]);
    stream.close();
    const forwarded = pushes.calls.at(-1)!;
    expect(forwarded.path).toBe('/devdata');
    expect(forwarded.headers.title).toBe('Coach');
    expect(forwarded.body).toBe(`LLM says: ${prompt}`);

    const [delivery] = await deliveriesOf(app);
    expect(delivery).toMatchObject({
      app_id: app.id,
      user_id: user.id,
      session_id: 'sess-1',
      url: `${hooks.url}/hook/main?token=abc`,
      status_code: 200,
      outcome: 'pushed',
      notification_id: inbox.notifications[0].id,
    });
    // The call's own time: at least 0, and less than the webhook timeout, since the call was answered.
    expect(delivery.latency_ms).toBeGreaterThanOrEqual(0);
    expect(delivery.latency_ms).toBeLessThan(15_000);

    // Inside the 30 s window (the real default) the next reply is dropped, and nothing more is pushed.
    expect(
      (await user.client.post('/v1/dev/user/transcripts/sess-1/segments', segments('More'))).status,
    ).toBe(202);
    await settle();
    expect((await deliveriesOf(app))[0]).toMatchObject({ outcome: 'rate_limited', status_code: 200 });
    expect((await user.client.get('/v1/dev/user/notifications')).body.notifications).toHaveLength(1);

    // The session's conversation holds every segment; finishing it refuses more.
    const finished = await user.client.post('/v1/dev/user/transcripts/sess-1/finish');
    expect(finished.status).toBe(200);
    expect(expectShape(sessionFinished, finished.body).conversation_id).toBe(body.conversation_id);
    const again = await user.client.post('/v1/dev/user/transcripts/sess-1/segments', segments('Late'));
    expect(again.status).toBe(409);
    expectShape(errorBody, again.body);
    const stored = await user.client.get(`/v1/dev/user/conversations/${body.conversation_id}`, {
      include_transcript: true,
    });
    const conv = expectShape(conversation, stored.body);
    expect(conv.transcript_segments!.map((s) => s.text)).toEqual([
      'Hello!',
      'Sounds good.',
      'More',
      'Sounds good.',
    ]);
    expect(conv.transcript_segments!.slice(0, 2).map((s) => s.id)).toEqual(
      sent.segments.map((s: { id: string }) => s.id),
    );
    expect(conv.source).toBe('live_transcript');
    expect((await user.client.post('/v1/dev/user/transcripts/nope/finish')).status).toBe(404);
  });

  it('fills user_facts, user_context and user_chat with what the manual says, newest within their bounds', async () => {
    const user = await newUser(server);
    const app = await makeApp(server, {
      name: 'Bounds',
      webhookUrl: `${hooks.url}/bounds`,
      scopes: ['user_facts', 'user_context', 'user_chat'],
    });
    await install(server, app.id, user.id, ['user_facts', 'user_context', 'user_chat']);
    const two = (n: number) => String(n).padStart(2, '0');
    // 52 memories, one request each so that each has its own created_at: the newest 50 are facts.
    for (let n = 1; n <= 52; n += 1) {
      expect((await user.client.post('/v1/dev/user/memories', { content: `Fact ${two(n)}` })).status).toBe(
        200,
      );
    }
    // Seven conversations on seven days, the sixth discarded: the newest started and not discarded are context.
    for (let day = 1; day <= 7; day += 1) {
      const created = await user.client.post('/v1/dev/user/conversations', {
        text: `Talk on day ${day}`,
        started_at: `2026-11-0${day}T09:00:00Z`,
        structured: { title: `Day ${day}`, overview: `Overview ${day}` },
      });
      expect(created.status).toBe(200);
      if (day === 6)
        await user.client.patch(`/v1/dev/user/conversations/${created.body.id}`, { discarded: true });
    }
    // Eleven messages from the app, pushed as they are: the last ten are the chat, oldest first.
    for (let n = 1; n <= 11; n += 1) {
      replies.set('/bounds', () => ({ json: { message: `Note ${two(n)}` } }));
      await user.client.post('/v1/dev/user/transcripts/bounds-1/segments', segments(`Round ${n}`));
      await settle();
    }
    replies.set('/bounds', () =>
      notify('Facts:\n{{user_facts}}\nContext:\n{{user_context}}\nChat:\n{{user_chat}}', [
        'user_facts',
        'user_context',
        'user_chat',
      ]),
    );
    const llmCalls = llm.calls.length;
    await user.client.post('/v1/dev/user/transcripts/bounds-1/segments', segments('Last round'));
    await settle();

    // The live session's conversation started first of all today: it is the newest context.
    const live = expectShape(
      conversation.array(),
      (await user.client.get('/v1/dev/user/conversations', { statuses: 'in_progress' })).body,
    );
    expect(live).toHaveLength(1);
    const facts = Array.from({ length: 50 }, (_, i) => `- Fact ${two(52 - i)}`);
    const context = [
      `- ${live[0].structured.title}: ${live[0].structured.overview}`,
      ...[7, 5, 4, 3].map((day) => `- Day ${day}: Overview ${day}`),
    ];
    const chat = Array.from({ length: 10 }, (_, i) => `Bounds: Note ${two(i + 2)}`);
    const sent = llm.calls.slice(llmCalls).map((c) => JSON.parse(c.body).messages[0].content as string);
    expect(sent).toEqual([['Facts:', ...facts, 'Context:', ...context, 'Chat:', ...chat].join('\n')]);
    expect((await deliveriesOf(app))[0]).toMatchObject({ outcome: 'pushed' });
  });

  it('records each drop reason as a delivery and pushes nothing; a failed attempt does not start the window', async () => {
    const user = await newUser(server);
    let round = 1;
    const cases: Record<string, { app?: Partial<Parameters<typeof makeApp>[1]>; granted?: string[] }> = {
      no_notification: {},
      capability_missing: { app: { capabilities: ['external_integration'] }, granted: [] },
      not_installed: {},
      not_granted: { app: { scopes: ['user_name', 'user_facts'] }, granted: ['user_name'] },
      not_declared: { app: { scopes: ['user_name'] }, granted: ['user_name', 'user_facts'] },
      invalid_shape: {},
      not_json: {},
      n8n_starting: {},
      nul_prompt: {},
      lone_surrogate_prompt: {},
      lone_surrogate_message: {},
      lone_surrogate_generated: {},
      prompt_too_short: {},
      // Four code points (two waving hands with a skin tone), eight UTF-16 units: too short, as a message is.
      prompt_too_short_emoji: {},
      generated_too_short: {},
      generated_too_short_emoji: {},
      generation_failed: {},
    };
    const apps: Record<string, TestApp> = {};
    for (const [name, spec] of Object.entries(cases)) {
      apps[name] = await makeApp(server, {
        name,
        webhookUrl: `${hooks.url}/drops/${name}`,
        ...spec.app,
      });
      const granted = spec.granted ?? ['user_name'];
      // Only not_declared needs a grant the admin API refuses now.
      if (name === 'not_declared') await installAsBefore(server, apps[name].id, user.id, granted);
      else await install(server, apps[name].id, user.id, granted);
    }
    replies.set('/drops/no_notification', () => ({ json: { session_id: 's' } }));
    replies.set('/drops/capability_missing', () => notify('Hello there'));
    replies.set('/drops/not_installed', async () => {
      await adminClient(server).delete(`/v1/admin/apps/${apps.not_installed.id}/installs/${user.id}`);
      return notify('Hello there');
    });
    replies.set('/drops/not_granted', () => notify('Facts: {{user_facts}}', ['user_facts']));
    replies.set('/drops/not_declared', () => notify('Facts: {{user_facts}}', ['user_facts']));
    replies.set('/drops/invalid_shape', () => ({ json: { session_id: 5, notification: 'hi' } }));
    replies.set('/drops/not_json', () => ({ text: 'thanks!' }));
    // What n8n answers every request while it migrates its database at startup, running nothing.
    replies.set('/drops/n8n_starting', () => ({ text: 'n8n is starting up. Please wait' }));
    replies.set('/drops/nul_prompt', () => notify('Hello\u0000 there'));
    // Sent as the JSON escape "\ud800": a surrogate with no pair, which UTF-8 cannot hold.
    replies.set('/drops/lone_surrogate_prompt', () => notify('Hello \ud800 there'));
    replies.set('/drops/lone_surrogate_message', () => ({ json: { message: 'Hello \udc00 there' } }));
    replies.set('/drops/lone_surrogate_generated', () => notify('LONE please'));
    replies.set('/drops/prompt_too_short', () => notify(' hey '));
    replies.set('/drops/prompt_too_short_emoji', () => notify('👋🏽👋🏽'));
    replies.set('/drops/generated_too_short_emoji', () => notify('EMOJI please'));
    // The first round fails at generation; the second round succeeds at once (no window was started).
    replies.set('/drops/generated_too_short', () =>
      notify(round === 1 ? 'SHORT please, {{user_name}}' : 'Say hi to {{user_name}}', ['user_name']),
    );
    replies.set('/drops/generation_failed', () => notify(round === 1 ? 'FAIL please' : 'Say hello', []));

    const accepted = await user.client.post('/v1/dev/user/transcripts/drops/segments', segments('Hi'));
    expect(accepted.body.dispatched).toBe(Object.keys(cases).length);
    await settle();

    const expected: Record<string, string> = {
      no_notification: 'no_notification',
      capability_missing: 'capability_missing',
      not_installed: 'not_installed',
      not_granted: 'scopes_not_granted',
      not_declared: 'scopes_not_granted',
      invalid_shape: 'invalid_reply',
      not_json: 'invalid_reply',
      n8n_starting: 'invalid_reply',
      nul_prompt: 'invalid_reply',
      lone_surrogate_prompt: 'invalid_reply',
      lone_surrogate_message: 'invalid_reply',
      lone_surrogate_generated: 'generation_failed',
      prompt_too_short: 'prompt_too_short',
      prompt_too_short_emoji: 'prompt_too_short',
      generated_too_short: 'generated_too_short',
      generated_too_short_emoji: 'generated_too_short',
      generation_failed: 'generation_failed',
    };
    for (const [name, outcome] of Object.entries(expected)) {
      const records = await deliveriesOf(apps[name]);
      expect({ name, outcome: records.map((r) => r.outcome) }).toEqual({ name, outcome: [outcome] });
      expect(records[0]).toMatchObject({ status_code: 200, notification_id: null, user_id: user.id });
      if (outcome !== 'no_notification') expect(records[0].detail).toEqual(expect.any(String));
    }
    expect((await deliveriesOf(apps.not_json))[0].detail).toBe('The reply is not JSON');
    expect((await deliveriesOf(apps.n8n_starting))[0].detail).toBe(
      'The reply is not JSON: n8n was starting ("n8n is starting up. Please wait") and ran nothing',
    );
    expect((await deliveriesOf(apps.nul_prompt))[0].detail).toContain(
      'notification.prompt: Text must not contain NUL (U+0000) characters',
    );
    const unicode = 'Text must be well-formed Unicode (no lone surrogate characters)';
    expect((await deliveriesOf(apps.lone_surrogate_prompt))[0].detail).toContain(
      `notification.prompt: ${unicode}`,
    );
    expect((await deliveriesOf(apps.lone_surrogate_message))[0].detail).toContain(`message: ${unicode}`);
    expect((await deliveriesOf(apps.lone_surrogate_generated))[0].detail).toBe(
      `LLM reply refused: ${unicode}`,
    );
    expect((await user.client.get('/v1/dev/user/notifications')).body.notifications).toEqual([]);

    round = 2;
    const second = await user.client.post('/v1/dev/user/transcripts/drops/segments', segments('Again'));
    expect(second.body.dispatched).toBe(Object.keys(cases).length - 1); // not_installed is gone
    await settle();
    expect((await deliveriesOf(apps.generated_too_short))[0].outcome).toBe('pushed');
    expect((await deliveriesOf(apps.generation_failed))[0].outcome).toBe('pushed');
    const inbox = (await user.client.get('/v1/dev/user/notifications')).body.notifications;
    expect(inbox.map((n: { app_id: string }) => n.app_id).sort()).toEqual(
      [apps.generated_too_short.id, apps.generation_failed.id].sort(),
    );
  });

  it('does not send a prompt over 128,000 characters to the LLM, and says so in the delivery log', async () => {
    const user = await newUser(server);
    const apps: Record<string, TestApp> = {};
    const prompts = {
      too_long: 'a'.repeat(128_001),
      // 128,000 characters in 256,000 UTF-16 units: at the limit, counted in characters.
      longest: '🎉'.repeat(128_000),
    };
    for (const [name, prompt] of Object.entries(prompts)) {
      replies.set(`/long/${name}`, () => notify(prompt));
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/long/${name}` });
      await install(server, apps[name].id, user.id);
    }
    const llmCalls = llm.calls.length;
    await user.client.post('/v1/dev/user/transcripts/long/segments', segments('Hi'));
    await settle();

    const [refused] = await deliveriesOf(apps.too_long);
    expect(refused).toMatchObject({
      outcome: 'prompt_too_long',
      status_code: 200,
      notification_id: null,
      detail: 'The prompt is too long: 128001/128000 characters',
    });
    expect((await deliveriesOf(apps.longest)).map((d) => d.outcome)).toEqual(['pushed']);
    // Compared by length and equality, so a failure does not print 256,000 characters.
    const sent = llm.calls.slice(llmCalls).map((c) => JSON.parse(c.body).messages[0].content as string);
    expect(sent.map((prompt) => [[...prompt].length, prompt === prompts.longest])).toEqual([[128_000, true]]);
    const inbox = (await user.client.get('/v1/dev/user/notifications')).body.notifications;
    expect(inbox.map((n: { app_id: string }) => n.app_id)).toEqual([apps.longest.id]);
  });

  it('does not let a prompt that repeats a placeholder multiply the text sent to the LLM', async () => {
    // The app writes the user's chat with it itself (its pushed messages): 128,000 characters of `{{user_chat}}`
    // would otherwise become ~9,800 copies of it, hundreds of MB in one request built in this process.
    const user = await newUser(server);
    const app = await makeApp(server, {
      name: 'Repeats',
      webhookUrl: `${hooks.url}/repeats`,
      scopes: ['user_chat'],
    });
    await install(server, app.id, user.id, ['user_chat']);
    const chat = 'c'.repeat(130_000);
    const rounds = [
      { json: { message: chat } },
      notify('{{user_chat}}'.repeat(3), ['user_chat']),
      // One copy of each variable is always room enough, even past the 128,000 characters of the prompt itself.
      notify('Chat so far: {{user_chat}}', ['user_chat']),
    ];
    const llmCalls = llm.calls.length;
    for (const [i, answer] of rounds.entries()) {
      replies.set('/repeats', () => answer);
      await user.client.post('/v1/dev/user/transcripts/repeats/segments', segments(`Round ${i}`));
      await settle();
    }

    const records = await deliveriesOf(app);
    expect(records.map((r) => r.outcome)).toEqual(['pushed', 'prompt_too_long', 'message_pushed']);
    expect(records[1]).toMatchObject({ status_code: 200, notification_id: null });
    // "Repeats: " and the 130,000 characters, three times.
    expect(records[1].detail).toBe(
      'The filled prompt is too long: 390027 characters, more than the 128000 of a prompt and one copy of each variable (258009)',
    );
    const sent = llm.calls.slice(llmCalls).map((c) => JSON.parse(c.body).messages[0].content as string);
    expect(sent.map((prompt) => prompt.length)).toEqual([`Chat so far: Repeats: ${chat}`.length]);
  });

  it('names at most ten refused params in the delivery record, however many the reply lists', async () => {
    // 50,000 names made a 389 kB detail in every record, and a page of 100 records tens of MB.
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Params', webhookUrl: `${hooks.url}/params` });
    await install(server, app.id, user.id);
    const params = ['user_name', ...Array.from({ length: 50_000 }, (_, i) => `p${i % 25_000}`)];
    replies.set('/params', () => notify('Hello {{user_name}}', params));
    await user.client.post('/v1/dev/user/transcripts/params/segments', segments('Hi'));
    await settle();
    const [{ outcome, detail }] = await deliveriesOf(app);
    // A long detail is shown by its length, so a failure does not print it.
    expect([outcome, detail!.length > 200 ? `${detail!.length} characters` : detail]).toEqual([
      'scopes_not_granted',
      'Not declared by the app or not granted by the user: p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 and 24990 more',
    ]);
  });

  it('pushes a generated text without the NUL characters the model sent', async () => {
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Nul', webhookUrl: `${hooks.url}/nul` });
    await install(server, app.id, user.id);
    replies.set('/nul', () => notify('Say NUL please'));
    await user.client.post('/v1/dev/user/transcripts/nul/segments', segments('Hi'));
    await settle();
    expect((await deliveriesOf(app)).map((r) => r.outcome)).toEqual(['pushed']);
    const inbox = (await user.client.get('/v1/dev/user/notifications')).body.notifications;
    expect(inbox.map((n: { text: string }) => n.text)).toEqual(['LLM says: Say NUL please']);
  });

  it("sends segments whole, as the real service's apps read them, and stores speaker_id and person_id", async () => {
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Whole', webhookUrl: `${hooks.url}/whole` });
    await install(server, app.id, user.id);
    replies.set('/whole', () => ({ json: {} }));
    const input = [
      { text: 'Hey there.', speaker: 'SPEAKER_07', is_user: false, start: 0.25, end: 1 },
      // A display name and an id given: the label comes from the id, never from the name.
      {
        text: 'Hi Alice.',
        speaker: 'Alice',
        speaker_id: 3,
        person_id: 'person-alice',
        is_user: false,
        start: 1,
        end: 2,
      },
      { text: 'Me again.', is_user: true, start: 2, end: 3.5 },
      {
        text: 'Later.',
        speaker: 'Speaker 12',
        speaker_id: null,
        person_id: null,
        is_user: false,
        start: 4,
        end: 5,
      },
      // Segments a webhook call carried can be sent back as they are: their id is not kept.
      { id: 'from-a-webhook', text: 'Echo.', speaker: 'SPEAKER_00', is_user: false, start: 5, end: 6 },
    ];
    const accepted = await user.client.post('/v1/dev/user/transcripts/whole/segments', { segments: input });
    expect(accepted.status).toBe(202);
    await settle();

    const [call] = hooks.callsTo('/whole');
    const sent = JSON.parse(call.body) as { session_id: string; segments: Record<string, unknown>[] };
    expect(sent.session_id).toBe('whole');
    for (const segment of sent.segments) {
      expect(Object.keys(segment).sort()).toEqual(
        ['end', 'id', 'is_user', 'person_id', 'speaker', 'speaker_id', 'start', 'text'].sort(),
      );
      // What the real service's example apps do with it: the number after the `_`.
      expect(Number(String(segment.speaker).split('_')[1])).toBe(segment.speaker_id);
    }
    expect(sent.segments).toEqual([
      {
        id: expect.any(String),
        text: 'Hey there.',
        speaker: 'SPEAKER_07',
        speaker_id: 7,
        is_user: false,
        person_id: null,
        start: 0.25,
        end: 1,
      },
      {
        id: expect.any(String),
        text: 'Hi Alice.',
        speaker: 'SPEAKER_03',
        speaker_id: 3,
        is_user: false,
        person_id: 'person-alice',
        start: 1,
        end: 2,
      },
      {
        id: expect.any(String),
        text: 'Me again.',
        speaker: 'SPEAKER_00',
        speaker_id: 0,
        is_user: true,
        person_id: null,
        start: 2,
        end: 3.5,
      },
      {
        id: expect.any(String),
        text: 'Later.',
        speaker: 'SPEAKER_12',
        speaker_id: 12,
        is_user: false,
        person_id: null,
        start: 4,
        end: 5,
      },
      {
        id: expect.any(String),
        text: 'Echo.',
        speaker: 'SPEAKER_00',
        speaker_id: 0,
        is_user: false,
        person_id: null,
        start: 5,
        end: 6,
      },
    ]);
    expect(sent.segments.map((s) => s.id)).not.toContain('from-a-webhook');

    // The conversation returns them with the ids the webhook saw.
    const stored = await user.client.get(`/v1/dev/user/conversations/${accepted.body.conversation_id}`, {
      include_transcript: true,
    });
    const segmentsStored = expectShape(conversation, stored.body).transcript_segments!;
    expect(segmentsStored.map((s) => [s.id, s.speaker_id, s.speaker_name, s.person_id])).toEqual(
      sent.segments.map((s, i) => [
        s.id,
        s.speaker_id,
        ['SPEAKER_07', 'Alice', 'Speaker 0', 'Speaker 12', 'SPEAKER_00'][i],
        s.person_id,
      ]),
    );

    // A conversation created whole keeps them too.
    const created = await user.client.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: input,
    });
    expect(created.status).toBeLessThan(300);
    const fromSegments = expectShape(conversation, created.body).transcript_segments!;
    expect(fromSegments.map((s) => [s.speaker_id, s.person_id])).toEqual([
      [7, null],
      [3, 'person-alice'],
      [0, null],
      [12, null],
      [0, null],
    ]);
    const wrong = await user.client.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [{ text: 'Hi', start: 0, end: 1, person_id: 5 }],
    });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toContain('person_id');
  });

  it("honours a reply's message as the real service does, and needs no session_id", async () => {
    const replyOf = new Map<string, unknown>();
    const cases = {
      // mentor.py's reply: no session_id, an empty message, a notification.
      notification_only: {
        message: '',
        notification: { prompt: 'Say hi to {{user_name}}', params: ['user_name'] },
      },
      message_only: { message: 'Drink some water!' },
      empty_message: { message: '' },
      five_characters: { message: 'Hello' },
      six_characters: { message: 'Hello!' },
      null_message: { session_id: null, message: null, notification: null },
      both: { message: 'Stretch your legs!', notification: { prompt: 'Say hi', params: [] } },
      not_a_string: { message: 42 },
      // session_id is never read, whatever its type.
      numeric_session_id: { session_id: 12345, message: 'hello from the app' },
      // A falsy reply says nothing, as the real service reads it; a truthy one that is no object is malformed.
      null_reply: null,
      false_reply: false,
      empty_array_reply: [],
      array_reply: [{ message: 'Drink some water!' }],
    };
    const user = await newUser(server);
    const apps: Record<string, TestApp> = {};
    for (const [name, reply] of Object.entries(cases)) {
      replyOf.set(`/message/${name}`, reply);
      replies.set(`/message/${name}`, ({ path }) => ({ text: JSON.stringify(replyOf.get(path)) }));
      // The message needs no proactive_notification capability (the real service checks none for it).
      apps[name] = await makeApp(server, {
        name: `App ${name}`,
        webhookUrl: `${hooks.url}/message/${name}`,
        ...(name === 'message_only' ? { capabilities: ['external_integration'] } : {}),
      });
      // An app without the capability declares no scopes, so its install grants none.
      await install(server, apps[name].id, user.id, name === 'message_only' ? [] : undefined);
    }
    const llmCalls = llm.calls.length;
    await user.client.post('/v1/dev/user/transcripts/message/segments', segments('Hi'));
    await settle();

    const outcomes = async (name: string) => (await deliveriesOf(apps[name])).map((d) => d.outcome).sort();
    expect(await outcomes('notification_only')).toEqual(['pushed']);
    expect(await outcomes('message_only')).toEqual(['message_pushed']);
    expect(await outcomes('empty_message')).toEqual(['no_notification']);
    expect(await outcomes('five_characters')).toEqual(['no_notification']);
    expect(await outcomes('six_characters')).toEqual(['message_pushed']);
    expect(await outcomes('null_message')).toEqual(['no_notification']);
    expect(await outcomes('both')).toEqual(['message_pushed', 'pushed']);
    expect(await outcomes('not_a_string')).toEqual(['invalid_reply']);
    expect(await outcomes('numeric_session_id')).toEqual(['message_pushed']);
    for (const name of ['null_reply', 'false_reply', 'empty_array_reply'])
      expect({ name, outcomes: await outcomes(name) }).toEqual({ name, outcomes: ['no_notification'] });
    expect(await outcomes('array_reply')).toEqual(['invalid_reply']);
    expect((await deliveriesOf(apps.not_a_string))[0].detail).toContain('message');

    const inbox = (await user.client.get('/v1/dev/user/notifications', { limit: 100 })).body
      .notifications as {
      id: string;
      app_id: string;
      title: string;
      text: string;
      generated: boolean;
      kind: string;
    }[];
    const textsOf = (name: string) =>
      inbox
        .filter((n) => n.app_id === apps[name].id)
        .map((n) => n.text)
        .sort();
    // The message goes out as it is, without the LLM; the notification through it.
    expect(textsOf('message_only')).toEqual(['Drink some water!']);
    expect(textsOf('numeric_session_id')).toEqual(['hello from the app']);
    expect(textsOf('six_characters')).toEqual(['Hello!']);
    expect(textsOf('both')).toEqual(['LLM says: Say hi', 'Stretch your legs!']);
    expect(textsOf('notification_only')).toHaveLength(1);
    for (const name of ['empty_message', 'five_characters', 'null_message', 'not_a_string']) {
      expect(textsOf(name)).toEqual([]);
    }
    expect(llm.calls.length - llmCalls).toBe(2);
    const message = inbox.find((n) => n.text === 'Drink some water!')!;
    expect(message).toMatchObject({ title: 'App message_only', generated: false, kind: 'proactive' });
    const [delivery] = await deliveriesOf(apps.message_only);
    expect(delivery).toMatchObject({ status_code: 200, notification_id: message.id, detail: null });

    // No window for messages: the next one inside 30 s is pushed again; the notification's window holds.
    await user.client.post('/v1/dev/user/transcripts/message/segments', segments('Again'));
    await settle();
    expect(await outcomes('message_only')).toEqual(['message_pushed', 'message_pushed']);
    expect(await outcomes('both')).toEqual(['message_pushed', 'message_pushed', 'pushed', 'rate_limited']);
  });

  it('says why a reply that looks meant to push something pushed nothing; a reply with nothing to say needs no reason', async () => {
    const cases: Record<string, { reply: unknown; detail: string | null }> = {
      // The notification's fields at the top, without {notification: …} around them.
      top_level_prompt: {
        reply: { session_id: 's', prompt: 'Say hi to {{user_name}}', params: ['user_name'] },
        detail:
          'The reply has no notification and no message, only fields that are not read: "prompt", "params"; a notification is {"notification": {"prompt": "…", "params": […]}}',
      },
      // What an n8n node set to continue on failure puts out, answered as the last node's first item.
      n8n_error: {
        reply: { error: 'The prompt is too short: 2 characters', details: 'DevData drops…' },
        detail: 'The reply is an error, not a notification: The prompt is too short: 2 characters',
      },
      many_fields: {
        reply: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, i])),
        detail:
          'The reply has no notification and no message, only fields that are not read: "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9" and 2 more; a notification is {"notification": {"prompt": "…", "params": […]}}',
      },
      short_message: {
        reply: { message: 'Hi 🎉' },
        detail: 'The message has 4 characters: only a message longer than 5 is pushed',
      },
      // Nothing to say: no reason needed.
      session_only: { reply: { session_id: 's' }, detail: null },
      empty_message: { reply: { session_id: 's', message: '', notification: null }, detail: null },
    };
    const user = await newUser(server);
    const apps: Record<string, TestApp> = {};
    for (const [name, { reply }] of Object.entries(cases)) {
      replies.set(`/unheeded/${name}`, () => ({ json: reply }));
      apps[name] = await makeApp(server, {
        name: `App ${name}`,
        webhookUrl: `${hooks.url}/unheeded/${name}`,
      });
      await install(server, apps[name].id, user.id);
    }
    await user.client.post('/v1/dev/user/transcripts/unheeded/segments', segments('Hi'));
    await settle();
    for (const [name, { detail }] of Object.entries(cases)) {
      const records = (await deliveriesOf(apps[name])).map((d) => [d.outcome, d.status_code, d.detail]);
      expect({ name, records }).toEqual({ name, records: [['no_notification', 200, detail]] });
    }
  });

  it("pushes a reply's message even when its notification is malformed, and records why the notification was not", async () => {
    // The real service pushes the message before it reads the notification, so a broken notification (an n8n
    // expression that came out empty, a prompt of the wrong type) never costs the message.
    const cases = {
      empty_string: '',
      number_prompt: { prompt: 5, params: [] },
      nul_prompt: { prompt: 'Hello\u0000 there', params: [] },
      params_not_a_list: { prompt: 'Say hi to {{user_name}}', params: 'user_name' },
    };
    const user = await newUser(server);
    const apps: Record<string, TestApp> = {};
    for (const [name, notification] of Object.entries(cases)) {
      replies.set(`/half/${name}`, () => ({ json: { message: `Message of ${name}`, notification } }));
      apps[name] = await makeApp(server, { name: `Half ${name}`, webhookUrl: `${hooks.url}/half/${name}` });
      await install(server, apps[name].id, user.id);
    }
    await user.client.post('/v1/dev/user/transcripts/half/segments', segments('Hi'));
    await settle();

    const inbox = (await user.client.get('/v1/dev/user/notifications', { limit: 100 })).body.notifications;
    for (const name of Object.keys(cases)) {
      const records = await deliveriesOf(apps[name]);
      expect({ name, outcomes: records.map((r) => r.outcome).sort() }).toEqual({
        name,
        outcomes: ['invalid_reply', 'message_pushed'],
      });
      const refused = records.find((r) => r.outcome === 'invalid_reply')!;
      expect(refused).toMatchObject({ status_code: 200, notification_id: null });
      expect(refused.detail).toContain('notification');
      const pushed = inbox.filter((n: { app_id: string }) => n.app_id === apps[name].id);
      expect(pushed.map((n: { text: string }) => n.text)).toEqual([`Message of ${name}`]);
    }
    expect(
      (await deliveriesOf(apps.nul_prompt)).find((r) => r.outcome === 'invalid_reply')!.detail,
    ).toContain('notification.prompt: Text must not contain NUL (U+0000) characters');
  });

  it('refuses a reply that is not UTF-8 rather than push it altered; a byte order mark is skipped', async () => {
    const user = await newUser(server);
    const reply = JSON.stringify({ message: 'Café au lait, cher ami' });
    const answers: Record<string, Answer> = {
      latin1: { raw: Buffer.from(reply, 'latin1'), contentType: 'application/json; charset=iso-8859-1' },
      bom: { raw: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(reply, 'utf8')]) },
    };
    const apps: Record<string, TestApp> = {};
    for (const [name, answer] of Object.entries(answers)) {
      replies.set(`/encoding/${name}`, () => answer);
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/encoding/${name}` });
      await install(server, apps[name].id, user.id);
    }
    expect(
      (await user.client.post('/v1/dev/user/transcripts/encoding/segments', segments('Bonjour'))).status,
    ).toBe(202);
    await settle();
    expect((await deliveriesOf(apps.latin1)).map((d) => [d.outcome, d.status_code, d.detail])).toEqual([
      [
        'invalid_reply',
        200,
        'The reply is not UTF-8 text (JSON must be UTF-8, whatever the Content-Type says)',
      ],
    ]);
    expect((await deliveriesOf(apps.bom)).map((d) => d.outcome)).toEqual(['message_pushed']);
    const inbox = (await user.client.get('/v1/dev/user/notifications')).body.notifications;
    expect(inbox.map((n: { title: string; text: string }) => [n.title, n.text])).toEqual([
      ['bom', 'Café au lait, cher ami'],
    ]);
  });

  it('takes an empty 2xx answer (204, or 200 without a body) as no notification, never as a failure', async () => {
    const user = await newUser(server);
    const apps: Record<string, TestApp> = {};
    for (const [name, status] of [
      ['no_content', 204],
      ['empty_ok', 200],
    ] as const) {
      replies.set(`/empty/${name}`, () => ({ status, text: '' }));
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/empty/${name}` });
      await install(server, apps[name].id, user.id);
    }
    // One round more than the breaker's five failures in a row: every call still reaches the webhook.
    for (let round = 1; round <= 6; round += 1) {
      await user.client.post('/v1/dev/user/transcripts/empty/segments', segments(`Round ${round}`));
      await settle();
    }
    for (const [name, status] of [
      ['no_content', 204],
      ['empty_ok', 200],
    ] as const) {
      expect(hooks.callsTo(`/empty/${name}`)).toHaveLength(6);
      const records = await deliveriesOf(apps[name]);
      expect(records.map((r) => [r.outcome, r.status_code, r.detail])).toEqual(
        Array(6).fill(['no_notification', status, null]),
      );
    }
  });

  it('records the reason a refusing webhook gave ({message} or {detail}), on one line and cut short', async () => {
    const user = await newUser(server);
    const long = 'x'.repeat(400);
    const cases = {
      // As the Transcript Trigger and n8n answer.
      message: [
        { message: 'Signature timestamp is more than 300 seconds away' },
        401,
        ': Signature timestamp is more than 300 seconds away',
      ],
      detail: [{ detail: 'Not\nhere' }, 404, ': Not here'],
      long: [{ message: long }, 400, `: ${'x'.repeat(300)}…`],
      none: [{ error: 'down' }, 500, ''],
      text: ['down', 503, ''],
    } as const;
    const apps: Record<string, TestApp> = {};
    for (const [name, [body, status]] of Object.entries(cases)) {
      replies.set(`/refused/${name}`, () =>
        typeof body === 'string' ? { status, text: body } : { status, json: body },
      );
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/refused/${name}` });
      await install(server, apps[name].id, user.id);
    }
    await user.client.post('/v1/dev/user/transcripts/refused/segments', segments('Hello'));
    await settle();
    for (const [name, [, status, reason]] of Object.entries(cases)) {
      expect((await deliveriesOf(apps[name]))[0]).toMatchObject({
        outcome: 'http_error',
        status_code: status,
        detail: `The webhook answered HTTP ${status}${reason}`,
      });
    }
  });

  it('says where a redirecting webhook points, and does not follow it', async () => {
    const user = await newUser(server);
    const cases = {
      // A framework that wants the trailing slash, as FastAPI answers; and a move to another host.
      slash: [{ location: '/moved/slash/?token=abc' }, 307, `${hooks.url}/moved/slash/?token=abc`],
      elsewhere: [{ location: 'https://hooks.example/new' }, 301, 'https://hooks.example/new'],
      nowhere: [{}, 302, null],
    } as const;
    const apps: Record<string, TestApp> = {};
    for (const [name, [headers, status]] of Object.entries(cases)) {
      replies.set(`/redirect/${name}`, () => ({ status, headers, text: 'Moved' }));
      replies.set(`/moved/${name}/`, () => ({ json: { message: 'followed the redirect' } }));
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/redirect/${name}?token=abc` });
      await install(server, apps[name].id, user.id);
    }
    await user.client.post('/v1/dev/user/transcripts/redirect/segments', segments('Hello'));
    await settle();
    for (const [name, [, status, target]] of Object.entries(cases)) {
      expect((await deliveriesOf(apps[name])).map((d) => [d.outcome, d.status_code, d.detail])).toEqual([
        [
          'http_error',
          status,
          target === null
            ? `The webhook answered HTTP ${status}`
            : `The webhook answered HTTP ${status}, a redirect to ${target}, which is not followed: register that URL instead`,
        ],
      ]);
      expect(hooks.callsTo(`/moved/${name}/`)).toEqual([]);
    }
    expect((await user.client.get('/v1/dev/user/notifications')).body.notifications).toEqual([]);
  });

  it("bounds an app's backlog of waiting calls: past it a call is recorded as backlog_full, other apps unharmed", async () => {
    // Room for two waiting calls of the ~20 kB each batch below makes; two more run (the app's two slots).
    const server = await startServer(dialect, { webhookBacklogBytes: 50_000 });
    try {
      const settle = () => server.app.dispatcher.idle();
      const user = await newUser(server);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      // Slow but successful: every call is answered once the gate opens.
      replies.set('/backlog/slow', async () => {
        await gate;
        return { json: {} };
      });
      replies.set('/backlog/fast', () => ({ json: {} }));
      const apps: Record<string, TestApp> = {};
      for (const name of ['slow', 'fast']) {
        apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/backlog/${name}` });
        await install(server, apps[name].id, user.id);
      }
      const batch = (n: number) => ({
        segments: [0, 1].map((i) => ({
          text: `${n}${'x'.repeat(9_999)}`,
          speaker: 'SPEAKER_00',
          is_user: true,
          start: i,
          end: i + 1,
        })),
      });
      for (let n = 1; n <= 6; n += 1) {
        const accepted = await user.client.post('/v1/dev/user/transcripts/backlog/segments', batch(n));
        expect(accepted.status).toBe(202);
        expect(accepted.body.dispatched).toBe(2);
      }
      // Two calls hold the slow app's slots and two wait; the fifth and sixth found its backlog full.
      while (hooks.callsTo('/backlog/slow').length < 2) await new Promise((r) => setTimeout(r, 5));
      open();
      await settle();

      expect(hooks.callsTo('/backlog/slow')).toHaveLength(4);
      const slow = await deliveriesOf(apps.slow);
      expect(slow.map((d) => d.outcome).sort()).toEqual([
        'backlog_full',
        'backlog_full',
        'no_notification',
        'no_notification',
        'no_notification',
        'no_notification',
      ]);
      for (const refused of slow.filter((d) => d.outcome === 'backlog_full')) {
        expect(refused).toMatchObject({
          status_code: null,
          latency_ms: 0,
          session_id: 'backlog',
          user_id: user.id,
          detail:
            "Not sent: the app's webhook calls waiting for a slot would hold more than 50000 bytes (DEVDATA_WEBHOOK_BACKLOG_MB)",
        });
      }
      // The calls made are those of the first four batches.
      const sentFirst = hooks
        .callsTo('/backlog/slow')
        .map((c) => (JSON.parse(c.body) as { segments: { text: string }[] }).segments[0].text[0]);
      expect(sentFirst.sort()).toEqual(['1', '2', '3', '4']);
      // The other app's calls are never refused for the slow app's backlog.
      expect(hooks.callsTo('/backlog/fast')).toHaveLength(6);
      expect((await deliveriesOf(apps.fast)).map((d) => d.outcome)).toEqual(Array(6).fill('no_notification'));
    } finally {
      await server.close();
    }
  });

  /**
   * An installed app whose webhook at `/slow/<name>` holds its calls until `open()`: three transcript batches are
   * posted, and once two calls are under way (an app's two slots) the third waits for a slot.
   */
  async function thirdCallWaiting(name: string) {
    const user = await newUser(server);
    const app = await makeApp(server, { name, webhookUrl: `${hooks.url}/slow/${name}` });
    await install(server, app.id, user.id);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    replies.set(`/slow/${name}`, async () => {
      await gate;
      return { json: {} };
    });
    for (const text of ['One', 'Two', 'Three']) {
      const reply = await user.client.post(`/v1/dev/user/transcripts/${name}/segments`, segments(text));
      expect(reply.status).toBe(202);
    }
    while (hooks.callsTo(`/slow/${name}`).length < 2) await new Promise((r) => setTimeout(r, 20));
    return { user, app, open };
  }

  it('does not send a waiting call once the user has removed the app', async () => {
    const { user, app, open } = await thirdCallWaiting('uninstalled');
    const removed = await adminClient(server).delete(`/v1/admin/apps/${app.id}/installs/${user.id}`);
    expect(removed.status).toBe(204);
    open();
    await settle();
    const calls = hooks.callsTo('/slow/uninstalled');
    expect(calls.map((c) => JSON.parse(c.body).segments[0].text)).toEqual(['One', 'Two']);
    // The waiting call is recorded when a slot frees, which may be before the second call ends.
    const deliveries = (await deliveriesOf(app)).sort((a, b) => a.outcome.localeCompare(b.outcome));
    expect(deliveries.map((d) => [d.outcome, d.status_code, d.detail])).toEqual([
      ['no_notification', 200, null],
      ['no_notification', 200, null],
      [
        'not_installed',
        null,
        'Not sent: the user removed the app, or the app its webhook, while the call waited for a slot',
      ],
    ]);
    expect(deliveries[2].latency_ms).toBe(0);
  });

  it("sends a waiting call to the app's webhook URL as it is when the call is made", async () => {
    replies.set('/moved/here', () => ({ json: {} }));
    const { user, app, open } = await thirdCallWaiting('moving');
    // As n8n does when a workflow goes from its test URL to its production one.
    const moved = await app.client.put(`/v2/integrations/${app.id}/webhook`, {
      webhook_url: `${hooks.url}/moved/here`,
      triggers_on: 'transcript_processed',
    });
    expect(moved.status).toBe(200);
    open();
    await settle();
    expect(hooks.callsTo('/slow/moving').map((c) => JSON.parse(c.body).segments[0].text)).toEqual([
      'One',
      'Two',
    ]);
    const [third] = hooks.callsTo('/moved/here');
    expect(JSON.parse(third.body).segments[0].text).toBe('Three');
    expect(third.query.get('uid')).toBe(user.id);
    const urls = (await deliveriesOf(app)).map((d) => d.url).sort();
    expect(urls).toEqual([`${hooks.url}/moved/here`, `${hooks.url}/slow/moving`, `${hooks.url}/slow/moving`]);
  });

  it('survives hanging, failing, non-JSON and 10 MB webhooks; the breaker opens after 5 failures in a row', async () => {
    // A timeout short enough to wait for once, long enough that ingestion on a busy machine is well inside it.
    const timeoutMs = 10_000;
    const server = await startServer(dialect, { webhookTimeoutMs: timeoutMs });
    try {
      await survivesBadWebhooks(server, timeoutMs);
    } finally {
      await server.close();
    }
  });

  async function survivesBadWebhooks(server: TestServer, timeoutMs: number) {
    const settle = () => server.app.dispatcher.idle();
    const user = await newUser(server);
    let hung = false;
    replies.set('/bad/hang', () => {
      // The first call hangs past the timeout; later ones fail fast, so the breaker test stays short.
      if (hung) return { status: 503, json: {} };
      hung = true;
      return 'hang';
    });
    replies.set('/bad/500', () => ({ status: 500, json: { error: 'down' } }));
    replies.set('/bad/text', () => ({ text: '<html>oops</html>' }));
    replies.set('/bad/huge', () => ({ bytes: 10 * 1024 * 1024 }));
    replies.set('/bad/good', ({ query }) => ({ json: { session_id: query.get('session_id') } }));
    const apps: Record<string, TestApp> = {};
    for (const name of ['hang', '500', 'text', 'huge', 'good']) {
      apps[name] = await makeApp(server, { name, webhookUrl: `${hooks.url}/bad/${name}` });
      await install(server, apps[name].id, user.id);
    }

    const first = await user.client.post('/v1/dev/user/transcripts/bad/segments', segments('One'));
    // Ingestion does not wait for the webhooks: answered while the hanging one still holds its call (its
    // delivery is recorded when the call ends, at the timeout).
    expect(await deliveriesOf(apps.hang)).toEqual([]);
    expect(first.status).toBe(202);
    expect(first.body.dispatched).toBe(5);
    await settle();
    const firstOutcomes = Object.fromEntries(
      await Promise.all(
        Object.entries(apps).map(async ([name, app]) => [name, (await deliveriesOf(app))[0]] as const),
      ),
    );
    expect(firstOutcomes.hang).toMatchObject({ outcome: 'timeout', status_code: null });
    expect(firstOutcomes.hang.latency_ms).toBeGreaterThanOrEqual(timeoutMs * 0.9);
    expect(firstOutcomes['500']).toMatchObject({ outcome: 'http_error', status_code: 500 });
    expect(firstOutcomes.text).toMatchObject({ outcome: 'invalid_reply', status_code: 200 });
    expect(firstOutcomes.huge).toMatchObject({ outcome: 'invalid_reply', status_code: null });
    expect(firstOutcomes.huge.detail).toMatch(/larger than 1048576 bytes/);
    expect(firstOutcomes.good).toMatchObject({ outcome: 'no_notification', status_code: 200 });

    for (let i = 2; i <= 6; i += 1) {
      const reply = await user.client.post('/v1/dev/user/transcripts/bad/segments', segments(`Round ${i}`));
      expect(reply.status).toBe(202);
      await settle();
    }
    // Five failures in a row, then the sixth call is skipped without reaching the receiver.
    for (const name of ['hang', '500', 'text', 'huge']) {
      expect(hooks.callsTo(`/bad/${name}`)).toHaveLength(5);
      const outcomes = (await deliveriesOf(apps[name])).map((d) => d.outcome);
      expect(outcomes).toHaveLength(6);
      expect(outcomes[0]).toBe('circuit_open');
      expect(outcomes.slice(1)).not.toContain('circuit_open');
    }
    const open = (await deliveriesOf(apps['500']))[0];
    expect(open).toMatchObject({ status_code: null, latency_ms: 0 });
    // The healthy app got every call.
    expect(hooks.callsTo('/bad/good')).toHaveLength(6);
    expect((await deliveriesOf(apps.good)).map((d) => d.outcome)).toEqual(Array(6).fill('no_notification'));
  }

  it('lets an app read, set and clear its webhook', async () => {
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Reg', capabilities: ['proactive_notification'] });
    await install(server, app.id, user.id);
    const path = `/v2/integrations/${app.id}/webhook`;
    expect(expectShape(webhookConfig, (await app.client.get(path)).body)).toEqual({
      triggers_on: 'transcript_processed',
      webhook_url: null,
    });
    expect(
      (await user.client.post('/v1/dev/user/transcripts/reg/segments', segments('a'))).body.dispatched,
    ).toBe(0);

    const url = `${hooks.url}/reg`;
    replies.set('/reg', () => ({ json: { session_id: 'reg' } }));
    const put = await app.client.put(path, { webhook_url: url });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ triggers_on: 'transcript_processed', webhook_url: url });
    const shown = await app.client.get(`/v2/integrations/${app.id}/app`);
    expect(shown.body.capabilities).toEqual(['proactive_notification', 'external_integration']);
    expect(shown.body.external_integration).toEqual({
      triggers_on: 'transcript_processed',
      webhook_url: url,
    });
    expect((await app.client.get(path)).body.webhook_url).toBe(url);
    expect(
      (await user.client.post('/v1/dev/user/transcripts/reg/segments', segments('b'))).body.dispatched,
    ).toBe(1);
    await settle();
    expect(hooks.callsTo('/reg')).toHaveLength(1);

    expect(await app.client.put(path, { webhook_url: 'ftp://x' })).toMatchObject({
      status: 422,
      body: {
        detail: [
          {
            loc: ['body', 'webhook_url'],
            msg: 'Must be an http or https URL, e.g. https://example.com/webhook',
          },
        ],
      },
    });
    expect((await app.client.put(path, { webhook_url: url, triggers_on: 'other' })).status).toBe(422);
    expect((await client(server.baseUrl, 'sk_wrong').get(path)).status).toBe(401);

    const cleared = await app.client.delete(path);
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ triggers_on: 'transcript_processed', webhook_url: null });
    expect(
      (await user.client.post('/v1/dev/user/transcripts/reg/segments', segments('c'))).body.dispatched,
    ).toBe(0);
  });

  it('shows an app only its own deliveries, and an admin all of them, newest first in pages', async () => {
    const user = await newUser(server);
    replies.set('/mine', () => ({ json: { session_id: 'x' } }));
    const mine = await makeApp(server, { name: 'Mine', webhookUrl: `${hooks.url}/mine` });
    const theirs = await makeApp(server, { name: 'Theirs', webhookUrl: `${hooks.url}/mine` });
    await install(server, mine.id, user.id);
    await install(server, theirs.id, user.id);
    for (const session of ['p1', 'p2', 'p3']) {
      await user.client.post(`/v1/dev/user/transcripts/${session}/segments`, segments(session));
      await settle();
    }
    const own = await deliveriesOf(mine);
    expect(own.map((d) => d.session_id)).toEqual(['p3', 'p2', 'p1']);
    expect(own.every((d) => d.app_id === mine.id)).toBe(true);
    const page1 = await mine.client.get(`/v2/integrations/${mine.id}/deliveries`, { limit: 2 });
    expect(page1.body).toMatchObject({ has_more: true });
    const page2 = await mine.client.get(`/v2/integrations/${mine.id}/deliveries`, {
      limit: 2,
      cursor: page1.body.next_cursor,
    });
    expect(page2.body.deliveries.map((d: { session_id: string }) => d.session_id)).toEqual(['p1']);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    // Another app's secret does not open this app's log.
    const foreign = await client(server.baseUrl, theirs.secret).get(`/v2/integrations/${mine.id}/deliveries`);
    expect(foreign.status).toBe(401);

    const admin = adminClient(server);
    const all = expectShape(
      deliveriesPage,
      (await admin.get('/v1/admin/deliveries', { user_id: user.id })).body,
    );
    expect(all.deliveries).toHaveLength(6);
    expect(new Set(all.deliveries.map((d) => d.app_id))).toEqual(new Set([mine.id, theirs.id]));
    const filtered = (await admin.get('/v1/admin/deliveries', { app_id: theirs.id })).body;
    expect(filtered.deliveries).toHaveLength(3);
    expect((await client(server.baseUrl, user.key).get('/v1/admin/deliveries')).status).toBe(401);
  });

  it('prunes delivery records older than 30 days once a call is recorded', async () => {
    const fresh = await startServer(dialect, { webhookTimeoutMs: 500 });
    try {
      const user = await newUser(fresh);
      const app = await makeApp(fresh, { name: 'Old', webhookUrl: `${hooks.url}/old` });
      await install(fresh, app.id, user.id);
      replies.set('/old', () => ({ json: { session_id: 's' } }));
      const now = Date.now();
      const recorded = (id: string, ageMs: number) => ({
        id,
        app_id: app.id,
        user_id: user.id,
        session_id: 'past',
        url: `${hooks.url}/old`,
        status_code: 200,
        latency_ms: 1,
        outcome: 'no_notification',
        detail: null,
        notification_id: null,
        created_at: now - ageMs,
      });
      const day = 86_400_000;
      expect(DELIVERY_RETENTION_MS).toBe(30 * day); // as the server manual documents
      await fresh.store.db
        .insertInto('deliveries')
        .values([
          recorded('expired', DELIVERY_RETENTION_MS + day),
          recorded('kept', DELIVERY_RETENTION_MS - day),
        ])
        .execute();

      await user.client.post('/v1/dev/user/transcripts/now/segments', segments('Hi'));
      await fresh.app.dispatcher.idle();
      const left = (await deliveriesOf(app)).map((d) => d.id);
      expect(left).toHaveLength(2);
      expect(left).toContain('kept');
      expect(left).not.toContain('expired');
    } finally {
      await fresh.close();
    }
  });

  it('refuses segments for a session ID a from-segments create used, saying so, and changes nothing', async () => {
    const api = (await newUser(server)).client;
    const made = await api.post('/v1/dev/user/conversations/from-segments', {
      client_session_id: 'shared-id',
      transcript_segments: [{ text: 'Imported', start: 0, end: 5 }],
    });
    expect(made.status).toBe(200);
    const refused = await api.post('/v1/dev/user/transcripts/shared-id/segments', segments('Live words'));
    expect(refused.status).toBe(409);
    expect(expectShape(errorBody, refused.body).detail).toBe(
      'Session ID shared-id is the client_session_id of a conversation created from segments, not a live transcript session: use another session ID',
    );
    const stored = await api.get(`/v1/dev/user/conversations/${made.body.id}`, { include_transcript: true });
    expect(expectShape(conversation, stored.body).transcript_segments!.map((s) => s.text)).toEqual([
      'Imported',
    ]);
  });

  it('pushes direct notifications to the stream and the push URL too', async () => {
    const stream = await openStream(server.baseUrl, server.init.developer_key);
    const sent = await client(server.baseUrl, server.init.app_secret).post(
      `/v2/integrations/${server.init.app_id}/notification`,
      undefined,
      { uid: server.init.user_id, message: 'Direct hello' },
    );
    expect(sent.status).toBe(200);
    expect(JSON.parse(await stream.next('notification'))).toMatchObject({
      kind: 'direct',
      text: 'Direct hello',
      generated: false,
    });
    await settle();
    expect(pushes.calls.at(-1)!.body).toBe('Direct hello');
    // Left open on purpose: closing the server must end the stream rather than wait for it.
  });
});

describe('proactive pipeline without an LLM', () => {
  let server: TestServer;
  let hooks: Receiver;

  beforeAll(async () => {
    hooks = await receiver(({ query }) => ({
      json: {
        session_id: query.get('session_id'),
        notification: { prompt: 'Time for a break, {{user_name}}.', params: ['user_name'] },
      },
    }));
    server = await startServer('sqlite', { llmBaseUrl: null });
  });
  afterAll(async () => {
    await server.close();
    await hooks.close();
  });

  it('pushes the filled prompt itself, marked generated: false', async () => {
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Break bot', webhookUrl: `${hooks.url}/hook` });
    await install(server, app.id, user.id);
    const accepted = await user.client.post(
      '/v1/dev/user/transcripts/quiet/segments',
      segments('Working late'),
    );
    expect(accepted.status).toBe(202);
    await server.app.dispatcher.idle();
    const userName = (await adminClient(server).get('/v1/admin/users')).body.find(
      (u: { id: string }) => u.id === user.id,
    ).name;
    const inbox = expectShape(notificationsPage, (await user.client.get('/v1/dev/user/notifications')).body);
    expect(inbox.notifications.map((n) => [n.text, n.generated])).toEqual([
      [`Time for a break, ${userName}.`, false],
    ]);
    expect((await deliveriesOf(app))[0].outcome).toBe('pushed');
  });
});

describe('proactive pipeline with an LLM base URL that has a query (Azure OpenAI)', () => {
  let server: TestServer;
  let hooks: Receiver;
  let llm: Receiver;

  beforeAll(async () => {
    hooks = await receiver(() => notify('Time for a break, {{user_name}}.', ['user_name']));
    llm = await receiver(() => ({ json: { choices: [{ message: { content: 'Stretch your legs!' } }] } }));
    server = await startServer('sqlite', {
      llmBaseUrl: `${llm.url}/openai/deployments/coach?api-version=2024-06-01`,
    });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all([hooks.close(), llm.close()]);
  });

  it('calls /chat/completions under the base path, keeping the query', async () => {
    const user = await newUser(server);
    const app = await makeApp(server, { name: 'Azure coach', webhookUrl: `${hooks.url}/hook` });
    await install(server, app.id, user.id);
    expect((await user.client.post('/v1/dev/user/transcripts/az/segments', segments('Hi'))).status).toBe(202);
    await server.app.dispatcher.idle();
    const [call] = llm.callsTo('/openai/deployments/coach/chat/completions');
    expect(call?.query.get('api-version')).toBe('2024-06-01');
    const inbox = expectShape(notificationsPage, (await user.client.get('/v1/dev/user/notifications')).body);
    expect(inbox.notifications.map((n) => [n.text, n.generated])).toEqual([['Stretch your legs!', true]]);
  });
});

describe('proactive pipeline with an LLM that hangs or refuses', () => {
  const llmTimeoutMs = 3_000;
  let server: TestServer;
  let hooks: Receiver;
  let llm: Receiver;

  beforeAll(async () => {
    hooks = await receiver(({ path }) => notify(`Answer ${path.slice(1)} now, {{user_name}}`, ['user_name']));
    llm = await receiver(({ path, body }) => {
      if (path.startsWith('/moved/')) return { json: { choices: [{ message: { content: 'followed' } }] } };
      const prompt = (JSON.parse(body) as { messages: { content: string }[] }).messages[0].content;
      if (prompt.includes('hang')) return 'hang';
      // Ollama's answer for a model it does not have, and OpenAI's for a wrong key.
      if (prompt.includes('ollama'))
        return { status: 404, json: { error: 'model "gpt-4o-mini" not found, try pulling it first' } };
      if (prompt.includes('openai')) {
        return {
          status: 401,
          json: {
            error: {
              message: `Incorrect API key provided:\n${'x'.repeat(400)}`,
              type: 'invalid_request_error',
            },
          },
        };
      }
      if (prompt.includes('silent')) return { status: 503, text: 'Service Unavailable' };
      // A gateway that answers its upstream's refusal with a 200.
      if (prompt.includes('gateway')) return { json: { error: { message: 'upstream model overloaded' } } };
      // An endpoint that moved (http to https, say): where it points is said, and it is never called.
      if (prompt.includes('moved'))
        return { status: 301, headers: { location: '/moved/chat/completions' }, text: 'Moved' };
      return { json: { choices: [{ message: { content: 'unreachable' } }] } };
    });
    server = await startServer('sqlite', { llmBaseUrl: llm.url, llmTimeoutMs });
  });
  afterAll(async () => {
    await server.close();
    await Promise.all([hooks.close(), llm.close()]);
  });

  async function failure(name: string) {
    const user = await newUser(server);
    const app = await makeApp(server, { name, webhookUrl: `${hooks.url}/${name}` });
    await install(server, app.id, user.id);
    expect((await user.client.post(`/v1/dev/user/transcripts/${name}/segments`, segments('Hi'))).status).toBe(
      202,
    );
    await server.app.dispatcher.idle();
    expect((await user.client.get('/v1/dev/user/notifications')).body.notifications).toEqual([]);
    const [delivery] = await deliveriesOf(app);
    expect(delivery.outcome).toBe('generation_failed');
    return delivery.detail;
  }

  it('says the LLM did not answer in time, naming the setting', async () => {
    expect(await failure('hang')).toBe(
      `The LLM did not answer within ${llmTimeoutMs} ms (DEVDATA_LLM_TIMEOUT_MS)`,
    );
  });

  it('records the reason a refusing LLM endpoint gave, on one line and cut short', async () => {
    expect(await failure('ollama')).toBe(
      'LLM request failed with HTTP 404: model "gpt-4o-mini" not found, try pulling it first',
    );
    expect(await failure('openai')).toBe(
      `LLM request failed with HTTP 401: Incorrect API key provided: ${'x'.repeat(300 - 'Incorrect API key provided: '.length)}…`,
    );
    expect(await failure('silent')).toBe(
      'LLM request failed with HTTP 503: Request failed with status code 503',
    );
    expect(await failure('gateway')).toBe(
      'LLM reply has no choices[0].message.content: upstream model overloaded',
    );
  });

  it('does not follow a redirecting LLM endpoint, and says where it points', async () => {
    expect(await failure('moved')).toBe(
      `LLM request failed with HTTP 301, a redirect to ${llm.url}/moved/chat/completions, which is not followed: fix DEVDATA_LLM_BASE_URL`,
    );
    expect(llm.callsTo('/moved/chat/completions')).toEqual([]);
  });
});

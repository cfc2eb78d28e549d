// One faulty app may not hold up the others: while one app's webhook hangs and another's answers 10 MB, a healthy
// app's webhook is reached while the hanging app still holds every call it took, so it never waited for one's slot.
// The webhook timeout is far beyond the test's own, so no hanging call can end before the app recovers, however
// slow the machine. How soon is measured in bench/ (group `proactive`). Every webhook is a real node:http server on
// 127.0.0.1.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveriesPage } from '../../server/src/contract/proactive';
import { eventReceiver, type EventReceiver } from '../helpers/event-receiver';
import { adminClient, client, expectShape, newUser } from '../helpers/http';
import { DIALECTS, startServer, type TestServer } from '../helpers/server';

/** A 10 MB JSON reply, made once: a webhook sends it with one write. */
const TEN_MEGABYTES = Buffer.concat([
  Buffer.from('{"session_id":"'),
  Buffer.alloc(10 * 1024 * 1024, 'a'),
  Buffer.from('"}'),
]);

/** How each test webhook behaves. */
type Behaviour = 'answer' | 'hang' | 'ten-megabytes';

/** A webhook on a free loopback port; records when each session's call arrived. */
async function webhook(behaviour: () => Behaviour) {
  const arrivals = new Map<string, number>();
  /** Sessions whose answer is over: sent in full, or cut off by the server. */
  const answered = new Set<string>();
  const hung = new Set<ServerResponse>();
  let closedEarly = 0;
  const server: Server = createServer((req, res) => {
    const session = new URL(req.url ?? '/', 'http://localhost').searchParams.get('session_id') ?? '';
    arrivals.set(session, performance.now());
    req.resume();
    req.on('end', () => {
      res.on('error', () => undefined);
      const now = behaviour();
      if (now === 'hang') {
        hung.add(res);
        // Still held when it closes: the server gave up on it.
        res.on('close', () => {
          if (hung.delete(res)) closedEarly += 1;
        });
        return;
      }
      res.on('close', () => answered.add(session));
      res.writeHead(200, { 'content-type': 'application/json' });
      if (now === 'answer') {
        res.end(JSON.stringify({ session_id: session }));
        return;
      }
      res.end(TEN_MEGABYTES);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    answered,
    /** Calls held open without an answer right now. */
    hanging: () => hung.size,
    /** Held calls the server closed before the app answered them. */
    closedEarly: () => closedEarly,
    /** Answers every held call: the app has recovered. */
    release: () => {
      for (const res of hung) {
        hung.delete(res);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"session_id":"x"}');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(DIALECTS)('per-app isolation in the dispatcher on %s', (dialect) => {
  let server: TestServer;
  // The two "other" apps turn faulty for the test, and recover at its end.
  let faulty = false;
  const hooks: Record<string, Awaited<ReturnType<typeof webhook>>> = {};

  beforeAll(async () => {
    hooks.healthy = await webhook(() => 'answer');
    hooks.hanging = await webhook(() => (faulty ? 'hang' : 'answer'));
    hooks.huge = await webhook(() => (faulty ? 'ten-megabytes' : 'answer'));
    // Hanging calls would time out after 10 minutes, five times the test's own timeout: they are held until the
    // app recovers. The circuit breaker, which would soon skip the faulty URLs, is kept out of the way so the
    // dispatcher's own isolation is what is shown.
    server = await startServer(dialect, { webhookTimeoutMs: 600_000, breakerFailures: 1_000 });
  });
  afterAll(async () => {
    faulty = false; // whatever is still queued drains at once
    hooks.hanging?.release();
    await server.close();
    await Promise.all(Object.values(hooks).map((h) => h.close()));
  });

  it('a healthy app is reached while the others hang or answer 10 MB', async () => {
    const admin = adminClient(server);
    const apps: Record<string, { id: string; secret: string }> = {};
    for (const name of ['healthy', 'hanging', 'huge']) {
      const created = await admin.post('/v1/admin/apps', {
        name,
        capabilities: ['external_integration'],
        external_integration: { triggers_on: 'transcript_processed', webhook_url: hooks[name].url },
      });
      expect(created.status).toBe(201);
      apps[name] = { id: created.body.id, secret: created.body.app_secret };
    }
    // Busy users of the two other apps, and one user of the healthy app whose calls are timed.
    const busy = await Promise.all([1, 2, 3, 4].map(() => newUser(server)));
    const timed = await newUser(server);
    const install = async (app: string, userId: string) =>
      expect((await admin.post(`/v1/admin/apps/${apps[app].id}/installs`, { user_id: userId })).status).toBe(
        201,
      );
    for (const user of busy) {
      await install('hanging', user.id);
      await install('huge', user.id);
    }
    await install('healthy', timed.id);

    const segments = {
      segments: [{ text: 'Hello', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
    };
    let sessions = 0;
    /** Busy users' transcripts (each a call to both other apps), then one call to the healthy app. */
    async function sample(): Promise<void> {
      await Promise.all(
        busy.map(async (user) => {
          const sent = await user.client.post(
            `/v1/dev/user/transcripts/busy-${sessions++}/segments`,
            segments,
          );
          expect(sent.status).toBe(202);
        }),
      );
      const session = `healthy-${sessions++}`;
      const sent = await timed.client.post(`/v1/dev/user/transcripts/${session}/segments`, segments);
      expect(sent.status).toBe(202);
      // A call held up behind the hanging app would never arrive: the test then fails on its own timeout.
      while (!hooks.healthy.arrivals.has(session)) await new Promise((r) => setTimeout(r, 1));
    }

    faulty = true;
    for (let i = 0; i < 16; i += 1) await sample();
    // Every healthy call arrived while the hanging app still held every call it had taken: the server closed none
    // of them, so no slot was freed for a healthy call to wait for.
    expect(hooks.hanging.closedEarly()).toBe(0);
    // The hanging app holds its share of the slots and no more.
    expect(hooks.hanging.hanging()).toBe(server.app.config.webhookConcurrencyPerApp);

    // The hanging app recovers: it answers the calls it holds, and its backlog drains. (Timeouts are shown in
    // proactive.test.ts.)
    faulty = false;
    hooks.hanging.release();
    await server.app.dispatcher.idle();
    const outcomes = async (app: string) => {
      const reply = await client(server.baseUrl, apps[app].secret).get(
        `/v2/integrations/${apps[app].id}/deliveries`,
        { limit: 100 },
      );
      return expectShape(deliveriesPage, reply.body).deliveries.map((d) => d.outcome);
    };
    expect(new Set(await outcomes('healthy'))).toEqual(new Set(['no_notification']));
    expect(new Set(await outcomes('hanging'))).toEqual(new Set(['no_notification']));
    expect(await outcomes('huge')).toContain('invalid_reply');
  }, 120_000);
});

/**
 * An LLM that holds every request it gets until `release()`, then answers each with a text made of its prompt.
 * A real node:http server on 127.0.0.1, as an OpenAI-compatible endpoint.
 */
async function hangingLlm() {
  const held: { res: ServerResponse; prompt: string }[] = [];
  let holds = true;
  const answer = (res: ServerResponse, prompt: string) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ choices: [{ message: { role: 'assistant', content: `Generated: ${prompt}` } }] }),
      );
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.on('error', () => undefined);
      const prompt = (
        JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { content: string }[] }
      ).messages[0].content;
      if (holds) held.push({ res, prompt });
      else answer(res, prompt);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Requests held open right now. */
    holding: () => held.length,
    /** The prompts of those requests. */
    prompts: () => held.map(({ prompt }) => prompt),
    /** Answers the requests held now. */
    release: () => {
      for (const { res, prompt } of held.splice(0)) answer(res, prompt);
    },
    /** Answers the requests held now, and every later one at once. */
    free: () => {
      holds = false;
      for (const { res, prompt } of held.splice(0)) answer(res, prompt);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(DIALECTS)('the LLM and the webhook slots on %s', (dialect) => {
  let server: TestServer;
  let llm: Awaited<ReturnType<typeof hangingLlm>>;
  let hooks: Awaited<ReturnType<typeof webhook>>;
  let prompting: EventReceiver;

  beforeAll(async () => {
    llm = await hangingLlm();
    hooks = await webhook(() => 'answer');
    // Two apps answer with a prompt (this receiver), one with nothing to say (`hooks`).
    prompting = await eventReceiver(() => ({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ notification: { prompt: 'Say hello to {{user_name}}', params: ['user_name'] } }),
    }));
    // Two webhook calls at once, one per app: two apps' notifications waiting for the model would hold them all if
    // generation took webhook slots. The model's timeout is far beyond the test's own: it answers only when
    // released.
    server = await startServer(dialect, {
      llmBaseUrl: llm.url,
      llmTimeoutMs: 600_000,
      // A notification may wait for the model this long: longer than any test here.
      webhookTimeoutMs: 600_000,
      webhookConcurrency: 2,
      webhookConcurrencyPerApp: 1,
    });
  });
  afterAll(async () => {
    llm?.free();
    await server?.close();
    await Promise.all([llm?.close(), hooks?.close(), prompting?.close()]);
  });

  it("another app's webhook is called while the model still generates the first apps' notifications", async () => {
    const admin = adminClient(server);
    const user = await newUser(server);
    const apps: Record<string, { id: string; secret: string }> = {};
    for (const [name, url] of [
      ['first', `${prompting.url}?app=first`],
      ['second', `${prompting.url}?app=second`],
      ['quiet', hooks.url],
    ] as const) {
      const created = await admin.post('/v1/admin/apps', {
        name,
        capabilities: ['external_integration', 'proactive_notification'],
        external_integration: { triggers_on: 'transcript_processed', webhook_url: url },
        proactive_notification: { scopes: ['user_name'] },
      });
      expect(created.status).toBe(201);
      apps[name] = { id: created.body.id, secret: created.body.app_secret };
      const installed = await admin.post(`/v1/admin/apps/${created.body.id}/installs`, {
        user_id: user.id,
        granted_scopes: ['user_name'],
      });
      expect(installed.status).toBe(201);
    }

    const segments = {
      segments: [{ text: 'Hello', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
    };
    expect((await user.client.post('/v1/dev/user/transcripts/llm-1/segments', segments)).status).toBe(202);
    // Both prompting apps' notifications reach the model, which holds them.
    while (llm.holding() < 2) await new Promise((r) => setTimeout(r, 1));
    // The quiet app's call waited for a slot held by a generation, it would never arrive: the test then fails on
    // its own timeout.
    while (!hooks.arrivals.has('llm-1')) await new Promise((r) => setTimeout(r, 1));
    expect(llm.holding()).toBe(2);

    llm.release();
    await server.app.dispatcher.idle();
    const outcomes = async (app: string) => {
      const reply = await client(server.baseUrl, apps[app].secret).get(
        `/v2/integrations/${apps[app].id}/deliveries`,
      );
      return expectShape(deliveriesPage, reply.body).deliveries.map((d) => d.outcome);
    };
    expect(await outcomes('first')).toEqual(['pushed']);
    expect(await outcomes('second')).toEqual(['pushed']);
    expect(await outcomes('quiet')).toEqual(['no_notification']);
  }, 120_000);

  it('the model gets as many notifications at once as the webhook calls may be, each app its share', async () => {
    const admin = adminClient(server);
    const appIds: Record<string, string> = {};
    for (const name of ['busy', 'other']) {
      const created = await admin.post('/v1/admin/apps', {
        name,
        capabilities: ['external_integration', 'proactive_notification'],
        external_integration: {
          triggers_on: 'transcript_processed',
          webhook_url: `${prompting.url}?app=${name}`,
        },
        proactive_notification: { scopes: ['user_name'] },
      });
      expect(created.status).toBe(201);
      appIds[name] = created.body.id;
    }
    // Two users of the busy app, one of the other; each user's name is in the prompt the model gets.
    const users = await Promise.all([1, 2, 3].map(() => newUser(server)));
    const everyone = (await admin.get('/v1/admin/users')).body as { id: string; name: string }[];
    const names = users.map((user) => everyone.find((u) => u.id === user.id)!.name);
    expect(names.every((name) => typeof name === 'string' && name.length > 0)).toBe(true);
    for (const [i, user] of users.entries()) {
      const installed = await admin.post(`/v1/admin/apps/${appIds[i < 2 ? 'busy' : 'other']}/installs`, {
        user_id: user.id,
        granted_scopes: ['user_name'],
      });
      expect(installed.status).toBe(201);
    }
    const segments = {
      segments: [{ text: 'Hello', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
    };
    /** Users whose window for the busy app is claimed: their notification passed every check. */
    const claimed = async () =>
      (await server.store.db.selectFrom('rate_counters').select('key').execute()).filter((row) =>
        row.key.startsWith(`proactive:${appIds.busy}:`),
      ).length;

    for (const user of users.slice(0, 2)) {
      expect((await user.client.post('/v1/dev/user/transcripts/share/segments', segments)).status).toBe(202);
    }
    while ((await claimed()) < 2) await new Promise((r) => setTimeout(r, 1));
    expect((await users[2].client.post('/v1/dev/user/transcripts/share/segments', segments)).status).toBe(
      202,
    );
    // The busy app's second notification waits for its share (one at a time): the other app's is generated
    // beside its first, never both of the busy app's.
    while (llm.holding() < 2) await new Promise((r) => setTimeout(r, 1));
    const held = llm.prompts();
    expect(held.filter((prompt) => prompt.includes(names[2]))).toHaveLength(1);
    expect(held.filter((prompt) => prompt.includes(names[0]) || prompt.includes(names[1]))).toHaveLength(1);

    llm.release();
    // The busy app's second notification now has its turn.
    while (llm.holding() < 1) await new Promise((r) => setTimeout(r, 1));
    llm.release();
    await server.app.dispatcher.idle();
    for (const user of users) {
      const inbox = await user.client.get('/v1/dev/user/notifications');
      expect(inbox.body.notifications).toHaveLength(1);
    }
  }, 120_000);
});

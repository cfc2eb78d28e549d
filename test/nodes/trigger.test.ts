// The DevData Transcript Trigger's webhook() against real HTTP requests, served the way n8n serves a webhook (see
// helpers/webhook.ts): signature checks on the raw body, payload checks, both Respond modes, and what the
// workflow starts with. The DevData server is not involved here (see proactive-e2e.test.ts for that).
import { sign } from '../../server/src/proactive/signature';
import {
  post,
  proactiveWorkflow,
  REPLY_NODE,
  serveWorkflow,
  signature,
  TRIGGER_NODE,
  TRIGGER_WEBHOOK_ID,
  type ServedWorkflow,
  type TestCredentials,
} from './helpers';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const credentials = (webhookSecret = SECRET): TestCredentials => ({
  devDataAppApi: { baseUrl: 'http://127.0.0.1:9', appId: 'app-1', appSecret: 'sk_test', webhookSecret },
});

const payload = {
  session_id: 'sess-1',
  segments: [
    {
      id: 'seg-1',
      text: 'Hello there',
      speaker: 'SPEAKER_00',
      speaker_id: 0,
      is_user: false,
      person_id: null,
      start: 0,
      end: 1.2,
    },
    {
      id: 'seg-2',
      text: 'Hi, I will send the report tomorrow',
      speaker: 'SPEAKER_01',
      speaker_id: 1,
      is_user: true,
      person_id: 'person-7',
      start: 1.2,
      end: 3,
    },
  ],
};
const body = JSON.stringify(payload);

let served: ServedWorkflow[] = [];
async function serve(...args: Parameters<typeof serveWorkflow>) {
  const workflow = await serveWorkflow(...args);
  served.push(workflow);
  return workflow;
}
afterEach(async () => {
  await Promise.all(served.map((s) => s.close()));
  served = [];
});

const url = (workflow: ServedWorkflow, query = '?session_id=sess-1&uid=user-7') =>
  workflow.webhookUrl() + query;

test("the trigger's URL is /webhook/<webhookId>/devdata, one per trigger node", async () => {
  const workflow = await serve(proactiveWorkflow(), credentials());
  expect(workflow.webhookUrl()).toBe(`${workflow.baseUrl}/webhook/${TRIGGER_WEBHOOK_ID}/devdata`);
});

describe('with a signing secret', () => {
  test('a call signed by the server starts the workflow with {session_id, uid, segments, transcript}', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    const reply = await post(url(workflow), body, { 'x-signature': sign(SECRET, body) });
    expect(reply.status).toBe(200);
    const [execution] = await workflow.executions();
    expect(execution.error).toBeUndefined();
    expect(execution.output(TRIGGER_NODE).map((item) => item.json)).toEqual([
      {
        session_id: 'sess-1',
        uid: 'user-7',
        segments: payload.segments,
        transcript: 'SPEAKER_00: Hello there\nYou: Hi, I will send the report tomorrow',
      },
    ]);
  });

  test("segments with only the interface's text, speaker and is_user start it too", async () => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    const segments = payload.segments.map(({ text, speaker, is_user }) => ({ text, speaker, is_user }));
    const raw = JSON.stringify({ session_id: 'sess-1', segments });
    const reply = await post(url(workflow), raw, { 'x-signature': sign(SECRET, raw) });
    expect(reply.status).toBe(200);
    const [execution] = await workflow.executions();
    expect(execution.output(TRIGGER_NODE)[0].json.segments).toEqual(segments);
  });

  test('Respond "With the Last Node\'s Notification" answers with the Proactive Reply the workflow built', async () => {
    const workflow = await serve(proactiveWorkflow({ trigger: { respond: 'lastNode' } }), credentials());
    const reply = await post(url(workflow), body, { 'x-signature': signature(SECRET, body) });
    expect(reply).toEqual({
      status: 200,
      body: {
        session_id: 'sess-1',
        notification: {
          prompt:
            'Say hello to {{user_name}} about: SPEAKER_00: Hello there\nYou: Hi, I will send the report tomorrow',
          params: ['user_name'],
        },
      },
    });
    const [execution] = await workflow.executions();
    expect(execution.output(REPLY_NODE)[0].json).toEqual(reply.body);
  });

  test('Respond "Without a Notification" answers {session_id} at once, and the workflow still runs', async () => {
    const workflow = await serve(proactiveWorkflow({ trigger: { respond: 'onReceived' } }), credentials());
    const reply = await post(url(workflow), body, { 'x-signature': signature(SECRET, body) });
    expect(reply).toEqual({ status: 200, body: { session_id: 'sess-1' } });
    const [execution] = await workflow.executions();
    expect(execution.output(REPLY_NODE)[0].json.session_id).toBe('sess-1');
  });

  const refused = async (workflow: ServedWorkflow, headers: Record<string, string>, raw = body) => {
    const reply = await post(url(workflow), raw, headers);
    expect(await workflow.executions()).toEqual([]);
    return reply;
  };

  test('a call without X-Signature gets 401 and starts nothing', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    expect(await refused(workflow, {})).toEqual({
      status: 401,
      body: { message: 'Missing X-Signature header' },
    });
  });

  test('a call signed with another secret gets 401 and starts nothing', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    const reply = await refused(workflow, { 'x-signature': signature('whsec_someone_else', body) });
    expect(reply).toEqual({ status: 401, body: { message: 'Invalid signature' } });
  });

  test('the signature covers the raw bytes: the same JSON sent differently, or altered, gets 401', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    const header = signature(SECRET, body);
    expect(
      (await refused(workflow, { 'x-signature': header }, JSON.stringify(payload, null, 2))).status,
    ).toBe(401);
    const altered = JSON.stringify({ ...payload, session_id: 'sess-2' });
    expect((await refused(workflow, { 'x-signature': header }, altered)).status).toBe(401);
  });

  test('a signature more than 5 minutes old or ahead gets 401; within 5 minutes either way is fine', async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const now = Math.floor(Date.now() / 1000);
    for (const t of [now - 310, now + 310]) {
      const reply = await refused(workflow, { 'x-signature': signature(SECRET, body, t) });
      expect(reply).toEqual({
        status: 401,
        body: { message: "Signature timestamp is more than 300 seconds away from this server's clock" },
      });
    }
    for (const t of [now - 290, now + 290]) {
      expect((await post(url(workflow), body, { 'x-signature': signature(SECRET, body, t) })).status).toBe(
        200,
      );
    }
    expect(await workflow.executions()).toHaveLength(2);
  });

  test('a malformed X-Signature gets 401', async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const valid = signature(SECRET, body);
    for (const header of [
      'garbage',
      valid.replace(/,v1=.*/, ''),
      valid.replace(/^t=\d+,/, ''),
      't=abc,v1=00',
    ]) {
      expect((await refused(workflow, { 'x-signature': header })).status).toBe(401);
    }
  });

  test('the same signed call again is a replay: 409, and nothing starts, whatever its query says', async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const t = Math.floor(Date.now() / 1000);
    const [stamp, current] = signature(SECRET, body, t).split(',');
    expect((await post(url(workflow), body, { 'x-signature': `${stamp},${current}` })).status).toBe(200);
    // The query is not signed: a copy may name another user; reordered or padded v1 entries change nothing.
    for (const header of [`${stamp},${current}`, `${stamp},v1=${'0'.repeat(64)},${current}`]) {
      const replay = await post(url(workflow, '?session_id=sess-1&uid=victim'), body, {
        'x-signature': header,
      });
      expect(replay).toEqual({
        status: 409,
        body: { message: 'This signed call was received before: a replay starts nothing' },
      });
    }
    const executions = await workflow.executions();
    expect(executions).toHaveLength(1);
    expect(executions[0].output(TRIGGER_NODE)[0].json).toMatchObject({ uid: 'user-7' });
  });

  test("the body's session_id is the one taken; a query naming another is refused", async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const reply = await post(url(workflow, '?session_id=other-session&uid=user-7'), body, {
      'x-signature': signature(SECRET, body),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/the session_id of the query is not the body's$/);
    expect(await workflow.executions()).toEqual([]);
  });

  test("the body's uid is the one taken, as the signature covers it; a query naming another is refused", async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const signedBody = JSON.stringify({ ...payload, uid: 'user-7' });
    const t = Math.floor(Date.now() / 1000);
    const refusedCall = await post(url(workflow, '?session_id=sess-1&uid=victim'), signedBody, {
      'x-signature': signature(SECRET, signedBody, t),
    });
    expect(refusedCall.status).toBe(400);
    expect(refusedCall.body.message).toMatch(/the uid of the query is not the body's$/);
    const taken = await post(url(workflow, '?session_id=sess-1'), signedBody, {
      'x-signature': signature(SECRET, signedBody, t - 1),
    });
    expect(taken.status).toBe(200);
    const executions = await workflow.executions();
    expect(executions).toHaveLength(1);
    expect(executions[0].output(TRIGGER_NODE)[0].json).toMatchObject({ session_id: 'sess-1', uid: 'user-7' });
  });

  test('one matching v1 among several is enough (secret rotation)', async () => {
    const workflow = await serve(proactiveWorkflow({ reply: null }), credentials());
    const now = Math.floor(Date.now() / 1000);
    // The matching one first and last: every v1 is tried, not only the first. (Two calls, so two timestamps:
    // the same signed call twice would be a replay.)
    for (const [t, matchingFirst] of [
      [now, true],
      [now - 1, false],
    ] as const) {
      const old = signature('whsec_old', body, t).split(',')[1];
      const [stamp, current] = signature(SECRET, body, t).split(',');
      const header = matchingFirst ? `${stamp},${current},${old}` : `${stamp},${old},${current}`;
      expect((await post(url(workflow), body, { 'x-signature': header })).status).toBe(200);
    }
  });
});

test('a signing secret pasted with a space or line break around it checks signatures as the secret itself', async () => {
  // The App Secret is trimmed before use; the signing secret was not, and every genuine call got 401.
  const workflow = await serve(proactiveWorkflow({ reply: null }), credentials(` ${SECRET}\n`));
  const reply = await post(url(workflow), body, { 'x-signature': sign(SECRET, body) });
  expect(reply.status).toBe(200);
  expect(await workflow.executions()).toHaveLength(1);
  expect((await post(url(workflow), body, { 'x-signature': sign(`${SECRET}x`, body) })).status).toBe(401);
});

test('without a signing secret in the credential, unsigned calls are accepted', async () => {
  const workflow = await serve(proactiveWorkflow({ reply: null }), credentials(''));
  const reply = await post(url(workflow), body);
  expect(reply.status).toBe(200);
  expect(await workflow.executions()).toHaveLength(1);
});

describe('malformed calls get 400 (or 422 for unparsable JSON, from n8n) and start nothing', () => {
  const cases: Array<[string, string]> = [
    ['no segments', JSON.stringify({ session_id: 'sess-1' })],
    ['segments not an array', JSON.stringify({ session_id: 'sess-1', segments: 'hello' })],
    ['a segment without text', JSON.stringify({ session_id: 'sess-1', segments: [{ speaker: 'A' }] })],
    ['an array body', JSON.stringify([payload])],
  ];
  test.each(cases)('%s → 400', async (_, raw) => {
    const workflow = await serve(proactiveWorkflow(), credentials());
    const reply = await post(url(workflow), raw, { 'x-signature': signature(SECRET, raw) });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^The body must be \{"session_id": "…", "segments": \[/);
    expect(await workflow.executions()).toEqual([]);
  });

  test('no session_id in the query nor the body → 400', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials(''));
    const reply = await post(url(workflow, '?uid=u'), { segments: payload.segments });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/no session_id$/);
  });

  test('unparsable JSON → 422 before the trigger runs', async () => {
    const workflow = await serve(proactiveWorkflow(), credentials(''));
    const reply = await post(url(workflow), '{"session_id": ');
    expect(reply.status).toBe(422);
    expect(await workflow.executions()).toEqual([]);
  });
});

test("session_id falls back to the body's when the query has none; uid is then empty", async () => {
  const workflow = await serve(proactiveWorkflow({ reply: null }), credentials(''));
  expect((await post(url(workflow, ''), body)).status).toBe(200);
  const [execution] = await workflow.executions();
  expect(execution.output(TRIGGER_NODE)[0].json).toMatchObject({ session_id: 'sess-1', uid: '' });
});

test('a workflow that fails answers 500, so DevData records an HTTP error and pushes nothing', async () => {
  const workflow = await serve(proactiveWorkflow({ reply: { prompt: 'Hi' } }), credentials(''));
  const reply = await post(url(workflow), body);
  expect(reply).toEqual({ status: 500, body: { message: 'Error in workflow' } });
});

// DevData → Proactive Reply → Build, run in real workflows by n8n-core's engine. It makes no request, so no
// server is needed; what it puts out is checked against the server's own reply contract.
import { webhookReply } from '../../server/src/contract/proactive';
import { expectShape } from '../helpers/http';
import { devDataWorkflow, jsonOut, NODE, runWorkflow, type DevDataWorkflowOptions } from './helpers';

const call = { session_id: 'sess-42', uid: 'user-1', transcript: 'SPEAKER_00: The demo is on Friday' };

async function build(
  parameters: Record<string, unknown>,
  items: Array<Record<string, unknown>> = [call],
  options: DevDataWorkflowOptions = {},
) {
  return await runWorkflow(
    devDataWorkflow({ resource: 'proactiveReply', operation: 'build', ...parameters }, { items, ...options }),
    {},
  );
}

test('a fixed prompt keeps its {{placeholders}} as text; params are the variables it uses, in order', async () => {
  const result = await build({
    prompt: 'Remind {{user_name}} of the demo. Facts: {{ user_facts }}. Again, {{user_name}}.',
  });
  const [reply] = jsonOut(result);
  // Written without spaces inside the braces, the one form every DevData service fills (the real service this one
  // is modelled on fills only `{{user_facts}}`).
  expect(reply).toEqual({
    session_id: 'sess-42',
    notification: {
      prompt: 'Remind {{user_name}} of the demo. Facts: {{user_facts}}. Again, {{user_name}}.',
      params: ['user_name', 'user_facts'],
    },
  });
  expectShape(webhookReply, reply);
  expect(result.output(NODE)[0].pairedItem).toEqual({ item: 0 });
});

test('a prompt without placeholders declares no params', async () => {
  const [reply] = jsonOut(await build({ prompt: 'Say something encouraging.' }));
  expect(reply.notification).toEqual({ prompt: 'Say something encouraging.', params: [] });
});

test('in an expression prompt, n8n evaluates {{ $json… }} and leaves DevData’s placeholders to DevData', async () => {
  const [reply] = jsonOut(
    await build({ prompt: '=Tell {{user_name}} ({{ user_chat }}) about: {{ $json.transcript }}' }),
  );
  expect(reply.notification).toEqual({
    prompt: 'Tell {{user_name}} ({{user_chat}}) about: SPEAKER_00: The demo is on Friday',
    params: ['user_name', 'user_chat'],
  });
});

test("Context to Add appends the chosen data, labelled, in a fixed order, after n8n's evaluation", async () => {
  const [reply] = jsonOut(
    await build({
      prompt: '=Write one line about: {{ $json.transcript }}',
      contextToAdd: ['user_chat', 'user_facts', 'user_name'],
    }),
  );
  expect(reply.notification.prompt).toBe(
    [
      'Write one line about: SPEAKER_00: The demo is on Friday',
      '',
      "The user's name: {{user_name}}",
      '',
      'What you know about the user:',
      '{{user_facts}}',
      '',
      'Your recent messages to the user:',
      '{{user_chat}}',
    ].join('\n'),
  );
  expect(reply.notification.params).toEqual(['user_name', 'user_facts', 'user_chat']);
});

test('Context to Add does not add what the prompt already places', async () => {
  const [reply] = jsonOut(
    await build({ prompt: 'Greet {{user_name}} warmly.', contextToAdd: ['user_name', 'user_context'] }),
  );
  expect(reply.notification).toEqual({
    prompt: "Greet {{user_name}} warmly.\n\nThe user's recent conversations:\n{{user_context}}",
    params: ['user_name', 'user_context'],
  });
});

test('Session ID defaults to $json.session_id of each item, and can be set', async () => {
  const result = await build({ prompt: 'Say hi to {{user_name}}' }, [
    { session_id: 'a' },
    { session_id: 'b' },
  ]);
  expect(jsonOut(result).map((r) => r.session_id)).toEqual(['a', 'b']);
  expect(result.output(NODE).map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
  const fixed = await build({ prompt: 'Say hi to {{user_name}}', sessionId: 'fixed-session' });
  expect(jsonOut(fixed)[0].session_id).toBe('fixed-session');
});

test('an unknown variable is a NodeOperationError that names it and the item', async () => {
  const result = await build({ prompt: '=Hello {{ $json.who }}, mood: {{ "{{user_mood}}" }}' }, [
    { session_id: 's', who: 'Ann' },
  ]);
  // (n8n cannot even parse that expression; the node reports what n8n says.)
  expect(result.error).toBeDefined();

  const fixed = await build({ prompt: 'Cheer up {{user_name}}, your mood is {{user_mood}}' }, [
    { session_id: 's1' },
    { session_id: 's2' },
  ]);
  expect(fixed.error?.name).toBe('NodeOperationError');
  expect(fixed.error?.message).toBe('Unknown variable {{user_mood}} in the prompt (input item 0)');
  expect(fixed.error?.description).toContain(
    '{{user_name}}, {{user_facts}}, {{user_context}}, {{user_chat}}',
  );

  // In an expression too, where n8n would have made it empty.
  const expression = await build({ prompt: '=Cheer up {{user_name}}, mood {{ user_mood }}' }, [
    { session_id: 'ok' },
  ]);
  expect(expression.error?.message).toBe('Unknown variable {{user_mood}} in the prompt (input item 0)');
});

test('the error names the failing item when earlier items were fine', async () => {
  const result = await build({ prompt: '={{ $json.prompt }}' }, [
    { session_id: 's1', prompt: 'Hello {{user_name}}' },
    { session_id: 's2', prompt: 'Hello {{username}}' },
  ]);
  expect(result.error?.message).toBe('Unknown variable {{username}} in the prompt (input item 1)');
});

test('an expression prompt may compute text around the placeholders, per item', async () => {
  const result = await build(
    { prompt: '={{ $json.who.toUpperCase() }}: {{user_name}}, {{ $json.n * 2 }} {{user_facts}}' },
    [
      { session_id: 's1', who: 'ann', n: 1 },
      { session_id: 's2', who: 'bob', n: 2 },
    ],
  );
  expect(jsonOut(result).map((reply) => reply.notification)).toEqual([
    { prompt: 'ANN: {{user_name}}, 2 {{user_facts}}', params: ['user_name', 'user_facts'] },
    { prompt: 'BOB: {{user_name}}, 4 {{user_facts}}', params: ['user_name', 'user_facts'] },
  ]);
});

test('a prompt under 5 characters is refused, counting what the expression gave', async () => {
  const short = await build({ prompt: ' Hi! ' });
  expect(short.error?.name).toBe('NodeOperationError');
  expect(short.error?.message).toBe(
    'The prompt is too short: 3 characters, DevData needs at least 5 (input item 0)',
  );
  const empty = await build({ prompt: '={{ $json.missing }}' });
  expect(empty.error?.message).toBe(
    'The prompt is too short: 0 characters, DevData needs at least 5 (input item 0)',
  );
  // Five characters is enough, placeholders included, as the server counts.
  expect(jsonOut(await build({ prompt: 'Hello' }))[0].notification.prompt).toBe('Hello');
  // Characters are code points, as the server counts them: four emoji are 4, not their 8 UTF-16 units.
  const emoji = await build({ prompt: '👋🏽👋🏽' });
  expect(emoji.error?.message).toBe(
    'The prompt is too short: 4 characters, DevData needs at least 5 (input item 0)',
  );
});

test('a prompt over 128,000 characters is refused, as DevData would drop it', async () => {
  const long = await build({ prompt: 'a'.repeat(128_001) });
  expect(long.error?.message).toBe(
    'The prompt is too long: 128001 characters, DevData takes at most 128000 (input item 0)',
  );
  // Counted in characters: 128,000 emoji are 256,000 UTF-16 units, and still within the limit.
  const longest = '🎉'.repeat(128_000);
  expect(jsonOut(await build({ prompt: longest }))[0].notification.prompt === longest).toBe(true);
});

test('Reply With Exact Message answers {session_id, message}, refusing one DevData would not push', async () => {
  const [reply] = jsonOut(
    await build({ replyWith: 'message', message: '=Break time? You said: {{ $json.transcript }}' }),
  );
  expect(reply).toEqual({
    session_id: 'sess-42',
    message: 'Break time? You said: SPEAKER_00: The demo is on Friday',
  });
  expectShape(webhookReply, reply);
  const short = await build({ replyWith: 'message', message: 'Hello' });
  expect(short.error?.message).toBe(
    'The message is too short: 5 characters, DevData pushes one of 6 or more (input item 0)',
  );
  expect(jsonOut(await build({ replyWith: 'message', message: 'Hello!' }))[0].message).toBe('Hello!');
});

test('Reply With Exact Message refuses a placeholder, which DevData fills only in a prompt', async () => {
  // Fixed, it would reach the user as written, braces and all.
  const fixed = await build({ replyWith: 'message', message: 'Take a break, {{user_name}}!' });
  expect(fixed.error?.name).toBe('NodeOperationError');
  expect(fixed.error?.message).toBe(
    'The message uses {{user_name}}, which DevData fills only in a prompt (input item 0)',
  );
  expect(fixed.error?.description).toContain('Set Reply With to Prompt');
  // In an expression, where n8n would have made it empty.
  const expression = await build({
    replyWith: 'message',
    message: '=Take a break, {{ user_name }}! {{user_facts}} {{ $json.transcript }}',
  });
  expect(expression.error?.message).toBe(
    'The message uses {{user_name}}, {{user_facts}}, which DevData fills only in a prompt (input item 0)',
  );
  // What an expression gave counts too.
  const given = await build({ replyWith: 'message', message: '={{ $json.text }}' }, [
    { session_id: 's', text: 'Hello {{ user_chat }} there' },
  ]);
  expect(given.error?.message).toBe(
    'The message uses {{user_chat}}, which DevData fills only in a prompt (input item 0)',
  );
  // Other braces are the message's own.
  expect(jsonOut(await build({ replyWith: 'message', message: 'Use {{ braces }} freely' }))[0].message).toBe(
    'Use {{ braces }} freely',
  );
});

test('an empty Session ID is refused', async () => {
  const result = await build({ prompt: 'Hello {{user_name}}' }, [{ uid: 'no session here' }]);
  expect(result.error?.message).toBe('The Session ID is empty (input item 0)');
});

test('Continue On Fail: a failing item puts out {error} paired with it, and the others their reply', async () => {
  const result = await build(
    { prompt: '={{ $json.prompt }}' },
    [
      { session_id: 's1', prompt: 'Hello {{user_name}}' },
      { session_id: 's2', prompt: 'Hi' },
      { session_id: 's3', prompt: 'Bye {{user_nickname}}' },
      { session_id: 's4', prompt: 'Good night, {{user_name}}' },
    ],
    { onError: 'continueRegularOutput' },
  );
  expect(result.error).toBeUndefined();
  expect(result.output(NODE).map((item) => [item.json, item.pairedItem])).toEqual([
    [
      { session_id: 's1', notification: { prompt: 'Hello {{user_name}}', params: ['user_name'] } },
      { item: 0 },
    ],
    [
      {
        error: 'The prompt is too short: 2 characters, DevData needs at least 5 (input item 1)',
        details:
          'DevData drops a notification whose prompt is shorter than 5 characters. If the prompt is an expression, check what it evaluates to for this item.',
      },
      { item: 1 },
    ],
    [
      {
        error: 'Unknown variable {{user_nickname}} in the prompt (input item 2)',
        details:
          'DevData fills only {{user_name}}, {{user_facts}}, {{user_context}}, {{user_chat}}; any other {{…}} would reach the user as it is. Fix the name, or remove the braces.',
      },
      { item: 2 },
    ],
    [
      { session_id: 's4', notification: { prompt: 'Good night, {{user_name}}', params: ['user_name'] } },
      { item: 3 },
    ],
  ]);
});

test('Continue (using error output) sends the failing items to the error output', async () => {
  const result = await build(
    { prompt: '={{ $json.prompt }}' },
    [
      { session_id: 's1', prompt: 'Hello {{user_name}}' },
      { session_id: 's2', prompt: 'Hi' },
    ],
    { onError: 'continueErrorOutput' },
  );
  expect(result.output(NODE, 0).map((item) => item.json.session_id)).toEqual(['s1']);
  expect(result.output(NODE, 1).map((item) => item.json.error)).toEqual([
    'The prompt is too short: 2 characters, DevData needs at least 5 (input item 1)',
  ]);
});

// Live Transcript → Add Segments and Finish: a conversation written as it happens, through n8n's engine against the
// real server.
import { conversation } from '../../server/src/contract/conversations';
import { segmentsAccepted, sessionFinished } from '../../server/src/contract/proactive';
import { devClient, expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

const addSegments = (sessionId: string, parameters: Record<string, unknown>, items?: object[]) =>
  runDevData(
    server,
    { resource: 'liveTranscript', operation: 'addSegments', sessionId, ...parameters },
    items ? { items: items as Array<Record<string, unknown>> } : {},
  );
const finish = (sessionId: string) =>
  runDevData(server, { resource: 'liveTranscript', operation: 'finish', sessionId });

async function storedConversation(id: string) {
  const read = await devClient(server).get(`/v1/dev/user/conversations/${id}`, { include_transcript: true });
  return expectShape(conversation, read.body);
}

test('adds segments defined below and as JSON to one conversation, then finishes it', async () => {
  const first = jsonOut(
    await addSegments('standup-1126', {
      segmentsInput: 'fields',
      transcriptSegments: {
        segment: [{ text: 'Morning all', speaker: 'SPEAKER_00', isUser: true, start: 0, end: 1.5 }],
      },
    }),
  );
  const accepted = expectShape(segmentsAccepted, first[0]);
  expect(accepted.session_id).toBe('standup-1126');

  // Each input item adds its own segments, in order.
  const more = jsonOut(
    await addSegments(
      'standup-1126',
      { segmentsInput: 'json', transcriptSegmentsJson: '={{ $json.segments }}' },
      [
        { segments: [{ text: 'I will ship the fix today', speaker: 'SPEAKER_01', start: 2, end: 4 }] },
        { segments: [{ text: 'Great', is_user: true, start: 4.2, end: 4.8 }] },
      ],
    ),
  );
  expect(more.map((json) => json.conversation_id)).toEqual([
    accepted.conversation_id,
    accepted.conversation_id,
  ]);

  const finished = expectShape(sessionFinished, jsonOut(await finish('standup-1126'))[0]);
  expect(finished).toMatchObject({ session_id: 'standup-1126', conversation_id: accepted.conversation_id });
  const stored = await storedConversation(accepted.conversation_id);
  expect(stored.transcript_segments?.map((s) => [s.text, s.is_user])).toEqual([
    ['Morning all', true],
    ['I will ship the fix today', false],
    ['Great', true],
  ]);
  expect(stored.finished_at).toBe(finished.finished_at);
});

test('a finished session refuses more segments, and finishing it again answers the same', async () => {
  const segmentsInput = {
    segmentsInput: 'json',
    transcriptSegmentsJson: '[{"text": "Hi", "start": 0, "end": 1}]',
  };
  jsonOut(await addSegments('closed-session', segmentsInput));
  const finished = jsonOut(await finish('closed-session'))[0];
  expect(jsonOut(await finish('closed-session'))[0]).toEqual(finished);

  const refused = await addSegments('closed-session', segmentsInput);
  expect(`${refused.error?.message} ${refused.error?.description}`).toMatch(/finished/);
});

test('finishing a session that never had segments names the session', async () => {
  const result = await finish('never-started');
  expect(result.error?.message).toBe(
    'Transcript session not found: no transcript session with ID "never-started" exists for this user',
  );
});

test('a Session ID expression that gives nothing fails the item instead of writing to a session "undefined"', async () => {
  const sent = () => server.requests.filter((r) => r.path.startsWith('/v1/dev/user/transcripts/')).length;
  const before = sent();
  const segment = { segment: [{ text: 'Hello', isUser: false, start: 0, end: 1 }] };
  for (const result of [
    await addSegments('={{ $json.session }}', { segmentsInput: 'fields', transcriptSegments: segment }, [
      { other: 1 },
    ]),
    await runDevData(
      server,
      { resource: 'liveTranscript', operation: 'finish', sessionId: '={{ $json.session }}' },
      { items: [{ other: 1 }] },
    ),
  ]) {
    expect(result.nodeError(NODE)?.message).toBe('The Session ID is empty (input item 0)');
    expect(result.nodeError(NODE)?.description).toContain('check what it evaluates to for this item');
  }
  expect(sent()).toBe(before);
});

test('a refused segment names its field as the node shows it', async () => {
  const result = await addSegments('bad-segment', {
    segmentsInput: 'fields',
    transcriptSegments: { segment: [{ text: '', isUser: false, start: 0, end: 1 }] },
  });
  expect(result.nodeError(NODE)?.description).toMatch(/^In this node: Text \(text\)\./);
});

// The server refuses an empty list as `segments`, a name the node shows nowhere: the node says which parameter is empty
// before sending, in either input mode, and for Conversation → Create From Segments alike.
test.each([
  ['no segment added below', { segmentsInput: 'fields', transcriptSegments: {} }, 'Segments'],
  ['an empty JSON array', { segmentsInput: 'json', transcriptSegmentsJson: '={{ [] }}' }, 'Segments (JSON)'],
])('%s fails the item naming the parameter, and sends nothing', async (_, parameters, shown) => {
  const sent = () => server.requests.filter((r) => r.method === 'POST').length;
  const before = sent();
  for (const operation of [
    { resource: 'liveTranscript', operation: 'addSegments', sessionId: 'no-segments' },
    { resource: 'conversation', operation: 'createFromSegments' },
  ]) {
    const result = await runDevData(server, { ...operation, ...parameters });
    expect(result.error?.message).toBe(`${shown} is empty (input item 0)`);
    expect(result.error?.description).toMatch(/^Add at least one segment/);
  }
  expect(sent()).toBe(before);
});

test('Conversation → Get Many lists a session still open only with Include In Progress, as in_progress', async () => {
  const credentials = credentialsFor(server, (await newUser(server)).key);
  const run = (parameters: Record<string, unknown>) => runDevData(server, parameters, { credentials });
  const open = jsonOut(
    await run({
      resource: 'liveTranscript',
      operation: 'addSegments',
      sessionId: 'still-talking',
      segmentsInput: 'json',
      transcriptSegmentsJson: '[{"text": "Still talking", "start": 0, "end": 1}]',
    }),
  )[0];
  const list = async (options: Record<string, unknown>) =>
    jsonOut(await run({ resource: 'conversation', operation: 'getAll', returnAll: true, options })).map(
      ({ id, status }) => ({ id, status }),
    );

  expect(await list({})).toEqual([]);
  expect(await list({ includeInProgress: true })).toEqual([
    { id: open.conversation_id, status: 'in_progress' },
  ]);
  expect(await list({ includeInProgress: false })).toEqual([]);

  jsonOut(await run({ resource: 'liveTranscript', operation: 'finish', sessionId: 'still-talking' }));
  expect(await list({})).toEqual([{ id: open.conversation_id, status: 'completed' }]);
});

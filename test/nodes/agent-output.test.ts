// What an AI agent using the DevData node as a tool receives (issue 28, item 3): creates without the transcript,
// Simplify on conversation, memory and goal reads with the transcript capped, ids named as ids. n8n hands a tool's
// output items to the model as JSON, so the sizes here are of that JSON.
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { goal } from '../../server/src/contract/goals';
import { memory } from '../../server/src/contract/memories';
import { DevData } from '../../nodes/DevData/DevData.node';
import { expectShape, newUser, type Client } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
let user: { key: string; client: Client };
let credentials: ReturnType<typeof credentialsFor>;
beforeAll(async () => {
  user = await newUser(server);
  credentials = credentialsFor(server, user.key);
});

const run = (params: Record<string, unknown>) => runDevData(server, params, { credentials });
/** The bytes of the JSON a model receives for these output items. */
const toolResultBytes = (items: unknown[]) => Buffer.byteLength(JSON.stringify(items));
const TOOL_RESULT_LIMIT = 20_000;

const segment = (i: number) => ({
  text: `Segment ${i}: we talked about the quarterly plan, the budget and who follows up with Anna next week.`,
  speaker: `SPEAKER_0${i % 2}`,
  is_user: i % 2 === 0,
  start: i * 5,
  end: i * 5 + 4,
});

describe('a conversation with a 2,000-segment transcript', () => {
  let conversationId: string;
  beforeAll(async () => {
    // A live session takes 500 segments a call; four calls make one 2,000-segment conversation.
    for (let batch = 0; batch < 4; batch++) {
      const reply = await user.client.post('/v1/dev/user/transcripts/long-call/segments', {
        segments: Array.from({ length: 500 }, (_, i) => segment(batch * 500 + i)),
      });
      expect(reply.status).toBe(202);
      conversationId = reply.body.conversation_id;
    }
    // Finished, so Get Many lists it (lists answer completed conversations).
    expect((await user.client.post('/v1/dev/user/transcripts/long-call/finish')).status).toBe(200);
  });

  test('Get answers under 20 kB by default: the first 50 segments and the count of the rest', async () => {
    const out = jsonOut(await run({ resource: 'conversation', operation: 'get', conversationId }));
    expect(toolResultBytes(out)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(out[0]).toMatchObject({ id: conversationId, transcript_segments_omitted: 1950, starred: false });
    expect(out[0].transcript_segments).toHaveLength(50);
    expect(out[0].transcript_segments[49]).toEqual({
      speaker_name: 'SPEAKER_01',
      is_user: false,
      start: 245,
      end: 249,
      text: segment(49).text,
    });
    expect(out[0].structured).toBeUndefined();

    const raw = jsonOut(
      await run({
        resource: 'conversation',
        operation: 'get',
        conversationId,
        simplify: false,
        options: { includeTranscript: true },
      }),
    );
    expect(raw[0].transcript_segments).toHaveLength(2000);
    expect(toolResultBytes(raw)).toBeGreaterThan(TOOL_RESULT_LIMIT);
  });

  test('Search answers it simplified with its score, the transcript capped when asked for', async () => {
    const search = (params: Record<string, unknown>) =>
      run({ resource: 'conversation', operation: 'search', query: 'quarterly budget Anna', ...params });
    const [plain] = jsonOut(await search({}));
    expect(plain).toMatchObject({ id: conversationId, score: expect.any(Number) });
    expect(plain.transcript_segments).toBeUndefined();
    const found = jsonOut(await search({ options: { includeTranscript: true } }));
    expect(toolResultBytes(found)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(found[0]).toMatchObject({ id: conversationId, transcript_segments_omitted: 1950 });
    const [raw] = jsonOut(await search({ simplify: false }));
    expect(Object.keys(raw).sort()).toEqual(['conversation', 'score']);
  });

  test('Get Many answers it under 20 kB by default, and capped when the transcripts are asked for', async () => {
    const list = (options: Record<string, unknown>) =>
      run({ resource: 'conversation', operation: 'getAll', limit: 5, options });
    const plain = jsonOut(await list({})).find((c) => c.id === conversationId)!;
    expect(plain.transcript_segments).toBeUndefined();
    const withTranscript = jsonOut(await list({ includeTranscript: true }));
    expect(toolResultBytes(withTranscript)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(withTranscript.find((c) => c.id === conversationId)).toMatchObject({
      transcript_segments_omitted: 1950,
    });
  });
});

describe('creates output the new conversation without its transcript unless asked', () => {
  test('Create From Segments with 500 segments (the most one call takes)', async () => {
    const params = {
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'json',
      transcriptSegmentsJson: JSON.stringify(Array.from({ length: 500 }, (_, i) => segment(i))),
    };
    const out = jsonOut(await run({ ...params, options: { title: 'Long call' } }));
    expect(toolResultBytes(out)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(out[0]).toMatchObject({ status: 'completed', structured: { title: 'Long call' } });
    expect(out[0].transcript_segments).toBeUndefined();
    const stored = await user.client.get(`/v1/dev/user/conversations/${out[0].id}`, {
      include_transcript: true,
    });
    expect(stored.body.transcript_segments).toHaveLength(500);

    const whole = jsonOut(await run({ ...params, options: { includeTranscriptInOutput: true } }));
    expect(whole[0].transcript_segments).toHaveLength(500);
  });

  test('Create From Text with 200,000 characters; Get caps the one long segment at 8,000 characters', async () => {
    const text = 'We agreed to ship on Friday and Alex writes the notes. '.repeat(3637).slice(0, 200_000);
    const out = jsonOut(
      await run({ resource: 'conversation', operation: 'createFromText', text, options: { title: 'Notes' } }),
    );
    expect(toolResultBytes(out)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(out[0].transcript_segments).toBeUndefined();

    const read = jsonOut(
      await run({ resource: 'conversation', operation: 'get', conversationId: out[0].id }),
    );
    expect(toolResultBytes(read)).toBeLessThan(TOOL_RESULT_LIMIT);
    expect(read[0].transcript_segments).toHaveLength(1);
    expect(read[0].transcript_segments[0].text).toBe(`${text.trim().slice(0, 8000)}…`);
    expect(read[0].transcript_segments_omitted).toBe(0);
  });
});

describe("the server's newer conversation fields", () => {
  test('Create From Text takes category real and the text source; Update stars; Get Many filters', async () => {
    const created = jsonOut(
      await run({
        resource: 'conversation',
        operation: 'createFromText',
        text: 'Met Anna at the fair.',
        options: { category: 'real', textSource: 'message', textSourceSpec: 'email' },
      }),
    )[0];
    expect(created).toMatchObject({
      structured: { category: 'real' },
      text_source: 'message',
      text_source_spec: 'email',
    });
    const starred = jsonOut(
      await run({
        resource: 'conversation',
        operation: 'update',
        conversationId: created.id,
        updateFields: { starred: true },
      }),
    )[0];
    expect(starred.starred).toBe(true);

    const list = async (filters: Record<string, unknown>) =>
      jsonOut(await run({ resource: 'conversation', operation: 'getAll', returnAll: true, filters })).map(
        (c) => c.id,
      );
    expect(await list({ starred: true })).toEqual([created.id]);
    expect(await list({ categories: ['real'] })).toEqual([created.id]);
    expect(await list({ categories: ['real', 'work'], starred: false })).toEqual([]);
    expect(await list({ starred: false })).not.toContain(created.id);
  });
});

test('Memory → Get Many and Search simplified: id, content, category, tags and times; raw with Simplify off', async () => {
  const created = await user.client.post('/v1/dev/user/memories', {
    content: 'Prefers meetings after 10am',
    tags: ['schedule'],
  });
  expect(created.status).toBe(200);
  const list = (simplify?: boolean) =>
    run({
      resource: 'memory',
      operation: 'getAll',
      limit: 1,
      ...(simplify === undefined ? {} : { simplify }),
    });
  const [simplified] = jsonOut(await list());
  expect(simplified).toEqual({
    id: created.body.id,
    content: 'Prefers meetings after 10am',
    category: 'manual',
    tags: ['schedule'],
    created_at: created.body.created_at,
    updated_at: created.body.updated_at,
  });
  const [found] = jsonOut(await run({ resource: 'memory', operation: 'search', query: 'meetings' }));
  expect(found).toEqual({ ...simplified, score: expect.any(Number) });
  expect(expectShape(memory, jsonOut(await list(false))[0])).toMatchObject({
    id: created.body.id,
    visibility: 'private',
    manually_added: true,
  });
});

test('Goal → Get and Get Many simplified: no goal_id nor metric (each repeats other fields); raw keeps them', async () => {
  const created = await user.client.post('/v1/dev/user/goals', {
    title: 'Run 100 km',
    goal_type: 'numeric',
    target_value: 100,
    unit: 'km',
  });
  expect(created.status).toBe(200);
  const raw = expectShape(goal, created.body);
  const { goal_id: goalId, metric, ...rest } = raw;
  expect([goalId, metric]).toEqual([
    raw.id,
    { type: 'numeric', current: 0, target: 100, min: 0, max: 100, unit: 'km' },
  ]);

  expect(jsonOut(await run({ resource: 'goal', operation: 'get', goalId: raw.id }))).toEqual([rest]);
  expect(jsonOut(await run({ resource: 'goal', operation: 'getAll', limit: 1 }))).toEqual([rest]);
  expect(jsonOut(await run({ resource: 'goal', operation: 'get', goalId: raw.id, simplify: false }))).toEqual(
    [raw],
  );
});

test('every record picker is named and described as an ID, and Simplify as n8n words it', () => {
  const description = new DevData().description as INodeTypeDescription;
  const locators = description.properties.filter((p) => p.type === 'resourceLocator');
  expect(locators.length).toBeGreaterThan(0);
  for (const { displayName, description: text } of locators) {
    expect(displayName).toMatch(/ ID$/);
    // Each names the field a model could mistake for the ID.
    expect(text).toMatch(/^The ID of the .+ \(not its \w+\); get it from .+ → Get Many$/);
  }
  const goalId = locators.find((p) => p.name === 'goalId')!;
  expect([goalId.displayName, goalId.description]).toEqual([
    'Goal ID',
    'The ID of the goal (not its title); get it from Goal → Get Many',
  ]);
  const simplify = description.properties.filter((p: INodeProperties) => p.name === 'simplify');
  expect(simplify.map((p) => p.displayOptions?.show)).toEqual(
    expect.arrayContaining([
      { resource: ['conversation'], operation: ['get'] },
      { resource: ['conversation'], operation: ['getAll'] },
      { resource: ['memory'], operation: ['getAll'] },
      { resource: ['goal'], operation: ['get'] },
      { resource: ['goal'], operation: ['getAll'] },
      { resource: ['conversation'], operation: ['search'] },
      { resource: ['memory'], operation: ['search'] },
    ]),
  );
  for (const p of simplify) {
    expect([p.type, p.default]).toEqual(['boolean', true]);
    expect(p.description).toMatch(
      /^Whether to return a simplified version of the response instead of the raw data/,
    );
  }
});

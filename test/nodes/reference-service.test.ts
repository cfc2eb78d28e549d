// Every DevData node operation, and the developer credential's test, against a stand-in for the real service
// (test/helpers/reference-service.ts): it answers as that service's developer API document and backend do (200 on
// creates, its field sets, `omi_dev_` keys), so no operation may rely on something only devdata-server does.
//
// Operations without a counterpart in the real service, which must fail with a clear node error (never a crash):
// - Folder → Create, Update, Delete (the real service only lists folders)
// - Person → Create, Get Many, Update, Delete (no people under its developer API)
// - Screen Activity → Get Many (no screen activity)
// - Developer Key → Get Current (no `GET /v1/dev/key`; its keys are listed under `/v1/dev/keys`)
// - Memory → Search (its developer API searches conversations only; memories through its MCP server)
// - Notification → Get Many (no inbox under its developer API)
// - Live Transcript → Add Segments, Finish (its devices stream audio to it; no segments endpoint)
// Proactive Reply → Build sends nothing: it builds the webhook reply locally, which the real service reads too.
// Goal → Abandon deletes the goal there (the real service has no abandoned status).
import type { INodeParameters } from 'n8n-workflow';
import { operations } from '../../nodes/DevData/actions/router';
import { startReferenceService, type ReferenceService } from '../helpers/reference-service';
import {
  endpointOf,
  missingFields,
  problemWith,
  REFERENCE_ENDPOINTS,
  type Exchange,
} from '../helpers/reference-shapes';
import { forSuite } from '../helpers/server';
import { devDataWorkflow, jsonOut, runWorkflow, type RunResult, type TestCredentials } from './helpers';
import { testCredential } from './helpers/credential-test';

const reference = forSuite<ReferenceService>(() => startReferenceService());

const credentials = (): TestCredentials => ({
  devDataApi: { baseUrl: reference.baseUrl, apiKey: reference.developerKey },
  devDataAppApi: { baseUrl: reference.baseUrl, appId: reference.appId, appSecret: reference.appSecret },
});

/** The operations this file ran, to show at the end that none was left out. */
const ran = new Set<string>();

async function run(parameters: INodeParameters, items?: Array<Record<string, unknown>>): Promise<RunResult> {
  ran.add(`${String(parameters.resource)}:${String(parameters.operation)}`);
  return await runWorkflow(devDataWorkflow(parameters, items ? { items } : {}), credentials());
}

/** The node's output items' json, after checking the node sent only requests the stand-in answered 2xx. */
async function output(parameters: INodeParameters, items?: Array<Record<string, unknown>>) {
  const before = reference.requests.length;
  const result = await run(parameters, items);
  const out = jsonOut(result);
  const failed = reference.requests.slice(before).filter((r) => r.status >= 300);
  expect(failed.map((r) => `${r.method} ${r.path} → ${r.status}`)).toEqual([]);
  return out;
}

/** Asserts that the operation failed with the node's own error saying the server does not offer it. */
async function expectNotOffered(parameters: INodeParameters) {
  const result = await run(parameters);
  expect(result.error?.name).toBe('NodeApiError');
  expect(result.error?.message).toMatch(/^The server at the Base URL does not offer this operation \(/);
  expect(['404', '405']).toContain((result.error as { httpCode?: string }).httpCode);
}

test('the credential test accepts an omi_dev_ key and refuses an unknown one', async () => {
  expect(reference.developerKey).toMatch(/^omi_dev_[0-9a-f]{32}$/);
  expect(await testCredential('devDataApi', credentials().devDataApi)).toEqual({
    status: 'OK',
    message: 'Connection successful!',
  });
  const unknown = await testCredential('devDataApi', {
    baseUrl: reference.baseUrl,
    apiKey: `omi_dev_${'0'.repeat(32)}`,
  });
  expect(unknown.status).toBe('Error');
  expect(unknown.message).toMatch(/^Invalid API Key/);
});

test('the credential test names the missing scope for a key without memories:read', async () => {
  const [narrow] = await output({
    resource: 'developerKey',
    operation: 'create',
    name: 'Goals only',
    scopes: ['goals:read'],
  });
  const result = await testCredential('devDataApi', { baseUrl: reference.baseUrl, apiKey: narrow.key });
  expect(result.status).toBe('Error');
  expect(result.message).toMatch(/lacks the memories:read scope/);
});

test('Developer Key: Create, Get Many, Delete', async () => {
  const [created] = await output({
    resource: 'developerKey',
    operation: 'create',
    name: 'Reporting',
    scopes: ['memories:read', 'action_items:read'],
  });
  expect(created).toMatchObject({ name: 'Reporting', scopes: ['memories:read', 'action_items:read'] });
  expect(created.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);

  const listed = await output({ resource: 'developerKey', operation: 'getAll', returnAll: true });
  expect(listed.map((k) => k.id)).toContain(created.id);
  expect(listed.every((k) => k.key === undefined)).toBe(true);

  expect(await output({ resource: 'developerKey', operation: 'delete', keyId: created.id })).toEqual([
    { success: true },
  ]);
  const after = await output({ resource: 'developerKey', operation: 'getAll', returnAll: true });
  expect(after.map((k) => k.id)).not.toContain(created.id);
});

test('Memory: Create, Create Many, Get Many, Update, Delete', async () => {
  const [memory] = await output({
    resource: 'memory',
    operation: 'create',
    content: 'Prefers dark roast coffee',
    additionalFields: { category: 'manual', tags: 'coffee, taste', visibility: 'private' },
  });
  expect(memory).toMatchObject({
    content: 'Prefers dark roast coffee',
    category: 'manual',
    tags: ['coffee', 'taste'],
  });

  const many = await output(
    { resource: 'memory', operation: 'createMany', content: '={{ $json.fact }}' },
    Array.from({ length: 27 }, (_, i) => ({ fact: `Fact ${i}` })),
  );
  expect(many.map((m) => m.content)).toEqual(Array.from({ length: 27 }, (_, i) => `Fact ${i}`));

  const listed = await output({
    resource: 'memory',
    operation: 'getAll',
    returnAll: true,
    filters: { categories: ['manual'] },
  });
  expect(listed.map((m) => m.id)).toEqual([memory.id]);
  expect(await output({ resource: 'memory', operation: 'getAll', limit: 5 })).toHaveLength(5);

  const [updated] = await output({
    resource: 'memory',
    operation: 'update',
    memoryId: memory.id,
    updateFields: { content: 'Prefers espresso' },
  });
  expect(updated).toMatchObject({ id: memory.id, content: 'Prefers espresso', edited: true });

  expect(await output({ resource: 'memory', operation: 'delete', memoryId: memory.id })).toEqual([
    { success: true },
  ]);
});

test('Action Item: Create, Create Many, Get Many, Update, Delete', async () => {
  const [item] = await output({
    resource: 'actionItem',
    operation: 'create',
    description: 'Send the contract',
    additionalFields: { dueAt: '2026-12-01' },
  });
  expect(item).toMatchObject({ description: 'Send the contract', due_at: '2026-12-01T23:59:59.999Z' });

  const many = await output(
    { resource: 'actionItem', operation: 'createMany', description: '={{ $json.task }}' },
    Array.from({ length: 52 }, (_, i) => ({ task: `Task ${i}` })),
  );
  expect(many).toHaveLength(52);

  const open = await output({
    resource: 'actionItem',
    operation: 'getAll',
    returnAll: true,
    filters: { completed: false, startDate: '2020-01-01' },
  });
  expect(open).toHaveLength(53);

  const [done] = await output({
    resource: 'actionItem',
    operation: 'update',
    actionItemId: item.id,
    updateFields: { completed: true, description: 'Sent the contract' },
  });
  expect(done).toMatchObject({ completed: true, description: 'Sent the contract' });

  expect(await output({ resource: 'actionItem', operation: 'delete', actionItemId: item.id })).toEqual([
    { success: true },
  ]);
});

test('Conversation: Create From Text, Create From Segments, Get, Get Many, Update, Delete', async () => {
  const [fromText] = await output({
    resource: 'conversation',
    operation: 'createFromText',
    text: 'We agreed to ship on Friday.',
    options: { language: 'en', startedAt: '2026-11-20T10:00:00Z' },
  });
  expect(fromText).toMatchObject({ status: 'completed', discarded: false });

  const [fromSegments] = await output({
    resource: 'conversation',
    operation: 'createFromSegments',
    segmentsInput: 'fields',
    transcriptSegments: {
      segment: [
        { text: 'Hello', speaker: 'SPEAKER_00', isUser: true, start: 0, end: 1.5 },
        { text: 'Hi there', speaker: 'SPEAKER_01', isUser: false, start: 1.5, end: 3 },
      ],
    },
  });
  expect(typeof fromSegments.id).toBe('string');

  const [got] = await output({
    resource: 'conversation',
    operation: 'get',
    conversationId: fromSegments.id,
    options: { includeTranscript: true },
  });
  expect(got.transcript_segments.map((s: { text: string }) => s.text)).toEqual(['Hello', 'Hi there']);

  const listed = await output({ resource: 'conversation', operation: 'getAll', returnAll: true });
  expect(listed.map((c) => c.id).sort()).toEqual([fromText.id, fromSegments.id].sort());

  const [renamed] = await output({
    resource: 'conversation',
    operation: 'update',
    conversationId: fromText.id,
    updateFields: { title: 'Release date' },
  });
  expect(renamed.structured.title).toBe('Release date');

  const found = await output({
    resource: 'conversation',
    operation: 'search',
    query: 'Friday ship',
    limit: 10,
    simplify: false,
  });
  expect(found.map((result) => result.conversation.id)).toEqual([fromText.id]);

  expect(
    await output({ resource: 'conversation', operation: 'delete', conversationId: fromText.id }),
  ).toEqual([{ success: true }]);
});

test('Goal: Create, Get, Get Many, Update, Update Progress, Get History, Delete', async () => {
  const [scale] = await output({
    resource: 'goal',
    operation: 'create',
    title: 'Sleep well',
    goalType: 'scale',
  });
  expect(scale).toMatchObject({ goal_type: 'scale', target_value: 10 });
  const [numeric] = await output({
    resource: 'goal',
    operation: 'create',
    title: 'Run 100 km',
    goalType: 'numeric',
    targetValue: 100,
    additionalFields: { unit: 'km', maxValue: 100 },
  });
  expect(numeric).toMatchObject({ goal_type: 'numeric', target_value: 100, unit: 'km' });

  expect((await output({ resource: 'goal', operation: 'get', goalId: numeric.id }))[0].id).toBe(numeric.id);
  const listed = await output({ resource: 'goal', operation: 'getAll', returnAll: true });
  expect(listed.map((g) => g.id).sort()).toEqual([scale.id, numeric.id].sort());

  const [updated] = await output({
    resource: 'goal',
    operation: 'update',
    goalId: numeric.id,
    updateFields: { title: 'Run 120 km', targetValue: 120 },
  });
  expect(updated).toMatchObject({ title: 'Run 120 km', target_value: 120 });

  const [progressed] = await output({
    resource: 'goal',
    operation: 'updateProgress',
    goalId: numeric.id,
    currentValue: 42.5,
  });
  expect(progressed.current_value).toBe(42.5);

  // The real service answers a bare list; the node puts out the one item it puts out for devdata-server.
  const history = await output({ resource: 'goal', operation: 'getHistory', goalId: numeric.id, days: 7 });
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({ goal_id: numeric.id, days: 7 });
  expect(history[0].history.map((h: { value: number }) => h.value)).toEqual([42.5]);

  expect(await output({ resource: 'goal', operation: 'delete', goalId: scale.id })).toEqual([
    { success: true },
  ]);
});

test('Folder: Get Many', async () => {
  const folders = await output({ resource: 'folder', operation: 'getAll', returnAll: true });
  expect(folders.map((f) => f.name)).toEqual(['Work']);
});

test('Notification: Send, with the app credential', async () => {
  expect(
    await output({
      resource: 'notification',
      operation: 'send',
      uid: reference.userId,
      message: 'Standup in 5',
    }),
  ).toEqual([{ status: 'Ok' }]);
});

test('Proactive Reply: Build, which the real service reads the same (it ignores session_id)', async () => {
  const before = reference.requests.length;
  const [reply] = await output({
    resource: 'proactiveReply',
    operation: 'build',
    sessionId: 'session-1',
    prompt: 'Say hello to {{user_name}}',
  });
  expect(reply).toEqual({
    session_id: 'session-1',
    notification: { prompt: 'Say hello to {{user_name}}', params: ['user_name'] },
  });
  expect(reference.requests.length).toBe(before);
});

test('operations the real service has no counterpart for fail with a clear node error', async () => {
  const id = '0000000000000000deadbeef';
  await expectNotOffered({ resource: 'folder', operation: 'create', name: 'Travel' });
  await expectNotOffered({
    resource: 'folder',
    operation: 'update',
    folderId: id,
    updateFields: { name: 'X' },
  });
  await expectNotOffered({ resource: 'folder', operation: 'delete', folderId: id });
  await expectNotOffered({ resource: 'person', operation: 'create', name: 'Alex' });
  await expectNotOffered({ resource: 'person', operation: 'getAll', returnAll: true });
  await expectNotOffered({
    resource: 'person',
    operation: 'update',
    personId: id,
    updateFields: { name: 'Al' },
  });
  await expectNotOffered({ resource: 'person', operation: 'delete', personId: id });
  await expectNotOffered({ resource: 'screenActivity', operation: 'getAll', returnAll: true });
  await expectNotOffered({
    resource: 'screenActivity',
    operation: 'createMany',
    timestamp: '2026-11-20T08:00:00Z',
    appName: 'Code',
  });
  await expectNotOffered({ resource: 'developerKey', operation: 'getCurrent' });
  // Its developer API searches conversations only (memories are searched through its MCP server).
  await expectNotOffered({ resource: 'memory', operation: 'search', query: 'tea', limit: 10 });
  await expectNotOffered({ resource: 'notification', operation: 'getAll', limit: 10 });
  const segments = {
    segmentsInput: 'json',
    transcriptSegmentsJson: '[{"text": "Hi", "start": 0, "end": 1}]',
  };
  await expectNotOffered({
    resource: 'liveTranscript',
    operation: 'addSegments',
    sessionId: 's-1',
    ...segments,
  });
  await expectNotOffered({ resource: 'liveTranscript', operation: 'finish', sessionId: 's-1' });
});

test('every operation of the node ran above', () => {
  const all = Object.entries(operations).flatMap(([resource, byName]) =>
    Object.keys(byName).map((operation) => `${resource}:${operation}`),
  );
  expect(all.filter((operation) => !ran.has(operation))).toEqual([]);
});

test('the stand-in answered every documented endpoint as our transcription of the document says', () => {
  const exchanges = reference.requests.flatMap((r): Exchange[] => {
    const endpoint = endpointOf(r.method, r.path);
    return endpoint ? [{ endpoint, case: r.path, status: r.status, body: r.response }] : [];
  });
  // The node's operations reach every endpoint both sides have.
  expect([...new Set(exchanges.map((e) => e.endpoint))].sort()).toEqual(
    Object.keys(REFERENCE_ENDPOINTS).sort(),
  );
  const problems = exchanges.flatMap((e) => {
    const problem = problemWith(e);
    const missing = missingFields(e);
    return [
      ...(problem ? [`${e.endpoint} → ${e.status}: ${problem}`] : []),
      ...(missing.length ? [`${e.endpoint} → ${e.status} lacks ${missing.join(', ')}`] : []),
    ];
  });
  expect(problems).toEqual([]);
});

// Boolean parameters filled by expressions that give text ("true", "false", as a spreadsheet row or a webhook's
// query holds them): the node reads them as the switches they stand for, where it read "false" as on (Return All,
// Simplify), "true" as off (Clear Due Date, Remove From Folder, Is User) or sent the text for the server to refuse
// (Completed, Starred). Other text fails the item, naming the field as the user sees it.
import { devClient, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
const row = { yes: 'true', no: 'false' };
const onRow = (parameters: Record<string, unknown>) => runDevData(server, parameters, { items: [row] });

test('Get Many with Return All "false" returns Limit records, and Simplify "false" the raw ones', async () => {
  const user = await newUser(server);
  for (let i = 0; i < 5; i++) await user.client.post('/v1/dev/user/memories', { content: `fact ${i}` });
  const out = jsonOut(
    await runDevData(
      server,
      {
        resource: 'memory',
        operation: 'getAll',
        returnAll: '={{ $json.no }}',
        limit: 2,
        simplify: '={{ $json.no }}',
      },
      { items: [row], credentials: credentialsFor(server, user.key) },
    ),
  );
  expect(out).toHaveLength(2);
  // The raw record: Simplify leaves out its visibility.
  expect(out[0]).toHaveProperty('visibility');
});

test('Action Item: Completed "true" and Clear Due Date "true" do what they say', async () => {
  const [created] = jsonOut(
    await onRow({
      resource: 'actionItem',
      operation: 'create',
      description: 'Send the slides',
      additionalFields: { completed: '={{ $json.yes }}', dueAt: '2026-12-01T10:00:00Z' },
    }),
  );
  expect(created).toMatchObject({ completed: true, due_at: '2026-12-01T10:00:00.000Z' });
  const [updated] = jsonOut(
    await onRow({
      resource: 'actionItem',
      operation: 'update',
      actionItemId: created.id,
      updateFields: { clearDueAt: '={{ $json.yes }}', completed: '={{ $json.no }}' },
    }),
  );
  expect(updated).toMatchObject({ completed: false, due_at: null });
});

test('Conversation Update: Starred "true" and Remove From Folder "true" do what they say', async () => {
  const folder = await devClient(server).post('/v1/dev/user/folders', { name: 'From a sheet' });
  const conversation = await devClient(server).post('/v1/dev/user/conversations', {
    text: 'Budget talk',
    folder_id: folder.body.id,
  });
  expect(conversation.body.folder_id).toBe(folder.body.id);
  const [updated] = jsonOut(
    await onRow({
      resource: 'conversation',
      operation: 'update',
      conversationId: conversation.body.id,
      updateFields: { starred: '={{ $json.yes }}', removeFromFolder: '={{ $json.yes }}' },
    }),
  );
  expect(updated).toMatchObject({ starred: true, folder_id: null });
});

test('a segment with Is User "true" is the user speaking', async () => {
  const [created] = jsonOut(
    await onRow({
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'fields',
      transcriptSegments: { segment: [{ text: 'Me', start: 0, end: 1, isUser: '={{ $json.yes }}' }] },
      options: { includeTranscriptInOutput: '={{ $json.yes }}' },
    }),
  );
  expect(created.transcript_segments[0].is_user).toBe(true);
});

test('text that is neither true nor false fails the item, naming the field, and sends nothing', async () => {
  const before = await server.count('action_items');
  const result = await runDevData(
    server,
    {
      resource: 'actionItem',
      operation: 'create',
      description: 'Book the room',
      additionalFields: { completed: '={{ $json.done }}' },
    },
    { items: [{ done: 'yes' }] },
  );
  expect(result.error?.message).toBe('Completed must be true or false, not "yes" (input item 0)');
  expect(await server.count('action_items')).toBe(before);
});

// Number parameters filled by expressions that give text ("5", as a spreadsheet row holds it): the node sends
// numbers, which the server takes; text that is no number fails the item, naming the field as the user sees it.
import { devClient } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
const row = { target: '5', min: '1', rank: '2', order: '3', start: '0.5', end: '1.25', lat: '52.52' };
/** Runs the node on one input item, the spreadsheet row unless another is given. */
const onRow = (parameters: Record<string, unknown>, item: Record<string, unknown> = row) =>
  runDevData(server, parameters, { items: [item] });
const numericGoal = { resource: 'goal', operation: 'create', title: 'Read books', goalType: 'numeric' };

test('a goal created and updated from text numbers holds numbers', async () => {
  const [created] = jsonOut(
    await onRow({
      ...numericGoal,
      targetValue: '={{ $json.target }}',
      additionalFields: { minValue: '={{ $json.min }}' },
    }),
  );
  expect(created).toMatchObject({ target_value: 5, min_value: 1 });
  const [updated] = jsonOut(
    await onRow({
      resource: 'goal',
      operation: 'update',
      goalId: created.id,
      updateFields: { focusRank: '={{ $json.rank }}' },
    }),
  );
  expect(updated.focus_rank).toBe(2);
});

test('a folder moved, and a conversation created, from text numbers', async () => {
  const folder = await devClient(server).post('/v1/dev/user/folders', { name: 'Numbers from a sheet' });
  const [moved] = jsonOut(
    await onRow({
      resource: 'folder',
      operation: 'update',
      folderId: folder.body.id,
      updateFields: { order: '={{ $json.order }}' },
    }),
  );
  expect(moved.order).toBe(3);

  const [conversation] = jsonOut(
    await onRow({
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'fields',
      transcriptSegments: {
        segment: [{ text: 'From a sheet', start: '={{ $json.start }}', end: '={{ $json.end }}' }],
      },
      options: {
        geolocation: { location: { latitude: '={{ $json.lat }}', longitude: '13.405' } },
        includeTranscriptInOutput: true,
      },
    }),
  );
  expect(conversation.transcript_segments[0]).toMatchObject({ start: 0.5, end: 1.25 });
  expect(conversation.geolocation).toMatchObject({ latitude: 52.52, longitude: 13.405 });
});

test('text that is not a number fails the item, naming the field', async () => {
  const result = await onRow({ ...numericGoal, targetValue: '={{ $json.target }}' }, { target: 'five' });
  expect(result.error?.message).toBe('Target Value must be a number, not "five" (input item 0)');
});

describe('a Limit that is no whole number of at least 1 fails the item, naming Limit', () => {
  test.each([
    ['folder', '={{ "abc" }}', '"abc"'],
    ['folder', '={{ -1 }}', '-1'],
    ['person', '={{ 2.5 }}', '2.5'],
    ['developerKey', '={{ 0 }}', '0'],
    ['actionItem', '={{ -1 }}', '-1'],
  ])('%s → Get Many with Limit %s', async (resource, limit, shown) => {
    const result = await runDevData(server, { resource, operation: 'getAll', returnAll: false, limit });
    expect(result.error?.message).toBe(
      `Limit must be a whole number of at least 1, not ${shown} (input item 0)`,
    );
    expect(result.error?.context.itemIndex).toBe(0);
  });

  // Left out, an empty Limit gave the server's default count (10), not the 50 the field shows.
  test.each([
    ['memory', '={{ "" }}', '""'],
    ['conversation', '={{ 0 }}', '0'],
  ])('%s → Search with Limit %s', async (resource, limit, shown) => {
    const result = await runDevData(server, { resource, operation: 'search', query: 'coffee', limit });
    expect(result.error?.message).toBe(
      `Limit must be a whole number of at least 1, not ${shown} (input item 0)`,
    );
    expect(result.error?.description).toBe(
      'If it comes from an expression, check what it evaluates to for this item.',
    );
  });

  test('a Limit given as text that is a whole number is read as that number', async () => {
    const client = devClient(server);
    await client.post('/v1/dev/user/folders', { name: 'Limit one' });
    await client.post('/v1/dev/user/folders', { name: 'Limit two' });
    const result = await runDevData(server, {
      resource: 'folder',
      operation: 'getAll',
      returnAll: false,
      limit: '={{ "1" }}',
    });
    expect(jsonOut(result)).toHaveLength(1);
  });
});

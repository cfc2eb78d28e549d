// Multi-select parameters filled by expressions: an array, one value as text, or several as comma-separated text
// are read the same way; anything else fails the item, naming the field as the user sees it.
import { devClient } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { devDataWorkflow, jsonOut, runDevData, runWorkflow, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

test('Memory → Get Many and Search take Categories as one value or comma-separated text', async () => {
  const client = devClient(server);
  await client.post('/v1/dev/user/memories', { content: 'Likes green tea', category: 'manual' });
  await client.post('/v1/dev/user/memories', {
    content: 'Works on the green roof project',
    category: 'work',
  });
  await client.post('/v1/dev/user/memories', {
    content: 'Green is a favourite colour',
    category: 'interesting',
  });

  const one = jsonOut(
    await runDevData(server, {
      resource: 'memory',
      operation: 'getAll',
      returnAll: true,
      filters: { categories: '={{ "manual" }}' },
    }),
  );
  expect(one.map((memory) => memory.content)).toEqual(['Likes green tea']);

  const two = jsonOut(
    await runDevData(server, {
      resource: 'memory',
      operation: 'search',
      query: 'green',
      filters: { categories: '={{ "manual, work" }}' },
    }),
  );
  expect(two.map((memory) => memory.content).sort()).toEqual([
    'Likes green tea',
    'Works on the green roof project',
  ]);
});

test('Conversation → Get Many takes Categories as text; a number fails naming Categories and the item', async () => {
  await runDevData(server, {
    resource: 'conversation',
    operation: 'createFromText',
    text: 'We planned the sprint.',
    options: { title: 'Sprint', category: 'business' },
  });
  const list = (categories: string) =>
    runDevData(server, {
      resource: 'conversation',
      operation: 'getAll',
      returnAll: true,
      filters: { categories },
    });
  const out = jsonOut(await list('={{ "business" }}'));
  expect(out.length).toBeGreaterThan(0);
  expect(out.every((conversation) => conversation.category === 'business')).toBe(true);

  const refused = await list('={{ 5 }}');
  expect(refused.error?.message).toBe(
    'Categories must be a list of values or a comma-separated text, not 5 (input item 0)',
  );
  expect(refused.error?.context.itemIndex).toBe(0);
});

test('Proactive Reply → Build takes Context to Add as text', async () => {
  const result = await runWorkflow(
    devDataWorkflow(
      {
        resource: 'proactiveReply',
        operation: 'build',
        prompt: 'Say hi.',
        contextToAdd: '={{ "user_name" }}',
      },
      { items: [{ session_id: 's-1' }] },
    ),
    {},
  );
  expect(jsonOut(result)[0].notification).toEqual({
    prompt: "Say hi.\n\nThe user's name: {{user_name}}",
    params: ['user_name'],
  });
});

test('Folder → Update takes Clear Fields as comma-separated text', async () => {
  const folder = await devClient(server).post('/v1/dev/user/folders', {
    name: 'Clear me',
    description: 'gone soon',
    icon: 'star',
  });
  const [updated] = jsonOut(
    await runDevData(server, {
      resource: 'folder',
      operation: 'update',
      folderId: folder.body.id,
      updateFields: { clearFields: '={{ "description, icon" }}' },
    }),
  );
  expect(updated.description).toBeNull();
  expect(updated.icon).not.toBe('star');
});

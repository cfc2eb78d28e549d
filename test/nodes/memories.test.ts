import { success } from '../../server/src/contract/common';
import { MEMORY_CATEGORY_OPTIONS } from '../../nodes/shared';
import { memory, MEMORY_CATEGORIES } from '../../server/src/contract/memories';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

async function freshUser() {
  const user = await newUser(server);
  return { ...user, credentials: credentialsFor(server, user.key) };
}

test('Memory → Create, Update, Delete', async () => {
  const { credentials } = await freshUser();
  const run = (params: Record<string, unknown>) =>
    runDevData(server, { resource: 'memory', ...params }, { credentials });

  const created = expectShape(
    memory,
    jsonOut(
      await run({
        operation: 'create',
        content: 'Prefers meetings after 10am',
        additionalFields: { category: 'interesting', tags: 'work, schedule', visibility: 'public' },
      }),
    )[0],
  );
  expect(created).toMatchObject({
    category: 'interesting',
    tags: ['work', 'schedule'],
    visibility: 'public',
  });

  const updated = expectShape(
    memory,
    jsonOut(await run({ operation: 'update', memoryId: created.id, updateFields: { tags: 'mornings' } }))[0],
  );
  expect(updated).toMatchObject({
    content: 'Prefers meetings after 10am',
    tags: ['mornings'],
    category: 'interesting',
  });
  // Tags replace the memory's tags, as Update's Tags says: left empty, the memory keeps none.
  const untagged = await run({ operation: 'update', memoryId: created.id, updateFields: { tags: '' } });
  expect(jsonOut(untagged)[0].tags).toEqual([]);

  expectShape(success, jsonOut(await run({ operation: 'delete', memoryId: created.id }))[0]);
  const again = await run({ operation: 'delete', memoryId: created.id });
  expect(again.error?.message).toBe(
    `Memory not found: no memory with ID "${created.id}" exists for this user`,
  );
});

test('Memory → Create Many: 60 items in batches of 25 (3 requests), then Get Many across pages', async () => {
  const { credentials } = await freshUser();
  const before = server.requestsTo('POST', '/v1/dev/user/memories/batch').length;
  const items = Array.from({ length: 60 }, (_, i) => ({ fact: `fact ${i}`, tag: `t${i % 4}` }));
  const result = await runDevData(
    server,
    {
      resource: 'memory',
      operation: 'createMany',
      content: '={{ $json.fact }}',
      additionalFields: { tags: '={{ $json.tag }}' },
    },
    { items, credentials },
  );
  expect(server.requestsTo('POST', '/v1/dev/user/memories/batch').slice(before)).toHaveLength(3);
  const output = result.output(NODE);
  expect(output).toHaveLength(60);
  output.forEach((item, i) => {
    expect(item.pairedItem).toEqual({ item: i });
    expect(expectShape(memory, item.json)).toMatchObject({ content: `fact ${i}`, tags: [`t${i % 4}`] });
  });

  const all = jsonOut(
    await runDevData(
      server,
      { resource: 'memory', operation: 'getAll', returnAll: true, simplify: false },
      { credentials },
    ),
  );
  expect(new Set(all.map((m) => m.id))).toEqual(new Set(output.map((i) => i.json.id)));
  all.forEach((m) => expectShape(memory, m));
  const limited = jsonOut(
    await runDevData(server, { resource: 'memory', operation: 'getAll', limit: 5 }, { credentials }),
  );
  expect(limited.map((m) => m.id)).toEqual(all.slice(0, 5).map((m) => m.id));
  const manual = jsonOut(
    await runDevData(
      server,
      { resource: 'memory', operation: 'getAll', returnAll: true, filters: { categories: ['system'] } },
      { credentials },
    ),
  );
  expect(manual).toEqual([]);
});

test('Memory → Create offers every category the server accepts, the older ones kept as given', async () => {
  expect(MEMORY_CATEGORY_OPTIONS.map((option) => option.value).sort()).toEqual([...MEMORY_CATEGORIES].sort());
  const { credentials } = await freshUser();
  const created = expectShape(
    memory,
    jsonOut(
      await runDevData(
        server,
        {
          resource: 'memory',
          operation: 'create',
          content: 'Runs on Sundays',
          additionalFields: { category: 'hobbies' },
        },
        { credentials },
      ),
    )[0],
  );
  expect(created.category).toBe('hobbies');
});

test('Memory → Tags from an expression: an array, numbers read as text; anything else fails naming Tags and the item', async () => {
  const { credentials } = await freshUser();
  const create = (tags: string) =>
    runDevData(
      server,
      { resource: 'memory', operation: 'create', content: 'Ran a marathon', additionalFields: { tags } },
      { credentials },
    );
  const [fromArray] = jsonOut(await create('={{ [" sport ", "", "running"] }}'));
  expect(fromArray.tags).toEqual(['sport', 'running']);
  const [fromNumbers] = jsonOut(await create('={{ [2024, 2025] }}'));
  expect(fromNumbers.tags).toEqual(['2024', '2025']);
  const [fromNumber] = jsonOut(await create('={{ 2026 }}'));
  expect(fromNumber.tags).toEqual(['2026']);

  const refused = await create('={{ { "year": 2024 } }}');
  expect(refused.error?.message).toBe(
    'Tags must be a list of values or a comma-separated text, not {"year":2024} (input item 0)',
  );
  expect(refused.error?.context.itemIndex).toBe(0);
});

test('Memory → Create Many: a Visibility, Category or Tags whose expression gives null is left out (the defaults), not refused', async () => {
  const { credentials } = await freshUser();
  const result = await runDevData(
    server,
    {
      resource: 'memory',
      operation: 'createMany',
      content: '={{ $json.content }}',
      additionalFields: {
        category: '={{ $json.category }}',
        tags: '={{ $json.tags }}',
        visibility: '={{ $json.visibility }}',
      },
    },
    {
      credentials,
      items: [
        { content: 'Likes tea', category: null, tags: null, visibility: null },
        { content: 'Runs on Sundays', category: 'interesting', tags: 'sport', visibility: 'public' },
      ],
    },
  );
  expect(result.error).toBeUndefined();
  const out = jsonOut(result).map((json) => expectShape(memory, json));
  expect(out).toMatchObject([
    { content: 'Likes tea', category: 'manual', tags: [], visibility: 'private' },
    { content: 'Runs on Sundays', category: 'interesting', tags: ['sport'], visibility: 'public' },
  ]);
});

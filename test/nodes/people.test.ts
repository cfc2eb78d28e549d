import { success } from '../../server/src/contract/common';
import { person } from '../../server/src/contract/people';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
let credentials: ReturnType<typeof credentialsFor>;
beforeAll(async () => {
  credentials = credentialsFor(server, (await newUser(server)).key);
});

const run = (params: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
  runDevData(server, { resource: 'person', ...params }, { credentials, items });

test('Person → Create (idempotent by name), Get Many, Update, Delete', async () => {
  const created = jsonOut(
    await run({ operation: 'create', name: '={{ $json.name }}' }, [
      { name: 'Zoe' },
      { name: 'Alex' },
      { name: 'Zoe' },
    ]),
  ).map((p) => expectShape(person, p));
  expect(created[2].id).toBe(created[0].id);

  const all = jsonOut(await run({ operation: 'getAll', returnAll: true })).map((p) => expectShape(person, p));
  expect(all.map((p) => p.name)).toEqual(['Alex', 'Zoe']);
  expect(jsonOut(await run({ operation: 'getAll', limit: 1 })).map((p) => p.name)).toEqual(['Alex']);

  const renamed = expectShape(
    person,
    jsonOut(
      await run({ operation: 'update', personId: created[1].id, updateFields: { name: 'Alexandra' } }),
    )[0],
  );
  expect(renamed).toMatchObject({ id: created[1].id, name: 'Alexandra' });

  expectShape(success, jsonOut(await run({ operation: 'delete', personId: created[0].id }))[0]);
  expect(jsonOut(await run({ operation: 'getAll', returnAll: true })).map((p) => p.name)).toEqual([
    'Alexandra',
  ]);
});

test('Person → Create with a one-letter name is a 422 with the field path', async () => {
  const result = await run({ operation: 'create', name: 'A' });
  expect(result.error?.message).toMatch(/^Invalid input: body\.name: /);
});

import { success } from '../../server/src/contract/common';
import { DEFAULT_FOLDER_COLOR, folder } from '../../server/src/contract/folders';
import { folderFields } from '../../nodes/DevData/actions/folder/fields';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
let credentials: ReturnType<typeof credentialsFor>;
beforeAll(async () => {
  credentials = credentialsFor(server, (await newUser(server)).key);
});

const run = (params: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
  runDevData(server, { resource: 'folder', ...params }, { credentials, items });

test('Folder → Create, Get Many (all and limited), Update, Delete', async () => {
  const created = jsonOut(
    await run(
      {
        operation: 'create',
        name: '={{ $json.name }}',
        additionalFields: { color: '#10b981', description: 'Conversations about work' },
      },
      [{ name: 'Work' }, { name: 'Home' }, { name: 'Travel' }],
    ),
  ).map((f) => expectShape(folder, f));
  expect(created.map((f) => f.name)).toEqual(['Work', 'Home', 'Travel']);
  expect(created[0]).toMatchObject({
    color: '#10b981',
    description: 'Conversations about work',
    conversation_count: 0,
  });

  const all = jsonOut(await run({ operation: 'getAll', returnAll: true })).map((f) => expectShape(folder, f));
  expect(all.map((f) => f.id)).toEqual(created.map((f) => f.id));
  const two = jsonOut(await run({ operation: 'getAll', limit: 2 }));
  expect(two.map((f) => f.id)).toEqual(created.slice(0, 2).map((f) => f.id));

  const updated = expectShape(
    folder,
    jsonOut(
      await run({ operation: 'update', folderId: created[1].id, updateFields: { name: 'Household' } }),
    )[0],
  );
  expect(updated).toMatchObject({
    name: 'Household',
    color: '#10b981',
    description: 'Conversations about work',
  });

  expectShape(success, jsonOut(await run({ operation: 'delete', folderId: created[2].id }))[0]);
  expect(jsonOut(await run({ operation: 'getAll', returnAll: true }))).toHaveLength(2);
});

test('Folder → Create sets the icon, Update the icon and the order', async () => {
  const created = expectShape(
    folder,
    jsonOut(await run({ operation: 'create', name: 'Trips', additionalFields: { icon: 'plane' } }))[0],
  );
  expect(created).toMatchObject({ icon: 'plane', order: 0 });
  const updated = expectShape(
    folder,
    jsonOut(
      await run({ operation: 'update', folderId: created.id, updateFields: { icon: 'map', order: 7 } }),
    )[0],
  );
  expect(updated).toMatchObject({ name: 'Trips', icon: 'map', order: 7 });
  const listed = jsonOut(await run({ operation: 'getAll', returnAll: true })).find(
    (f) => f.id === created.id,
  );
  expect(listed).toMatchObject({ icon: 'map', order: 7 });
});

test('Folder → Update resets the fields chosen under Clear Fields; an Icon left empty is left out', async () => {
  const created = expectShape(
    folder,
    jsonOut(
      await run({
        operation: 'create',
        name: 'Garden',
        additionalFields: { color: '#10b981', description: 'Plants', icon: '' },
      }),
    )[0],
  );
  expect(created).toMatchObject({ color: '#10b981', description: 'Plants', icon: 'folder' });
  const reset = expectShape(
    folder,
    jsonOut(
      await run({
        operation: 'update',
        folderId: created.id,
        updateFields: { clearFields: ['color', 'description', 'icon'], icon: '', name: 'Yard' },
      }),
    )[0],
  );
  expect(reset).toMatchObject({ name: 'Yard', color: '#6B7280', description: null, icon: 'folder' });

  const both = await run({
    operation: 'update',
    folderId: created.id,
    updateFields: { clearFields: ['color'], color: '#000000' },
  });
  expect(both.error?.message).toBe(
    'Set either "Color" or clear it under "Clear Fields", not both (input item 0)',
  );
  expect(
    jsonOut(await run({ operation: 'getAll', returnAll: true })).find((f) => f.id === created.id),
  ).toMatchObject({ color: '#6B7280' });
});

test('Folder → Create refuses a color that is not #rrggbb with the field path', async () => {
  const result = await run({ operation: 'create', name: 'Odd', additionalFields: { color: 'green' } });
  expect(result.error?.message).toBe('Invalid input: body.color: Color must be a hex color like #4f46e5');
});

test('Folder → Update of a missing folder is a 404 naming it', async () => {
  const result = await run({ operation: 'update', folderId: 'missing', updateFields: { name: 'x' } });
  expect(result.error?.message).toBe('Folder not found: no folder with ID "missing" exists for this user');
});

// The Color field, added, shows #4f46e5; left out, the server gives its own default, which the description names as
// Icon's names "folder".
test('Folder → Create without a Color gets the color the Color description names', async () => {
  const [created] = jsonOut(await run({ operation: 'create', name: 'Uncolored' }));
  expect(created.color).toBe(DEFAULT_FOLDER_COLOR);
  const color = folderFields.find((field) => field.name === 'color')!;
  expect(color.description).toContain(`a new folder without one gets ${DEFAULT_FOLDER_COLOR}`);
});

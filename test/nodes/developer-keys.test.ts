// DevData → Developer Key: Get Many, Create and Revoke through n8n-core against the real server, and keys of the
// real service's prefix (omi_dev_) in the credential.
import type { INodePropertyOptions } from 'n8n-workflow';

import { DevData } from '../../nodes/DevData/DevData.node';
import { success } from '../../server/src/contract/common';
import { apiKey, createdApiKey } from '../../server/src/contract/keys';
import { DEFAULT_SCOPES, SCOPES, type Scope } from '../../server/src/contract/scopes';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, listSearch, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

/** Runs DevData → Developer Key → `operation` with the developer key `key`. */
const run = (key: string, params: Record<string, unknown>, items?: Array<Record<string, unknown>>) =>
  runDevData(
    server,
    { resource: 'developerKey', ...params },
    { credentials: credentialsFor(server, key), items },
  );

const sorted = (scopes: readonly string[]) => [...scopes].sort();

test('Developer Key → Create, Get Many (all and limited), Revoke: the revoked key is refused', async () => {
  const user = await newUser(server);
  const created = jsonOut(
    await run(
      user.key,
      { operation: 'create', name: '={{ $json.name }}', scopes: ['memories:read', 'keys:read'] },
      [{ name: 'Reporting' }, { name: 'Backup' }],
    ),
  ).map((key) => expectShape(createdApiKey, key));
  expect(created.map((key) => [key.name, key.scopes])).toEqual([
    ['Reporting', ['memories:read', 'keys:read']],
    ['Backup', ['memories:read', 'keys:read']],
  ]);
  expect(created[0].key).toMatch(/^svc_dev_[0-9a-f]{32}$/);

  const all = jsonOut(await run(user.key, { operation: 'getAll', returnAll: true })).map((key) =>
    expectShape(apiKey, key),
  );
  // Newest first: the two new keys, then the user's own.
  expect(all.map((key) => key.name)).toEqual(['Backup', 'Reporting', 'test']);
  expect(all.every((key) => !('key' in key))).toBe(true);
  const one = jsonOut(await run(created[0].key, { operation: 'getAll', limit: 1 }));
  expect(one.map((key) => key.id)).toEqual([created[1].id]);

  expectShape(
    success,
    jsonOut(
      await run(user.key, {
        operation: 'delete',
        keyId: { __rl: true, mode: 'list', value: created[1].id },
      }),
    )[0],
  );
  const refused = await run(created[1].key, { operation: 'getCurrent' });
  expect(refused.error?.message).toBe(
    'Authorization failed: check the Developer Key of the DevData Developer API credential',
  );
  expect(refused.error?.description).toBe('Invalid API Key');
  const left = jsonOut(await run(user.key, { operation: 'getAll', returnAll: true }));
  expect(left.map((key) => key.name)).toEqual(['Reporting', 'test']);
});

test('Developer Key → Create without scopes gives the read scopes the node’s key holds, keys:read excepted', async () => {
  const user = await newUser(server);
  const [key] = jsonOut(await run(user.key, { operation: 'create', name: 'Defaults' }));
  expect(sorted(key.scopes)).toEqual(sorted(DEFAULT_SCOPES));
  const narrow = await newUser(server, ['goals:read', 'memories:write', 'keys:write']);
  const [narrowed] = jsonOut(await run(narrow.key, { operation: 'create', name: 'Defaults' }));
  expect(narrowed.scopes).toEqual(['goals:read']);
});

test('Developer Key → Create refuses a scope the node’s key lacks, naming it', async () => {
  const narrow = await newUser(server, ['memories:read', 'keys:write']);
  const result = await run(narrow.key, { operation: 'create', name: 'More', scopes: ['memories:write'] });
  expect(result.error?.message).toBe('Forbidden: the developer key lacks the "memories:write" scope');
  const withoutWrite = await newUser(server, ['memories:read', 'keys:read']);
  const refused = await run(withoutWrite.key, { operation: 'create', name: 'More' });
  expect(refused.error?.message).toBe('Forbidden: the developer key lacks the "keys:write" scope');
});

test('Developer Key → Create with an empty name fails the item naming the field, before any request', async () => {
  const user = await newUser(server);
  const before = server.requestsTo('POST', '/v1/dev/keys').length;
  const result = await run(user.key, { operation: 'create', name: '={{ $json.missing ?? "  " }}' });
  expect(result.error?.message).toBe('Name is empty (input item 0)');
  expect(server.requestsTo('POST', '/v1/dev/keys').length).toBe(before);
});

test('Developer Key → Create with a name whose expression gives nothing (a missing or null field) fails the item, rather than naming the key "undefined" or "null"', async () => {
  const user = await newUser(server);
  const before = server.requestsTo('POST', '/v1/dev/keys').length;
  for (const name of ['={{ $json.missing }}', '={{ $json.empty }}']) {
    const result = await run(user.key, { operation: 'create', name }, [{ empty: null }]);
    expect(result.error?.message).toBe('Name is empty (input item 0)');
  }
  expect(server.requestsTo('POST', '/v1/dev/keys').length).toBe(before);
});

test('Developer Key → Revoke of another user’s key or an unknown one is a 404 naming it, and revokes nothing', async () => {
  const [mine, theirs] = await Promise.all([newUser(server), newUser(server)]);
  const [theirKey] = jsonOut(await run(theirs.key, { operation: 'getCurrent' }));
  for (const id of [theirKey.id, 'missing']) {
    const result = await run(mine.key, { operation: 'delete', keyId: { __rl: true, mode: 'id', value: id } });
    expect(result.error?.message).toBe(
      `Developer key not found: no developer key with ID "${id}" exists for this user`,
    );
  }
  expect(jsonOut(await run(theirs.key, { operation: 'getCurrent' }))[0].id).toBe(theirKey.id);
});

// A narrow key (an agent's) must not lock its user out of a broader one: Revoke says so before a user meets the 403.
test('Developer Key → Revoke of a key holding a scope the node’s key lacks is refused, as its description says', async () => {
  const user = await newUser(server);
  const [narrow] = jsonOut(
    await run(user.key, { operation: 'create', name: 'Narrow', scopes: ['keys:write', 'goals:read'] }),
  );
  const [broad] = jsonOut(
    await run(user.key, { operation: 'create', name: 'Broad', scopes: ['goals:write'] }),
  );
  const result = await run(narrow.key, { operation: 'delete', keyId: broad.id });
  expect(result.error?.message).toBe('Forbidden: the developer key lacks the "goals:write" scope');
  const revoke = new DevData().description.properties
    .find((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('developerKey'))
    ?.options?.find((option) => 'value' in option && option.value === 'delete') as
    INodePropertyOptions | undefined;
  expect(revoke?.description).toContain('every scope the revoked key holds');
});

test('the Revoke list offers the user’s keys by name and display form, filtered as typed', async () => {
  const user = await newUser(server);
  const [made] = jsonOut(await run(user.key, { operation: 'create', name: 'Nightly export' }));
  const parameters = { resource: 'developerKey', operation: 'delete' };
  const all = await listSearch(credentialsFor(server, user.key), 'searchDeveloperKeys', parameters);
  expect(all.results).toEqual([
    { name: `Nightly export (${made.key_prefix})`, value: made.id },
    {
      name: expect.stringMatching(/^test \(svc_dev_[0-9a-f]{4}\.\.\.[0-9a-f]{4}\)$/),
      value: expect.any(String),
    },
  ]);
  const some = await listSearch(
    credentialsFor(server, user.key),
    'searchDeveloperKeys',
    parameters,
    'NIGHTLY',
  );
  expect(some.results.map((entry) => entry.value)).toEqual([made.id]);
});

test('the Scopes field offers exactly the scopes the server knows', () => {
  const field = new DevData().description.properties.find(
    (property) =>
      property.name === 'scopes' && property.displayOptions?.show?.resource?.includes('developerKey'),
  );
  const values = (field?.options ?? []).map((option) => ('value' in option ? String(option.value) : ''));
  expect(sorted(values)).toEqual(sorted(SCOPES as readonly Scope[]));
});

describe('against a server issuing omi_dev_ keys', () => {
  const omi = forSuite(() => startNodeTestServer({ keyPrefix: 'omi_dev_' }));

  test('the credential takes an omi_dev_ key, and Create makes another', async () => {
    expect(omi.init.developer_key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    const credentials = credentialsFor(omi);
    const [current] = jsonOut(
      await runDevData(omi, { resource: 'developerKey', operation: 'getCurrent' }, { credentials }),
    );
    expect(current.key_prefix).toMatch(/^omi_dev_/);
    const [made] = jsonOut(
      await runDevData(
        omi,
        { resource: 'developerKey', operation: 'create', name: 'omi', scopes: ['memories:read'] },
        { credentials },
      ),
    );
    expect(made.key).toMatch(/^omi_dev_[0-9a-f]{32}$/);
    const memories = await runDevData(
      omi,
      { resource: 'memory', operation: 'getAll', limit: 1 },
      { credentials: credentialsFor(omi, made.key) },
    );
    expect(memories.error).toBeUndefined();
  });
});

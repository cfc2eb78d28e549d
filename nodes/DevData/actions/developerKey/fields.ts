import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { requiredName } from '../common.description';
import type { RecordSpec } from '../crud';

// The scopes a DevData server knows (devdata-server's contract/scopes.ts; test/nodes/developer-keys.test.ts keeps
// the two lists equal). The real service knows only the first eight.
const SCOPES = [
  'conversations:read',
  'conversations:write',
  'memories:read',
  'memories:write',
  'action_items:read',
  'action_items:write',
  'goals:read',
  'goals:write',
  'screen_activity:read',
  'screen_activity:write',
  'people:read',
  'people:write',
  'notifications:read',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
];

/** `action_items:write` → `Action Items: Write`, sorted by name as n8n lists options. */
const scopeOptions: INodePropertyOptions[] = SCOPES.map((scope) => ({
  name: scope
    .split(/[:_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ')
    .replace(/ (Read|Write)$/, ': $1'),
  value: scope,
})).sort((a, b) => a.name.localeCompare(b.name));

export const nameField = requiredName(
  'Name of the new key, to tell it apart in lists (1–100 characters)',
  'e.g. Reporting workflow',
);

export const scopesField: INodeProperties = {
  displayName: 'Scopes',
  name: 'scopes',
  type: 'multiOptions',
  options: scopeOptions,
  default: [],
  description:
    'What the new key may read and write. Each must be held by the key this node uses. Leave empty for the read scopes that key holds (keys:read excepted).',
};

export const developerKeyRecord: RecordSpec = {
  resource: 'developerKey',
  label: 'Developer Key',
  path: '/v1/dev/keys',
  idName: 'keyId',
  searchListMethod: 'searchDeveloperKeys',
  nameField: 'name',
};

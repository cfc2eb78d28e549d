import type { INodeProperties } from 'n8n-workflow';

import type { RecordSpec } from '../crud';

export const nameField: INodeProperties = {
  displayName: 'Name',
  name: 'name',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'e.g. Alex',
  description: 'Name of the person (2–40 characters); people are unique by name',
};

export const personRecord: RecordSpec = {
  resource: 'person',
  label: 'Person',
  path: '/v1/dev/user/people',
  idName: 'personId',
  searchListMethod: 'searchPeople',
};

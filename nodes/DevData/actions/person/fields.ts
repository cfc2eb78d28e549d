import { requiredName } from '../common.description';
import type { RecordSpec } from '../crud';

export const nameField = requiredName(
  'Name of the person (2–40 characters); people are unique by name',
  'e.g. Alex',
);

export const personRecord: RecordSpec = {
  resource: 'person',
  label: 'Person',
  path: '/v1/dev/user/people',
  idName: 'personId',
  searchListMethod: 'searchPeople',
  nameField: 'name',
};

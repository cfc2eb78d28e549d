import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'person',
  label: 'Person',
  path: '/v1/dev/user/people',
  idName: 'personId',
  searchListMethod: 'searchPeople',
});

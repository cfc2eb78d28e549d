import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'actionItem',
  label: 'Action Item',
  path: '/v1/dev/user/action-items',
  idName: 'actionItemId',
  searchListMethod: 'searchActionItems',
});

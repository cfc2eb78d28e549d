import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'goal',
  label: 'Goal',
  path: '/v1/dev/user/goals',
  idName: 'goalId',
  searchListMethod: 'searchGoals',
});

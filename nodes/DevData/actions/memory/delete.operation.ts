import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'memory',
  label: 'Memory',
  path: '/v1/dev/user/memories',
  idName: 'memoryId',
  searchListMethod: 'searchMemories',
});

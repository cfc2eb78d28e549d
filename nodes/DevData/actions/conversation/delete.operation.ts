import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'conversation',
  label: 'Conversation',
  path: '/v1/dev/user/conversations',
  idName: 'conversationId',
  searchListMethod: 'searchConversations',
});

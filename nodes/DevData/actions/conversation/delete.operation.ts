import { deleteById } from '../crud';
import { conversationRecord } from './fields';

export const { description, execute } = deleteById(conversationRecord);

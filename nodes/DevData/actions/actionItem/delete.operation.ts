import { deleteById } from '../crud';
import { actionItemRecord } from './fields';

export const { description, execute } = deleteById(actionItemRecord);

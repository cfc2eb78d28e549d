import { deleteById } from '../crud';
import { memoryRecord } from './fields';

export const { description, execute } = deleteById(memoryRecord);

import { deleteById } from '../crud';
import { goalRecord } from './fields';

export const { description, execute } = deleteById(goalRecord);

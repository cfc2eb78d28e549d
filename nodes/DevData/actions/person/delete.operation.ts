import { deleteById } from '../crud';
import { personRecord } from './fields';

export const { description, execute } = deleteById(personRecord);

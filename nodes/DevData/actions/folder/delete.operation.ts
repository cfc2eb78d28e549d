import { deleteById } from '../crud';
import { folderRecord } from './fields';

export const { description, execute } = deleteById(folderRecord);

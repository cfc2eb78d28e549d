import { updateById } from '../crud';
import { nameField, personRecord } from './fields';

export const { description, execute } = updateById(personRecord, [
  { ...nameField, required: false, description: 'New name (2–40 characters, unique among your people)' },
]);

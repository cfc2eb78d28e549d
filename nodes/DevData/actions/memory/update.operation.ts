import { byDisplayName } from '../common.description';
import { updateById } from '../crud';
import { contentField, memoryFields, memoryRecord, memoryWireFields } from './fields';

export const { description, execute } = updateById(
  memoryRecord,
  byDisplayName([...memoryFields, { ...contentField, required: false }]),
  memoryWireFields,
);

import { byDisplayName } from '../common.description';
import { updateById } from '../crud';
import { folderFields, folderRecord, nameField, orderField } from './fields';

export const { description, execute } = updateById(
  folderRecord,
  byDisplayName([...folderFields, { ...nameField, required: false }, orderField]),
);

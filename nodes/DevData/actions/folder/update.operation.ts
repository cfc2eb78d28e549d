import { byDisplayName, clearFieldsOption } from '../common.description';
import { updateById } from '../crud';
import { clearedFields, toNumber, withoutEmpty } from '../utils';
import { folderFields, folderRecord, LEFT_OUT_WHEN_EMPTY, nameField, orderField } from './fields';

const clearFieldsField = clearFieldsOption(
  folderFields,
  ['color', 'description', 'icon'],
  'Fields to reset: Description is removed, Color and Icon go back to their defaults (#6B7280 and folder)',
);

export const { description, execute } = updateById(
  folderRecord,
  byDisplayName([...folderFields, { ...nameField, required: false }, orderField, clearFieldsField]),
  function (fields, itemIndex) {
    const { clearFields = [], ...values } = fields;
    if (values.order !== undefined)
      values.order = toNumber.call(this, values.order, orderField.displayName, itemIndex);
    return clearedFields.call(
      this,
      withoutEmpty(values, LEFT_OUT_WHEN_EMPTY),
      clearFields,
      clearFieldsField,
      itemIndex,
    );
  },
);

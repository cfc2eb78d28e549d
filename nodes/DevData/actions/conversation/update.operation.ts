import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { updateFields } from '../common.description';
import { addressedRecord, recordLocator } from '../crud';
import { assertNotBoth, changesOf, toBoolean, toWireFields, updateFieldsOf } from '../utils';
import { conversationRecord, folderIdField } from './fields';

const folderField = folderIdField('Move the conversation to this folder');

const removeFromFolderField: INodeProperties = {
  displayName: 'Remove From Folder',
  name: 'removeFromFolder',
  type: 'boolean',
  default: true,
  description: 'Whether to take the conversation out of its folder (sends folder_id: null)',
};

/** The fields under Update Fields, whose types toWireFields reads (Discarded and Starred are booleans). */
const fieldsToUpdate: INodeProperties[] = [
  {
    displayName: 'Discarded',
    name: 'discarded',
    type: 'boolean',
    default: true,
    description: 'Whether the conversation is discarded (hidden from lists unless asked for)',
  },
  folderField,
  removeFromFolderField,
  {
    displayName: 'Starred',
    name: 'starred',
    type: 'boolean',
    default: true,
    description: 'Whether the conversation is starred',
  },
  {
    displayName: 'Title',
    name: 'title',
    type: 'string',
    default: '',
    description: 'New title of the conversation',
  },
];

const properties: INodeProperties[] = [recordLocator(conversationRecord), updateFields(fieldsToUpdate)];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const { removeFromFolder: remove, ...fields } = updateFieldsOf.call(this, itemIndex);
  const removeFromFolder = toBoolean.call(this, remove, removeFromFolderField.displayName, itemIndex);
  assertNotBoth.call(this, { ...fields, removeFromFolder }, folderField, removeFromFolderField, itemIndex);
  const body = toWireFields.call(this, fields, itemIndex, [], fieldsToUpdate);
  if (removeFromFolder === true) body.folder_id = null;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    ...addressedRecord.call(this, conversationRecord, itemIndex),
    body: changesOf.call(this, body, itemIndex),
  })) as IDataObject;
}

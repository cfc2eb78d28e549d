import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../transport';
import { byDisplayName, recordId } from '../common.description';
import { folderFields, nameField } from './fields';

const properties: INodeProperties[] = [
  recordId('folderId', 'Folder', 'searchFolders'),
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    description: 'Only the fields added here are changed',
    options: byDisplayName([...folderFields, { ...nameField, required: false }]),
  },
];

export const description = updateDisplayOptions(
  { show: { resource: ['folder'], operation: ['update'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
  const id = this.getNodeParameter('folderId', itemIndex, '', { extractValue: true }) as string;
  return (await devDataRequest.call(this, {
    method: 'PATCH',
    path: `/v1/dev/user/folders/${encodeURIComponent(id)}`,
    body: this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject,
    itemIndex,
    resource: 'Folder',
    id,
  })) as IDataObject;
}

import type { INodeProperties } from 'n8n-workflow';

import { requiredName } from '../common.description';
import type { RecordSpec } from '../crud';

export const nameField = requiredName('Name of the folder (1–100 characters)');

export const folderFields: INodeProperties[] = [
  {
    displayName: 'Color',
    name: 'color',
    type: 'color',
    default: '#4f46e5',
    description: 'Color of the folder, as a hex color like #4f46e5',
  },
  {
    displayName: 'Description',
    name: 'description',
    type: 'string',
    default: '',
    description: 'What the folder is for (up to 1000 characters)',
  },
];

export const folderRecord: RecordSpec = {
  resource: 'folder',
  label: 'Folder',
  path: '/v1/dev/user/folders',
  idName: 'folderId',
  searchListMethod: 'searchFolders',
  nameField: 'name',
};

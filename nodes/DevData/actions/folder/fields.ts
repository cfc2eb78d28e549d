import type { INodeProperties } from 'n8n-workflow';

import { requiredName } from '../common.description';
import type { RecordSpec } from '../crud';

export const nameField = requiredName('Name of the folder (1–100 characters)');

/** The fields an empty value leaves out, as in Create and Update: the server refuses an empty icon. */
export const LEFT_OUT_WHEN_EMPTY = ['icon'];

export const folderFields: INodeProperties[] = [
  {
    displayName: 'Color',
    name: 'color',
    type: 'color',
    default: '#4f46e5',
    description: 'Color of the folder, as a hex color like #4f46e5 (a new folder without one gets #6B7280)',
  },
  {
    displayName: 'Description',
    name: 'description',
    type: 'string',
    default: '',
    description: 'What the folder is for (up to 1000 characters)',
  },
  {
    displayName: 'Icon',
    name: 'icon',
    type: 'string',
    default: '',
    placeholder: 'e.g. briefcase',
    description:
      'Name of the icon the DevData app shows for the folder (1–100 characters; empty is left out; a new folder without one gets folder)',
  },
];

/** Order, which only Update sets (a new folder's is 0). */
export const orderField: INodeProperties = {
  displayName: 'Order',
  name: 'order',
  type: 'number',
  typeOptions: { minValue: 0, maxValue: 1_000_000 },
  default: 0,
  description:
    "The folder's place in the user's list in the DevData app (0–1,000,000; a new folder's is 0); Get Many lists folders by it, then oldest first",
};

export const folderRecord: RecordSpec = {
  resource: 'folder',
  label: 'Folder',
  path: '/v1/dev/user/folders',
  idName: 'folderId',
  searchListMethod: 'searchFolders',
  nameField: 'name',
};

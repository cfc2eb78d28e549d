import { deleteById } from '../crud';

export const { description, execute } = deleteById({
  resource: 'folder',
  label: 'Folder',
  path: '/v1/dev/user/folders',
  idName: 'folderId',
  searchListMethod: 'searchFolders',
});

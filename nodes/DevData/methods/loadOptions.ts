import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { devDataRequest } from '../../shared';

/** The user's folders, for the folder fields of conversations. */
export async function getFolders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const folders = (await devDataRequest.call(this, {
    method: 'GET',
    path: '/v1/dev/user/folders',
  })) as IDataObject[];
  return folders
    .map((folder) => ({ name: String(folder.name), value: String(folder.id) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

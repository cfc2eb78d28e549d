import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { cursorPaginate } from '../../../shared';
import { returnAllOrLimit } from '../common.description';
import { limitOf } from '../utils';

/** The server's largest page of the inbox. */
const PAGE_SIZE = 100;

const properties: INodeProperties[] = [
  {
    displayName:
      "Uses the DevData Developer API credential: the inbox of the key's user, every app's notifications (direct and proactive), newest first",
    name: 'inboxNotice',
    type: 'notice',
    default: '',
  },
  ...returnAllOrLimit(),
];

export const description = updateDisplayOptions(
  { show: { resource: ['notification'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  return await cursorPaginate.call(this, {
    path: '/v1/dev/user/notifications',
    key: 'notifications',
    itemIndex,
    pageSize: PAGE_SIZE,
    limit: limitOf.call(this, itemIndex),
  });
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { offsetPaginate } from '../../../shared';
import { byDisplayName, filters, returnAllOrLimit } from '../common.description';
import { dateRangeQuery } from '../dates';
import { limitOf } from '../utils';
import { actionItemRecord } from './fields';

/** The server's largest page of action items. */
export const PAGE_SIZE = 1000;

const properties: INodeProperties[] = [
  ...returnAllOrLimit(),
  filters(
    byDisplayName([
      {
        displayName: 'Completed',
        name: 'completed',
        type: 'boolean',
        default: false,
        description: 'Whether to return only completed (on) or only open (off) action items',
      },
      {
        displayName: 'Conversation ID',
        name: 'conversationId',
        type: 'string',
        default: '',
        description: 'Return only the action items of the conversation with this ID (not its title)',
      },
      {
        displayName: 'Created After',
        name: 'startDate',
        type: 'dateTime',
        default: '',
        description:
          'Return action items created at or after this time (a date alone means the start of that UTC day)',
      },
      {
        displayName: 'Search Text',
        name: 'query',
        type: 'string',
        default: '',
        placeholder: 'e.g. send Anna the invoice',
        description:
          'Return only action items whose description matches these words, most relevant first. Every word must match, in any form (invoice finds invoices); put a phrase in double quotes to match it word for word.',
      },
      {
        displayName: 'Created Before',
        name: 'endDate',
        type: 'dateTime',
        default: '',
        description:
          'Return action items created at or before this time (a date alone means the whole UTC day)',
      },
    ]),
  ),
];

export const description = updateDisplayOptions(
  { show: { resource: ['actionItem'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  return await offsetPaginate.call(this, {
    path: actionItemRecord.path,
    qs: {
      conversation_id: filters.conversationId,
      completed: filters.completed,
      query: filters.query || undefined,
      ...dateRangeQuery.call(this, filters, ['Created After', 'Created Before'], itemIndex),
    },
    itemIndex,
    pageSize: PAGE_SIZE,
    limit: limitOf.call(this, itemIndex),
  });
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listValues, offsetPaginate } from '../../../shared';
import { byDisplayName, filters, operationOptions, returnAllOrLimit } from '../common.description';
import { dateRangeQuery } from '../dates';
import { booleanParameter, limitOf } from '../utils';
import {
  CATEGORIES,
  capitalize,
  conversationRecord,
  folderIdField,
  includeInProgressOption,
  simplifyConversation,
  simplifyConversationField,
  startedAfterFilter,
  startedBeforeFilter,
  statusesFor,
} from './fields';

/** A page of conversations: the server takes up to 1000, but with transcripts such a page could be very large. */
export const PAGE_SIZE = 100;

/** The Categories filter. */
const categoriesFilter: INodeProperties = {
  displayName: 'Categories',
  name: 'categories',
  type: 'multiOptions',
  default: [],
  options: CATEGORIES.map((c) => ({ name: capitalize(c), value: c })),
  description: 'Return only conversations in any of these categories',
};

const properties: INodeProperties[] = [
  ...returnAllOrLimit(),
  simplifyConversationField,
  filters(
    byDisplayName([
      categoriesFilter,
      folderIdField('Return only the conversations in this folder'),
      startedAfterFilter,
      startedBeforeFilter,
      {
        displayName: 'Starred',
        name: 'starred',
        type: 'boolean',
        default: true,
        description: 'Whether to return only starred conversations (on) or only the others (off)',
      },
    ]),
  ),
  operationOptions([
    {
      displayName: 'Include Discarded',
      name: 'includeDiscarded',
      type: 'boolean',
      default: true,
      description: 'Whether to include discarded conversations',
    },
    includeInProgressOption,
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: true,
      description: 'Whether to include the transcript segments of each conversation',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['getAll'] } },
  properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const categories = listValues(this.getNode(), filters.categories, categoriesFilter.displayName, itemIndex);
  const records = await offsetPaginate.call(this, {
    path: conversationRecord.path,
    qs: {
      folder_id: filters.folderId,
      categories: categories.length ? categories.join(',') : undefined,
      starred: filters.starred,
      ...dateRangeQuery.call(
        this,
        filters,
        [startedAfterFilter.displayName, startedBeforeFilter.displayName],
        itemIndex,
      ),
      include_transcript: options.includeTranscript,
      include_discarded: options.includeDiscarded,
      statuses: statusesFor.call(this, options.includeInProgress, itemIndex),
    },
    itemIndex,
    pageSize: PAGE_SIZE,
    limit: limitOf.call(this, itemIndex),
  });
  return booleanParameter.call(this, simplifyConversationField, itemIndex)
    ? records.map(simplifyConversation)
    : records;
}

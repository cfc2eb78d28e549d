import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { filters, operationOptions } from '../common.description';
import { toRangeBound } from '../dates';
import { searchLimitField, searchQueryField } from '../search';
import { conversationRecord, simplifyConversation, simplifyConversationField } from './fields';

/** The Started After filter. */
const startedAfterFilter: INodeProperties = {
  displayName: 'Started After',
  name: 'startDate',
  type: 'dateTime',
  default: '',
  description:
    'Return only conversations started at or after this time, as an ISO 8601 date or date-time (a date alone means the start of that UTC day)',
};

/** The Started Before filter. */
const startedBeforeFilter: INodeProperties = {
  displayName: 'Started Before',
  name: 'endDate',
  type: 'dateTime',
  default: '',
  description:
    'Return only conversations started at or before this time, as an ISO 8601 date or date-time (a date alone includes the whole UTC day)',
};

const properties: INodeProperties[] = [
  searchQueryField('conversations', 'title, overview and transcript', 'e.g. promised Anna slides'),
  searchLimitField('conversations'),
  simplifyConversationField,
  filters([startedAfterFilter, startedBeforeFilter]),
  operationOptions([
    {
      displayName: 'Include Transcript',
      name: 'includeTranscript',
      type: 'boolean',
      default: false,
      description: 'Whether to include the transcript segments of each conversation found (they can be long)',
    },
  ]),
];

export const description = updateDisplayOptions(
  { show: { resource: ['conversation'], operation: ['search'] } },
  properties,
);

/**
 * One item per conversation found, most relevant first: `{conversation, score}` as the API answers, or with
 * Simplify the simplified conversation and its score.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
  const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
  const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const found = (await devDataRequest.call(this, {
    method: 'GET',
    path: `${conversationRecord.path}/search`,
    qs: {
      query: this.getNodeParameter('query', itemIndex) as string,
      limit: this.getNodeParameter('limit', itemIndex, 50) as number,
      start_date: filters.startDate
        ? toRangeBound.call(this, filters.startDate, startedAfterFilter.displayName, itemIndex)
        : undefined,
      end_date: filters.endDate
        ? toRangeBound.call(this, filters.endDate, startedBeforeFilter.displayName, itemIndex)
        : undefined,
      include_transcript: options.includeTranscript === true ? true : undefined,
    },
    itemIndex,
    list: true,
  })) as IDataObject[];
  if (!this.getNodeParameter('simplify', itemIndex, true)) return found;
  return found.map(({ conversation, score }) => ({
    ...simplifyConversation(conversation as IDataObject),
    score,
  }));
}

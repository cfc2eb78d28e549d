import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { devDataRequest } from '../../../shared';
import { filters, operationOptions } from '../common.description';
import { dateRangeQuery } from '../dates';
import { searchLimitField, searchQueryField } from '../search';
import { booleanParameter, countOf, toBoolean } from '../utils';
import {
  conversationRecord,
  includeInProgressOption,
  simplifyConversation,
  simplifyConversationField,
  startedAfterFilter,
  startedBeforeFilter,
  statusesFor,
} from './fields';

const includeTranscriptOption: INodeProperties = {
  displayName: 'Include Transcript',
  name: 'includeTranscript',
  type: 'boolean',
  default: false,
  description: 'Whether to include the transcript segments of each conversation found (they can be long)',
};

const searchLimit = searchLimitField('conversations');

const properties: INodeProperties[] = [
  searchQueryField('conversations', 'title, overview and transcript', 'e.g. promised Anna slides'),
  searchLimit,
  simplifyConversationField,
  filters([startedAfterFilter, startedBeforeFilter]),
  operationOptions([includeInProgressOption, includeTranscriptOption]),
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
      limit: countOf.call(this, searchLimit, itemIndex),
      ...dateRangeQuery.call(
        this,
        filters,
        [startedAfterFilter.displayName, startedBeforeFilter.displayName],
        itemIndex,
      ),
      statuses: statusesFor.call(this, options.includeInProgress, itemIndex),
      include_transcript: toBoolean.call(
        this,
        options.includeTranscript,
        includeTranscriptOption.displayName,
        itemIndex,
      )
        ? true
        : undefined,
    },
    itemIndex,
    list: true,
  })) as IDataObject[];
  if (!booleanParameter.call(this, simplifyConversationField, itemIndex)) return found;
  return found.map(({ conversation, score }) => ({
    ...simplifyConversation(conversation as IDataObject),
    score,
  }));
}

import { z } from 'zod';
import { dateBound, limitParam, queryBool } from './common';
import { searchQueryParam } from './search-query';
import { conversation, listConversationsQuery } from './conversations';
import { listMemoriesQuery, memory } from './memories';

const searchLimit = limitParam(100, 10);

/** A search result: the record under `key`, with its relevance. */
function scored<K extends string, R extends z.ZodType>(key: K, record: R, id: string) {
  return z
    .object({
      [key]: record,
      score: z
        .number()
        .meta({ description: 'Relevance: higher is more relevant; compare within one answer only' }),
    } as { [k in K]: R } & { score: z.ZodNumber })
    .meta({ id });
}

export const searchConversationsQuery = z.object({
  query: searchQueryParam,
  start_date: dateBound('start').optional().meta({ description: 'Started at or after (date or date-time)' }),
  end_date: dateBound('end').optional().meta({ description: 'Started at or before (date or date-time)' }),
  statuses: listConversationsQuery.shape.statuses.meta({
    description:
      'Comma-separated statuses (in_progress, completed); a conversation in any of them is found. Default (also ' +
      'when empty) completed, ' +
      'as the real service indexes a conversation for search only once it is processed.',
  }),
  include_transcript: queryBool.prefault(false),
  limit: searchLimit,
});

export const conversationSearchResult = scored('conversation', conversation, 'ConversationSearchResult');

export const searchMemoriesQuery = z.object({
  query: searchQueryParam,
  categories: listMemoriesQuery.shape.categories,
  limit: searchLimit,
});

export const memorySearchResult = scored('memory', memory, 'MemorySearchResult');

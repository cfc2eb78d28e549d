import { z } from 'zod';
import { dateBound, limitParam, queryBool } from './common';
import { searchQueryParam } from './search-query';
import { conversation } from './conversations';
import { listMemoriesQuery, memory } from './memories';

const searchLimit = limitParam(100, 10);

export const searchConversationsQuery = z.object({
  query: searchQueryParam,
  start_date: dateBound('start').optional().meta({ description: 'Started at or after (date or date-time)' }),
  end_date: dateBound('end').optional().meta({ description: 'Started at or before (date or date-time)' }),
  include_transcript: queryBool.default(false),
  limit: searchLimit,
});

export const conversationSearchResult = z
  .object({
    conversation,
    score: z
      .number()
      .meta({ description: 'Relevance: higher is more relevant; compare within one answer only' }),
  })
  .meta({ id: 'ConversationSearchResult' });

export const searchMemoriesQuery = z.object({
  query: searchQueryParam,
  categories: listMemoriesQuery.shape.categories,
  limit: searchLimit,
});

export const memorySearchResult = z
  .object({
    memory,
    score: z
      .number()
      .meta({ description: 'Relevance: higher is more relevant; compare within one answer only' }),
  })
  .meta({ id: 'MemorySearchResult' });

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId, scoped } from '../auth/hooks';
import { errors } from '../contract/common';
import {
  conversationSearchResult,
  memorySearchResult,
  searchConversationsQuery,
  searchMemoriesQuery,
} from '../contract/search';

// Full-text search over conversations and memories (action items are searched through their list's `query`).
// Static paths: Fastify matches `/conversations/search` before `/conversations/:conversation_id`.
const search: FastifyPluginAsyncZod = async (app) => {
  const { conversations, memories } = app.repositories;

  app.get(
    '/conversations/search',
    scoped('conversations:read', ['Conversations'])({
      summary: 'Search conversations (title, overview, transcript), most relevant first',
      description:
        'Answers a list of {conversation, score}, as the real service does. Discarded conversations are left ' +
        'out, and so are those in progress (a live transcript session’s, until it is finished) unless ' +
        'statuses asks for them, as the real service finds a conversation only once it is processed; ' +
        'start_date and end_date filter on when the conversation started.',
      querystring: searchConversationsQuery,
      response: { 200: conversationSearchResult.array(), ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const { query, ...filter } = request.query;
      return conversations.search(callerId(request), query, filter);
    },
  );

  app.get(
    '/memories/search',
    scoped('memories:read', ['Memories'])({
      summary: 'Search memories (content), most relevant first',
      description: 'Answers a list of {memory, score}; categories filters as on the list.',
      querystring: searchMemoriesQuery,
      response: { 200: memorySearchResult.array(), ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const { query, ...filter } = request.query;
      return memories.search(callerId(request), query, filter);
    },
  );
};

export default search;

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { apiKey } from '../contract/keys';
import { toApiKey } from '../store/accounts';

const key: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/key',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'The developer key making this request',
        security: [{ developerApiKey: [] }],
        response: { 200: apiKey, ...errors(401, 429) },
      },
    },
    async (request) => {
      const row = await app.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', request.developerKey!.id)
        .executeTakeFirstOrThrow();
      return toApiKey(row);
    },
  );
};

export default key;

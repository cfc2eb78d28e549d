import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { apiKey } from '../contract/keys';

const key: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/key',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'The developer key making this request',
        response: { 200: apiKey, ...errors(401, 429) },
      },
    },
    async (request) => app.repositories.users.findKey(request.developerKey!.id),
  );
};

export default key;

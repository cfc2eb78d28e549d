import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listMemoriesQuery, memoriesBatch, memory, newMemory, updateMemoryBody } from '../contract/memories';
import { partialUpdateNote, recordRoutes, tombstoneNote } from '../http/record-routes';

const memories: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.memories;
  const routes = recordRoutes(app, '/memories/:memory_id', { tags: ['Memories'], scopes: 'memories' });

  routes.list(
    {
      summary: 'List memories, newest first, or the changes since a point (order=updated_at)',
      querystring: listMemoriesQuery,
      response: memory.array(),
    },
    (userId, query) => repository.list(userId, query),
  );

  routes.create({ summary: 'Create one memory', body: newMemory, response: memory }, (userId, body) =>
    repository.create(userId, body),
  );

  routes.createMany(
    { summary: 'Create up to 25 memories; all of them or none' },
    memoriesBatch,
    (userId, memories) => repository.createMany(userId, memories),
  );

  routes.update(
    {
      summary: 'Update a memory (only the fields sent)',
      description: partialUpdateNote('the memory'),
      body: updateMemoryBody,
      response: memory,
    },
    (userId, id, body) => repository.update(userId, id, body),
  );

  routes.remove({ summary: 'Delete a memory', description: tombstoneNote('memory') }, (userId, id) =>
    repository.delete(userId, id),
  );
};

export default memories;

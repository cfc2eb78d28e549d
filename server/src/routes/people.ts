import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId } from '../auth/hooks';
import { errors } from '../contract/common';
import { createPersonBody, peopleList, person, updatePersonBody } from '../contract/people';
import { recordRoutes, tombstoneNote } from '../http/record-routes';

const people: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.people;
  const routes = recordRoutes(app, '/people/:person_id', { tags: ['People'], scopes: 'people' });

  app.get(
    '/people',
    routes.read({ summary: 'List people, by name', response: { 200: peopleList, ...errors(401, 403, 429) } }),
    async (request) => ({ people: await repository.list(callerId(request)) }),
  );

  routes.create(
    {
      summary: 'Create a person, or return the one with this name',
      description:
        'Idempotent by name (case-insensitive): answers 200 with a new person or with the existing one.',
      body: createPersonBody,
      response: person,
    },
    (userId, body) => repository.findOrCreate(userId, body.name),
  );

  routes.update(
    { summary: 'Rename a person', body: updatePersonBody, response: person, conflicts: true },
    (userId, id, body) => repository.rename(userId, id, body.name),
  );

  routes.remove({ summary: 'Delete a person', description: tombstoneNote('person') }, (userId, id) =>
    repository.delete(userId, id),
  );
};

export default people;

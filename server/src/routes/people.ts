import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createPersonBody, peopleList, person, updatePersonBody } from '../contract/people';
import { recordRoutes, tombstoneNote } from '../http/record-routes';

const people: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.people;
  const routes = recordRoutes(app, '/people/:person_id', { tags: ['People'], scopes: 'people' });

  routes.listAll({ summary: 'List people, by name', response: peopleList }, async (userId) => ({
    people: await repository.list(userId),
  }));

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

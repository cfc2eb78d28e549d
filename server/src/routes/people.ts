import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { errors, idParam, iso, success } from '../contract/common';
import { createPersonBody, peopleList, person, updatePersonBody } from '../contract/people';
import { HttpError } from '../errors';
import { newId } from '../ids';
import { findOwned } from '../store/owned';
import { isUniqueViolation } from '../store/errors';
import { recordDeletion, userWrite } from '../store/changes';
import type { Database, PeopleTable } from '../store/schema';

const tags = ['People'];
const params = idParam('person_id');

/** Names are unique per user regardless of case and surrounding spaces. */
const nameKey = (name: string) => name.trim().toLowerCase();

const nameTaken = (name: string) => new HttpError(409, `A person named ${name} already exists`);

function toPerson(row: Selectable<PeopleTable>) {
  return {
    id: row.id,
    name: row.name,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    speech_sample_transcripts: JSON.parse(row.speech_sample_transcripts) as string[],
  };
}

const people: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  const findByKey = (trx: Kysely<Database>, userId: string, key: string) =>
    trx
      .selectFrom('people')
      .selectAll()
      .where('user_id', '=', userId)
      .where('name_key', '=', key)
      .executeTakeFirst();

  app.get(
    '/people',
    {
      config: { scope: 'people:read' },
      schema: {
        tags,
        summary: 'List people, by name',
        response: { 200: peopleList, ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      const rows = await db
        .selectFrom('people')
        .selectAll()
        .where('user_id', '=', callerId(request))
        .orderBy('name_key')
        .orderBy('id')
        .execute();
      return { people: rows.map(toPerson) };
    },
  );

  app.post(
    '/people',
    {
      config: { scope: 'people:write' },
      schema: {
        tags,
        summary: 'Create a person, or return the one with this name',
        description:
          'Idempotent by name (case-insensitive): answers 201 with a new person, or 200 with the existing one.',
        body: createPersonBody,
        response: { 200: person, 201: person, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const { name } = request.body;
      const key = nameKey(name);
      const existing = await findByKey(db, userId, key);
      if (existing) return reply.code(200).send(toPerson(existing));
      let row: Selectable<PeopleTable>;
      try {
        row = await userWrite(db, userId, async (trx, now) => {
          const created: Selectable<PeopleTable> = {
            id: newId(now),
            user_id: userId,
            name,
            name_key: key,
            speech_sample_transcripts: '[]',
            created_at: now,
            updated_at: now,
          };
          await trx.insertInto('people').values(created).execute();
          return created;
        });
      } catch (error) {
        // A concurrent request created the same name first: answer as if this one came second.
        const raced = isUniqueViolation(error) ? await findByKey(db, userId, key) : undefined;
        if (!raced) throw error;
        return reply.code(200).send(toPerson(raced));
      }
      return reply.code(201).send(toPerson(row));
    },
  );

  app.patch(
    '/people/:person_id',
    {
      config: { scope: 'people:write' },
      schema: {
        tags,
        summary: 'Rename a person',
        params,
        body: updatePersonBody,
        response: { 200: person, ...errors(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const { name } = request.body;
      try {
        return await userWrite(db, userId, async (trx, at) => {
          const current = await findOwned(trx, 'people', userId, request.params.person_id);
          if (name === undefined || name === current.name) return toPerson(current);
          const key = nameKey(name);
          if (key !== current.name_key) {
            const other = await findByKey(trx, userId, key);
            if (other) throw nameTaken(name);
          }
          const changes = { name, name_key: key, updated_at: at };
          await trx.updateTable('people').set(changes).where('id', '=', current.id).execute();
          return toPerson({ ...current, ...changes });
        });
      } catch (error) {
        if (name !== undefined && isUniqueViolation(error)) throw nameTaken(name);
        throw error;
      }
    },
  );

  app.delete(
    '/people/:person_id',
    {
      config: { scope: 'people:write' },
      schema: {
        tags,
        summary: 'Delete a person',
        description: 'Leaves a tombstone (GET /v1/dev/user/deleted?type=person), written with the delete.',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'people', userId, request.params.person_id);
        await trx.deleteFrom('people').where('id', '=', current.id).execute();
        await recordDeletion(trx, userId, 'person', current.id, at);
      });
      return { success: true as const };
    },
  );
};

export default people;

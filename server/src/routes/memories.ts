import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { changedAfter, checkFeedQuery } from '../change-feed';
import { changeFeedDescription } from '../contract/changes';
import { errors, idParam, iso, success } from '../contract/common';
import {
  createMemoriesBatchBody,
  listMemoriesQuery,
  memoriesBatchResponse,
  memory,
  newMemory,
  updateMemoryBody,
  type MemoryCategory,
} from '../contract/memories';
import { newId } from '../ids';
import { findOwned } from '../store/owned';
import { recordDeletion, userWrite } from '../store/changes';
import type { MemoriesTable } from '../store/schema';

const tags = ['Memories'];
const params = idParam('memory_id');

export function toMemory(row: Selectable<MemoriesTable>) {
  return {
    id: row.id,
    content: row.content,
    category: row.category as MemoryCategory,
    visibility: row.visibility as 'private' | 'public',
    tags: JSON.parse(row.tags) as string[],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function newRow(
  userId: string,
  input: { content: string; category: string; visibility: string; tags: string[] },
  now: number,
): Selectable<MemoriesTable> {
  return {
    id: newId(now),
    user_id: userId,
    content: input.content,
    category: input.category,
    visibility: input.visibility,
    tags: JSON.stringify(input.tags),
    created_at: now,
    updated_at: now,
  };
}

const memories: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  app.get(
    '/memories',
    {
      config: { scope: 'memories:read' },
      schema: {
        tags,
        summary: 'List memories, newest first, or the changes since a point (order=updated_at)',
        description: changeFeedDescription(),
        querystring: listMemoriesQuery,
        response: { 200: memory.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      checkFeedQuery(q);
      let query = db.selectFrom('memories').selectAll().where('user_id', '=', callerId(request));
      // An empty list (`categories=`) filters nothing, like leaving the parameter out.
      if (q.categories !== undefined && q.categories.length > 0)
        query = query.where('category', 'in', q.categories);
      const after = changedAfter(q);
      if (after) query = query.where(after);
      query =
        q.order === 'updated_at'
          ? query.orderBy('updated_at', 'asc').orderBy('id', 'asc')
          : query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      const rows = await query.limit(q.limit).offset(q.offset).execute();
      return rows.map(toMemory);
    },
  );

  app.post(
    '/memories',
    {
      config: { scope: 'memories:write' },
      schema: {
        tags,
        summary: 'Create one memory',
        body: newMemory,
        response: { 201: memory, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const row = await userWrite(db, userId, async (trx, at) => {
        const created = newRow(userId, request.body, at);
        await trx.insertInto('memories').values(created).execute();
        return created;
      });
      return reply.code(201).send(toMemory(row));
    },
  );

  app.post(
    '/memories/batch',
    {
      config: { scope: 'memories:write' },
      schema: {
        tags,
        summary: 'Create up to 25 memories; all of them or none',
        body: createMemoriesBatchBody,
        response: { 201: memoriesBatchResponse, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      // The whole batch is validated before this point and written by one statement: all rows or none,
      // with one write stamp.
      const rows = await userWrite(db, userId, async (trx, at) => {
        const created = request.body.memories.map((item) => newRow(userId, item, at));
        await trx.insertInto('memories').values(created).execute();
        return created;
      });
      return reply.code(201).send({ memories: rows.map(toMemory), created_count: rows.length });
    },
  );

  app.patch(
    '/memories/:memory_id',
    {
      config: { scope: 'memories:write' },
      schema: {
        tags,
        summary: 'Update a memory (only the fields sent)',
        description:
          'Sets updated_at to the write time when a stored value changes; a PATCH with an empty body or with ' +
          'the values the memory already has changes nothing and keeps updated_at.',
        params,
        body: updateMemoryBody,
        response: { 200: memory, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const { content, category, visibility, tags: newTags } = request.body;
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'memories', userId, request.params.memory_id);
        const changes: Partial<Selectable<MemoriesTable>> = {};
        if (content !== undefined && content !== current.content) changes.content = content;
        if (category !== undefined && category !== current.category) changes.category = category;
        if (visibility !== undefined && visibility !== current.visibility) changes.visibility = visibility;
        if (newTags !== undefined && JSON.stringify(newTags) !== current.tags)
          changes.tags = JSON.stringify(newTags);
        if (Object.keys(changes).length === 0) return toMemory(current);
        changes.updated_at = at;
        await trx.updateTable('memories').set(changes).where('id', '=', current.id).execute();
        return toMemory({ ...current, ...changes });
      });
    },
  );

  app.delete(
    '/memories/:memory_id',
    {
      config: { scope: 'memories:write' },
      schema: {
        tags,
        summary: 'Delete a memory',
        description: 'Leaves a tombstone (GET /v1/dev/user/deleted?type=memory), written with the delete.',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'memories', userId, request.params.memory_id);
        await trx.deleteFrom('memories').where('id', '=', current.id).execute();
        await recordDeletion(trx, userId, 'memory', current.id, at);
      });
      return { success: true as const };
    },
  );
};

export default memories;

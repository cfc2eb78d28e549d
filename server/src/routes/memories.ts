import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
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
import { notFound } from '../errors';
import { newId } from '../ids';
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

  async function findOwned(userId: string, id: string) {
    const row = await db
      .selectFrom('memories')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw notFound('Memory');
    return row;
  }

  app.get(
    '/memories',
    {
      config: { scope: 'memories:read' },
      schema: {
        tags,
        summary: 'List memories, newest first',
        querystring: listMemoriesQuery,
        response: { 200: memory.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      let query = db.selectFrom('memories').selectAll().where('user_id', '=', callerId(request));
      // An empty list (`categories=`) filters nothing, like leaving the parameter out.
      if (q.categories !== undefined && q.categories.length > 0)
        query = query.where('category', 'in', q.categories);
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute();
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
      const row = newRow(callerId(request), request.body, Date.now());
      await db.insertInto('memories').values(row).execute();
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
      const now = Date.now();
      // The whole batch is validated before this point and written by one statement: all rows or none.
      const rows = request.body.memories.map((item) => newRow(userId, item, now));
      await db.insertInto('memories').values(rows).execute();
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
        params,
        body: updateMemoryBody,
        response: { 200: memory, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const current = await findOwned(callerId(request), request.params.memory_id);
      const { content, category, visibility, tags: newTags } = request.body;
      const changes: Partial<Selectable<MemoriesTable>> = { updated_at: Date.now() };
      if (content !== undefined) changes.content = content;
      if (category !== undefined) changes.category = category;
      if (visibility !== undefined) changes.visibility = visibility;
      if (newTags !== undefined) changes.tags = JSON.stringify(newTags);
      await db.updateTable('memories').set(changes).where('id', '=', current.id).execute();
      return toMemory({ ...current, ...changes });
    },
  );

  app.delete(
    '/memories/:memory_id',
    {
      config: { scope: 'memories:write' },
      schema: {
        tags,
        summary: 'Delete a memory',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const current = await findOwned(callerId(request), request.params.memory_id);
      await db.deleteFrom('memories').where('id', '=', current.id).execute();
      return { success: true as const };
    },
  );
};

export default memories;

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { errors, idParam, iso, success } from '../contract/common';
import { createFolderBody, folder, updateFolderBody } from '../contract/folders';
import { notFound } from '../errors';
import { newId } from '../ids';
import type { FoldersTable } from '../store/schema';

const tags = ['Folders'];
const params = idParam('folder_id');

function toFolder(row: Selectable<FoldersTable>, conversationCount: number) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    color: row.color,
    conversation_count: conversationCount,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const folders: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  /** The caller's folders with how many conversations each holds (discarded ones not counted, as in the list). */
  function selectFolders(userId: string) {
    return db
      .selectFrom('folders as f')
      .selectAll('f')
      .select((eb) =>
        eb
          .selectFrom('conversations as c')
          .select((cb) => cb.fn.countAll().as('n'))
          .whereRef('c.folder_id', '=', 'f.id')
          .where('c.discarded', '=', 0)
          .as('conversation_count'),
      )
      .where('f.user_id', '=', userId);
  }

  async function findOwned(userId: string, id: string) {
    const row = await selectFolders(userId).where('f.id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Folder');
    const { conversation_count, ...folderRow } = row;
    return { row: folderRow, count: Number(conversation_count ?? 0) };
  }

  app.get(
    '/folders',
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags,
        summary: 'List folders, oldest first, with their conversation counts',
        response: { 200: folder.array(), ...errors(401, 403, 429) },
      },
    },
    async (request) => {
      const rows = await selectFolders(callerId(request)).orderBy('f.created_at').orderBy('f.id').execute();
      return rows.map(({ conversation_count, ...row }) => toFolder(row, Number(conversation_count ?? 0)));
    },
  );

  app.post(
    '/folders',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Create a folder',
        body: createFolderBody,
        response: { 201: folder, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const now = Date.now();
      const row: Selectable<FoldersTable> = {
        id: newId(now),
        user_id: callerId(request),
        name: request.body.name,
        description: request.body.description ?? null,
        color: request.body.color ?? null,
        created_at: now,
        updated_at: now,
      };
      await db.insertInto('folders').values(row).execute();
      return reply.code(201).send(toFolder(row, 0));
    },
  );

  app.patch(
    '/folders/:folder_id',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Update a folder (only the fields sent; null clears description or color)',
        params,
        body: updateFolderBody,
        response: { 200: folder, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const current = await findOwned(callerId(request), request.params.folder_id);
      const { name, description, color } = request.body;
      const changes: Partial<Selectable<FoldersTable>> = {};
      if (name !== undefined) changes.name = name;
      if (description !== undefined) changes.description = description;
      if (color !== undefined) changes.color = color;
      if (Object.keys(changes).length > 0) {
        changes.updated_at = Date.now();
        await db.updateTable('folders').set(changes).where('id', '=', current.row.id).execute();
      }
      return toFolder({ ...current.row, ...changes }, current.count);
    },
  );

  app.delete(
    '/folders/:folder_id',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Delete a folder; its conversations move to no folder',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { row } = await findOwned(callerId(request), request.params.folder_id);
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('conversations')
          .set({ folder_id: null, updated_at: Date.now() })
          .where('folder_id', '=', row.id)
          .execute();
        await trx.deleteFrom('folders').where('id', '=', row.id).execute();
      });
      return { success: true as const };
    },
  );
};

export default folders;

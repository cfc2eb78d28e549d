import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { errors, idParam, iso, success } from '../contract/common';
import { createFolderBody, folder, updateFolderBody } from '../contract/folders';
import { notFound } from '../errors';
import { newId } from '../ids';
import { recordDeletion, userWrite } from '../store/changes';
import type { Database, FoldersTable } from '../store/schema';

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
  function selectFolders(userId: string, trx: Kysely<Database> = db) {
    return trx
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

  async function findOwned(userId: string, id: string, trx: Kysely<Database> = db) {
    const row = await selectFolders(userId, trx).where('f.id', '=', id).executeTakeFirst();
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
      const userId = callerId(request);
      const row = await userWrite(db, userId, async (trx, now) => {
        const created: Selectable<FoldersTable> = {
          id: newId(now),
          user_id: userId,
          name: request.body.name,
          description: request.body.description ?? null,
          color: request.body.color ?? null,
          created_at: now,
          updated_at: now,
        };
        await trx.insertInto('folders').values(created).execute();
        return created;
      });
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
        description:
          "A new name is a change of the folder's conversations too (their folder_name): their updated_at moves.",
        params,
        body: updateFolderBody,
        response: { 200: folder, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const { name, description, color } = request.body;
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(userId, request.params.folder_id, trx);
        const changes: Partial<Selectable<FoldersTable>> = {};
        if (name !== undefined && name !== current.row.name) changes.name = name;
        if (description !== undefined && description !== current.row.description)
          changes.description = description;
        if (color !== undefined && color !== current.row.color) changes.color = color;
        if (Object.keys(changes).length === 0) return toFolder(current.row, current.count);
        changes.updated_at = at;
        await trx.updateTable('folders').set(changes).where('id', '=', current.row.id).execute();
        if (changes.name !== undefined) {
          // folder_name is part of each of its conversations.
          await trx
            .updateTable('conversations')
            .set({ updated_at: at })
            .where('user_id', '=', userId)
            .where('folder_id', '=', current.row.id)
            .execute();
        }
        return toFolder({ ...current.row, ...changes }, current.count);
      });
    },
  );

  app.delete(
    '/folders/:folder_id',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Delete a folder; its conversations move to no folder',
        description:
          'Leaves a tombstone (GET /v1/dev/user/deleted?type=folder), written with the delete. Moving the ' +
          'conversations out is a change of each of them (their updated_at moves).',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const { row } = await findOwned(userId, request.params.folder_id, trx);
        await trx
          .updateTable('conversations')
          .set({ folder_id: null, updated_at: at })
          .where('user_id', '=', userId)
          .where('folder_id', '=', row.id)
          .execute();
        await trx.deleteFrom('folders').where('id', '=', row.id).execute();
        await recordDeletion(trx, userId, 'folder', row.id, at);
      });
      return { success: true as const };
    },
  );
};

export default folders;

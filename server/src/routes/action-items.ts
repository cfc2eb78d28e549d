import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { changedAfter, checkFeedQuery } from '../change-feed';
import {
  actionItem,
  actionItemsBatchResponse,
  createActionItemBody,
  createActionItemsBatchBody,
  listActionItemsQuery,
  updateActionItemBody,
} from '../contract/action-items';
import { changeFeedDescription } from '../contract/changes';
import { errors, idParam, iso, success } from '../contract/common';
import { notFound } from '../errors';
import { newId } from '../ids';
import { findOwned } from '../store/owned';
import { recordDeletion, userWrite } from '../store/changes';
import type { ActionItemsTable } from '../store/schema';

const tags = ['Action Items'];
const params = idParam('action_item_id');

function toActionItem(row: Selectable<ActionItemsTable>) {
  return {
    id: row.id,
    description: row.description,
    completed: row.completed === 1,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    due_at: iso(row.due_at),
    completed_at: iso(row.completed_at),
    conversation_id: row.conversation_id,
  };
}

function newRow(
  userId: string,
  input: { description: string; completed: boolean; due_at?: number | null; conversation_id?: string | null },
  now: number,
): Selectable<ActionItemsTable> {
  return {
    id: newId(now),
    user_id: userId,
    description: input.description,
    completed: input.completed ? 1 : 0,
    conversation_id: input.conversation_id ?? null,
    due_at: input.due_at ?? null,
    completed_at: input.completed ? now : null,
    created_at: now,
    updated_at: now,
  };
}

const actionItems: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  app.get(
    '/action-items',
    {
      config: { scope: 'action_items:read' },
      schema: {
        tags,
        summary: 'List action items, newest first, or the changes since a point (order=updated_at)',
        description: changeFeedDescription(),
        querystring: listActionItemsQuery,
        response: { 200: actionItem.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      checkFeedQuery(q);
      let query = db.selectFrom('action_items').selectAll().where('user_id', '=', callerId(request));
      if (q.conversation_id !== undefined) query = query.where('conversation_id', '=', q.conversation_id);
      if (q.completed !== undefined) query = query.where('completed', '=', q.completed ? 1 : 0);
      if (q.start_date !== undefined) query = query.where('created_at', '>=', q.start_date);
      if (q.end_date !== undefined) query = query.where('created_at', '<=', q.end_date);
      const after = changedAfter(q);
      if (after) query = query.where(after);
      query =
        q.order === 'updated_at'
          ? query.orderBy('updated_at', 'asc').orderBy('id', 'asc')
          : query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      const rows = await query.limit(q.limit).offset(q.offset).execute();
      return rows.map(toActionItem);
    },
  );

  app.post(
    '/action-items',
    {
      config: { scope: 'action_items:write' },
      schema: {
        tags,
        summary: 'Create one action item',
        body: createActionItemBody,
        response: { 201: actionItem, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const { conversation_id } = request.body;
      const row = await userWrite(db, userId, async (trx, at) => {
        if (conversation_id) {
          const found = await trx
            .selectFrom('conversations')
            .select('id')
            .where('id', '=', conversation_id)
            .where('user_id', '=', userId)
            .executeTakeFirst();
          if (!found) throw notFound('Conversation');
        }
        const created = newRow(userId, request.body, at);
        await trx.insertInto('action_items').values(created).execute();
        return created;
      });
      return reply.code(201).send(toActionItem(row));
    },
  );

  app.post(
    '/action-items/batch',
    {
      config: { scope: 'action_items:write' },
      schema: {
        tags,
        summary: 'Create up to 50 action items; all of them or none',
        body: createActionItemsBatchBody,
        response: { 201: actionItemsBatchResponse, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      // One write stamp (created_at = updated_at) for the whole batch; ids keep the input order.
      const rows = await userWrite(db, userId, async (trx, at) => {
        const created = request.body.action_items.map((item) => newRow(userId, item, at));
        await trx.insertInto('action_items').values(created).execute();
        return created;
      });
      return reply.code(201).send({ action_items: rows.map(toActionItem), created_count: rows.length });
    },
  );

  app.patch(
    '/action-items/:action_item_id',
    {
      config: { scope: 'action_items:write' },
      schema: {
        tags,
        summary: 'Update an action item (only the fields sent)',
        description:
          'Sets updated_at to the write time when a stored value changes; a PATCH with an empty body or with ' +
          'the values the item already has changes nothing and keeps updated_at. completed: true sets ' +
          'completed_at, false clears it; due_at: null removes the due date.',
        params,
        body: updateActionItemBody,
        response: { 200: actionItem, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const { description, completed, due_at } = request.body;
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'action_items', userId, request.params.action_item_id);
        const changes: Partial<Selectable<ActionItemsTable>> = {};
        if (description !== undefined && description !== current.description)
          changes.description = description;
        if (due_at !== undefined && due_at !== current.due_at) changes.due_at = due_at;
        if (completed !== undefined && completed !== (current.completed === 1)) {
          changes.completed = completed ? 1 : 0;
          changes.completed_at = completed ? at : null;
        }
        if (Object.keys(changes).length === 0) return toActionItem(current);
        changes.updated_at = at;
        await trx.updateTable('action_items').set(changes).where('id', '=', current.id).execute();
        return toActionItem({ ...current, ...changes });
      });
    },
  );

  app.delete(
    '/action-items/:action_item_id',
    {
      config: { scope: 'action_items:write' },
      schema: {
        tags,
        summary: 'Delete an action item',
        description:
          'Leaves a tombstone (GET /v1/dev/user/deleted?type=action_item), written with the delete.',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'action_items', userId, request.params.action_item_id);
        await trx.deleteFrom('action_items').where('id', '=', current.id).execute();
        await recordDeletion(trx, userId, 'action_item', current.id, at);
      });
      return { success: true as const };
    },
  );
};

export default actionItems;

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  actionItem,
  actionItemsBatch,
  createActionItemBody,
  listActionItemsQuery,
  updateActionItemBody,
} from '../contract/action-items';
import { partialUpdateNote, recordRoutes, tombstoneNote } from '../http/record-routes';

const actionItems: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.actionItems;
  const routes = recordRoutes(app, '/action-items/:action_item_id', {
    tags: ['Action Items'],
    scopes: 'action_items',
  });

  routes.list(
    {
      summary:
        'List action items, newest first, or the changes since a point (order=updated_at), or those a query ' +
        'matches, most relevant first',
      querystring: listActionItemsQuery,
      response: actionItem.array(),
    },
    (userId, query) => repository.list(userId, query),
  );

  routes.create(
    { summary: 'Create one action item', body: createActionItemBody, response: actionItem, notFound: true },
    (userId, body) => repository.create(userId, body),
  );

  routes.createMany(
    { summary: 'Create up to 50 action items; all of them or none' },
    actionItemsBatch,
    (userId, items) => repository.createMany(userId, items),
  );

  routes.update(
    {
      summary: 'Update an action item (only the fields sent)',
      description:
        partialUpdateNote('the item') +
        ' completed: true sets completed_at, false clears it; due_at: null removes the due date.',
      body: updateActionItemBody,
      response: actionItem,
    },
    (userId, id, body) => repository.update(userId, id, body),
  );

  routes.remove(
    { summary: 'Delete an action item', description: tombstoneNote('action_item') },
    (userId, id) => repository.delete(userId, id),
  );
};

export default actionItems;

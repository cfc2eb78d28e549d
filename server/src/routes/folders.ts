import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createFolderBody, folder, updateFolderBody } from '../contract/folders';
import { recordRoutes, tombstoneNote } from '../http/record-routes';

const folders: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.folders;
  const routes = recordRoutes(app, '/folders/:folder_id', { tags: ['Folders'], scopes: 'conversations' });

  routes.listAll(
    {
      summary: 'List folders by their order (then oldest first), with their conversation counts',
      response: folder.array(),
    },
    (userId) => repository.list(userId),
  );

  routes.create({ summary: 'Create a folder', body: createFolderBody, response: folder }, (userId, body) =>
    repository.create(userId, body),
  );

  routes.update(
    {
      summary:
        'Update a folder (only the fields sent; null clears description and resets color or icon to the default)',
      description:
        "A new name is a change of the folder's conversations too (their folder_name): their updated_at moves.",
      body: updateFolderBody,
      response: folder,
    },
    (userId, id, body) => repository.update(userId, id, body),
  );

  routes.remove(
    {
      summary: 'Delete a folder; its conversations move to no folder',
      description:
        tombstoneNote('folder') +
        ' Moving the conversations out is a change of each of them (their updated_at moves).',
    },
    (userId, id) => repository.delete(userId, id),
  );
};

export default folders;

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId } from '../auth/hooks';
import { errors } from '../contract/common';
import { cursorPage } from '../contract/cursor';
import {
  createScreenActivityBody,
  createScreenActivityResponse,
  listScreenActivityQuery,
  screenActivityPage,
} from '../contract/screen-activity';
import { recordRoutes } from '../http/record-routes';
import { screenActivityPosition } from '../store/screen-activity';

const screenActivity: FastifyPluginAsyncZod = async (app) => {
  const routes = recordRoutes(app, '/screen-activity/:screen_activity_id', {
    tags: ['Screen Activity'],
    scopes: 'screen_activity',
  });
  const repository = app.repositories.screenActivity;

  // By hand, not routes.list: a page of this cursor-paged log is serialized by the route as it goes out, not
  // kept in the response cache.
  app.get(
    '/screen-activity',
    routes.read({
      summary: 'List screen activity, oldest first, a page at a time',
      description:
        'Ordered by timestamp, then id. Pass next_cursor as cursor, with the same filters, while has_more is true.',
      querystring: listScreenActivityQuery,
      response: { 200: screenActivityPage, ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const userId = callerId(request);
      const { start_date, end_date, app: appName } = request.query;
      // The cursor is bound to the filters (as parsed instants), not to the page size.
      const filters = { start_date, end_date, app: appName };
      const { page, ...more } = await cursorPage(
        request.query,
        'screen activity',
        filters,
        screenActivityPosition,
        (after, take) => repository.list(userId, filters, after, take),
      );
      return { ...more, screen_activity: page };
    },
  );

  routes.create(
    {
      summary: 'Record up to 1000 screen activity rows; all of them or none',
      body: createScreenActivityBody,
      response: createScreenActivityResponse,
    },
    async (userId, body) => ({ created_count: await repository.record(userId, body.screen_activity) }),
  );
};

export default screenActivity;

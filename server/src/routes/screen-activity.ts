import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
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

  routes.list(
    {
      summary: 'List screen activity, oldest first, a page at a time',
      description:
        'Ordered by timestamp, then id. Pass next_cursor as cursor, with the same filters, while has_more is true.',
      querystring: listScreenActivityQuery,
      response: screenActivityPage,
    },
    async (userId, query) => {
      // The cursor is bound to the filters (as parsed instants), not to the page size.
      const filters = { start_date: query.start_date, end_date: query.end_date, app: query.app };
      const { page, ...more } = await cursorPage(query, filters, screenActivityPosition, (after, take) =>
        repository.list(userId, filters, after, take),
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

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerId, scoped } from '../auth/hooks';
import { errors } from '../contract/common';
import {
  createScreenActivityBody,
  createScreenActivityResponse,
  listScreenActivityQuery,
  screenActivityPage,
} from '../contract/screen-activity';
import { cursorPage } from '../contract/cursor';
import { screenActivityPosition } from '../store/screen-activity';

const tags = ['Screen Activity'];
const read = scoped('screen_activity:read', tags);
const write = scoped('screen_activity:write', tags);

const screenActivity: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.screenActivity;

  app.get(
    '/screen-activity',
    read({
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
        filters,
        screenActivityPosition,
        (after, take) => repository.list(userId, filters, after, take),
      );
      return { ...more, screen_activity: page };
    },
  );

  app.post(
    '/screen-activity',
    write({
      summary: 'Record up to 1000 screen activity rows; all of them or none',
      body: createScreenActivityBody,
      response: { 201: createScreenActivityResponse, ...errors(401, 403, 422, 429) },
    }),
    async (request, reply) => {
      const created = await repository.record(callerId(request), request.body.screen_activity);
      return reply.code(201).send({ created_count: created });
    },
  );
};

export default screenActivity;

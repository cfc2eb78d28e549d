import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { errors, iso } from '../contract/common';
import {
  createScreenActivityBody,
  createScreenActivityResponse,
  listScreenActivityQuery,
  screenActivityPage,
} from '../contract/screen-activity';
import { decodeCursor, keysetPage } from '../cursor';
import { newId } from '../ids';
import type { ScreenActivityTable } from '../store/schema';

const tags = ['Screen Activity'];

/**
 * Rows per INSERT statement: 6 columns × 150 rows = 900 bound parameters, under SQLite's historical limit of
 * 999 per statement (and far under PostgreSQL's 65535).
 */
const INSERT_CHUNK = 150;

function toRecord(row: Selectable<ScreenActivityTable>) {
  return {
    id: row.id,
    timestamp: iso(row.timestamp),
    app_name: row.app_name,
    window_title: row.window_title,
    ocr_text: row.ocr_text,
  };
}

const screenActivity: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  app.get(
    '/screen-activity',
    {
      config: { scope: 'screen_activity:read' },
      schema: {
        tags,
        operationId: 'listScreenActivity',
        summary: 'List screen activity, oldest first, a page at a time',
        description:
          'Ordered by timestamp, then id. Pass next_cursor as cursor, with the same filters, while has_more is true.',
        querystring: listScreenActivityQuery,
        response: { 200: screenActivityPage, ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { start_date, end_date, app: appName, limit, cursor } = request.query;
      // The cursor is bound to the filters (as parsed instants), not to the page size.
      const filters = { start_date, end_date, app: appName };
      let query = db.selectFrom('screen_activity').selectAll().where('user_id', '=', callerId(request));
      if (start_date !== undefined) query = query.where('timestamp', '>=', start_date);
      if (end_date !== undefined) query = query.where('timestamp', '<=', end_date);
      if (appName !== undefined) query = query.where('app_name', '=', appName);
      if (cursor !== undefined) {
        const after = decodeCursor(cursor, filters);
        // Keyset: resumes right after the last row seen, through the (user, [app,] timestamp, id) index.
        query = query.where((eb) => eb(eb.refTuple('timestamp', 'id'), '>', eb.tuple(after.t, after.i)));
      }
      const rows = await query
        .orderBy('timestamp', 'asc')
        .orderBy('id', 'asc')
        .limit(limit + 1)
        .execute();
      const { page, ...more } = keysetPage(rows, limit, (row) => ({ t: row.timestamp, i: row.id }), filters);
      return { ...more, screen_activity: page.map(toRecord) };
    },
  );

  app.post(
    '/screen-activity',
    {
      config: { scope: 'screen_activity:write' },
      schema: {
        tags,
        summary: 'Record up to 1000 screen activity rows; all of them or none',
        body: createScreenActivityBody,
        response: { 201: createScreenActivityResponse, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const now = Date.now();
      const rows: Selectable<ScreenActivityTable>[] = request.body.screen_activity.map((entry) => ({
        id: newId(now),
        user_id: userId,
        timestamp: entry.timestamp,
        app_name: entry.app_name,
        window_title: entry.window_title,
        ocr_text: entry.ocr_text,
      }));
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
          await trx
            .insertInto('screen_activity')
            .values(rows.slice(start, start + INSERT_CHUNK))
            .execute();
        }
      });
      return reply.code(201).send({ created_count: rows.length });
    },
  );
};

export default screenActivity;

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { errors, iso } from '../contract/common';
import { listNotificationsQuery, notificationsPage } from '../contract/notifications';
import { callerId } from '../auth/hooks';
import { decodeCursor, encodeCursor } from '../cursor';
import type { NotificationsTable } from '../store/schema';

export function toNotification(row: Selectable<NotificationsTable>) {
  return {
    id: row.id,
    app_id: row.app_id,
    kind: row.kind as 'direct' | 'proactive',
    title: row.title,
    text: row.text,
    generated: row.generated === 1,
    created_at: iso(row.created_at),
  };
}

const notifications: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  app.get(
    '/notifications',
    {
      config: { scope: 'notifications:read' },
      schema: {
        tags: ['Notifications'],
        summary: "The user's notification inbox, newest first",
        querystring: listNotificationsQuery,
        response: { 200: notificationsPage, ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      let query = db.selectFrom('notifications').selectAll().where('user_id', '=', callerId(request));
      if (cursor !== undefined) {
        const after = decodeCursor(cursor, {});
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.t, after.i)));
      }
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const hasMore = rows.length > limit;
      return {
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor({ t: last.created_at, i: last.id }, {}) : null,
        notifications: page.map(toNotification),
      };
    },
  );
};

export default notifications;

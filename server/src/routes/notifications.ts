import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable } from 'kysely';
import { errors, iso } from '../contract/common';
import { listNotificationsQuery, notificationsPage } from '../contract/notifications';
import { callerId } from '../auth/hooks';
import { decodeCursor, keysetPage } from '../cursor';
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
      const { page, ...more } = keysetPage(rows, limit, (row) => ({ t: row.created_at, i: row.id }), {});
      return { ...more, notifications: page.map(toNotification) };
    },
  );

  app.get(
    '/notifications/stream',
    {
      config: { scope: 'notifications:read' },
      schema: {
        tags: ['Notifications'],
        summary: "The user's notifications as Server-Sent Events, from now on",
        description:
          'Each push is an `event: notification` whose `data` is the Notification JSON; a `: heartbeat` ' +
          'comment keeps the connection open. Streams are fed in process: with several server instances, ' +
          'a stream carries the pushes made by the instance it is connected to.',
        response: { ...errors(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      raw.write(': connected\n\n');
      const unsubscribe = app.pusher.subscribe(userId, (row) => {
        raw.write(`event: notification\nid: ${row.id}\ndata: ${JSON.stringify(toNotification(row))}\n\n`);
      });
      const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), app.config.sseHeartbeatMs);
      const end = () => {
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(end);
        if (!raw.writableEnded) raw.end();
      };
      streams.add(end);
      request.raw.on('close', end);
      raw.on('close', end);
      raw.on('error', end);
    },
  );

  // Open streams never go idle, so they are ended when the server starts closing.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
};

export default notifications;

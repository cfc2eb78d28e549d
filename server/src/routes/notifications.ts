import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { listNotificationsQuery, notificationsPage } from '../contract/notifications';
import { callerId, scoped } from '../auth/hooks';
import { cursorPage } from '../contract/cursor';
import { createdAtPosition } from '../store/db/paging';

const read = scoped('notifications:read', ['Notifications']);

const notifications: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.notifications;

  app.get(
    '/notifications',
    read({
      summary: "The user's notification inbox, newest first",
      querystring: listNotificationsQuery,
      response: { 200: notificationsPage, ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const userId = callerId(request);
      const { page, ...more } = await cursorPage(request.query, {}, createdAtPosition, (before, take) =>
        repository.list(userId, before, take),
      );
      return { ...more, notifications: page };
    },
  );

  app.get(
    '/notifications/stream',
    read({
      summary: "The user's notifications as Server-Sent Events, from now on",
      description:
        'Each push is an `event: notification` whose `data` is the Notification JSON; a `: heartbeat` ' +
        'comment keeps the connection open. With several server instances a stream carries the pushes made ' +
        "through any of them (while Redis or the instances' link is down, only those of its own instance: " +
        'the inbox has them all).',
      response: { ...errors(401, 403, 429) },
    }),
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
      // HEAD (which Fastify adds to every GET) gets the stream's head and nothing more.
      if (request.method === 'HEAD') {
        raw.end();
        return;
      }
      raw.write(': connected\n\n');
      const unsubscribe = app.pusher.subscribe(userId, (notification) => {
        raw.write(`event: notification\nid: ${notification.id}\ndata: ${JSON.stringify(notification)}\n\n`);
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

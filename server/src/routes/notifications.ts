import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { listNotificationsQuery, notificationsPage } from '../contract/notifications';
import { callerId, scoped } from '../auth/hooks';
import { cursorPage } from '../contract/cursor';
import { openEventStream, type EventStream } from '../http/event-stream';
import { createdAtPosition } from '../store/db/paging';
import { notificationStreams } from '../usecases/notification-stream';

const read = scoped('notifications:read', ['Notifications']);

const notifications: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.notifications;
  const followers = notificationStreams(app.repositories, app.pusher, app.config.streamKeyRecheckMs);

  app.get(
    '/notifications',
    read({
      summary: "The user's notification inbox, newest first",
      querystring: listNotificationsQuery,
      response: { 200: notificationsPage, ...errors(401, 403, 422, 429) },
    }),
    async (request) => {
      const userId = callerId(request);
      const { page, ...more } = await cursorPage(
        request.query,
        'notifications',
        {},
        createdAtPosition,
        (before, take) => repository.list(userId, before, take),
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
        'the inbox has them all). The stream ends once the key it was opened with is revoked.',
      response: { ...errors(401, 403, 429) },
    }),
    async (request, reply) => {
      const stream = openEventStream(request, reply, app.config.sseHeartbeatMs);
      if (!stream) return;
      const stopFollowing = followers.follow(request.developerKey!.id, callerId(request), {
        notify: (notification) => stream.send('notification', notification.id, JSON.stringify(notification)),
        revoked: () => stream.end(),
      });
      streams.add(stream);
      stream.onEnd(() => {
        stopFollowing();
        streams.delete(stream);
      });
    },
  );

  // Open streams never go idle, so they are ended when the server starts closing.
  const streams = new Set<EventStream>();
  app.addHook('preClose', async () => {
    for (const stream of [...streams]) stream.end();
  });
};

export default notifications;

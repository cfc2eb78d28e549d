import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { cursorPage } from '../contract/cursor';
import { adminDeliveriesQuery, deliveriesPage } from '../contract/proactive';
import { createdAtPosition } from '../store/db/paging';

/** `GET /v1/admin/deliveries`: every app's webhook calls. */
const adminDeliveries: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.deliveries;

  app.get(
    '/deliveries',
    {
      schema: {
        tags: ['Administration'],
        summary: 'Webhook deliveries of every app, newest first',
        querystring: adminDeliveriesQuery,
        response: { 200: deliveriesPage, ...errors(401, 422) },
      },
    },
    async (request) => {
      const { app_id, user_id } = request.query;
      const filters = {
        ...(app_id !== undefined ? { app_id } : {}),
        ...(user_id !== undefined ? { user_id } : {}),
      };
      const { page, ...more } = await cursorPage(
        request.query,
        'admin deliveries',
        filters,
        createdAtPosition,
        (before, take) => repository.list(filters, before, take),
      );
      return { ...more, deliveries: page };
    },
  );
};

export default adminDeliveries;

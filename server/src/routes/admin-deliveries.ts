import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../contract/common';
import { cursorPage } from '../contract/cursor';
import { adminDeliveriesQuery, deliveriesPage } from '../contract/proactive';
import { createdAtPosition } from '../store/db/paging';
import type { DeliveriesRepository, DeliveryFilter } from '../store/deliveries';

/** A page of the deliveries that `filters` select, newest first; also the app's own list (app-notifications.ts). */
export async function pageOfDeliveries(
  deliveries: DeliveriesRepository,
  query: { cursor?: string; limit: number },
  list: string,
  filters: DeliveryFilter,
) {
  const { page, ...more } = await cursorPage(query, list, { ...filters }, createdAtPosition, (before, take) =>
    deliveries.list(filters, before, take),
  );
  return { ...more, deliveries: page };
}

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
      return pageOfDeliveries(repository, request.query, 'admin deliveries', filters);
    },
  );
};

export default adminDeliveries;

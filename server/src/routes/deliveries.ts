import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Selectable } from 'kysely';
import { errors, iso } from '../contract/common';
import { adminDeliveriesQuery, deliveriesPage, type Outcome } from '../contract/proactive';
import { decodeCursor, keysetPage } from '../cursor';
import type { Database, DeliveriesTable } from '../store/schema';

export function toDelivery(row: Selectable<DeliveriesTable>) {
  return {
    id: row.id,
    app_id: row.app_id,
    user_id: row.user_id,
    session_id: row.session_id,
    url: row.url,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    outcome: row.outcome as Outcome,
    detail: row.detail,
    notification_id: row.notification_id,
    created_at: iso(row.created_at),
  };
}

/** One page of delivery records, newest first, keyset-paged by (created_at, id). */
export async function listDeliveries(
  db: Kysely<Database>,
  filters: { app_id?: string; user_id?: string },
  page: { limit: number; cursor?: string },
) {
  let query = db.selectFrom('deliveries').selectAll();
  if (filters.app_id !== undefined) query = query.where('app_id', '=', filters.app_id);
  if (filters.user_id !== undefined) query = query.where('user_id', '=', filters.user_id);
  if (page.cursor !== undefined) {
    const after = decodeCursor(page.cursor, filters);
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.t, after.i)));
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const { page: items, ...more } = keysetPage(
    rows,
    page.limit,
    (row) => ({ t: row.created_at, i: row.id }),
    filters,
  );
  return { ...more, deliveries: items.map(toDelivery) };
}

/** `GET /v1/admin/deliveries`: every app's webhook calls. */
const adminDeliveries: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/deliveries',
    {
      schema: {
        tags: ['Administration'],
        security: [{ adminToken: [] }],
        summary: 'Webhook deliveries of every app, newest first',
        querystring: adminDeliveriesQuery,
        response: { 200: deliveriesPage, ...errors(401, 422) },
      },
    },
    async (request) => {
      const { limit, cursor, app_id, user_id } = request.query;
      const filters = {
        ...(app_id !== undefined ? { app_id } : {}),
        ...(user_id !== undefined ? { user_id } : {}),
      };
      return listDeliveries(app.store.db, filters, { limit, cursor });
    },
  );
};

export default adminDeliveries;

// Webhook deliveries: one record per call the proactive pipeline made, and what came of it. Every query, and
// how a row reads back.
import type { Kysely } from 'kysely';
import type { Position } from '../contract/cursor';
import type { Outcome } from '../contract/proactive';
import { newId } from '../ids';
import { newestBefore } from './db/paging';
import type { Row } from './db/records';
import { iso } from './db/rows';
import type { Database } from './db/schema';

/** A delivery as read: the row, with its outcome named and its instant in ISO 8601. */
export type Delivery = Omit<Row<'deliveries'>, 'outcome' | 'created_at'> & {
  outcome: Outcome;
  created_at: string;
};

export type NewDelivery = Omit<Delivery, 'id' | 'created_at'>;

/** Which deliveries to list; absent fields do not filter. */
export interface DeliveryFilter {
  app_id?: string;
  user_id?: string;
}

function decodeDelivery(row: Row<'deliveries'>): Delivery {
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

export function deliveriesRepository(db: Kysely<Database>) {
  return {
    /** Records one webhook call, stamped now. */
    async record(delivery: NewDelivery): Promise<void> {
      await db
        .insertInto('deliveries')
        .values({ id: newId(), ...delivery, created_at: Date.now() })
        .execute();
    },

    /** Drops the records made before `before` (epoch ms). */
    async pruneBefore(before: number): Promise<void> {
      await db.deleteFrom('deliveries').where('created_at', '<', before).execute();
    },

    /** Newest first: up to `take`, before the position `before` (created_at in epoch ms and id) when given. */
    async list(filter: DeliveryFilter, before: Position | undefined, take: number): Promise<Delivery[]> {
      let query = db.selectFrom('deliveries').selectAll();
      if (filter.app_id !== undefined) query = query.where('app_id', '=', filter.app_id);
      if (filter.user_id !== undefined) query = query.where('user_id', '=', filter.user_id);
      const rows = await newestBefore(query, before, take).execute();
      return rows.map(decodeDelivery);
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof deliveriesRepository>;

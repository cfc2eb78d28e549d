// Screen activity: every query, and how a row reads back. Not part of the change feed: rows are only
// appended, with no write stamp.
import type { Kysely } from 'kysely';
import type { Position } from '../contract/cursor';
import { newId } from '../ids';
import { insertRows, type Row } from './db/records';
import { iso } from './db/rows';
import type { Database } from './db/schema';
import { transaction } from './db/transaction';

export interface ScreenActivity {
  id: string;
  timestamp: string;
  app_name: string;
  window_title: string;
  ocr_text: string;
}

export interface NewScreenActivity {
  /** Epoch ms. */
  timestamp: number;
  app_name: string;
  window_title: string;
  ocr_text: string;
}

export interface ScreenActivityFilter {
  /** At or after / at or before, epoch ms. */
  start_date?: number;
  end_date?: number;
  /** Exact, case-sensitive app name. */
  app?: string;
}

function decodeScreenActivity(row: Row<'screen_activity'>): ScreenActivity {
  return {
    id: row.id,
    timestamp: iso(row.timestamp),
    app_name: row.app_name,
    window_title: row.window_title,
    ocr_text: row.ocr_text,
  };
}

/** Where a record sits in the list's keyset order: timestamp (epoch ms), then id. */
export const screenActivityPosition = (record: ScreenActivity): Position => ({
  t: Date.parse(record.timestamp),
  i: record.id,
});

export function screenActivityRepository(db: Kysely<Database>) {
  return {
    /**
     * Up to `take` records in (timestamp, id) order, after the position `after` (the timestamp in epoch ms
     * and the id of the last record seen) when given.
     */
    async list(
      userId: string,
      filter: ScreenActivityFilter,
      after: Position | undefined,
      take: number,
    ): Promise<ScreenActivity[]> {
      let query = db.selectFrom('screen_activity').selectAll().where('user_id', '=', userId);
      if (filter.start_date !== undefined) query = query.where('timestamp', '>=', filter.start_date);
      if (filter.end_date !== undefined) query = query.where('timestamp', '<=', filter.end_date);
      if (filter.app !== undefined) query = query.where('app_name', '=', filter.app);
      // Keyset: resumes right after the last row seen, through the (user, [app,] timestamp, id) index.
      if (after)
        query = query.where((eb) => eb(eb.refTuple('timestamp', 'id'), '>', eb.tuple(after.t, after.i)));
      const rows = await query.orderBy('timestamp', 'asc').orderBy('id', 'asc').limit(take).execute();
      return rows.map(decodeScreenActivity);
    },

    /** Stores the records, all of them or none; returns how many. */
    async record(userId: string, entries: NewScreenActivity[]): Promise<number> {
      const now = Date.now();
      const rows = entries.map((entry) => ({
        id: newId(now),
        user_id: userId,
        timestamp: entry.timestamp,
        app_name: entry.app_name,
        window_title: entry.window_title,
        ocr_text: entry.ocr_text,
      }));
      await transaction(db, (trx) => insertRows(trx, 'screen_activity', rows));
      return rows.length;
    },
  };
}

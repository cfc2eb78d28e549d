// Tombstones as the change feed reads them (GET /deleted); store/db/write-clock.ts writes them with each delete.
import { sql, type Kysely, type SqlBool } from 'kysely';
import { TOMBSTONE_TYPES, type TombstoneType } from '../contract/change-feed';
import { iso } from './db/rows';
import type { Database } from './db/schema';

export interface Tombstone {
  type: TombstoneType;
  id: string;
  deleted_at: string;
}

export interface TombstoneFilter {
  /** Only these types. */
  types: readonly TombstoneType[];
  /** Deleted after this instant (epoch ms), or with `after_id` after the position (since, after_id). */
  since?: number;
  after_id?: string;
  limit: number;
}

export function tombstonesRepository(db: Kysely<Database>) {
  return {
    /** Oldest deletion first, then by id. */
    async list(userId: string, filter: TombstoneFilter): Promise<Tombstone[]> {
      const { types, since, after_id, limit } = filter;
      let query = db
        .selectFrom('tombstones')
        .select(['type', 'id', 'deleted_at'])
        .where('user_id', '=', userId);
      // Every type: no filter, so the (user_id, deleted_at, id) index serves the walk.
      if (types.length < TOMBSTONE_TYPES.length) query = query.where('type', 'in', types);
      if (since !== undefined) {
        query = query.where(
          after_id === undefined
            ? sql<SqlBool>`deleted_at > ${since}`
            : sql<SqlBool>`(deleted_at, id) > (${since}, ${after_id})`,
        );
      }
      const rows = await query.orderBy('deleted_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
      return rows.map((row) => ({
        type: row.type as TombstoneType,
        id: row.id,
        deleted_at: iso(row.deleted_at),
      }));
    },
  };
}

import { sql, type Kysely, type Selectable } from 'kysely';
import { notFound } from '../errors';
import type { Database } from './schema';

const THING = { action_items: 'Action item', goals: 'Goal', memories: 'Memory', people: 'Person' } as const;
type OwnedTable = keyof typeof THING;

/**
 * The caller's record `id` in `table`, or a 404 "<Thing> not found" — also when the record belongs to
 * another user, so that ids of other users' records cannot be probed.
 */
export async function findOwned<T extends OwnedTable>(
  db: Kysely<Database>,
  table: T,
  userId: string,
  id: string,
): Promise<Selectable<Database[T]>> {
  const row = await db
    .selectFrom(table as OwnedTable)
    .selectAll()
    .where(sql.ref('id'), '=', id)
    .where(sql.ref('user_id'), '=', userId)
    .executeTakeFirst();
  if (!row) throw notFound(THING[table]);
  return row as Selectable<Database[T]>;
}

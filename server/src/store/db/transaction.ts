import type { Kysely, Transaction } from 'kysely';
import { isConflictAbort } from './store-errors';
import type { Database } from './schema';

/** How many times a transaction is run before its conflict abort reaches the caller (a 503 over HTTP). */
const ATTEMPTS = 3;

/**
 * Runs `work` in a transaction, again when PostgreSQL aborted it to resolve a conflict with another one (a
 * deadlock, or a serialization failure under a stricter isolation level than the default): the abort rolled
 * everything back, and the same work run again after the other transaction has gone usually commits. So `work`
 * must change nothing outside `trx` (values made before it, such as new rows' ids, it may use again). SQLite, one
 * connection, has neither.
 */
export async function transaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isConflictAbort(error)) throw error;
      // A random pause, longer each time, so the two transactions do not meet again in the same step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

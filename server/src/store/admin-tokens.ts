// Admin tokens: what authenticates /v1/admin. A token is made here and only its hash stored; it is returned once.
import type { Kysely } from 'kysely';
import { ADMIN_TOKEN_PREFIX, hashSecret, newSecret } from '../auth/secrets';
import { newId } from '../ids';
import type { Database } from './db/schema';
import { transaction } from './db/transaction';

export function adminTokensRepository(db: Kysely<Database>) {
  const insert = async (trx: Kysely<Database>): Promise<string> => {
    const token = newSecret(ADMIN_TOKEN_PREFIX);
    await trx
      .insertInto('admin_tokens')
      .values({ id: newId(), token_hash: hashSecret(token), created_at: Date.now() })
      .execute();
    return token;
  };

  return {
    /** A new admin token, returned here only. */
    create: (): Promise<string> => insert(db),

    /**
     * A new admin token in place of every other, returned here only: a leaked one is refused from the next request
     * on, by every instance (a token is looked up at each request, never cached).
     */
    replaceAll: (): Promise<string> =>
      transaction(db, async (trx) => {
        await trx.deleteFrom('admin_tokens').execute();
        return insert(trx);
      }),

    async isValid(token: string): Promise<boolean> {
      const row = await db
        .selectFrom('admin_tokens')
        .select('id')
        .where('token_hash', '=', hashSecret(token))
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type AdminTokensRepository = ReturnType<typeof adminTokensRepository>;

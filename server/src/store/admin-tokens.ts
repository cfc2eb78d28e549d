// Admin tokens: what authenticates /v1/admin. A token is made here and only its hash stored; it is returned once.
import type { Kysely } from 'kysely';
import { ADMIN_TOKEN_PREFIX, hashSecret, newSecret } from '../auth/secrets';
import { newId } from '../ids';
import type { Database } from './db/schema';

export function adminTokensRepository(db: Kysely<Database>) {
  return {
    /** A new admin token, returned here only. */
    async create(): Promise<string> {
      const token = newSecret(ADMIN_TOKEN_PREFIX);
      await db
        .insertInto('admin_tokens')
        .values({ id: newId(), token_hash: hashSecret(token), created_at: Date.now() })
        .execute();
      return token;
    },

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

import { PROACTIVE_SCOPES, SCOPES } from '../contract/scopes';
import { buildRepositories } from '../store';
import type { Store } from '../store/db/database';

export interface InitResult {
  user_id: string;
  developer_key: string;
  admin_token: string;
  app_id: string;
  app_secret: string;
  webhook_secret: string;
}

/**
 * Init over one database, its repositories built once for every step. New developer keys start with `keyPrefix`
 * (DEVDATA_KEY_PREFIX's default when omitted).
 */
export function instanceInit(store: Store, { keyPrefix }: { keyPrefix?: string } = {}) {
  const { users, adminTokens, apps } = buildRepositories(store, { keyPrefix });
  return {
    /**
     * A ready instance: a user, a developer key holding every scope (keys:read and keys:write too), an admin
     * token, and an app with both capabilities installed for the user with every proactive scope granted.
     */
    async initialize({ userName = 'Demo User' }: { userName?: string } = {}): Promise<InitResult> {
      const user = await users.createUser(userName);
      const key = await users.createKey(user.id, 'Default key', [...SCOPES]);
      const adminToken = await adminTokens.create();
      const { app, appSecret, webhookSecret } = await apps.createApp({
        name: 'DevData App',
        capabilities: ['external_integration', 'proactive_notification'],
        external_integration: { triggers_on: 'transcript_processed', webhook_url: null },
        proactive_notification: { scopes: [...PROACTIVE_SCOPES] },
      });
      await apps.install(app.id, user.id, [...PROACTIVE_SCOPES]);
      return {
        user_id: user.id,
        developer_key: key.secret,
        admin_token: adminToken,
        app_id: app.id,
        app_secret: appSecret,
        webhook_secret: webhookSecret,
      };
    },

    /** A new admin token in place of every other (one that leaked), returned here only. */
    replaceAdminTokens: (): Promise<string> => adminTokens.replaceAll(),

    /** Whether init has run on this database (it has a user). A database not migrated yet has none. */
    async isInitialized(): Promise<boolean> {
      await store.ping(); // an unreachable database fails here, not as "no users"
      try {
        return await users.hasUsers();
      } catch {
        return false;
      }
    },

    /** Whether saved init output was made by this database: its user and its app are here. */
    async madeBy(result: Pick<InitResult, 'user_id' | 'app_id'>): Promise<boolean> {
      return (
        (await users.listUsers()).some((user) => user.id === result.user_id) &&
        !!(await apps.findAppCredentials(result.app_id))
      );
    },
  };
}

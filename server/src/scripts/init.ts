import type { Kysely } from 'kysely';
import { PROACTIVE_SCOPES, SCOPES } from '../contract/scopes';
import { accountRepositories } from '../store';
import type { Store } from '../store/db/database';
import type { Database } from '../store/db/schema';

export interface InitResult {
  user_id: string;
  developer_key: string;
  admin_token: string;
  app_id: string;
  app_secret: string;
  webhook_secret: string;
}

/**
 * A ready instance: a user, a developer key holding every scope (keys:read and keys:write too) and starting with
 * `keyPrefix` (DEVDATA_KEY_PREFIX's default when omitted), an admin token, and an app with both capabilities
 * installed for the user with every proactive scope granted.
 */
export async function initInstance(
  db: Kysely<Database>,
  { userName = 'Demo User', keyPrefix }: { userName?: string; keyPrefix?: string } = {},
): Promise<InitResult> {
  const { users, adminTokens, apps } = accountRepositories(db, { keyPrefix });
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
}

/** Whether init has run on this database (it has a user). A database not migrated yet has none. */
export async function isInitialized(store: Store): Promise<boolean> {
  await store.ping(); // an unreachable database fails here, not as "no users"
  try {
    return await accountRepositories(store.db).users.hasUsers();
  } catch {
    return false;
  }
}

/** Whether saved init output was made by this database: its user and its app are here. */
export async function madeBy(db: Kysely<Database>, result: Pick<InitResult, 'user_id' | 'app_id'>) {
  const { users, apps } = accountRepositories(db);
  return (
    (await users.listUsers()).some((user) => user.id === result.user_id) &&
    !!(await apps.findAppCredentials(result.app_id))
  );
}

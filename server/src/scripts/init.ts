import type { Kysely } from 'kysely';
import { PROACTIVE_SCOPES, SCOPES } from '../contract/scopes';
import { createAdminToken, createApiKey, createApp, createUser, installApp } from '../store/accounts';
import type { Database } from '../store/schema';

export interface InitResult {
  user_id: string;
  developer_key: string;
  admin_token: string;
  app_id: string;
  app_secret: string;
  webhook_secret: string;
}

/**
 * A ready instance: a user, a developer key holding every scope, an admin token, and an app with both
 * capabilities installed for the user with every proactive scope granted.
 */
export async function initInstance(db: Kysely<Database>, userName = 'Demo User'): Promise<InitResult> {
  const user = await createUser(db, userName);
  const key = await createApiKey(db, user.id, 'Default key', [...SCOPES]);
  const adminToken = await createAdminToken(db);
  const app = await createApp(db, {
    name: 'DevData App',
    capabilities: ['external_integration', 'proactive_notification'],
    external_integration: { triggers_on: 'transcript_processed', webhook_url: null },
    proactive_notification: { scopes: [...PROACTIVE_SCOPES] },
  });
  await installApp(db, app.id, user.id, [...PROACTIVE_SCOPES]);
  return {
    user_id: user.id,
    developer_key: key.key,
    admin_token: adminToken,
    app_id: app.id,
    app_secret: app.app_secret,
    webhook_secret: app.webhook_secret,
  };
}

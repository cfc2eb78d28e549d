// Users, keys, admin tokens, apps and installs: shared by the admin routes and the CLI's `init`.
import type { Kysely, Selectable } from 'kysely';
import {
  ADMIN_TOKEN_PREFIX,
  APP_SECRET_PREFIX,
  DEV_KEY_PREFIX,
  WEBHOOK_SECRET_PREFIX,
  displayKey,
  hashSecret,
  newSecret,
} from '../auth/secrets';
import { iso } from '../contract/common';
import { DEFAULT_SCOPES, type ProactiveScope, type Scope } from '../contract/scopes';
import { newId } from '../ids';
import type { ApiKeysTable, AppsTable, Database } from './schema';

export async function createUser(db: Kysely<Database>, name: string) {
  const row = { id: newId(), name, created_at: Date.now() };
  await db.insertInto('users').values(row).execute();
  return { id: row.id, name: row.name, created_at: iso(row.created_at) };
}

export function toApiKey(row: Selectable<ApiKeysTable>) {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: JSON.parse(row.scopes) as Scope[],
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
  };
}

/** Creates a developer key; the plaintext `key` is returned here and never stored. */
export async function createApiKey(db: Kysely<Database>, userId: string, name: string, scopes?: Scope[]) {
  const key = newSecret(DEV_KEY_PREFIX);
  const row: Selectable<ApiKeysTable> = {
    id: newId(),
    user_id: userId,
    name,
    key_hash: hashSecret(key),
    key_prefix: displayKey(key),
    scopes: JSON.stringify([...new Set(scopes ?? DEFAULT_SCOPES)]),
    created_at: Date.now(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toApiKey(row), key };
}

export async function createAdminToken(db: Kysely<Database>): Promise<string> {
  const token = newSecret(ADMIN_TOKEN_PREFIX);
  await db
    .insertInto('admin_tokens')
    .values({ id: newId(), token_hash: hashSecret(token), created_at: Date.now() })
    .execute();
  return token;
}

export interface AppInput {
  name: string;
  capabilities: string[];
  external_integration?: { triggers_on: 'transcript_processed'; webhook_url?: string | null };
  proactive_notification?: { scopes: string[] };
}

export function toApp(row: Selectable<AppsTable>) {
  return {
    id: row.id,
    name: row.name,
    capabilities: JSON.parse(row.capabilities),
    external_integration: row.external_integration === null ? null : JSON.parse(row.external_integration),
    proactive_notification:
      row.proactive_notification === null ? null : JSON.parse(row.proactive_notification),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Creates an app; its secret and webhook signing secret are returned here only. */
export async function createApp(db: Kysely<Database>, input: AppInput) {
  const appSecret = newSecret(APP_SECRET_PREFIX);
  const webhookSecret = newSecret(WEBHOOK_SECRET_PREFIX);
  const now = Date.now();
  const row: Selectable<AppsTable> = {
    id: newId(now),
    name: input.name,
    capabilities: JSON.stringify([...new Set(input.capabilities)]),
    external_integration: input.external_integration
      ? JSON.stringify({
          triggers_on: input.external_integration.triggers_on,
          webhook_url: input.external_integration.webhook_url ?? null,
        })
      : null,
    proactive_notification: input.proactive_notification
      ? JSON.stringify({ scopes: [...new Set(input.proactive_notification.scopes)] })
      : null,
    secret_hash: hashSecret(appSecret),
    webhook_secret: webhookSecret,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('apps').values(row).execute();
  return { ...toApp(row), app_secret: appSecret, webhook_secret: webhookSecret };
}

/** Installs an app for a user (or replaces the scopes granted by an earlier install). */
export async function installApp(
  db: Kysely<Database>,
  appId: string,
  userId: string,
  grantedScopes: ProactiveScope[],
) {
  const row = {
    app_id: appId,
    user_id: userId,
    granted_scopes: JSON.stringify([...new Set(grantedScopes)]),
    created_at: Date.now(),
  };
  await db
    .insertInto('app_installs')
    .values(row)
    .onConflict((oc) => oc.columns(['app_id', 'user_id']).doUpdateSet({ granted_scopes: row.granted_scopes }))
    .execute();
  return {
    ...row,
    granted_scopes: JSON.parse(row.granted_scopes) as ProactiveScope[],
    created_at: iso(row.created_at),
  };
}

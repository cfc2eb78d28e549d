// Accounts: users, developer keys, admin tokens, apps and their installs. Every query, and how a row reads
// back. Secrets are made here and only their hashes stored; a new one is returned once, beside its record.
import type { Kysely } from 'kysely';
import {
  ADMIN_TOKEN_PREFIX,
  APP_SECRET_PREFIX,
  DEV_KEY_PREFIX,
  WEBHOOK_SECRET_PREFIX,
  displayKey,
  hashSecret,
  newSecret,
} from '../auth/secrets';
import { CAPABILITIES, DEFAULT_SCOPES, type ProactiveScope, type Scope } from '../contract/scopes';
import { newId } from '../ids';
import { writeBookkeeping } from './db/database';
import { NotFound } from './db/store-errors';
import { KeyCache } from './key-cache';
import type { Row } from './db/records';
import { fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';

type Capability = (typeof CAPABILITIES)[number];

/**
 * How long a key read from the database is trusted by default: a revocation elsewhere shows here within
 * this even when the broadcast of it is lost.
 */
export const KEY_CACHE_TTL_MS = 500;
const KEY_CACHE_SIZE = 10_000;

export interface User {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  /** The display form, e.g. svc_dev_abcd...wxyz. */
  key_prefix: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
}

/** An unrevoked key as authentication needs it; `last_used_at` in epoch ms. */
export interface ActiveKey {
  id: string;
  user_id: string;
  scopes: Scope[];
  last_used_at: number | null;
}

export interface ExternalIntegration {
  triggers_on: 'transcript_processed';
  webhook_url: string | null;
}

export interface App {
  id: string;
  name: string;
  capabilities: Capability[];
  external_integration: ExternalIntegration | null;
  proactive_notification: { scopes: ProactiveScope[] } | null;
  created_at: string;
  updated_at: string;
}

export interface NewApp {
  name: string;
  capabilities: Capability[];
  external_integration?: { triggers_on: 'transcript_processed'; webhook_url?: string | null };
  proactive_notification?: { scopes: ProactiveScope[] };
}

/** An app as authenticating its requests needs it. */
export interface AppCredentials {
  id: string;
  name: string;
  capabilities: string[];
  secret_hash: string;
}

export interface Install {
  app_id: string;
  user_id: string;
  granted_scopes: ProactiveScope[];
  created_at: string;
}

function decodeUser(row: Row<'users'>): User {
  return { id: row.id, name: row.name, created_at: iso(row.created_at) };
}

function decodeApiKey(row: Row<'api_keys'>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: fromJson<Scope[]>(row.scopes),
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
  };
}

function decodeApp(row: Row<'apps'>): App {
  return {
    id: row.id,
    name: row.name,
    capabilities: fromJson<Capability[]>(row.capabilities),
    external_integration: fromJson<ExternalIntegration>(row.external_integration),
    proactive_notification: fromJson<{ scopes: ProactiveScope[] }>(row.proactive_notification),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function decodeInstall(row: Row<'app_installs'>): Install {
  return {
    app_id: row.app_id,
    user_id: row.user_id,
    granted_scopes: fromJson<ProactiveScope[]>(row.granted_scopes),
    created_at: iso(row.created_at),
  };
}

export interface AccountsOptions {
  /** How long a cached key is trusted (KEY_CACHE_TTL_MS when omitted). */
  keyCacheTtlMs?: number;
  /** Told the hash of every key this instance revokes: to broadcast it to the other instances' caches. */
  onKeyRevoked?: (hash: string) => void;
}

export function accountsRepository(db: Kysely<Database>, options: AccountsOptions = {}) {
  const activeKeys = new KeyCache<ActiveKey>(options.keyCacheTtlMs ?? KEY_CACHE_TTL_MS, KEY_CACHE_SIZE);
  /** NotFound "User not found" unless the user exists. */
  async function requireUser(userId: string): Promise<void> {
    const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!row) throw new NotFound('User');
  }

  /** The app; NotFound "App not found" when there is none. */
  async function findApp(appId: string): Promise<App> {
    const row = await db.selectFrom('apps').selectAll().where('id', '=', appId).executeTakeFirst();
    if (!row) throw new NotFound('App');
    return decodeApp(row);
  }

  /** Reads the unrevoked key with this hash and caches it (see key-cache.ts). */
  async function readActiveKey(hash: string): Promise<ActiveKey | undefined> {
    const lookup = activeKeys.begin();
    const row = await db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'scopes', 'last_used_at'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const key = { ...row, scopes: fromJson<Scope[]>(row.scopes) };
    activeKeys.set(hash, key, lookup);
    return key;
  }

  return {
    async createUser(name: string): Promise<User> {
      const row = { id: newId(), name, created_at: Date.now() };
      await db.insertInto('users').values(row).execute();
      return decodeUser(row);
    },

    /** Oldest first. */
    async listUsers(): Promise<User[]> {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(decodeUser);
    },

    /** Whether the instance has any user yet (a fresh database has none). */
    async hasUsers(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    /**
     * A new developer key of an existing user (NotFound "User" otherwise), with `scopes` or else the default
     * read scopes. The key itself (`secret`) is returned here and never stored.
     */
    async createKey(
      userId: string,
      name: string,
      scopes?: Scope[],
    ): Promise<{ key: ApiKey; secret: string }> {
      await requireUser(userId);
      const secret = newSecret(DEV_KEY_PREFIX);
      const row: Row<'api_keys'> = {
        id: newId(),
        user_id: userId,
        name,
        key_hash: hashSecret(secret),
        key_prefix: displayKey(secret),
        scopes: toJson([...new Set(scopes ?? DEFAULT_SCOPES)]),
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      };
      await db.insertInto('api_keys').values(row).execute();
      return { key: decodeApiKey(row), secret };
    },

    /** The user's unrevoked keys, oldest first; NotFound "User" for an unknown user. */
    async listKeys(userId: string): Promise<ApiKey[]> {
      await requireUser(userId);
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(decodeApiKey);
    },

    /** The key (revoked or not); NotFound "Key" when there is none. */
    async findKey(keyId: string): Promise<ApiKey> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
      if (!row) throw new NotFound('Key');
      return decodeApiKey(row);
    },

    /**
     * The unrevoked key whose secret is `secret`, if any: from the key cache when it was read less than
     * `keyCacheTtlMs` ago (see key-cache.ts for how a revocation reaches every instance).
     */
    findActiveKey(secret: string): ActiveKey | undefined | Promise<ActiveKey | undefined> {
      const hash = hashSecret(secret);
      // A cached key is answered at once, without a promise: this is every authenticated request's path.
      return activeKeys.get(hash) ?? readActiveKey(hash);
    },

    /**
     * Records that the key was used at `at` (epoch ms), in the database and on the key as cached. Bookkeeping:
     * it leaves the response cache as it is (no answer it keeps shows a key).
     */
    async touchKey(key: ActiveKey, at: number): Promise<void> {
      await writeBookkeeping(
        db,
        db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', key.id).compile(),
      );
      key.last_used_at = at;
    },

    /** Revokes an unrevoked key; NotFound "Key" when there is no such key or it is revoked already. */
    async revokeKey(keyId: string): Promise<void> {
      const revoked = await db
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .returning('key_hash')
        .executeTakeFirst();
      if (!revoked) throw new NotFound('Key');
      activeKeys.invalidate(revoked.key_hash);
      options.onKeyRevoked?.(revoked.key_hash);
    },

    /**
     * Forgets a cached key by the hash of its secret: for an instance told that another one revoked it (the
     * cache's expiry alone bounds that to `keyCacheTtlMs`).
     */
    invalidateKey(hash: string): void {
      activeKeys.invalidate(hash);
    },

    /** A new admin token, returned here only. */
    async createAdminToken(): Promise<string> {
      const token = newSecret(ADMIN_TOKEN_PREFIX);
      await db
        .insertInto('admin_tokens')
        .values({ id: newId(), token_hash: hashSecret(token), created_at: Date.now() })
        .execute();
      return token;
    },

    async isAdminToken(token: string): Promise<boolean> {
      const row = await db
        .selectFrom('admin_tokens')
        .select('id')
        .where('token_hash', '=', hashSecret(token))
        .executeTakeFirst();
      return row !== undefined;
    },

    /** A new app; its secret and webhook signing secret are returned here only. */
    async createApp(input: NewApp): Promise<{ app: App; appSecret: string; webhookSecret: string }> {
      const appSecret = newSecret(APP_SECRET_PREFIX);
      const webhookSecret = newSecret(WEBHOOK_SECRET_PREFIX);
      const now = Date.now();
      const row: Row<'apps'> = {
        id: newId(now),
        name: input.name,
        capabilities: toJson([...new Set(input.capabilities)]),
        external_integration: input.external_integration
          ? toJson({
              triggers_on: input.external_integration.triggers_on,
              webhook_url: input.external_integration.webhook_url ?? null,
            })
          : null,
        proactive_notification: input.proactive_notification
          ? toJson({ scopes: [...new Set(input.proactive_notification.scopes)] })
          : null,
        secret_hash: hashSecret(appSecret),
        webhook_secret: webhookSecret,
        created_at: now,
        updated_at: now,
      };
      await db.insertInto('apps').values(row).execute();
      return { app: decodeApp(row), appSecret, webhookSecret };
    },

    /** Oldest first. */
    async listApps(): Promise<App[]> {
      const rows = await db.selectFrom('apps').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(decodeApp);
    },

    findApp,

    /** What authenticating a request of the app needs, if the app exists. */
    async findAppCredentials(appId: string): Promise<AppCredentials | undefined> {
      const row = await db
        .selectFrom('apps')
        .select(['id', 'name', 'capabilities', 'secret_hash'])
        .where('id', '=', appId)
        .executeTakeFirst();
      return row && { ...row, capabilities: fromJson<string[]>(row.capabilities) };
    },

    /**
     * Installs an app for a user, or replaces the scopes an earlier install granted. NotFound "App", then
     * "User", when either does not exist.
     */
    async install(appId: string, userId: string, grantedScopes: ProactiveScope[]): Promise<Install> {
      await findApp(appId);
      await requireUser(userId);
      const row = {
        app_id: appId,
        user_id: userId,
        granted_scopes: toJson([...new Set(grantedScopes)]),
        created_at: Date.now(),
      };
      await db
        .insertInto('app_installs')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['app_id', 'user_id']).doUpdateSet({ granted_scopes: row.granted_scopes }),
        )
        .execute();
      return decodeInstall(row);
    },

    /** NotFound "Install" when the app is not installed for the user. */
    async uninstall(appId: string, userId: string): Promise<void> {
      const result = await db
        .deleteFrom('app_installs')
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw new NotFound('Install');
    },

    requireUser,

    /** The user's install of the app, if there is one. */
    async findInstall(appId: string, userId: string): Promise<Install | undefined> {
      const row = await db
        .selectFrom('app_installs')
        .selectAll()
        .where('app_id', '=', appId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row && decodeInstall(row);
    },

    /**
     * Sets (or with null removes) the app's transcript webhook. Setting one also gives the app the
     * external_integration capability; removing it leaves the capabilities as they are.
     */
    async setWebhook(appId: string, webhookUrl: string | null): Promise<ExternalIntegration> {
      const { capabilities } = await findApp(appId);
      const integration: ExternalIntegration = {
        triggers_on: 'transcript_processed',
        webhook_url: webhookUrl,
      };
      const withCapability: Capability[] =
        webhookUrl === null || capabilities.includes('external_integration')
          ? capabilities
          : [...capabilities, 'external_integration'];
      await db
        .updateTable('apps')
        .set({
          external_integration: toJson(integration),
          capabilities: toJson(withCapability),
          updated_at: Date.now(),
        })
        .where('id', '=', appId)
        .execute();
      return integration;
    },

    /**
     * The apps the user installed that take transcripts (external_integration with a webhook URL), by id, with
     * where and how to call them.
     */
    async webhookTargets(userId: string): Promise<{ appId: string; url: string; secret: string }[]> {
      const rows = await db
        .selectFrom('app_installs as i')
        .innerJoin('apps as a', 'a.id', 'i.app_id')
        .select(['a.id', 'a.capabilities', 'a.external_integration', 'a.webhook_secret'])
        .where('i.user_id', '=', userId)
        .where('a.external_integration', 'is not', null)
        .orderBy('a.id')
        .execute();
      return rows.flatMap((row) => {
        const capabilities = fromJson<string[]>(row.capabilities);
        const integration = fromJson<Partial<ExternalIntegration>>(row.external_integration!);
        return capabilities.includes('external_integration') &&
          integration.triggers_on === 'transcript_processed' &&
          integration.webhook_url
          ? [{ appId: row.id, url: integration.webhook_url, secret: row.webhook_secret }]
          : [];
      });
    },
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;

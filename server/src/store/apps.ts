// Apps and their installs: an app's credentials, capabilities and transcript webhook, and which users installed
// it with which proactive scopes. Every query, and how a row reads back. An app's secrets are made here; only
// the hash of its secret is stored, and both are returned once, beside the new app (the app secret again once
// when rotated).
import type { Kysely } from 'kysely';
import { APP_SECRET_PREFIX, WEBHOOK_SECRET_PREFIX, hashSecret, newSecret } from '../auth/secrets';
import type { CAPABILITIES, ProactiveScope } from '../contract/scopes';
import { newId } from '../ids';
import type { Row } from './db/records';
import { fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';
import { Conflict, NotFound } from './db/store-errors';
import type { UsersRepository } from './users';
import { WEBHOOKS_APP_ID } from './webhooks';

type Capability = (typeof CAPABILITIES)[number];

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

/** `users` answers whether an installing user exists. */
export function appsRepository(db: Kysely<Database>, users: Pick<UsersRepository, 'requireUser'>) {
  /** The app; NotFound "App not found" when there is none. */
  async function findApp(appId: string): Promise<App> {
    const row = await db.selectFrom('apps').selectAll().where('id', '=', appId).executeTakeFirst();
    if (!row) throw new NotFound('App');
    return decodeApp(row);
  }

  return {
    /**
     * A new app; its secret and webhook signing secret are returned here only. A webhook URL gives it the
     * external_integration capability, as setWebhook does: without it the webhook would never be called.
     */
    async createApp(input: NewApp): Promise<{ app: App; appSecret: string; webhookSecret: string }> {
      const appSecret = newSecret(APP_SECRET_PREFIX);
      const webhookSecret = newSecret(WEBHOOK_SECRET_PREFIX);
      const now = Date.now();
      const capabilities: Capability[] = input.external_integration?.webhook_url
        ? [...input.capabilities, 'external_integration']
        : input.capabilities;
      const row: Row<'apps'> = {
        id: newId(now),
        name: input.name,
        capabilities: toJson([...new Set(capabilities)]),
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

    /**
     * A new app secret in place of the old one, which is refused from the next request on, on every instance
     * (requests read the secret's hash from the database, uncached). NotFound "App" when there is none;
     * Conflict for the server's own notifying app, which has no secret so that nothing authenticates as it.
     */
    async rotateSecret(appId: string): Promise<{ app: App; appSecret: string }> {
      if (appId === WEBHOOKS_APP_ID)
        throw new Conflict(`App ${appId} is the server's own and has no secret: nothing authenticates as it`);
      const appSecret = newSecret(APP_SECRET_PREFIX);
      const row = await db
        .updateTable('apps')
        .set({ secret_hash: hashSecret(appSecret), updated_at: Date.now() })
        .where('id', '=', appId)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw new NotFound('App');
      return { app: decodeApp(row), appSecret };
    },

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
     * Installs an app for a user, or replaces the scopes an earlier install granted (`replaced`; the install
     * keeps its created_at). NotFound "App", then "User", when either does not exist. `checkScopes`, after the app
     * is found, sees the scopes it declares and throws to refuse the grant.
     */
    async install(
      appId: string,
      userId: string,
      grantedScopes: ProactiveScope[],
      checkScopes?: (declared: ProactiveScope[]) => void,
    ): Promise<{ install: Install; replaced: boolean }> {
      const app = await findApp(appId);
      checkScopes?.(app.proactive_notification?.scopes ?? []);
      await users.requireUser(userId);
      const row = {
        app_id: appId,
        user_id: userId,
        granted_scopes: toJson([...new Set(grantedScopes)]),
        created_at: Date.now(),
      };
      // An uninstall between the insert that found an install and the update leaves nothing to update: insert again.
      for (;;) {
        const created = await db
          .insertInto('app_installs')
          .values(row)
          .onConflict((oc) => oc.columns(['app_id', 'user_id']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (created) return { install: decodeInstall(created), replaced: false };
        const updated = await db
          .updateTable('app_installs')
          .set({ granted_scopes: row.granted_scopes })
          .where('app_id', '=', appId)
          .where('user_id', '=', userId)
          .returningAll()
          .executeTakeFirst();
        if (updated) return { install: decodeInstall(updated), replaced: true };
      }
    },

    /** The app's installs, oldest first; NotFound "App" when there is no such app. */
    async listInstalls(appId: string): Promise<Install[]> {
      await findApp(appId);
      const rows = await db
        .selectFrom('app_installs')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
      return rows.map(decodeInstall);
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
     * where and how to call them; with `appId`, only that app's (none when it no longer takes them).
     */
    async webhookTargets(
      userId: string,
      appId?: string,
    ): Promise<{ appId: string; url: string; secret: string }[]> {
      let query = db
        .selectFrom('app_installs as i')
        .innerJoin('apps as a', 'a.id', 'i.app_id')
        .select(['a.id', 'a.capabilities', 'a.external_integration', 'a.webhook_secret'])
        .where('i.user_id', '=', userId)
        .where('a.external_integration', 'is not', null);
      if (appId !== undefined) query = query.where('a.id', '=', appId);
      const rows = await query.orderBy('a.id').execute();
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

export type AppsRepository = ReturnType<typeof appsRepository>;

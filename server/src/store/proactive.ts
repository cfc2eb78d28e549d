// What the proactive pipeline and direct notifications ask of the database: the rate windows (atomic on both
// databases, so several instances sharing one agree) and the user's data a prompt template may quote.
import type { Kysely } from 'kysely';
import { fromJson } from './db/rows';
import type { Database } from './db/schema';

const HOUR_MS = 3_600_000;

/** A proactive window taken for a push being prepared. */
export interface ClaimedWindow {
  /** The push went out at `pushedAt`: the window runs `windowMs` from then. */
  confirm(pushedAt: number): Promise<void>;
  /** The attempt failed: the window is free again (unless another instance took it meanwhile). */
  release(): Promise<void>;
}

export function proactiveRepository(db: Kysely<Database>) {
  return {
    /**
     * Counts one direct notification of the app to the user in the current clock hour: the count so far
     * (this one included) and when the hour ends (epoch ms). The first count of an hour prunes ended ones.
     */
    async countDirectNotification(
      appId: string,
      userId: string,
      now: number,
    ): Promise<{ count: number; expiresAt: number }> {
      const windowStart = now - (now % HOUR_MS);
      const expiresAt = windowStart + HOUR_MS;
      const row = await db
        .insertInto('rate_counters')
        .values({ key: `direct:${appId}:${userId}:${windowStart}`, count: 1, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet((eb) => ({ count: eb('rate_counters.count', '+', 1) })),
        )
        .returning('count')
        .executeTakeFirstOrThrow();
      if (row.count === 1) await db.deleteFrom('rate_counters').where('expires_at', '<=', now).execute();
      return { count: row.count, expiresAt };
    },

    /**
     * Takes the user's proactive window for this app until `pendingUntil`, atomically: null while the last
     * successful push is younger than the window or another push is being prepared.
     */
    async claimWindow(
      appId: string,
      userId: string,
      now: number,
      pendingUntil: number,
      windowMs: number,
    ): Promise<ClaimedWindow | null> {
      const key = `proactive:${appId}:${userId}`;
      const claimed = await db
        .insertInto('rate_counters')
        .values({ key, count: 1, expires_at: pendingUntil })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({ count: 1, expires_at: pendingUntil })
            .where('rate_counters.expires_at', '<=', now),
        )
        .returning('expires_at')
        .executeTakeFirst();
      if (!claimed) return null;
      return {
        confirm: async (pushedAt) => {
          await db
            .updateTable('rate_counters')
            .set({ expires_at: pushedAt + windowMs })
            .where('key', '=', key)
            // Only our own claim: one that outlived pendingUntil may have been taken by another push since.
            .where('expires_at', '=', pendingUntil)
            .execute();
        },
        release: async () => {
          await db
            .deleteFrom('rate_counters')
            .where('key', '=', key)
            .where('expires_at', '=', pendingUntil)
            .execute();
        },
      };
    },

    /** The user's display name ('' for an unknown user). */
    async userName(userId: string): Promise<string> {
      const user = await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
      return user?.name ?? '';
    },

    /** The contents of the user's newest `limit` memories, newest first. */
    async recentFacts(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('memories')
        .select('content')
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => row.content);
    },

    /** Title and overview of the user's newest `limit` conversations not discarded, newest started first. */
    async recentConversations(userId: string, limit: number): Promise<{ title: string; overview: string }[]> {
      const rows = await db
        .selectFrom('conversations')
        .select('structured')
        .where('user_id', '=', userId)
        .where('discarded', '=', 0)
        .orderBy('started_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => {
        const { title, overview } = fromJson<{ title: string; overview: string }>(row.structured);
        return { title, overview };
      });
    },

    /** The app's last `limit` notifications to the user (direct and proactive), oldest first. */
    async recentAppMessages(
      userId: string,
      appId: string,
      limit: number,
    ): Promise<{ title: string; text: string }[]> {
      const rows = await db
        .selectFrom('notifications')
        .select(['title', 'text'])
        .where('user_id', '=', userId)
        .where('app_id', '=', appId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.reverse();
    },
  };
}

export type ProactiveRepository = ReturnType<typeof proactiveRepository>;

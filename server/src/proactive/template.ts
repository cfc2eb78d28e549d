import type { Kysely } from 'kysely';
import type { ProactiveScope } from '../contract/scopes';
import type { Database } from '../store/schema';

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;
const FACTS_MAX = 50;
const CONTEXT_MAX = 5;
const CHAT_MAX = 10;

/** Replaces `{{var}}` for the variables given; every other placeholder stays as written. */
export function fill(prompt: string, values: Partial<Record<ProactiveScope, string>>): string {
  return prompt.replace(PLACEHOLDER, (match, name: string) =>
    Object.hasOwn(values, name) ? values[name as ProactiveScope]! : match,
  );
}

/** The text of each template variable asked for, read from the user's data. */
export async function contextValues(
  db: Kysely<Database>,
  userId: string,
  appId: string,
  variables: ProactiveScope[],
): Promise<Partial<Record<ProactiveScope, string>>> {
  const values: Partial<Record<ProactiveScope, string>> = {};
  for (const variable of new Set(variables)) {
    if (variable === 'user_name') {
      const user = await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
      values.user_name = user?.name ?? '';
    } else if (variable === 'user_facts') {
      const rows = await db
        .selectFrom('memories')
        .select('content')
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(FACTS_MAX)
        .execute();
      values.user_facts = rows.map((r) => `- ${r.content}`).join('\n');
    } else if (variable === 'user_context') {
      const rows = await db
        .selectFrom('conversations')
        .select('structured')
        .where('user_id', '=', userId)
        .where('discarded', '=', 0)
        .orderBy('started_at', 'desc')
        .orderBy('id', 'desc')
        .limit(CONTEXT_MAX)
        .execute();
      values.user_context = rows
        .map((r) => {
          const s = JSON.parse(r.structured) as { title: string; overview: string };
          return `- ${s.title}: ${s.overview}`;
        })
        .join('\n');
    } else if (variable === 'user_chat') {
      // The service keeps no user-to-app chat of its own: the messages between them are the app's
      // notifications to the user (direct and proactive), oldest of the last ten first.
      const rows = await db
        .selectFrom('notifications')
        .select(['title', 'text'])
        .where('user_id', '=', userId)
        .where('app_id', '=', appId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(CHAT_MAX)
        .execute();
      values.user_chat = rows
        .reverse()
        .map((r) => `${r.title}: ${r.text}`)
        .join('\n');
    }
  }
  return values;
}

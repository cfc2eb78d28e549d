import type { ProactiveScope } from '../contract/scopes';
import type { ProactiveRepository } from '../store/proactive';

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

/**
 * The length `fill` would give, as `measure` counts it, without building the text: a prompt repeating a
 * placeholder multiplies its variable's text, which is to be refused before it takes the memory.
 */
export function filledLength(
  prompt: string,
  values: Partial<Record<ProactiveScope, string>>,
  measure: (text: string) => number,
): number {
  const lengths = new Map(Object.entries(values).map(([name, value]) => [name, measure(value)]));
  let length = measure(prompt);
  for (const [placeholder, name] of prompt.matchAll(PLACEHOLDER)) {
    const value = lengths.get(name);
    if (value !== undefined) length += value - measure(placeholder);
  }
  return length;
}

/** The text of each template variable asked for, read from the user's data. */
export async function contextValues(
  proactive: ProactiveRepository,
  userId: string,
  appId: string,
  variables: ProactiveScope[],
): Promise<Partial<Record<ProactiveScope, string>>> {
  const values: Partial<Record<ProactiveScope, string>> = {};
  for (const variable of new Set(variables)) {
    if (variable === 'user_name') {
      values.user_name = await proactive.userName(userId);
    } else if (variable === 'user_facts') {
      const facts = await proactive.recentFacts(userId, FACTS_MAX);
      values.user_facts = facts.map((fact) => `- ${fact}`).join('\n');
    } else if (variable === 'user_context') {
      const conversations = await proactive.recentConversations(userId, CONTEXT_MAX);
      values.user_context = conversations.map((c) => `- ${c.title}: ${c.overview}`).join('\n');
    } else if (variable === 'user_chat') {
      // The service keeps no user-to-app chat of its own: the messages between them are the app's
      // notifications to the user (direct and proactive), oldest of the last ten first.
      const messages = await proactive.recentAppMessages(userId, appId, CHAT_MAX);
      values.user_chat = messages.map((m) => `${m.title}: ${m.text}`).join('\n');
    }
  }
  return values;
}

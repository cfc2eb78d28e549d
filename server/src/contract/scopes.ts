import { z } from 'zod';

export const SCOPES = [
  'conversations:read',
  'conversations:write',
  'memories:read',
  'memories:write',
  'action_items:read',
  'action_items:write',
  'goals:read',
  'goals:write',
  'screen_activity:read',
  'screen_activity:write',
  'people:read',
  'people:write',
  'notifications:read',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'keys:write',
] as const;
export type Scope = (typeof SCOPES)[number];
export const scope = z.enum(SCOPES);

/** Whether a scope is about developer keys themselves (list, create, revoke them). */
export function isKeyScope(s: Scope): boolean {
  return s.startsWith('keys:');
}

/**
 * What a key created without scopes holds: every `:read` scope but `keys:read`. A default key reads data; seeing
 * (or managing) the user's other keys is asked for by name.
 */
export const DEFAULT_SCOPES: Scope[] = SCOPES.filter((s) => s.endsWith(':read') && !isKeyScope(s));

/** Proactive-notification scopes an app may declare and a user may grant; each names a template variable. */
export const PROACTIVE_SCOPES = ['user_name', 'user_facts', 'user_context', 'user_chat'] as const;
export const proactiveScope = z.enum(PROACTIVE_SCOPES);
export type ProactiveScope = (typeof PROACTIVE_SCOPES)[number];

export const CAPABILITIES = ['external_integration', 'proactive_notification'] as const;
export const capability = z.enum(CAPABILITIES);

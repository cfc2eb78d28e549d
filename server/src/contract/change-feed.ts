import { z } from 'zod';
import { dateTime, instant, limitParam } from './common';
import type { Scope } from './scopes';

// The change feed: `updated_since` / `order=updated_at` / `after_id` on the lists of action items,
// conversations, memories and goals, and the tombstones of deleted records.

export const updatedSinceParam = instant.optional().meta({
  description:
    'Only records changed after this instant (exclusive): updated_at > updated_since. ISO 8601 date-time; ' +
    'the server keeps milliseconds, so finer digits are cut off. Pass the updated_at of the last record you ' +
    'received (with after_id, see there).',
});

/** An `after_id` query parameter: the id half of a keyset position, described for its list. */
const afterId = (description: string) => z.string().min(1).max(100).optional().meta({ description });

export const afterIdParam = afterId(
  'Keyset position: with updated_since and order=updated_at, start after the position ' +
    '(updated_since, after_id), i.e. updated_at > updated_since, or updated_at = updated_since and ' +
    'id > after_id. Pass the updated_at and id of the last record of the previous page. Not with offset.',
);

/** The `order` parameter: the list's usual order (the default) or the change-feed order. */
export function orderParam<const D extends string>(fallback: D, fallbackMeans: string) {
  const order = z.enum([fallback, 'updated_at']);
  // (TypeScript cannot see that D is one of the enum's values while D is generic.)
  return order.default(fallback as never).meta({
    description:
      `${fallback} (default): ${fallbackMeans}. updated_at: oldest change first, by updated_at then id ` +
      '(ascending) — the order to sync by, with updated_since and after_id.',
  });
}

/** The change-feed parameters a list query parses to, for `feedQueryRules`. */
interface FeedParams {
  order: string;
  updated_since?: number;
  after_id?: string;
  offset?: number;
}

/**
 * Refuses change-feed parameters that only make sense together (after_id is a position in the updated_at order),
 * one issue at a time, as a check of a list query; `params.type` becomes the issue's `type`. Like the handler
 * check it replaces, it runs only when every parameter parsed, so a 422 lists either its issues or the others.
 */
export const feedQueryRules = z.superRefine<FeedParams>(
  (q, ctx) => {
    if (q.after_id === undefined) return;
    const refuse = (at: string, message: string, type: string) =>
      ctx.addIssue({ code: 'custom', path: [at], message, params: { type } });
    if (q.updated_since === undefined) {
      refuse(
        'after_id',
        'after_id needs updated_since: the position is (updated_since, after_id)',
        'missing_dependency',
      );
    } else if (q.order !== 'updated_at') {
      refuse(
        'after_id',
        'after_id needs order=updated_at: it is a position in that order',
        'missing_dependency',
      );
    } else if (q.offset !== undefined && q.offset > 0) {
      refuse(
        'offset',
        'Use either offset or after_id, not both: after_id already says where the page starts',
        'conflict',
      );
    }
  },
  { when: (payload) => payload.issues.length === 0 },
);

/** The part of a list operation's description that explains the change feed. */
export function changeFeedDescription(extra = ''): string {
  return (
    'Change feed: to receive everything that changed, list with order=updated_at (and no filters that hide ' +
    'records), then ask for the next page with updated_since = the last record’s updated_at and after_id = its ' +
    'id; a page shorter than limit means you are up to date: keep that position and poll again with it later. ' +
    'Every write gives the records it changes a new updated_at: the write time in milliseconds, unique and ' +
    'increasing per user (a write in the same millisecond as the previous one gets the next millisecond; ' +
    'records written together, e.g. by a batch, share it and are ordered by id). So a page never misses an ' +
    'earlier change, and a record changed while you page is seen again later with its new updated_at. A write ' +
    'that changes nothing (a PATCH with an empty body or the values the record already has) keeps updated_at. ' +
    'Deleted records leave the list: read them from GET /v1/dev/user/deleted. Filters apply to the current ' +
    'state, so a record that stops matching a filter drops out of a filtered feed without notice.' +
    (extra ? ` ${extra}` : '')
  );
}

export const TOMBSTONE_TYPES = ['action_item', 'conversation', 'memory', 'goal', 'folder', 'person'] as const;
export type TombstoneType = (typeof TOMBSTONE_TYPES)[number];
export const tombstoneType = z.enum(TOMBSTONE_TYPES);

/** The scope that lets a key read a type's records, and so its tombstones. */
export const TOMBSTONE_READ_SCOPE: Record<TombstoneType, Scope> = {
  action_item: 'action_items:read',
  conversation: 'conversations:read',
  memory: 'memories:read',
  goal: 'goals:read',
  folder: 'conversations:read',
  person: 'people:read',
};

export const tombstone = z
  .object({
    type: tombstoneType,
    id: z.string(),
    deleted_at: dateTime,
  })
  .meta({ id: 'Tombstone' });

export const listDeletedQuery = z
  .object({
    since: instant.optional().meta({
      description:
        'Only records deleted after this instant (exclusive): deleted_at > since. Without it, every tombstone ' +
        'still kept (at least the last 30 days).',
    }),
    type: tombstoneType.optional().meta({
      description:
        'Only this type. Needs the read scope of the type (folder: conversations:read). Without it, every type ' +
        'the key can read.',
    }),
    after_id: afterId(
      'Keyset position: with since, start after (since, after_id), i.e. deleted_at > since, or deleted_at = ' +
        'since and id > after_id. Pass the deleted_at and id of the last tombstone of the previous page.',
    ),
    limit: limitParam(1000, 100),
  })
  .check(
    // after_id is a position together with since; checked like feedQueryRules, once every parameter parsed.
    z.superRefine<{ since?: number; after_id?: string }>(
      (q, ctx) => {
        if (q.after_id === undefined || q.since !== undefined) return;
        ctx.addIssue({
          code: 'custom',
          path: ['after_id'],
          message: 'after_id needs since: the position is (since, after_id)',
          params: { type: 'missing_dependency' },
        });
      },
      { when: (payload) => payload.issues.length === 0 },
    ),
  );

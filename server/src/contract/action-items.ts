import { z } from 'zod';
import { afterIdParam, feedQueryRules, orderParam, updatedSinceParam } from './change-feed';
import { batchCreate, dateTime, instant, optionalOrNull } from './common';
import { dateBound, limitParam, offsetParam, queryBool } from './common';
import { searchQueryParam } from './search-query';

export const actionItem = z
  .object({
    id: z.string(),
    description: z.string(),
    completed: z.boolean(),
    created_at: dateTime,
    updated_at: dateTime,
    due_at: dateTime.nullable(),
    completed_at: dateTime.nullable(),
    conversation_id: z.string().nullable(),
  })
  .meta({ id: 'ActionItem' });

export const listActionItemsQuery = z
  .object({
    conversation_id: z.string().min(1).optional(),
    completed: queryBool.optional(),
    start_date: dateBound('start')
      .optional()
      .meta({ description: 'Created at or after (date or date-time)' }),
    end_date: dateBound('end').optional().meta({ description: 'Created at or before (date or date-time)' }),
    limit: limitParam(1000, 100),
    offset: offsetParam,
    updated_since: updatedSinceParam,
    order: orderParam('created_at_desc', 'newest created first'),
    after_id: afterIdParam,
    query: searchQueryParam.optional().meta({
      description:
        'Only the items whose description matches: plain words, all required (stemmed), a phrase in double ' +
        'quotes; most relevant first. Not with updated_since or order=updated_at.',
    }),
  })
  .check(feedQueryRules)
  .check((payload) => {
    const q = payload.value;
    if (q.query !== undefined && (q.updated_since !== undefined || q.order === 'updated_at'))
      payload.issues.push({
        code: 'custom',
        input: q,
        path: ['query'],
        message: 'query ranks by relevance: use it without updated_since and order=updated_at',
      });
  });

const description = z.string().trim().min(1).max(2000);

export const newActionItem = z.strictObject({
  description,
  completed: z.boolean().default(false),
  due_at: instant.nullable().optional(),
});

export const createActionItemBody = newActionItem.extend({
  conversation_id: z.string().min(1).nullable().optional(),
});

export const MAX_ACTION_ITEM_BATCH = 50;
export const actionItemsBatch = batchCreate('action_items', newActionItem, MAX_ACTION_ITEM_BATCH, actionItem);

export const updateActionItemBody = z.strictObject({
  description: optionalOrNull(description),
  completed: optionalOrNull(z.boolean()),
  due_at: instant.nullable().optional().meta({ description: 'New due date; null removes it' }),
});

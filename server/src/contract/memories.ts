import { z } from 'zod';
import { afterIdParam, feedQueryRules, orderParam, updatedSinceParam } from './change-feed';
import { batchCreate, valuesParam, dateTime, limitParam, offsetParam, optionalOrNull } from './common';

/**
 * The categories a memory may have: the real service's current ones (interesting, system, manual) and its older
 * ones, which it still accepts and stores as given.
 */
export const MEMORY_CATEGORIES = [
  'interesting',
  'system',
  'manual',
  'core',
  'hobbies',
  'lifestyle',
  'interests',
  'habits',
  'work',
  'skills',
  'learnings',
  'other',
  'auto',
] as const;
export const memoryCategory = z.enum(MEMORY_CATEGORIES);
export type MemoryCategory = z.infer<typeof memoryCategory>;

export const memory = z
  .object({
    id: z.string(),
    content: z.string(),
    category: memoryCategory,
    visibility: z.enum(['private', 'public']),
    tags: z.array(z.string()),
    created_at: dateTime,
    updated_at: dateTime,
    manually_added: z.boolean().meta({ description: 'True for memories made through the API' }),
    reviewed: z.boolean(),
    user_review: z.boolean().nullable(),
    edited: z.boolean().meta({ description: 'True once a PATCH has carried content' }),
  })
  .meta({ id: 'Memory' });

export const listMemoriesQuery = z
  .object({
    limit: limitParam(1000, 25),
    offset: offsetParam,
    categories: valuesParam(
      MEMORY_CATEGORIES,
      `Comma-separated categories to include (${MEMORY_CATEGORIES.join(', ')})`,
      { one: 'category', many: 'categories' },
    ),
    updated_since: updatedSinceParam,
    order: orderParam('created_at_desc', 'newest created first'),
    after_id: afterIdParam,
  })
  .check(feedQueryRules);

export const newMemory = z.strictObject({
  content: z.string().trim().min(1).max(5000),
  // null is not given, as on the real service (which classifies the text; nothing here does).
  category: memoryCategory
    .nullable()
    .default('manual')
    .transform((category) => category ?? 'manual'),
  visibility: z.enum(['private', 'public']).default('private'),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
});

export const MAX_MEMORY_BATCH = 25;
export const memoriesBatch = batchCreate('memories', newMemory, MAX_MEMORY_BATCH, memory);

export const updateMemoryBody = z.strictObject({
  content: optionalOrNull(newMemory.shape.content),
  category: optionalOrNull(memoryCategory),
  visibility: optionalOrNull(z.enum(['private', 'public'])),
  tags: optionalOrNull(newMemory.shape.tags.unwrap()),
});

import { z } from 'zod';
import { dateTime } from './common';

/** The color of a folder created without one: the real service's default. */
export const DEFAULT_FOLDER_COLOR = '#6B7280';

export const folder = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    color: z.string(),
    icon: z.string(),
    order: z.number().int().meta({ description: "The folder's place in the user's list" }),
    is_default: z.boolean(),
    is_system: z.boolean(),
    category_mapping: z.string().nullable(),
    conversation_count: z.number().int(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Folder' });

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Color must be a hex color like #4f46e5');

export const createFolderBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).nullable().optional(),
  color: color
    .nullable()
    .optional()
    .meta({ description: `Hex color; omitted or null: ${DEFAULT_FOLDER_COLOR}` }),
  icon: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .meta({ description: 'Omitted or null: folder' }),
});

export const updateFolderBody = createFolderBody.partial().extend({
  order: z.number().int().min(0).max(1_000_000).optional(),
});

import { z } from 'zod';
import { dateTime } from './common';

export const folder = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    color: z.string().nullable(),
    conversation_count: z.number().int(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Folder' });

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Color must be a hex color like #4f46e5');

export const createFolderBody = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).nullable().optional(),
  color: color.nullable().optional(),
});

export const updateFolderBody = createFolderBody.partial();

import { z } from 'zod';
import { dateTime, httpUrl, limitParam } from './common';
import { capability, proactiveScope } from './scopes';
import { cursorPageOf, cursorParam } from './cursor';

export const directNotificationQuery = z.object({
  uid: z.string().min(1).max(100).meta({ description: 'The target user id' }),
  // Pushed exactly as sent (the interface's "exact text"): spaces and line breaks around it are kept, but a
  // message of nothing else tells the user nothing and is refused.
  message: z
    .string()
    .min(1)
    .max(2000)
    .refine((message) => message.trim() !== '', 'The message must hold more than spaces')
    .meta({ description: 'The exact text to push (1–2000 characters, not only spaces)' }),
});
export const directNotificationResponse = z.object({ status: z.literal('Ok') });

export const externalIntegration = z.object({
  triggers_on: z.literal('transcript_processed'),
  webhook_url: httpUrl().nullable(),
});

export const app = z
  .object({
    id: z.string(),
    name: z.string(),
    capabilities: z.array(capability),
    external_integration: externalIntegration.nullable(),
    proactive_notification: z.object({ scopes: z.array(proactiveScope) }).nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'App' });

export const notification = z
  .object({
    id: z.string(),
    app_id: z.string(),
    kind: z.enum(['direct', 'proactive']),
    title: z.string(),
    text: z.string(),
    generated: z.boolean(),
    created_at: dateTime,
  })
  .meta({ id: 'Notification' });

export const listNotificationsQuery = z.object({
  limit: limitParam(100, 25),
  cursor: cursorParam(),
});

export const notificationsPage = cursorPageOf('notifications', notification);

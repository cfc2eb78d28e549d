import { z } from 'zod';
import { dateTime, distinctValues, httpUrl, MAX_WEBHOOK_URL_LENGTH } from './common';
import { capability, proactiveScope, scope } from './scopes';
import { app, externalIntegration } from './notifications';

export const user = z.object({ id: z.string(), name: z.string(), created_at: dateTime }).meta({ id: 'User' });

export const createUserBody = z.strictObject({ name: z.string().trim().min(1).max(100) });

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: distinctValues(scope)
    .nullish()
    .meta({ description: 'Omitted or null: every :read scope but keys:read' }),
});

export const createAppBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  capabilities: distinctValues(capability),
  external_integration: z
    .strictObject({
      ...externalIntegration.shape,
      webhook_url: httpUrl(MAX_WEBHOOK_URL_LENGTH).nullable().optional(),
    })
    .optional(),
  proactive_notification: z
    .strictObject({ scopes: distinctValues(proactiveScope) })
    .optional()
    .meta({
      description: 'The proactive scopes the app declares; needs the proactive_notification capability',
    }),
});

export const createdApp = app
  .extend({
    app_secret: z.string().meta({ description: 'Shown only in this response' }),
    webhook_secret: z.string().meta({ description: 'Signs webhook calls; shown only in this response' }),
  })
  .meta({ id: 'CreatedApp' });

export const rotatedApp = app
  .extend({ app_secret: z.string().meta({ description: 'The new app secret, shown only in this response' }) })
  .meta({ id: 'RotatedApp' });

export const createInstallBody = z.strictObject({
  user_id: z.string().min(1),
  granted_scopes: distinctValues(proactiveScope, (list) => list.default([])),
});

export const install = z.object({
  app_id: z.string(),
  user_id: z.string(),
  granted_scopes: z.array(proactiveScope),
  created_at: dateTime,
});

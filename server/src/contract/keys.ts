import { z } from 'zod';
import { dateTime } from './common';
import { scope } from './scopes';

export const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    key_prefix: z.string().meta({ description: 'Display form of the key, e.g. svc_dev_abcd...wxyz' }),
    scopes: z.array(scope),
    created_at: dateTime,
    last_used_at: dateTime.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKey = apiKey
  .extend({ key: z.string().meta({ description: 'The key itself; shown only in this response' }) })
  .meta({ id: 'CreatedApiKey' });

import { z } from 'zod';
import { dateTime, distinctValues, idParam } from './common';
import { scope } from './scopes';

export const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    key_prefix: z.string().meta({
      description: 'Display form of the key, e.g. svc_dev_abcd...wxyz (the prefix is DEVDATA_KEY_PREFIX)',
    }),
    scopes: z.array(scope),
    created_at: dateTime,
    last_used_at: dateTime.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKey = apiKey
  .extend({ key: z.string().meta({ description: 'The key itself; shown only in this response' }) })
  .meta({ id: 'CreatedApiKey' });

export const createOwnKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: distinctValues(scope).nullish().meta({
    description:
      'Each must be held by the key making the request. Omitted or null: the :read scopes it holds, keys:read excepted',
  }),
});

export const keyIdParams = idParam('key_id');

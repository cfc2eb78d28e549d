import { z } from 'zod';

// Error bodies. Every error the server sends has one of these two shapes (FastAPI's, as the interface shows).
export const errorBody = z.object({ detail: z.string() }).meta({ id: 'Error' });
export const validationIssue = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export const validationErrorBody = z
  .object({ detail: z.array(validationIssue) })
  .meta({ id: 'ValidationError' });
export type ValidationIssue = z.infer<typeof validationIssue>;

const errorSchemas = {
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: validationErrorBody,
  429: errorBody,
};
type ErrorStatus = keyof typeof errorSchemas;

/** Response schemas for the error statuses a route can answer, for the OpenAPI document. */
export function errors<S extends ErrorStatus>(...statuses: S[]): Pick<typeof errorSchemas, S> {
  return Object.fromEntries(statuses.map((s) => [s, errorSchemas[s]])) as Pick<typeof errorSchemas, S>;
}

export const success = z.object({ success: z.literal(true) });

export const NUL_MESSAGE = 'Text must not contain NUL (U+0000) characters';

/**
 * Where the first NUL character sits in a request value (its path of keys and indexes), or null if none does.
 * PostgreSQL text cannot hold U+0000, so the server refuses it everywhere, on both databases alike.
 */
export function nulPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulPath(item, [...path, index]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = key.includes('\u0000') ? [...path, key] : nulPath(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

const HAS_OFFSET = /(?:z|[+-]\d{2}:?\d{2})$/i;

function instantMs(value: string): number {
  return Date.parse(HAS_OFFSET.test(value) ? value : `${value}Z`);
}

/** An ISO 8601 date-time in a request. A value without an offset is taken as UTC. Parsed to epoch ms. */
export const instant = z.iso
  .datetime({ offset: true, local: true })
  .transform(instantMs)
  .meta({ description: 'ISO 8601 date-time, e.g. 2026-11-21T09:30:00Z (no offset means UTC)' });

/**
 * A date range bound: a date-time, or a date alone meaning that whole UTC day
 * (a start bound at 00:00:00.000, an end bound inclusive to 23:59:59.999).
 */
export function dateBound(side: 'start' | 'end') {
  return z
    .union([z.iso.date(), z.iso.datetime({ offset: true, local: true })])
    .transform((value) => {
      if (value.length > 10) return instantMs(value);
      const dayStart = Date.parse(`${value}T00:00:00.000Z`);
      return side === 'start' ? dayStart : dayStart + 86_400_000 - 1;
    })
    .meta({ description: `ISO 8601 date or date-time; a date alone means the ${side} of that UTC day` });
}

/** Renders an instant the one way the server writes dates: UTC with a `Z`. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export const dateTime = z.iso.datetime();

/** A boolean in a query string: true/false (also 1/0, yes/no, on/off). */
export const queryBool = z.stringbool();

export function limitParam(max: number, fallback: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `Maximum number of records to return (1–${max}, default ${fallback})` });
}

export const offsetParam = z.coerce
  .number()
  .int()
  .min(0)
  .default(0)
  .meta({ description: 'Number of records to skip' });

export const idParam = (name: string) => z.object({ [name]: z.string().min(1).max(100) });

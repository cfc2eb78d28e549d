import { z } from 'zod';
import { closestField } from '../closest-field';

// Error bodies. Every error the server sends has one of these two shapes (FastAPI's, as the interface shows).
export const errorBody = z.object({ detail: z.string() }).meta({ id: 'Error' });
export const validationIssue = z.object({
  // Names and list positions: a string or an integer, as the interface (and FastAPI) says.
  loc: z.array(z.union([z.string(), z.number().int()])),
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

/**
 * An optional body field that also takes null, meaning not given: the real service's Optional fields do, and
 * clients written for it send their unset fields as null.
 */
export function optionalOrNull<T extends z.ZodType>(schema: T) {
  // Said in the API's document: beside fields where null removes a value (due_at, unit), a bare nullable reads
  // as one more of them.
  const description = [schema.description, 'null is taken as not given'].filter(Boolean).join('; ');
  return schema
    .nullable()
    .optional()
    .transform((value) => value ?? undefined)
    .meta({ description });
}

/**
 * A batch create: its body holds up to `max` new records under `field`, created all or none; its answer lists the
 * records made under the same `field`, with their count.
 */
export function batchCreate<F extends string, N extends z.ZodType, R extends z.ZodType>(
  field: F,
  newRecord: N,
  max: number,
  record: R,
) {
  return {
    field,
    body: z.strictObject({ [field]: z.array(newRecord).max(max) } as { [K in F]: z.ZodArray<N> }),
    response: z.object({
      ...({ [field]: z.array(record) } as { [K in F]: z.ZodArray<R> }),
      created_count: z.number().int(),
    }),
  };
}

/**
 * A body's list of values of `choices`, each counting once: duplicates are dropped before the bounds are checked
 * (they are stored once), so the list holds at most every choice. Only a list of known values is deduplicated, so
 * that an unknown one is named at the index it was sent at; a list longer than that is refused whole, before its
 * entries are each checked: millions of unknown values would otherwise be millions of issues in one answer.
 */
export function distinctValues<T extends z.ZodEnum, S extends z.ZodType = z.ZodArray<T>>(
  choices: T,
  /** Further bounds or a default, put on the list as it is checked (a default outside it is not documented). */
  refine: (list: z.ZodArray<T>) => S = (list) => list as unknown as S,
) {
  const known: readonly unknown[] = choices.options;
  return z.preprocess(
    (value) =>
      Array.isArray(value) && value.every((item) => known.includes(item)) ? [...new Set(value)] : value,
    refine(z.array(choices).max(known.length)),
  );
}

const HTTP_URL_MESSAGE = 'Must be an http or https URL, e.g. https://example.com/webhook';

/** The longest URL a webhook may be registered with (an app's transcript webhook, an event subscription). */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/**
 * A URL the server calls: http or https (the outbound rules say which hosts), refused in words that say so, and
 * at most `maxLength` characters when given. Each refusal says its own reason: a schema-wide `error` would also
 * answer for the length check and for null, so it answers only for what is not a URL.
 */
export function httpUrl(maxLength?: number) {
  const url = z.url({
    protocol: /^https?$/,
    error: (issue) => {
      if (issue.code === 'invalid_type') {
        return issue.input === null ? 'Must be an http or https URL, not null' : HTTP_URL_MESSAGE;
      }
      return issue.code === 'invalid_format' ? HTTP_URL_MESSAGE : undefined;
    },
  });
  if (maxLength === undefined) return url;
  return url.max(maxLength, {
    error: (issue) =>
      `URL too long: at most ${maxLength} characters, got ${typeof issue.input === 'string' ? issue.input.length : 'more'}`,
  });
}

export const NUL_MESSAGE = 'Text must not contain NUL (U+0000) characters';

/**
 * Where the first NUL character sits in a request value (its path of keys and indexes), or null if none does.
 * PostgreSQL text cannot hold U+0000, so the server refuses it everywhere, on both databases alike.
 */
export function nulPath(value: unknown): (string | number)[] | null {
  return textIssue(value, (text) => text.includes('\u0000'))?.path ?? null;
}

// In a `u` pattern a surrogate pair is one code point, so only a surrogate standing alone matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const LONE_SURROGATE_MESSAGE = 'Text must be well-formed Unicode (no lone surrogate characters)';

/** How deep a request body may nest: far beyond any field of the interface, far below any stack limit. */
const MAX_JSON_DEPTH = 100;

export interface TextIssue {
  path: (string | number)[];
  msg: string;
  type: string;
}

/** What keeps `text` from being stored and read back unchanged, if anything. */
function unstorable(text: string): Omit<TextIssue, 'path'> | null {
  if (text.includes('\u0000')) return { msg: NUL_MESSAGE, type: 'string_nul' };
  if (LONE_SURROGATE.test(text)) return { msg: LONE_SURROGATE_MESSAGE, type: 'string_unicode' };
  return null;
}

interface Frame {
  value: unknown;
  key: string | number | undefined;
  parent: Frame | undefined;
  depth: number;
}

function pathOf(frame: Frame, key?: string): (string | number)[] {
  const path: (string | number)[] = key === undefined ? [] : [key];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * The first string or key in a request value that `bad` refuses, walked without recursion so that no nesting
 * can run the stack out. Without `bad`, the first text that cannot be stored and read back unchanged: a NUL
 * (PostgreSQL text cannot hold U+0000) or a lone surrogate (UTF-8 cannot), and any nesting deeper than
 * MAX_JSON_DEPTH. Refused alike on both databases.
 */
export function textIssue(value: unknown, bad?: (text: string) => boolean): TextIssue | null {
  if (!bad && isCleanFlatText(value)) return null;
  const issueIn = (text: string): Omit<TextIssue, 'path'> | null => {
    if (bad) return bad(text) ? { msg: NUL_MESSAGE, type: 'string_nul' } : null;
    return unstorable(text);
  };
  const stack: Frame[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const current = frame.value;
    if (typeof current === 'string') {
      const issue = issueIn(current);
      if (issue) return { path: pathOf(frame), ...issue };
    } else if (current !== null && typeof current === 'object') {
      if (!bad && frame.depth >= MAX_JSON_DEPTH) {
        return {
          path: pathOf(frame),
          msg: `Value nested deeper than ${MAX_JSON_DEPTH} levels`,
          type: 'json_too_deep',
        };
      }
      const entries: [string | number, unknown][] = Array.isArray(current)
        ? current.map((item, index) => [index, item])
        : Object.entries(current);
      // Pushed last first, so the first offending value in document order is found first.
      for (let n = entries.length - 1; n >= 0; n--) {
        const [key, item] = entries[n];
        if (typeof key === 'string') {
          const issue = issueIn(key);
          if (issue) return { path: pathOf(frame, key), ...issue };
        }
        stack.push({ value: item, key, parent: frame, depth: frame.depth + 1 });
      }
    }
  }
  return null;
}

/**
 * Whether `value` is an object of strings whose keys and values are all clean: what a request's path and query
 * string almost always are, told without the walk's allocations (it runs for every request).
 */
function isCleanFlatText(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) {
    const text: unknown = (value as Record<string, unknown>)[key];
    if (typeof text !== 'string' || unstorable(key) || unstorable(text)) return false;
  }
  return true;
}

const HAS_OFFSET = /(?:z|[+-]\d{2}:?\d{2})$/i;

function instantMs(value: string): number {
  return Date.parse(HAS_OFFSET.test(value) ? value : `${value}Z`);
}

/**
 * An ISO 8601 date-time with the `T`: hours and minutes, then seconds and a fraction if wanted, then `Z`, `±HH:MM`
 * or nothing (UTC). zod's own datetime (`offset` and `local`) takes a time without seconds only when it has no
 * offset: `2026-11-21T09:30` passed and `2026-11-21T09:30Z` or `…T09:30+01:00` was a 422, where ISO 8601 and the
 * real service (pydantic) take all three. The date part is zod's, which knows each month's days.
 */
export const ISO_DATE_TIME = new RegExp(
  `^${z.core.regexes.date.source.slice(1, -1)}T` +
    String.raw`(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$`,
);

/** The instants the server keeps: those it writes back as ISO 8601 with a four-digit year, 0001 to 9999 UTC. */
const MIN_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
export const INSTANT_RANGE_MESSAGE =
  'Date must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (UTC)';
export const inInstantRange = (ms: number): boolean => ms >= MIN_INSTANT && ms <= MAX_INSTANT;

/** What a date-time in a request must look like, as the 422 for one that does not says. */
export const INSTANT_MESSAGE =
  'Expected an ISO 8601 date-time such as 2026-11-21T09:30:00Z or 2026-11-21T10:30:00+01:00';

/**
 * `message`, and when `input` is a date-time but for a space where its offset's + goes, why: a query string reads
 * a + as a space, so `?updated_since=…T10:30:00+01:00` typed as the message shows the form arrives so.
 */
function dateTimeMessage(message: string, input: unknown): string {
  const plusAsSpace =
    typeof input === 'string' && ISO_DATE_TIME.test(input.replace(/ (\d{2}:\d{2})$/, '+$1'));
  return plusAsSpace
    ? `${message}: in a query string a + reads as a space, so write the offset's + as %2B (2026-11-21T10:30:00%2B01:00)`
    : message;
}

/**
 * An ISO 8601 date-time in a request. A value without an offset is taken as UTC. Parsed to epoch ms; refused
 * when it falls outside the years 0001–9999 in UTC (it could not be written back the same way).
 */
export const instant = z
  .string({ error: INSTANT_MESSAGE })
  .regex(ISO_DATE_TIME, { error: (issue) => dateTimeMessage(INSTANT_MESSAGE, issue.input) })
  .transform(instantMs)
  .refine(inInstantRange, { message: INSTANT_RANGE_MESSAGE, params: { type: 'value_error' } })
  .meta({ description: 'ISO 8601 date-time, e.g. 2026-11-21T09:30:00Z (no offset means UTC)' });

/** What a date range bound must look like, as the 422 for one that does not says (zod's own: "Invalid input"). */
export const DATE_BOUND_MESSAGE =
  'Expected a date such as 2026-11-21 (that whole UTC day) or an ISO 8601 date-time such as 2026-11-21T09:30:00Z';

/**
 * A date range bound: a date-time, or a date alone meaning that whole UTC day
 * (a start bound at 00:00:00.000, an end bound inclusive to 23:59:59.999).
 */
export function dateBound(side: 'start' | 'end') {
  return z
    .union([z.iso.date(), z.string().regex(ISO_DATE_TIME)], {
      error: (issue) => dateTimeMessage(DATE_BOUND_MESSAGE, issue.input),
    })
    .transform((value) => {
      if (value.length > 10) return instantMs(value);
      const dayStart = Date.parse(`${value}T00:00:00.000Z`);
      return side === 'start' ? dayStart : dayStart + 86_400_000 - 1;
    })
    .meta({ description: `ISO 8601 date or date-time; a date alone means the ${side} of that UTC day` });
}

export const dateTime = z.iso.datetime();

const TRUTHY = ['true', '1', 'yes', 'on', 'y', 'enabled', 't'];
const FALSY = ['false', '0', 'no', 'off', 'n', 'disabled', 'f'];

/**
 * A boolean in a query string, in any case: true/false, 1/0, yes/no, on/off, y/n, enabled/disabled, and t/f (the
 * real service's parser reads those too); anything else is a 422 naming the parameter. Read ahead of `z.boolean()`
 * so that the OpenAPI document shows a boolean, as the interface (and the real service's document) does: zod's
 * stringbool is documented as the string it reads. A default is given with `.prefault(false)`, which the document
 * shows (zod's document leaves out a default that follows a preprocess step).
 */
export const queryBool = z.preprocess((value, ctx) => {
  // Absent (optional, or the prefault) or repeated: `z.boolean()` takes or refuses it.
  if (typeof value !== 'string') return value;
  const word = value.toLowerCase();
  if (TRUTHY.includes(word)) return true;
  if (FALSY.includes(word)) return false;
  ctx.addIssue({
    code: 'custom',
    message: `Invalid option: expected one of ${[...TRUTHY, ...FALSY].map((w) => `"${w}"`).join('|')}`,
    params: { type: 'invalid_value' },
  });
  return z.NEVER;
}, z.boolean());

// Numbers in a query string are decimal. JavaScript's Number() also reads `0x1A`, `0b101`, `0o7`, ` 5 ` and an
// empty value (as 0), none of which a client writing a count or a value means. A value (not a count) may have an
// exponent: JavaScript writes numbers under 1e-6 or from 1e21 up that way (`String(0.0000001)` is `1e-7`), and the
// real service's float parameters read it.
const DECIMAL_INTEGER = /^[+-]?\d+$/;
const DECIMAL_NUMBER = /^[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A query parameter written as `pattern` allows, read as a number and then checked by `number`; anything else is
 * a 422 of `type` naming the parameter. The OpenAPI document shows `number` (zod documents a preprocess step as
 * the schema it feeds).
 */
function decimalParam(pattern: RegExp, message: string, type: string, number: z.ZodNumber) {
  return z.preprocess((value, ctx) => {
    // Absent (a required parameter then says so) or repeated: `number` refuses it.
    if (typeof value !== 'string') return value;
    // `1e999` is written as a number but reads as Infinity, which no JSON answer can hold.
    if (pattern.test(value) && Number.isFinite(Number(value))) return Number(value);
    ctx.addIssue({ code: 'custom', message, params: { type } });
    return z.NEVER;
  }, number);
}

/**
 * A whole number in a query string: decimal digits, optionally signed, within `number`'s bounds; `fallback` when
 * absent (a prefault, read as if sent: zod's document leaves out a default that follows a preprocess step).
 */
export const queryInteger = (number: z.ZodNumber, fallback: number) =>
  decimalParam(
    DECIMAL_INTEGER,
    'Input should be a whole number in decimal digits, e.g. 25',
    'int_parsing',
    number.int(),
  ).prefault(fallback);

/**
 * A finite number in a query string: decimal digits, optionally signed, with an optional fraction and exponent
 * (`-2`, `12.5`, `1e-7`).
 */
export const queryNumber = () =>
  decimalParam(
    DECIMAL_NUMBER,
    'Input should be a finite number in decimal digits, e.g. 12.5 or 1e-7',
    'float_parsing',
    z.number(),
  );

export function limitParam(max: number, fallback: number) {
  return queryInteger(z.number().min(1).max(max), fallback).meta({
    description: `Maximum number of records to return (1–${max}, default ${fallback})`,
  });
}

export const offsetParam = queryInteger(z.number().min(0), 0).meta({
  description: 'Number of records to skip',
});

/**
 * A query parameter listing values (`categories`, `statuses`): comma-separated, each one of `known` (422 naming any
 * other as an unknown `noun`, given as singular and plural).
 */
export function valuesParam<T extends string>(
  known: readonly T[],
  description: string,
  noun: { one: string; many: string },
) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const list = value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      const isKnown = (item: string): item is T => (known as readonly string[]).includes(item);
      const unknown = list.filter((item) => !isKnown(item));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `Unknown ${unknown.length > 1 ? noun.many : noun.one} ${unknown.join(', ')}; use ${known.join(', ')}`,
        });
        return z.NEVER;
      }
      return list.filter(isKnown);
    })
    .meta({ description });
}

const MAX_ID_LENGTH = 100;

/**
 * Checks that pass a value only when its schema would accept it and give it back unchanged, kept beside the
 * schemas of the most asked request parts: a value one passes is taken as parsed, without zod building it
 * again (about a microsecond of every request for a record by id). A value one fails goes to zod, which
 * decides and says why.
 */
const quickChecks = new WeakMap<z.ZodType, (value: unknown) => boolean>();

/** The quick check kept beside `schema`, if it has one. */
export const quickCheck = (schema: z.ZodType) => quickChecks.get(schema);

/** The path of one record: `{ [name]: id }`. */
export function idParam(name: string) {
  const schema = z.object({ [name]: z.string().min(1).max(MAX_ID_LENGTH) });
  quickChecks.set(schema, (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    // zod's object leaves out keys it does not know: the value is unchanged only without any.
    for (const key in value) if (key !== name) return false;
    const id: unknown = (value as Record<string, unknown>)[name];
    // zod counts code points, of which a string has at most as many as UTF-16 units.
    return typeof id === 'string' && id.length >= 1 && id.length <= MAX_ID_LENGTH;
  });
  return schema;
}

/** The longest part of an unknown field's name a message repeats: the name itself is in the issue's loc. */
const QUOTED_FIELD_LENGTH = 100;

/** `name` cut short past QUOTED_FIELD_LENGTH characters, ending in …: a name a message repeats. */
export const shortName = (name: string) =>
  name.length > QUOTED_FIELD_LENGTH ? `${name.slice(0, QUOTED_FIELD_LENGTH)}…` : name;

/** `field` in quotes, cut short past QUOTED_FIELD_LENGTH characters. */
export const quoted = (field: string) => `'${shortName(field)}'`;

/**
 * The 422 message for a body field that neither the interface nor the real service knows: it names the field
 * and the one probably meant, or lists the fields the object takes.
 */
export function unknownFieldMessage(field: string, known: readonly string[]): string {
  const meant = closestField(field, known);
  if (meant !== undefined) return `Unknown field ${quoted(field)}; did you mean '${meant}'?`;
  return `Unknown field ${quoted(field)}; fields here: ${known.join(', ')}`;
}

/**
 * The 422 message for a body field sent to a route that takes no body: it names the field, and the query
 * parameter probably meant when the route has one close to it.
 */
export function noBodyFieldMessage(field: string, queryParameters: readonly string[]): string {
  const meant = closestField(field, queryParameters);
  if (meant !== undefined)
    return `Unknown field ${quoted(field)}; this route takes no body: did you mean the query parameter '${meant}'?`;
  return `Unknown field ${quoted(field)}; this route takes no body: send none, or {}`;
}

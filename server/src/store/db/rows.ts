// Row decoding, the one place that knows how values sit in columns on both dialects: booleans are 0/1
// integers, lists and objects are JSON text, instants are epoch milliseconds (written out as ISO 8601 UTC).

/** A 0/1 column as a boolean. */
export const fromFlag = (value: number): boolean => value === 1;

/** A boolean as its 0/1 column value. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);

/** A JSON text column's value. */
export function fromJson<T>(text: string): T;
export function fromJson<T>(text: string | null): T | null;
export function fromJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** A value as JSON text for its column. */
export const toJson = (value: unknown): string => JSON.stringify(value);

const DAY_MS = 86_400_000;
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
// The date part of the last instant written: a page of records mostly shares a day, and Date#toISOString was
// the heaviest frame of a list (400 a page of 100); the time of day is cheap arithmetic after it.
let cachedDay = NaN;
let cachedDate = '';

/**
 * An instant column (epoch ms) the one way the server writes dates: ISO 8601, UTC, with a `Z` — exactly what
 * `new Date(ms).toISOString()` gives, which still writes every new day and any year outside 0000-9999.
 */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  if (ms === null) return null;
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay || !Number.isInteger(ms)) {
    const text = new Date(ms).toISOString();
    if (text.length === 24 && Number.isInteger(ms)) {
      cachedDay = day;
      cachedDate = text.slice(0, 11);
    }
    return text;
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  return `${cachedDate}${two((rest - minute) / 60)}:${two(minute)}:${two(second)}.${three(milli)}Z`;
}

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { itemMessage } from '../../shared';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** A date-time Date.parse reads names its zone: Z, GMT, UTC, an offset (+0200, -05:00) or a US zone (EST, PDT). */
const NAMES_ZONE = /\b(?:Z|GMT|UTC?|[ECMP][SD]T)\b|\s[+-]\d{4}\b|[\d\s][+-]\d{2}:\d{2}(?![:\d])/i;
const DAY_MS = 86_400_000;

/** The UTC offset of `timeZone` at the instant `utcMs`, in ms (positive east of Greenwich). */
function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const field = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wallClock = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
  );
  return wallClock - (utcMs - (((utcMs % 1000) + 1000) % 1000));
}

/** The instant at which the wall clock of `timeZone` shows the given UTC-fields time. */
function fromWallClock(wallClockMs: number, timeZone: string): number {
  const guess = wallClockMs - zoneOffsetMs(wallClockMs, timeZone);
  // A second pass settles the offset when the first guess fell on the other side of a DST change.
  return wallClockMs - zoneOffsetMs(guess, timeZone);
}

/** Parses a date-time as n8n hands it over and returns its epoch ms, or undefined when it is not one. */
function parseInstant(value: string, timeZone: string): number | undefined {
  const match = DATE_TIME.exec(value.trim());
  if (!match) {
    const parsed = Date.parse(value);
    if (Number.isNaN(parsed)) return undefined;
    if (NAMES_ZONE.test(value)) return parsed;
    // Without a zone ("11/21/2026 09:30", as a spreadsheet holds it), Date.parse reads the wall clock in the n8n
    // process's timezone: read the same wall clock in the workflow's.
    const local = new Date(parsed);
    const wallClock = new Date(0);
    wallClock.setUTCFullYear(local.getFullYear(), local.getMonth(), local.getDate());
    wallClock.setUTCHours(local.getHours(), local.getMinutes(), local.getSeconds(), local.getMilliseconds());
    return fromWallClock(wallClock.getTime(), timeZone);
  }
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', offset] = match;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC, which reads the years 0–99 as 1900–1999.
  const read = new Date(0);
  read.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  read.setUTCHours(Number(h), Number(mi), Number(s), ms);
  const wallClock = read.getTime();
  // A field past its range rolls over (2026-02-30 → March 2, 24:30 → the next day): such a value is no date-time,
  // and sending the day it rolled to would store a date the user never wrote.
  const written = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)];
  const fields = [
    read.getUTCFullYear(),
    read.getUTCMonth(),
    read.getUTCDate(),
    read.getUTCHours(),
    read.getUTCMinutes(),
    read.getUTCSeconds(),
  ];
  if (Number.isNaN(wallClock) || fields.some((field, i) => field !== written[i])) return undefined;
  if (!offset) return fromWallClock(wallClock, timeZone);
  if (offset.toUpperCase() === 'Z') return wallClock;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return wallClock - sign * minutes * 60_000;
}

/**
 * Converts a date-time parameter to ISO 8601 UTC (`…Z`), the only form the server writes. A value with an
 * offset keeps its instant; a value without one (as n8n's date picker produces) is read in the workflow's
 * timezone (Workflow Settings → Timezone, else the instance's). Accepts strings, Dates and Luxon DateTimes.
 * `label` is the parameter's name as the user sees it (its display name), for the error message.
 */
export function toUtcIso(this: IExecuteFunctions, value: unknown, label: string, itemIndex: number): string {
  let ms: number | undefined;
  if (value instanceof Date) ms = value.getTime();
  else if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toMillis?: unknown }).toMillis === 'function'
  )
    ms = (value as { toMillis: () => number }).toMillis();
  else if (typeof value === 'string' || typeof value === 'number')
    ms = typeof value === 'number' ? value : parseInstant(value, this.getTimezone());
  if (ms === undefined || !Number.isFinite(ms)) throw invalidDate.call(this, value, label, itemIndex);
  return new Date(ms).toISOString();
}

function invalidDate(
  this: IExecuteFunctions,
  value: unknown,
  label: string,
  itemIndex: number,
): NodeOperationError {
  return new NodeOperationError(
    this.getNode(),
    itemMessage(`${label}: "${String(value)}" is not a valid date and time`, itemIndex),
    {
      itemIndex,
      description: `${label} needs an ISO 8601 date-time such as 2026-11-21T09:30:00Z. Without an offset, the time is read in the workflow's timezone (${this.getTimezone()}).`,
    },
  );
}

/**
 * A range bound for a list filter: a date alone (YYYY-MM-DD) is passed through, and the server reads it as
 * that whole UTC day; anything else is converted like toUtcIso.
 */
export function toRangeBound(
  this: IExecuteFunctions,
  value: unknown,
  label: string,
  itemIndex: number,
): string {
  if (typeof value === 'string' && DATE_ONLY.test(value.trim())) return value.trim();
  return toUtcIso.call(this, value, label, itemIndex);
}

/**
 * A Get Many's Start and End filters (`startDate`, `endDate`) as the list's `start_date` and `end_date`, each
 * undefined when not set; `labels` are the two filters' display names, for the error message.
 */
export function dateRangeQuery(
  this: IExecuteFunctions,
  filters: IDataObject,
  labels: [start: string, end: string],
  itemIndex: number,
): { start_date: string | undefined; end_date: string | undefined } {
  return {
    start_date: filters.startDate
      ? toRangeBound.call(this, filters.startDate, labels[0], itemIndex)
      : undefined,
    end_date: filters.endDate ? toRangeBound.call(this, filters.endDate, labels[1], itemIndex) : undefined,
  };
}

/**
 * A due date: a date alone (YYYY-MM-DD) means the end of that UTC day (23:59:59.999Z), as a date alone does as the
 * end bound of a list filter on the server, so an item due on a day is not overdue before that day is over.
 * Anything else is converted like toUtcIso.
 */
export function toDueInstant(
  this: IExecuteFunctions,
  value: unknown,
  label: string,
  itemIndex: number,
): string {
  if (typeof value !== 'string' || !DATE_ONLY.test(value.trim())) {
    return toUtcIso.call(this, value, label, itemIndex);
  }
  const day = value.trim();
  const dayStart = Date.parse(`${day}T00:00:00.000Z`);
  // Date.parse rolls a day past the month's end over (2026-02-30 → March 2); such a day is no date.
  if (Number.isNaN(dayStart) || new Date(dayStart).toISOString().slice(0, 10) !== day) {
    throw invalidDate.call(this, value, label, itemIndex);
  }
  return new Date(dayStart + DAY_MS - 1).toISOString();
}

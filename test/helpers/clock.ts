/**
 * Waits, when needed, until at least `marginMs` are left in the current clock period (a minute, an hour, a UTC
 * day): for tests whose counts or days the server keys by clock-aligned windows (rate limits, the hourly
 * notification cap, a goal's day of history), so that a run straddling a boundary cannot split them.
 */
export async function clearOfBoundary(periodMs: number, marginMs: number): Promise<void> {
  const left = periodMs - (Date.now() % periodMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

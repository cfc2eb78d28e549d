// The settings of event webhook delivery (DEVDATA_EVENT_*), with the defaults the server manual documents.
import { integerSetting } from '../integer-setting';

export interface EventSettings {
  /** How long one delivery attempt may take (connect, send, answer). */
  timeoutMs: number;
  /** The first retry's delay; each further one doubles, up to retryMaxDelayMs, each with ±20 % jitter. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** A delivery is retried until this long after it was made; the attempt that fails past it makes it failed. */
  retryForMs: number;
  /** A subscription whose deliveries have failed for this long (with no success between) is disabled. */
  disableAfterMs: number;
  /** After a rotation, the previous secret also signs for this long. */
  secretGraceMs: number;
  /**
   * Delivered and failed deliveries (and their events) are deleted this long after they were made, and so are the
   * pending ones of a paused or disabled subscription.
   */
  retentionMs: number;
  /** How often each instance looks for due deliveries besides being woken by its own writes. */
  pollMs: number;
  /**
   * Attempts under way at once per instance, of those at most this many per subscription and this many for one
   * user's subscriptions: one user's dead endpoints never hold every attempt while another user's events wait.
   */
  concurrency: number;
  concurrencyPerSubscription: number;
  concurrencyPerUser: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  timeoutMs: 10_000,
  retryBaseMs: 10_000,
  retryMaxDelayMs: HOUR_MS,
  retryForMs: DAY_MS,
  disableAfterMs: DAY_MS,
  secretGraceMs: DAY_MS,
  retentionMs: 30 * DAY_MS,
  pollMs: 1_000,
  concurrency: 16,
  concurrencyPerSubscription: 2,
  concurrencyPerUser: 8,
};

/**
 * Each setting's environment variable and largest value. The bounds keep what reaches a timer (the attempt's
 * timeout, the poll) well below Node's limit of 2147483647 ms, and the rest within what an operator would mean:
 * polls at least once a minute so retries keep to their schedule, and deliveries kept at most a year.
 */
const VARIABLES: Record<keyof EventSettings, { name: string; max: number }> = {
  timeoutMs: { name: 'DEVDATA_EVENT_TIMEOUT_MS', max: 10 * 60_000 },
  retryBaseMs: { name: 'DEVDATA_EVENT_RETRY_BASE_MS', max: DAY_MS },
  retryMaxDelayMs: { name: 'DEVDATA_EVENT_RETRY_MAX_DELAY_MS', max: DAY_MS },
  retryForMs: { name: 'DEVDATA_EVENT_RETRY_FOR_MS', max: 30 * DAY_MS },
  disableAfterMs: { name: 'DEVDATA_EVENT_DISABLE_AFTER_MS', max: 30 * DAY_MS },
  secretGraceMs: { name: 'DEVDATA_EVENT_SECRET_GRACE_MS', max: 30 * DAY_MS },
  retentionMs: { name: 'DEVDATA_EVENT_RETENTION_MS', max: 365 * DAY_MS },
  pollMs: { name: 'DEVDATA_EVENT_POLL_MS', max: 60_000 },
  concurrency: { name: 'DEVDATA_EVENT_CONCURRENCY', max: 1_000 },
  concurrencyPerSubscription: { name: 'DEVDATA_EVENT_CONCURRENCY_PER_SUBSCRIPTION', max: 1_000 },
  concurrencyPerUser: { name: 'DEVDATA_EVENT_CONCURRENCY_PER_USER', max: 1_000 },
};

/** The environment variables of these settings. */
export const EVENT_SETTING_NAMES = Object.values(VARIABLES).map(({ name }) => name);

/** The settings from the environment: each an integer from 1 to its bound, the default when unset or empty. */
export function eventSettingsFromEnv(env: NodeJS.ProcessEnv): EventSettings {
  const settings = { ...DEFAULT_EVENT_SETTINGS };
  for (const [key, { name, max }] of Object.entries(VARIABLES) as [
    keyof EventSettings,
    typeof VARIABLES.pollMs,
  ][]) {
    settings[key] = integerSetting(name, env[name], settings[key], { min: 1, max });
  }
  return settings;
}

/** The delay before retry number `attempt` (1 for the first retry): exponential, capped, with ±20 % jitter. */
export function retryDelay(settings: EventSettings, attempt: number): number {
  const exponential = Math.min(
    settings.retryBaseMs * 2 ** Math.min(attempt - 1, 40),
    settings.retryMaxDelayMs,
  );
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

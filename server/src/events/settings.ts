// The settings of event webhook delivery (DEVDATA_EVENT_*), with the defaults the server manual documents.

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
  /** Delivered and failed deliveries (and their events) are deleted this long after they were made. */
  retentionMs: number;
  /** How often each instance looks for due deliveries besides being woken by its own writes. */
  pollMs: number;
  /** Attempts under way at once per instance, and of those at most this many per subscription. */
  concurrency: number;
  concurrencyPerSubscription: number;
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
};

/** Each setting's environment variable. */
const VARIABLES: Record<keyof EventSettings, string> = {
  timeoutMs: 'DEVDATA_EVENT_TIMEOUT_MS',
  retryBaseMs: 'DEVDATA_EVENT_RETRY_BASE_MS',
  retryMaxDelayMs: 'DEVDATA_EVENT_RETRY_MAX_DELAY_MS',
  retryForMs: 'DEVDATA_EVENT_RETRY_FOR_MS',
  disableAfterMs: 'DEVDATA_EVENT_DISABLE_AFTER_MS',
  secretGraceMs: 'DEVDATA_EVENT_SECRET_GRACE_MS',
  retentionMs: 'DEVDATA_EVENT_RETENTION_MS',
  pollMs: 'DEVDATA_EVENT_POLL_MS',
  concurrency: 'DEVDATA_EVENT_CONCURRENCY',
  concurrencyPerSubscription: 'DEVDATA_EVENT_CONCURRENCY_PER_SUBSCRIPTION',
};

/** The settings from the environment: each a positive integer, the default when unset or empty. */
export function eventSettingsFromEnv(env: NodeJS.ProcessEnv): EventSettings {
  const settings = { ...DEFAULT_EVENT_SETTINGS };
  for (const [key, name] of Object.entries(VARIABLES) as [keyof EventSettings, string][]) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${value}"`);
    settings[key] = n;
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

/** Settings the server reads from its environment (the CLI's flags override host, port and database). */
export interface ServerConfig {
  /** Developer API requests allowed per key per window (per server instance). */
  rateLimit: { max: number; windowMs: number };
  /** Direct notifications allowed per app per user per clock hour. */
  directNotificationsPerHour: number;
  /** How long a proactive webhook call may take before it counts as a timeout. */
  webhookTimeoutMs: number;
  /** Largest webhook reply read; a bigger one is abandoned as soon as it passes this size. */
  webhookMaxReplyBytes: number;
  /** Webhook calls in flight at once (per server instance); the rest wait in an in-process queue. */
  webhookConcurrency: number;
  /** Failures in a row after which a webhook URL is paused, and for how long (per server instance). */
  breakerFailures: number;
  breakerCooldownMs: number;
  /** One proactive notification per user per app per this window, counted from the last successful push. */
  proactiveWindowMs: number;
  /** OpenAI-compatible endpoint that generates proactive texts; null pushes the filled prompt as is. */
  llmBaseUrl: string | null;
  llmModel: string;
  llmApiKey: string | null;
  llmTimeoutMs: number;
  /** ntfy-compatible URL every notification is also POSTed to (plain-text body, Title header); null for none. */
  pushUrl: string | null;
  /** Interval of the comment heartbeat on notification streams. */
  sseHeartbeatMs: number;
  /** Mean event-loop delay past which requests are shed with 503 (0: never shed), sampled every interval. */
  maxEventLoopDelayMs: number;
  loadSampleIntervalMs: number;
}

export const DIRECT_NOTIFICATIONS_PER_HOUR = 10;

/** Parses `DEVDATA_RATE_LIMIT` of the form `<requests>/<seconds>`, e.g. `600/60`. */
export function parseRateLimit(value: string | undefined): ServerConfig['rateLimit'] {
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '600/60');
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    throw new Error(`DEVDATA_RATE_LIMIT must look like 600/60 (requests/seconds), got "${value}"`);
  }
  return { max: Number(match[1]), windowMs: Number(match[2]) * 1000 };
}

/** An integer setting from the environment, at least `min` (0 allows "off"). */
function integerSetting(name: string, value: string | undefined, fallback: number, min: 0 | 1): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new Error(`${name} must be ${min === 0 ? '0 or ' : ''}a positive integer, got "${value}"`);
  }
  return n;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    rateLimit: parseRateLimit(env.DEVDATA_RATE_LIMIT),
    directNotificationsPerHour: DIRECT_NOTIFICATIONS_PER_HOUR,
    webhookTimeoutMs: integerSetting('DEVDATA_WEBHOOK_TIMEOUT_MS', env.DEVDATA_WEBHOOK_TIMEOUT_MS, 15_000, 1),
    webhookMaxReplyBytes: 1024 * 1024,
    webhookConcurrency: 8,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    proactiveWindowMs: 30_000,
    llmBaseUrl: env.DEVDATA_LLM_BASE_URL?.replace(/\/+$/, '') || null,
    llmModel: env.DEVDATA_LLM_MODEL || 'gpt-4o-mini',
    llmApiKey: env.DEVDATA_LLM_API_KEY || null,
    llmTimeoutMs: integerSetting('DEVDATA_LLM_TIMEOUT_MS', env.DEVDATA_LLM_TIMEOUT_MS, 30_000, 1),
    pushUrl: env.DEVDATA_PUSH_URL || null,
    sseHeartbeatMs: 15_000,
    maxEventLoopDelayMs: integerSetting(
      'DEVDATA_MAX_EVENT_LOOP_DELAY_MS',
      env.DEVDATA_MAX_EVENT_LOOP_DELAY_MS,
      1_000,
      0,
    ),
    loadSampleIntervalMs: 1_000,
  };
}

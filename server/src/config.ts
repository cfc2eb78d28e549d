/** Settings the server reads from its environment (the CLI's flags override host, port and database). */
export interface ServerConfig {
  /** Developer API requests allowed per key per window (per server instance). */
  rateLimit: { max: number; windowMs: number };
  /** Direct notifications allowed per app per user per clock hour. */
  directNotificationsPerHour: number;
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

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    rateLimit: parseRateLimit(env.DEVDATA_RATE_LIMIT),
    directNotificationsPerHour: DIRECT_NOTIFICATIONS_PER_HOUR,
  };
}

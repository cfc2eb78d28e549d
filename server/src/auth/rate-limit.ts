import type { RedisLink } from '../cluster/redis';

/** Where a key stands in the current window after one more request. */
export interface WindowCount {
  allowed: boolean;
  remaining: number;
  /** When the window ends (epoch ms). */
  resetAt: number;
}

/** Counts developer-API requests per key in fixed windows aligned to the clock (00:00, 01:00, … for 60 s). */
export interface RequestLimiter {
  readonly max: number;
  /** Counted in this process the answer is at once; counted in Redis, a promise. */
  hit(key: string, now?: number): WindowCount | Promise<WindowCount>;
}

function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

function counted(count: number, max: number, start: number, windowMs: number): WindowCount {
  return { allowed: count <= max, remaining: Math.max(0, max - count), resetAt: start + windowMs };
}

/**
 * A fixed-window counter per key, kept in this process (each server instance limits on its own). Only the
 * current window is kept: when the next one begins the counts of the last are dropped, so memory is bounded
 * by the keys seen in one window.
 */
export class FixedWindowLimiter implements RequestLimiter {
  private counts = new Map<string, number>();
  private start = 0;

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** The count in this process, kept for as long as the window lasts. */
  count(key: string, now = Date.now()): WindowCount {
    const start = windowStart(now, this.windowMs);
    if (start !== this.start) {
      this.counts = new Map();
      this.start = start;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return counted(count, this.max, start, this.windowMs);
  }

  hit(key: string, now = Date.now()): WindowCount {
    return this.count(key, now);
  }

  /** Keys counted in the current window: what the limiter holds in memory. */
  get size(): number {
    return this.counts.size;
  }
}

/**
 * The same fixed windows counted in Redis, shared by every instance: one INCR per request on
 * `<prefix>rate:<key id>:<window start>`, which expires with its window. When Redis fails or is slow the
 * request is counted in this process instead (the limit is then per instance until Redis answers again).
 */
export class RedisWindowLimiter implements RequestLimiter {
  private readonly local: FixedWindowLimiter;

  constructor(
    readonly max: number,
    readonly windowMs: number,
    private readonly redis: RedisLink,
    private readonly prefix: string,
  ) {
    this.local = new FixedWindowLimiter(max, windowMs);
  }

  async hit(key: string, now = Date.now()): Promise<WindowCount> {
    const start = windowStart(now, this.windowMs);
    const name = `${this.prefix}rate:${key}:${start}`;
    const count = await this.redis.run(async (redis) => {
      const replies = await redis
        .multi()
        .incr(name)
        .pexpire(name, this.windowMs + 1_000)
        .exec();
      const [error, value] = replies?.[0] ?? [new Error('transaction discarded'), null];
      if (error) throw error;
      return value as number;
    });
    if (count === undefined) return this.local.count(key, now);
    return counted(count, this.max, start, this.windowMs);
  }
}

/** X-RateLimit-Reset: the seconds until the window ends at `resetAt`, as the real service sends it. */
export const resetSeconds = (resetAt: number, now = Date.now()): number =>
  Math.max(0, Math.ceil((resetAt - now) / 1000));

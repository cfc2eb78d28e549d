/** A fixed-window counter per key, kept in this process (each server instance limits on its own). */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  hit(key: string, now = Date.now()): { allowed: boolean; remaining: number; resetAt: number } {
    const start = now - (now % this.windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= this.max,
      remaining: Math.max(0, this.max - window.count),
      resetAt: window.start + this.windowMs,
    };
  }
}

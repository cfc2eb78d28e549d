/**
 * A circuit breaker per webhook URL, in process memory: after `failures` failed calls in a row the URL is
 * paused for `cooldownMs`; the first call after the pause is let through, and one more failure pauses it again.
 * With several server instances each keeps its own count.
 */
export class Breakers {
  private readonly state = new Map<string, { failures: number; openUntil: number }>();

  constructor(
    private readonly failures: number,
    private readonly cooldownMs: number,
  ) {}

  /** True while calls to this URL are to be skipped. */
  isOpen(url: string, now = Date.now()): boolean {
    const s = this.state.get(url);
    return s !== undefined && s.openUntil > now;
  }

  success(url: string): void {
    this.state.delete(url);
  }

  failure(url: string, now = Date.now()): void {
    const s = this.state.get(url) ?? { failures: 0, openUntil: 0 };
    s.failures += 1;
    if (s.failures >= this.failures) s.openUntil = now + this.cooldownMs;
    this.state.set(url, s);
  }
}

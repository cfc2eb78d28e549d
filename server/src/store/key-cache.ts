// Developer keys recently read, by the SHA-256 of their secret: an authenticated request then costs no key
// lookup. How a revocation reaches a cached key:
// - on the instance that revoked it, at once: the accounts repository invalidates the entry as it revokes;
// - on every other instance sharing the database, as soon as the broadcast of the revocation (Redis pub/sub or
//   PostgreSQL LISTEN/NOTIFY, see app.ts) calls `invalidate(hash)` there;
// - and should that broadcast be lost, within `ttlMs` of its last read: an entry is only served for `ttlMs`
//   after the lookup that filled it began, then the key is read again (and found revoked).

export class KeyCache<T> {
  private readonly entries = new Map<string, { value: T; readAt: number }>();
  /** Bumped by every invalidation, so a lookup that began before one cannot store what it read. */
  private invalidations = 0;

  constructor(
    readonly ttlMs: number,
    readonly max: number,
  ) {}

  /** The key read for `hash` less than `ttlMs` ago, if any. */
  get(hash: string, now = Date.now()): T | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (now - entry.readAt < this.ttlMs) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  /** What a lookup returns to note before it reads: its start time and the invalidations so far. */
  begin(now = Date.now()): { readAt: number; invalidations: number } {
    return { readAt: now, invalidations: this.invalidations };
  }

  /**
   * Keeps what a lookup read, unless a key was invalidated since it began (what it read may be what was
   * just revoked). Past `max` entries the oldest read goes.
   */
  set(hash: string, value: T, lookup: { readAt: number; invalidations: number }): void {
    if (lookup.invalidations !== this.invalidations) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, readAt: lookup.readAt });
  }

  /** Forgets the key whose secret hashes to `hash`: its next request reads it from the database. */
  invalidate(hash: string): void {
    this.invalidations += 1;
    this.entries.delete(hash);
  }
}

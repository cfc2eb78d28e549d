/**
 * The JSON of list and record answers, kept while the data they were read from is unchanged. An answer is kept
 * only when the store's data version was the same before and after its read, and everything kept is dropped as
 * soon as the version moves: any committed write, by this process or by another one on the same SQLite file. So
 * a read that follows an acknowledged write never finds an answer from before it. What it saves is reading the
 * rows and writing them as JSON again when nothing changed: a poll finding nothing new, a record asked for again.
 * Where the store has no version (PostgreSQL, shared by other instances) nothing is kept.
 */
export class ResponseCache {
  private version: string | undefined;
  /** Least recently used first. */
  private readonly answers = new Map<string, Buffer>();
  /** Memory taken, at most `maxBytes` (see `cost`). */
  private size = 0;

  constructor(
    private readonly dataVersion: () => string | undefined,
    private readonly maxBytes: number,
  ) {}

  /**
   * The answer for `key` (the caller and the request's URL): the one kept when the data has not changed since,
   * at once, else what `read` returns, kept for next time if nothing was committed while it ran. Kept as UTF-8,
   * so that sending it again encodes nothing.
   */
  answer(key: string, read: () => Promise<string>): Buffer | Promise<string | Buffer> {
    if (this.maxBytes === 0) return read();
    const version = this.dataVersion();
    if (version !== this.version) {
      this.answers.clear();
      this.size = 0;
      this.version = version;
    }
    if (version === undefined) return read();
    const kept = this.answers.get(key);
    if (kept === undefined) return this.readAndKeep(key, version, read);
    this.answers.delete(key);
    this.answers.set(key, kept);
    return kept;
  }

  private async readAndKeep(key: string, version: string, read: () => Promise<string>) {
    const json = await read();
    // Versions only move forward: the same one after the read means no commit happened during it.
    if (this.dataVersion() !== version || this.version !== version) return json;
    // A buffer of its own: a small Buffer.from would be a slice of a shared 8 kB pool and keep all of it alive.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
    bytes.write(json);
    this.keep(key, bytes);
    return bytes;
  }

  /** How many answers it holds now. */
  get entries(): number {
    return this.answers.size;
  }

  private keep(key: string, bytes: Buffer): void {
    // One answer may take at most an eighth of the room, so a few large pages cannot push out every other.
    if (cost(key, bytes) > this.maxBytes / 8) return;
    const previous = this.answers.get(key);
    if (previous !== undefined) {
      this.answers.delete(key);
      this.size -= cost(key, previous);
    }
    this.answers.set(key, bytes);
    this.size += cost(key, bytes);
    for (const [oldest, answer] of this.answers) {
      if (this.size <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.size -= cost(oldest, answer);
    }
  }
}

/** What an entry holds in memory: its answer, its key (a URL may be long) and the map's own share. */
const cost = (key: string, answer: Buffer) => answer.length + 2 * key.length + 100;

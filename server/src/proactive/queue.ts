interface Waiting {
  run: () => Promise<void>;
  bytes: number;
}

/**
 * A small in-process work queue, fair across keys (apps): at most `concurrency` jobs run at once and at most
 * `perKey` of them for one key, and each free slot goes to the next key in turn that has a job waiting. So one
 * key's slow jobs hold `perKey` slots at most, and its backlog never stands in front of another key's job.
 * The jobs waiting under one key hold at most `maxWaitingBytes` (each job says its size): past that a job is
 * refused, so a slow consumer cannot grow the process without bound. `idle()` waits for every job.
 */
export class WorkQueue {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();
  /** Waiting jobs by key; a Map keeps insertion order, and a served key moves to the back: round robin. */
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly waitingBytesByKey = new Map<string, number>();
  private waitingCount = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly perKey: number,
    private readonly maxWaitingBytes: number,
  ) {}

  /**
   * Queues a job of `bytes` under `key`, or refuses it (false) when the key's waiting jobs would then hold more
   * than the bound; a job that finds none waiting is always taken, however big. A job's failure is its own
   * business (jobs catch their errors).
   */
  push(key: string, run: () => Promise<void>, bytes: number): boolean {
    const jobs = this.waiting.get(key);
    const waitingBytes = this.waitingBytesByKey.get(key) ?? 0;
    if (jobs && waitingBytes + bytes > this.maxWaitingBytes) return false;
    if (jobs) jobs.push({ run, bytes });
    else this.waiting.set(key, [{ run, bytes }]);
    this.waitingBytesByKey.set(key, waitingBytes + bytes);
    this.waitingCount += 1;
    this.next();
    return true;
  }

  get size(): number {
    return this.running + this.waitingCount;
  }

  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The first key in turn with a waiting job and a free slot of its own. */
  private nextKey(): string | undefined {
    for (const key of this.waiting.keys()) {
      if ((this.runningByKey.get(key) ?? 0) < this.perKey) return key;
    }
    return undefined;
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const key = this.nextKey();
      if (key === undefined) return;
      const jobs = this.waiting.get(key)!;
      const job = jobs.shift()!;
      this.waiting.delete(key);
      if (jobs.length > 0) {
        this.waiting.set(key, jobs);
        this.waitingBytesByKey.set(key, this.waitingBytesByKey.get(key)! - job.bytes);
      } else {
        this.waitingBytesByKey.delete(key);
      }
      this.waitingCount -= 1;
      this.running += 1;
      this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
      void job
        .run()
        .catch(() => undefined)
        .finally(() => {
          this.running -= 1;
          const left = this.runningByKey.get(key)! - 1;
          if (left === 0) this.runningByKey.delete(key);
          else this.runningByKey.set(key, left);
          this.next();
          if (this.size === 0) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
        });
    }
  }
}

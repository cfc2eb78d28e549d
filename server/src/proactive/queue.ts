/** A small in-process work queue: at most `concurrency` jobs run at once; `idle()` waits for all of them. */
export class WorkQueue {
  private running = 0;
  private readonly waiting: (() => Promise<void>)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  /** Queues a job; a job's failure is its own business (jobs catch their errors). */
  push(job: () => Promise<void>): void {
    this.waiting.push(job);
    this.next();
  }

  get size(): number {
    return this.running + this.waiting.length;
  }

  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.running += 1;
      void job()
        .catch(() => undefined)
        .finally(() => {
          this.running -= 1;
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

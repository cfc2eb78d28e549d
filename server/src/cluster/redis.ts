import Redis, { type RedisOptions } from 'ioredis';
import type { BaseLogger } from 'pino';

// Redis may be down or slow; the API goes on without it. Commands fail at once while it is unreachable (no
// offline queue) and after COMMAND_TIMEOUT_MS when it is slow, so a caller falls back instead of waiting.
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1_000;
const RECONNECT_MAX_MS = 1_000;
const PROBE_INTERVAL_MS = 1_000;

/**
 * The connection to `DEVDATA_REDIS_URL`: one client for commands and one for subscriptions (a subscribed
 * connection can run nothing else). Both reconnect on their own, the subscriber resubscribing, so a Redis
 * restart needs no server restart. Losing it and getting it back are each logged once.
 */
export class RedisLink {
  readonly commands: Redis;
  readonly subscriber: Redis;
  private failing = false;
  /** While failing: a PING every second, so a slow Redis that answers again is noticed without traffic. */
  private probe: NodeJS.Timeout | null = null;
  /** Set by close(): from then on a lost connection is ours to lose. */
  private closed = false;

  constructor(
    url: string,
    private readonly log: Pick<BaseLogger, 'info' | 'warn'>,
  ) {
    const options: RedisOptions = {
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
      maxRetriesPerRequest: 0,
    };
    this.commands = new Redis(url, {
      ...options,
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // Subscriptions made before the first connection wait for it.
    this.subscriber = new Redis(url, options);
    for (const client of [this.commands, this.subscriber]) {
      client.on('error', (error: Error) => this.failed(error));
      client.on('close', () => this.failed(new Error('connection closed')));
      client.on('ready', () => this.recovered());
    }
  }

  /** Whether both connections are up and the last command succeeded: what /healthz reports. */
  get available(): boolean {
    return !this.failing && this.commands.status === 'ready' && this.subscriber.status === 'ready';
  }

  /** Resolves once both connections are up, or after the connect timeout (then it goes on trying). */
  connected(): Promise<void> {
    const ready = (client: Redis) =>
      client.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => client.once('ready', resolve));
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, CONNECT_TIMEOUT_MS).unref());
    return Promise.race([
      Promise.all([ready(this.commands), ready(this.subscriber)]).then(() => undefined),
      timeout,
    ]);
  }

  /** Runs a command; undefined when Redis failed or was too slow (logged once until it answers again). */
  async run<T>(command: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    try {
      const result = await command(this.commands);
      this.recovered();
      return result;
    } catch (error) {
      this.failed(error as Error);
      return undefined;
    }
  }

  async close(): Promise<void> {
    // First, so the connections' own 'close' events are not taken for Redis going away.
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.commands.disconnect();
    this.subscriber.disconnect();
  }

  private failed(error: Error): void {
    if (this.failing || this.closed) return;
    this.failing = true;
    this.probe = setInterval(() => void this.run((redis) => redis.ping()), PROBE_INTERVAL_MS);
    this.probe.unref();
    this.log.warn(
      { err: error },
      'Redis unavailable: request limits are counted in this instance, live notifications and key ' +
        'revocations reach only this instance, until it answers again',
    );
  }

  private recovered(): void {
    if (!this.failing || this.commands.status !== 'ready' || this.subscriber.status !== 'ready') return;
    this.failing = false;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    this.log.info('Redis available again');
  }
}

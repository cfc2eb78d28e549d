import Redis, { type RedisOptions } from 'ioredis';
import type { BaseLogger } from 'pino';

// Redis may be down or slow; the API goes on without it. Commands fail at once while it is unreachable (no
// offline queue) and after COMMAND_TIMEOUT_MS when it is slow, so a caller falls back instead of waiting.
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1_000;
const RECONNECT_MAX_MS = 1_000;
const PROBE_INTERVAL_MS = 1_000;

/**
 * Whether `error` is Redis refusing the URL's database index (past its `databases` setting); not another failure
 * of the SELECT, such as a missing password (NOAUTH), which is Redis out of reach for this server.
 */
const isSelectRefusal = (error: Error) =>
  (error as Error & { command?: { name?: string } }).command?.name === 'select' &&
  /DB index is out of range|invalid DB index/i.test(error.message);

/**
 * Fails when Redis answers but refuses the database index of `url`: a setting to fix, which would otherwise
 * leave the server on database 0. A Redis out of reach passes: the server starts without it and connects later.
 */
export async function assertRedisDatabase(url: string): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  let refusal: Error | null = null;
  client.on('error', (error: Error) => {
    if (isSelectRefusal(error)) refusal = error;
  });
  // The SELECT of the URL's index answers before the connection is ready. A Redis that takes the connection but
  // never answers would hold the start: after CONNECT_TIMEOUT_MS it counts as out of reach.
  await Promise.race([
    client.connect().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, CONNECT_TIMEOUT_MS).unref()),
  ]);
  client.disconnect();
  if (refusal) {
    const { host, port, db } = client.options;
    throw new Error(
      `DEVDATA_REDIS_URL names database ${db}, which Redis at ${host}:${port} refuses (${(refusal as Error).message}): ` +
        'use an index below its "databases" setting (16 unless configured), or leave the path out for database 0',
    );
  }
}

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
  /**
   * Redis refused the URL's database on (re)connecting, leaving the command connection on database 0: it counts as
   * unavailable until the probe selects the right one. (Pub/sub is the same in every database.)
   */
  private wrongDatabase = false;

  constructor(
    url: string,
    private readonly log: Pick<BaseLogger, 'info' | 'warn' | 'error'>,
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
    this.commands.on('error', (error: Error) => {
      if (!isSelectRefusal(error) || this.wrongDatabase) return;
      this.wrongDatabase = true;
      this.log.error(
        { err: error },
        `Redis refuses database ${this.commands.options.db} of DEVDATA_REDIS_URL: counted as unavailable until it ` +
          'takes it (fix the URL or Redis\'s "databases" setting)',
      );
    });
    for (const client of [this.commands, this.subscriber]) {
      client.on('error', (error: Error) => this.failed(error));
      client.on('close', () => this.failed(new Error('connection closed')));
      client.on('ready', () => this.recovered());
    }
  }

  /** Whether both connections are up and the last command succeeded: what /healthz reports. */
  get available(): boolean {
    return (
      !this.failing &&
      !this.wrongDatabase &&
      this.commands.status === 'ready' &&
      this.subscriber.status === 'ready'
    );
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
    if (this.wrongDatabase) return undefined;
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
    this.probe = setInterval(() => void this.check(), PROBE_INTERVAL_MS);
    this.probe.unref();
    this.log.warn(
      { err: error },
      'Redis unavailable: request limits are counted in this instance, live notifications and key ' +
        'revocations reach only this instance, until it answers again',
    );
  }

  /** The probe: a PING, or while on the wrong database, the SELECT Redis refused. */
  private async check(): Promise<void> {
    try {
      if (this.wrongDatabase) {
        await this.commands.select(this.commands.options.db ?? 0);
        this.wrongDatabase = false;
      } else await this.commands.ping();
      this.recovered();
    } catch {
      // Still failing: logged when it began.
    }
  }

  private recovered(): void {
    if (
      !this.failing ||
      this.wrongDatabase ||
      this.commands.status !== 'ready' ||
      this.subscriber.status !== 'ready'
    )
      return;
    this.failing = false;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    this.log.info('Redis available again');
  }
}

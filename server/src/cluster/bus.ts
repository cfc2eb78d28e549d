import { randomUUID } from 'node:crypto';
import type { RedisLink } from './redis';

/** What instances tell each other: a notification to stream, a revoked key to forget. */
export type Channel = 'notifications' | 'key-revocations';

export type BusState = 'ok' | 'unavailable';

/**
 * Carries messages to the other server instances sharing the database (an instance never receives its own:
 * it acts on them directly). Publishing never throws: a message that could not be sent is lost to the other
 * instances only (their degraded mode), which the bus logs once.
 */
export interface Bus {
  /** Which transport carries the messages, for /healthz; `local` when there is no other instance to tell. */
  readonly transport: 'local' | 'redis' | 'postgres';
  readonly state: BusState;
  /** Resolves once the first attempt to connect has succeeded or failed (the server serves either way). */
  start(): Promise<void>;
  publish(channel: Channel, message: unknown): Promise<void>;
  subscribe(channel: Channel, handler: (message: unknown) => void): void;
  /**
   * Calls `listener` each time this instance starts receiving again (its first connection included): what the
   * other instances sent while it could not receive is lost, so state kept on the strength of their messages
   * (the key cache, which a revocation would have cleared) must not be trusted past that point.
   */
  onResumed(listener: () => void): void;
  close(): Promise<void>;
}

/** The envelope on the wire: who sent it, so each instance can skip its own. */
interface Envelope {
  from: string;
  message: unknown;
}

/** This instance's envelope for `message`. */
export const envelope = (from: string, message: unknown): string => JSON.stringify({ from, message });

/** What another instance sent, or undefined for this instance's own or anything unreadable on the channel. */
export function opened(text: string, self: string): { message: unknown } | undefined {
  try {
    const parsed = JSON.parse(text) as Envelope;
    return parsed.from === self ? undefined : { message: parsed.message };
  } catch {
    return undefined;
  }
}

/** One SQLite file has one instance: nobody else to tell. */
export class LocalBus implements Bus {
  readonly transport = 'local';
  readonly state = 'ok';
  async start(): Promise<void> {}
  async publish(): Promise<void> {}
  subscribe(): void {}
  onResumed(): void {}
  async close(): Promise<void> {}
}

/** Redis pub/sub, on channels `<prefix><channel>`. */
export class RedisBus implements Bus {
  readonly transport = 'redis';
  private readonly handlers = new Map<string, (message: unknown) => void>();
  private readonly resumed = new Set<() => void>();
  private readonly id = randomUUID();

  constructor(
    private readonly redis: RedisLink,
    private readonly prefix: string,
  ) {
    redis.subscriber.on('message', (channel: string, text: string) => {
      const handler = this.handlers.get(channel);
      if (!handler) return;
      const received = opened(text, this.id);
      if (received) handler(received.message);
    });
    redis.subscriber.on('ready', () => this.subscribeAll());
  }

  get state(): BusState {
    return this.redis.available ? 'ok' : 'unavailable';
  }

  start(): Promise<void> {
    return this.redis.connected();
  }

  async publish(channel: Channel, message: unknown): Promise<void> {
    await this.redis.run((redis) => redis.publish(this.prefix + channel, envelope(this.id, message)));
  }

  subscribe(channel: Channel, handler: (message: unknown) => void): void {
    this.handlers.set(this.prefix + channel, handler);
    this.subscribeAll();
  }

  onResumed(listener: () => void): void {
    this.resumed.add(listener);
  }

  /**
   * Subscribes to every channel with a handler, again on every connection: a SUBSCRIBE queued while Redis is
   * unreachable is dropped when a connection attempt fails (no retries per command), and the client resubscribes
   * by itself only to channels it once subscribed to. Subscribing twice to a channel changes nothing. Once
   * subscribed, messages arrive again: the onResumed listeners are told.
   */
  private subscribeAll(): void {
    if (this.handlers.size === 0) return;
    this.redis.subscriber
      .subscribe(...this.handlers.keys())
      .then(() => {
        for (const listener of this.resumed) listener();
      })
      .catch(() => undefined);
  }

  async close(): Promise<void> {}
}

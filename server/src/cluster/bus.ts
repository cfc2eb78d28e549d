import { randomUUID } from 'node:crypto';
import type { RedisLink } from './redis';

/** What instances tell each other: a notification to stream, a revoked key to forget. */
export type Channel = 'notifications' | 'key-revocations';

export type BusState = 'ok' | 'unavailable';

/**
 * The channels whose messages are sent again when they could not be sent (the link down on this instance's side),
 * once the link is back: a revocation announced late still does its work, and forgetting a key twice is harmless.
 * A notification is not: streamed late it would arrive out of order, and the inbox has it.
 */
const RESENT: ReadonlySet<Channel> = new Set(['key-revocations']);
/** At most this many unsent messages are kept for sending again; past it the oldest goes. */
const MAX_UNSENT = 10_000;

/**
 * The messages this instance could not send, on the channels that are sent again: `keep` one that failed,
 * `take` them all to send again (each one failing again is kept again).
 */
export class Unsent {
  private messages: Array<{ channel: Channel; message: unknown }> = [];

  keep(channel: Channel, message: unknown): void {
    if (!RESENT.has(channel)) return;
    if (this.messages.length >= MAX_UNSENT) this.messages.shift();
    this.messages.push({ channel, message });
  }

  take(): Array<{ channel: Channel; message: unknown }> {
    const taken = this.messages;
    this.messages = [];
    return taken;
  }
}

/**
 * Carries messages to the other server instances sharing the database (an instance never receives its own:
 * it acts on them directly). Publishing never throws: a message that could not be sent is lost to the other
 * instances only (their degraded mode), which the bus logs once; a key revocation is sent again once the link is
 * back (see RESENT).
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
  private readonly unsent = new Unsent();
  private readonly id = randomUUID();

  constructor(
    private readonly redis: RedisLink,
    private readonly prefix: string,
  ) {
    redis.commands.on('ready', () => void this.sendAgain());
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
    const sent = await this.redis.run((redis) =>
      redis.publish(this.prefix + channel, envelope(this.id, message)),
    );
    if (sent === undefined) this.unsent.keep(channel, message);
  }

  /** Sends again what could not be sent, now that the command connection is back. */
  private async sendAgain(): Promise<void> {
    for (const { channel, message } of this.unsent.take()) await this.publish(channel, message);
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

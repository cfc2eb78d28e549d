import type { BaseLogger } from 'pino';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { envelope, opened, Unsent, type Bus, type BusState, type Channel } from './bus';
import { PG_CONNECT_TIMEOUT_MS } from '../store/db/defaults';
import type { Database } from '../store/db/schema';

/** PostgreSQL channels are per database, so their names need no prefix. */
const CHANNELS: Record<Channel, string> = {
  notifications: 'devdata_notifications',
  'key-revocations': 'devdata_key_revocations',
};
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL LISTEN/NOTIFY between instances sharing a database without Redis: messages go out with
 * pg_notify through the pool, and come in on one dedicated connection, reopened (and re-LISTENed) whenever
 * it is lost. While it is down, messages from other instances are missed (logged once).
 */
export class ListenNotifyBus implements Bus {
  readonly transport = 'postgres';
  private readonly handlers = new Map<string, (message: unknown) => void>();
  private readonly resumed = new Set<() => void>();
  private readonly unsent = new Unsent();
  private listener: pg.Client | null = null;
  private failing = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly id = randomUUID();
  private first: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly db: Kysely<Database>,
    private readonly log: Pick<BaseLogger, 'info' | 'warn'>,
  ) {}

  /** Connects (subscriptions made before are all LISTENed); a failure is logged and retried every second. */
  start(): Promise<void> {
    this.first ??= this.connect();
    return this.first;
  }

  get state(): BusState {
    return this.listener ? 'ok' : 'unavailable';
  }

  async publish(channel: Channel, message: unknown): Promise<void> {
    try {
      await sql`select pg_notify(${CHANNELS[channel]}, ${envelope(this.id, message)})`.execute(this.db);
    } catch (error) {
      this.log.warn({ err: error, channel }, 'could not notify the other instances');
      this.unsent.keep(channel, message);
    }
  }

  subscribe(channel: Channel, handler: (message: unknown) => void): void {
    this.handlers.set(CHANNELS[channel], handler);
    this.listener?.query(`LISTEN ${CHANNELS[channel]}`).catch(() => undefined);
  }

  onResumed(listener: () => void): void {
    this.resumed.add(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    });
    let lost = false;
    const onLost = (error: Error) => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = null;
      client.end().catch(() => undefined);
      this.lose(error);
    };
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('connection ended')));
    client.on('notification', ({ channel, payload }) => {
      const handler = this.handlers.get(channel);
      if (!handler || payload === undefined) return;
      const received = opened(payload, this.id);
      if (received) handler(received.message);
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    if (this.failing) {
      this.failing = false;
      this.log.info('listening to the other instances again (PostgreSQL LISTEN/NOTIFY)');
    }
    // LISTENing: what the other instances notify from now on arrives; what they notified before did not.
    for (const listener of this.resumed) listener();
    // The database answers again: what could not be notified is sent now.
    for (const { channel, message } of this.unsent.take()) await this.publish(channel, message);
  }

  private lose(error: Error): void {
    if (this.closed) return;
    if (!this.failing) {
      this.failing = true;
      this.log.warn(
        { err: error },
        'lost the PostgreSQL LISTEN connection: live notifications and key revocations from other ' +
          'instances are missed until it is back',
      );
    }
    this.retry ??= setTimeout(() => void this.connect(), RECONNECT_MS);
    this.retry.unref();
  }
}

// Sends the events the outbox holds to the users' webhook subscriptions: at least once, signed in the Standard
// Webhooks scheme, retried with backoff, one subscription never holding up another. Each instance runs one;
// they share the work through the database (store/webhooks.ts claims with leases, SKIP LOCKED on PostgreSQL).
import type { Readable } from 'node:stream';
import axios from 'axios';
import type { FastifyBaseLogger } from 'fastify';
import { eventBody } from '../contract/webhooks';
import { isN8nStartingPage, N8N_STARTING } from '../outbound/n8n-starting';
import type { OutboundPolicy } from '../outbound/policy';
import type { Pusher } from '../proactive/push';
import { outboxCommits } from '../store/db/outbox';
import { iso } from '../store/db/rows';
import { isUnavailable } from '../store/db/store-errors';
import type { AttemptOutcome, ClaimedDelivery, WebhooksRepository } from '../store/webhooks';
import { withoutPassword } from '../without-password';
import { retryDelay, type EventSettings } from './settings';
import { signatureHeader } from './signature';

const PRUNE_INTERVAL_MS = 3_600_000;

/** The most of a 2xx answer's body read to tell it from n8n's startup page; any other body is not read at all. */
const STARTING_BODY_LIMIT = 1024;

/**
 * Whether a 2xx answer is n8n's startup page: a short HTML body (its length is not always given) reading so. Taken
 * for a delivery, the event would be lost on every restart of n8n that a retry happens to meet, so such an answer
 * is a failed attempt, retried as any other.
 */
async function isN8nStarting(headers: Record<string, unknown>, body: Readable): Promise<boolean> {
  const length = Number(headers['content-length'] ?? 0);
  if (!String(headers['content-type'] ?? '').startsWith('text/html') || length > STARTING_BODY_LIMIT)
    return false;
  let text = '';
  for await (const chunk of body) {
    text += String(chunk);
    if (text.length > STARTING_BODY_LIMIT) return false;
  }
  return isN8nStartingPage(text);
}

/** Why an attempt that got no HTTP answer failed, for the delivery's last_error. */
function transportError(error: unknown, timeoutMs: number): string {
  const e = error as { code?: string; message?: string };
  if (e.code === 'ECONNABORTED' || e.code === 'ETIMEDOUT' || e.code === 'ERR_CANCELED') {
    return `No answer within ${timeoutMs} ms`;
  }
  if (e.code === 'EOUTBOUND_REFUSED') return e.message ?? 'Refused by the outbound policy';
  return `${e.code ?? 'error'}: ${e.message ?? String(error)}`;
}

/** Counts one more (or one fewer) attempt under way for `id`; none is no entry. */
function count(busy: Map<string, number>, id: string, by: 1 | -1): void {
  const now = (busy.get(id) ?? 0) + by;
  if (now === 0) busy.delete(id);
  else busy.set(id, now);
}

/** The ids with `most` attempts under way or more. */
const full = (busy: Map<string, number>, most: number) =>
  [...busy].filter(([, n]) => n >= most).map(([id]) => id);

export class EventDeliveryWorker {
  /** Attempts under way per subscription and per user, and the deliveries they are for. */
  private readonly busySubscriptions = new Map<string, number>();
  private readonly busyUsers = new Map<string, number>();
  private readonly underWayIds = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private stopped = true;
  private poll: NodeJS.Timeout | undefined;
  private lastPruneAt = 0;
  /**
   * Whether the last claim failed with the database out of reach: said once when it starts and once when it ends,
   * as Redis and the LISTEN connection are, rather than at every poll of an outage.
   */
  private databaseAway = false;
  private readonly onCommit = () => this.wake();

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly settings: EventSettings,
    private readonly outbound: OutboundPolicy,
    private readonly pusher: Pusher,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts delivering: now, after every local commit that wrote deliveries, and every pollMs. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    outboxCommits.on('committed', this.onCommit);
    this.poll = setInterval(() => this.wake(), this.settings.pollMs);
    this.poll.unref();
    this.wake();
  }

  /** Stops claiming and waits for the attempts under way (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    outboxCommits.off('committed', this.onCommit);
    clearInterval(this.poll);
    await this.claiming;
    await Promise.allSettled([...this.attempts]);
  }

  /** Looks for due deliveries now (again once the look under way ends, if one is). */
  wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimWhileDue().finally(() => (this.claiming = null));
  }

  private async claimWhileDue(): Promise<void> {
    try {
      do {
        this.claimAgain = false;
        await this.pruneWhenDue();
        const room = this.settings.concurrency - this.underWayIds.size;
        if (room <= 0) return;
        const { concurrencyPerSubscription: perSubscription, concurrencyPerUser: perUser } = this.settings;
        const now = Date.now();
        const claimed = await this.webhooks.claim(now, now + 2 * this.settings.timeoutMs + 1_000, room, {
          busySubscriptions: full(this.busySubscriptions, perSubscription),
          busyUsers: full(this.busyUsers, perUser),
          underWay: [...this.underWayIds],
          perUser,
          subscriptionRoom: (id) => perSubscription - (this.busySubscriptions.get(id) ?? 0),
          userRoom: (id) => perUser - (this.busyUsers.get(id) ?? 0),
        });
        if (this.databaseAway) {
          this.databaseAway = false;
          this.log.info('claiming event deliveries again: the database is back');
        }
        for (const delivery of claimed) this.begin(delivery);
        // Until a claim finds nothing: one that took less than the room may have passed over another user's due
        // deliveries for a user that had none left.
        if (claimed.length > 0) this.claimAgain = true;
      } while (this.claimAgain && !this.stopped);
    } catch (error) {
      if (!isUnavailable(error)) this.log.warn({ err: error }, 'could not claim event deliveries');
      else if (!this.databaseAway) {
        this.databaseAway = true;
        this.log.warn(
          { err: error },
          'could not claim event deliveries: the database is unavailable; trying again every poll until it is back',
        );
      }
    }
  }

  private begin(delivery: ClaimedDelivery): void {
    count(this.busySubscriptions, delivery.subscriptionId, 1);
    count(this.busyUsers, delivery.userId, 1);
    this.underWayIds.add(delivery.id);
    const attempt = this.attempt(delivery)
      .catch((error: unknown) =>
        this.log.warn({ err: error, delivery: delivery.id }, 'could not record an event delivery'),
      )
      .finally(() => {
        count(this.busySubscriptions, delivery.subscriptionId, -1);
        count(this.busyUsers, delivery.userId, -1);
        this.underWayIds.delete(delivery.id);
        this.attempts.delete(attempt);
        this.wake();
      });
    this.attempts.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const outcome = await this.send(delivery);
    const now = Date.now();
    const retryAt =
      outcome.ok || now - delivery.retryFrom >= this.settings.retryForMs
        ? null
        : now + retryDelay(this.settings, delivery.attemptCount + 1);
    const { disabled } = await this.webhooks.finish(
      delivery,
      outcome,
      now,
      retryAt,
      this.settings.disableAfterMs,
      (url) => this.disabledNotice(url),
    );
    if (disabled) await this.pusher.pushed(delivery.userId, disabled);
  }

  /**
   * One POST of the event: signed, no redirects followed, bounded by the timeout; a 2xx is delivered, unless it is
   * n8n's startup page.
   */
  private async send(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const body = eventBody(
      delivery.eventType,
      delivery.eventId,
      iso(delivery.eventCreatedAt),
      JSON.parse(delivery.data),
    );
    const timestamp = Math.floor(Date.now() / 1000);
    const { timeoutMs } = this.settings;
    try {
      this.outbound.assertCallable(delivery.url);
      const response = await axios.post<Readable>(delivery.url, body, {
        ...this.outbound.axiosOptions(),
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        // Only the status counts, and the body of a short HTML answer (isN8nStarting).
        responseType: 'stream',
        validateStatus: () => true,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'devdata-webhooks',
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(delivery.secrets, delivery.eventId, timestamp, body),
        },
      });
      const { status } = response;
      const success = status >= 200 && status < 300;
      const starting = success && (await isN8nStarting(response.headers, response.data));
      response.data.destroy();
      if (starting) return { ok: false, statusCode: status, error: `HTTP ${status}: "${N8N_STARTING}"` };
      if (success) return { ok: true, statusCode: status, error: null };
      const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
      return { ok: false, statusCode: status, error: `HTTP ${status}${redirect}` };
    } catch (error) {
      return { ok: false, statusCode: null, error: transportError(error, timeoutMs) };
    }
  }

  /**
   * What the user is told when their subscription to `url` is disabled. The URL without its password: the notice
   * is pushed on (to the push URL, to `notification.pushed` subscriptions), where the password must not go.
   */
  private disabledNotice(url: string): { title: string; text: string } {
    const hours = Math.round(this.settings.disableAfterMs / 3_600_000);
    return {
      title: 'Webhook disabled',
      text:
        `Your webhook ${withoutPassword(url)} was disabled: its deliveries failed for ${hours > 0 ? `${hours} h` : 'too long'}. ` +
        'Changes made while it is disabled are not sent to it; its deliveries so far are kept and can be ' +
        'redelivered. Fix the endpoint, then PATCH the webhook with active: true to resume.',
    };
  }

  private async pruneWhenDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruneAt < PRUNE_INTERVAL_MS) return;
    this.lastPruneAt = now;
    await this.webhooks.prune(now - this.settings.retentionMs);
  }
}

// Event webhooks: a user's subscriptions and their deliveries (every query, and how a row reads back), and the
// delivery worker's claim and outcome. The events themselves are written by the writes that cause them
// (store/db/outbox.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Position } from '../contract/cursor';
import { ALL_EVENTS, type EventSelector, type EventType } from '../contract/webhooks';
import { newId } from '../ids';
import type { Dialect } from './db/database';
import { keptSubscriptions, outboxTransaction, wakeAfterCommit, writeEvents } from './db/outbox';
import { newestBefore } from './db/paging';
import { allOwned, findOwned, updateChanged, type Row } from './db/records';
import { fromFlag, fromJson, iso, toFlag, toJson } from './db/rows';
import type { Database } from './db/schema';
import { NotFound } from './db/store-errors';
import { transaction } from './db/transaction';
import { insertNotification, type Notification } from './notifications';

export interface Webhook {
  id: string;
  url: string;
  events: EventSelector[];
  description: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface NewWebhook {
  url: string;
  events: EventSelector[];
  description?: string | null;
}

export interface WebhookChanges {
  url?: string;
  events?: EventSelector[];
  description?: string | null;
  active?: boolean;
}

/** A delivery the worker claimed: everything one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  userId: string;
  url: string;
  /** The secrets that sign this attempt: the current one, and the previous one within its grace. */
  secrets: string[];
  eventId: string;
  eventType: EventType;
  /** The event's record as stored (JSON). */
  data: string;
  eventCreatedAt: number;
  /**
   * Where the delivery's retry window and its subscription's failing time begin: when the delivery was made, or
   * when its subscription was last changed (resumed, given a new URL) if later, so that a delivery that waited out
   * a pause still has its retries, and an endpoint just resumed is not disabled by its first failed attempt.
   */
  retryFrom: number;
  attemptCount: number;
  /** This claim's lease (PostgreSQL; null on SQLite): only its holder may record the attempt's outcome. */
  lease: string | null;
}

/** How an attempt ended. */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * The events a subscription stores for `events` as given: `*` alone when it is among them (it already means every
 * other one), else each once, in the order given; so what is listed is what it means.
 */
function subscribedEvents(events: EventSelector[]): string {
  return toJson(events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)]);
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The app that notifications about a user's webhooks come from (made the first time one is needed). */
export const WEBHOOKS_APP_ID = 'devdata-webhooks';

/** Makes the app that notifications about webhooks come from, in `db` (or a transaction), if it is not there yet. */
async function ensureNotifyingApp(db: Kysely<Database>): Promise<string> {
  const now = Date.now();
  await db
    .insertInto('apps')
    .values({
      id: WEBHOOKS_APP_ID,
      name: 'DevData webhooks',
      capabilities: '[]',
      external_integration: null,
      proactive_notification: null,
      // No secret: nothing can authenticate as this app.
      secret_hash: `unusable:${randomBytes(16).toString('hex')}`,
      webhook_secret: randomBytes(16).toString('hex'),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return WEBHOOKS_APP_ID;
}

function decodeWebhook(row: Row<'webhook_subscriptions'>): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: fromJson<EventSelector[]>(row.events),
    description: row.description,
    active: fromFlag(row.active),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

type DeliveryRow = Row<'webhook_deliveries'> & { event_type: string };

function decodeDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type as EventType,
    status: row.status as DeliveryStatus,
    attempt_count: row.attempt_count,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at),
    created_at: iso(row.created_at),
    delivered_at: iso(row.delivered_at),
  };
}

/** What a claim leaves out and how much it may take of each subscription and user. */
export interface ClaimLimits {
  /** Subscriptions, and users, with every attempt they may have under way. */
  busySubscriptions: readonly string[];
  busyUsers: readonly string[];
  /** Deliveries under way in this process. */
  underWay: readonly string[];
  /** The most attempts of one user at once: no more of a user's subscriptions are listed in one claim. */
  perUser: number;
  subscriptionRoom: (subscriptionId: string) => number;
  userRoom: (userId: string) => number;
}

/**
 * Up to `take` active subscriptions with a delivery due by `now`, the one due longest first, at most `perUser` of
 * one user's, leaving out the busy subscriptions and users. The subscriptions holding pending deliveries are found
 * by skipping through the pending index one subscription at a time (a loose index scan), so the cost follows how
 * many there are, not how many deliveries they hold.
 */
async function subscriptionsWithDueDeliveries(
  db: Kysely<Database>,
  now: number,
  limits: ClaimLimits,
  take: number,
): Promise<{ id: string; user_id: string }[]> {
  const { busySubscriptions, busyUsers, perUser, underWay } = limits;
  // A delivery under way is not due: on SQLite its row still reads due (a claim writes nothing there), and a
  // subscription whose only due deliveries are under way would take a place of the `take` for nothing, passing
  // over another subscription's due delivery until an attempt ends (a hanging one: its timeout).
  const notUnderWay = underWay.length > 0 ? sql`and d.id not in (${sql.join(underWay)})` : sql``;
  const notBusy =
    busySubscriptions.length > 0 ? sql`and s.id not in (${sql.join(busySubscriptions)})` : sql``;
  const notBusyUser = busyUsers.length > 0 ? sql`and s.user_id not in (${sql.join(busyUsers)})` : sql``;
  const { rows } = await sql<{ id: string; user_id: string }>`
    with recursive pending(subscription_id) as (
      select (select subscription_id from webhook_deliveries
              where status = 'pending' order by subscription_id limit 1)
      union all
      select (select d.subscription_id from webhook_deliveries d
              where d.status = 'pending' and d.subscription_id > p.subscription_id
              order by d.subscription_id limit 1)
      from pending p where p.subscription_id is not null
    )
    select id, user_id from (
      select s.id, s.user_id, due.due_at,
             row_number() over (partition by s.user_id order by due.due_at, s.id) as nth
      from (
        select p.subscription_id, (select min(d.next_attempt_at) from webhook_deliveries d
                                   where d.status = 'pending' and d.subscription_id = p.subscription_id
                                   ${notUnderWay}) as due_at
        from pending p where p.subscription_id is not null
      ) due
      join webhook_subscriptions s on s.id = due.subscription_id
      where s.active = 1 and due.due_at <= ${now} ${notBusy} ${notBusyUser}
    ) ranked
    where nth <= ${perUser}
    order by due_at, id
    limit ${take}`.execute(db);
  return rows;
}

export function webhooksRepository(db: Kysely<Database>, dialect: Dialect) {
  /** The caller's subscription row, or NotFound "Webhook" (also for another user's). */
  const findRow = (trx: Kysely<Database>, userId: string, id: string) =>
    findOwned(trx, 'webhook_subscriptions', userId, id);

  /** PostgreSQL: locks the subscription's row until `trx` ends, so what is read of it next stays as read. */
  async function lockRow(trx: Kysely<Database>, id: string): Promise<void> {
    if (dialect !== 'postgres') return;
    await trx.selectFrom('webhook_subscriptions').select('id').where('id', '=', id).forUpdate().execute();
  }

  /** findRow, for a delivery to be written for the subscription in `trx`: see keptSubscriptions. */
  async function findRowToDeliver(trx: Kysely<Database>, userId: string, id: string) {
    const row = await findRow(trx, userId, id);
    if ((await keptSubscriptions(trx, [id])).length === 0) throw new NotFound('Webhook');
    return row;
  }

  function deliveries(trx: Kysely<Database>) {
    return trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type');
  }

  async function readDelivery(trx: Kysely<Database>, id: string): Promise<WebhookDelivery> {
    return decodeDelivery(await deliveries(trx).where('d.id', '=', id).executeTakeFirstOrThrow());
  }

  return {
    /** The user's subscriptions, oldest first. */
    async list(userId: string): Promise<Webhook[]> {
      return (await allOwned(db, 'webhook_subscriptions', userId, 'created_at')).map(decodeWebhook);
    },

    async find(userId: string, id: string): Promise<Webhook> {
      return decodeWebhook(await findRow(db, userId, id));
    },

    /** A new active subscription, with its secret (which only this answer and rotateSecret show). */
    async create(userId: string, webhook: NewWebhook): Promise<Webhook & { secret: string }> {
      const now = Date.now();
      const row: Row<'webhook_subscriptions'> = {
        id: newId(now),
        user_id: userId,
        url: webhook.url,
        events: subscribedEvents(webhook.events),
        description: webhook.description ?? null,
        active: 1,
        secret: newSecret(),
        previous_secret: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      };
      await db.insertInto('webhook_subscriptions').values(row).execute();
      return { ...decodeWebhook(row), secret: row.secret };
    },

    /**
     * Changes the fields given of the caller's subscription, moving updated_at only when one of them differs from
     * what is stored (as every record's PATCH does); activating it again, or giving it another URL, also forgets
     * how long it had been failing.
     */
    async update(
      userId: string,
      id: string,
      changes: WebhookChanges,
      mayRoute: (eventTypes: readonly EventSelector[]) => void,
    ): Promise<Webhook> {
      return transaction(db, async (trx) => {
        // A new URL takes the events the subscription will have and its pending deliveries, which go to the URL
        // it has when they are sent: `mayRoute` judges all their types (it throws to refuse). PostgreSQL: FOR UPDATE
        // first, so the row and the deliveries are read as no other change can leave them before this commits: it
        // waits for the writes recording events for it now (they hold FOR KEY SHARE, and read its events under
        // that lock) and holds off new ones. SQLite runs one write at a time.
        if (changes.url !== undefined) await lockRow(trx, id);
        const current = await findRow(trx, userId, id);
        if (changes.url !== undefined) {
          const pending = await trx
            .selectFrom('webhook_deliveries as d')
            .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
            .select('e.type')
            .distinct()
            .where('d.subscription_id', '=', id)
            .where('d.status', '=', 'pending')
            .execute();
          const events = changes.events ?? fromJson<EventSelector[]>(current.events);
          mayRoute([...events, ...pending.map((row) => row.type as EventType)]);
        }
        // Resumed, or sent to another URL: the endpoint's failing is counted afresh, as its deliveries' retries are.
        const now = Date.now();
        const activated = changes.active === true && !fromFlag(current.active);
        const moved = changes.url !== undefined && changes.url !== current.url;
        const { row } = await updateChanged(
          trx,
          'webhook_subscriptions',
          current,
          {
            url: changes.url,
            events: changes.events && subscribedEvents(changes.events),
            description: changes.description,
            active: changes.active === undefined ? undefined : toFlag(changes.active),
            failing_since: activated || moved ? null : undefined,
          },
          now,
        );
        // Its pending deliveries are due at once, where each waited out the backoff of its last failed attempt
        // (up to an hour): the endpoint was fixed or replaced. Not one under way (PostgreSQL: leased; SQLite: this
        // process's worker skips its own), whose attempt records its own next time.
        if (activated || moved)
          await trx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: now })
            .where('subscription_id', '=', id)
            .where('status', '=', 'pending')
            .where('lease', 'is', null)
            .where('next_attempt_at', '>', now)
            .execute();
        return decodeWebhook(row);
      });
    },

    /**
     * Deletes the caller's subscription with its deliveries. The deliveries go first: a worker recording an
     * attempt locks its delivery and then the subscription, so deleting in that order too does not deadlock with
     * it over the deliveries there when the delete begins (the cascade from the subscription took the locks the
     * other way round). A delivery written between the two statements is taken by the cascade, where PostgreSQL
     * may still find a deadlock with an attempt on it, and abort one of the two, which then runs again.
     */
    async delete(userId: string, id: string): Promise<void> {
      await transaction(db, async (trx) => {
        await findRow(trx, userId, id);
        await trx.deleteFrom('webhook_deliveries').where('subscription_id', '=', id).execute();
        await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).execute();
      });
    },

    /**
     * A new secret; the one it replaces keeps signing (beside it) for `graceMs`. Only the secrets and updated_at are
     * written, from the row as it stands under its lock (PostgreSQL): a change committing meanwhile (the worker
     * disabling the subscription, a PATCH, another rotation) is kept, never written back as it was.
     */
    async rotateSecret(userId: string, id: string, graceMs: number): Promise<Webhook & { secret: string }> {
      return transaction(db, async (trx) => {
        await lockRow(trx, id);
        const current = await findRow(trx, userId, id);
        const now = Date.now();
        const rotated = {
          secret: newSecret(),
          previous_secret: current.secret,
          previous_secret_until: now + graceMs,
          updated_at: now,
        };
        await trx.updateTable('webhook_subscriptions').set(rotated).where('id', '=', id).execute();
        return { ...decodeWebhook({ ...current, ...rotated }), secret: rotated.secret };
      });
    },

    /** The caller's subscription's deliveries, newest first, before the position `before` when given. */
    async deliveries(
      userId: string,
      id: string,
      before: Position | undefined,
      take: number,
    ): Promise<WebhookDelivery[]> {
      await findRow(db, userId, id);
      // The event type by a subquery, not a join: the keyset names created_at and id unqualified.
      const query = db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .select((eb) =>
          eb
            .selectFrom('webhook_events')
            .select('type')
            .whereRef('webhook_events.id', '=', 'webhook_deliveries.event_id')
            .as('event_type'),
        )
        .where('subscription_id', '=', id);
      const rows = await newestBefore(query, before, take).execute();
      return rows.map((row) => decodeDelivery({ ...row, event_type: row.event_type ?? 'ping' }));
    },

    /** A new pending delivery of the same event (same event id) as the caller's delivery `deliveryId`. */
    async redeliver(
      userId: string,
      id: string,
      deliveryId: string,
      maySend: (eventType: EventType) => void,
    ): Promise<WebhookDelivery> {
      return outboxTransaction(db, async (trx) => {
        await findRowToDeliver(trx, userId, id);
        // PostgreSQL: the event is held (FOR KEY SHARE, as the copy's foreign key will hold it) from this read on,
        // so the prune, which passes over held events, cannot delete it before the copy is stored; a prune that
        // deleted it first leaves nothing to read here (a 404). SQLite runs one write at a time.
        const original = await trx
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
          .select(['d.event_id', 'e.type'])
          .where('d.id', '=', deliveryId)
          .where('d.subscription_id', '=', id)
          .$if(dialect === 'postgres', (q) => q.forKeyShare('e'))
          .executeTakeFirst();
        if (!original) throw new NotFound('Delivery');
        maySend(original.type as EventType);
        const now = Date.now();
        const copy: Row<'webhook_deliveries'> = {
          id: newId(now),
          subscription_id: id,
          event_id: original.event_id,
          status: 'pending',
          attempt_count: 0,
          last_status_code: null,
          last_error: null,
          next_attempt_at: now,
          lease: null,
          created_at: now,
          delivered_at: null,
        };
        await trx.insertInto('webhook_deliveries').values(copy).execute();
        wakeAfterCommit(trx);
        return readDelivery(trx, copy.id);
      });
    },

    /** A `ping` event to this subscription alone, whatever it subscribes to. */
    async ping(userId: string, id: string): Promise<WebhookDelivery> {
      return outboxTransaction(db, async (trx) => {
        await findRowToDeliver(trx, userId, id);
        const now = Date.now();
        const [deliveryId] = await writeEvents(trx, userId, 'ping', [{ webhook_id: id }], now, [id]);
        return readDelivery(trx, deliveryId);
      });
    },

    /**
     * Claims up to `take` due pending deliveries of active subscriptions, oldest first, at most the room left to
     * each subscription and each user, leaving out the busy ones and the deliveries under way in this process
     * (`limits`). On PostgreSQL each is
     * leased to this claim until `leaseUntil` (its next_attempt_at, so no other instance takes it meanwhile; one
     * whose instance died is due again then), rows another instance is claiming being skipped (`FOR UPDATE SKIP
     * LOCKED`). SQLite has one process, which knows what it has under way: its claim writes nothing, and after a
     * crash what was under way is due at once.
     *
     * It goes subscription by subscription, not down one queue of everything due: a dead or slow endpoint's backlog
     * stays due behind its busy subscription, and a queue would walk past all of it at every claim.
     */
    async claim(
      now: number,
      leaseUntil: number,
      take: number,
      limits: ClaimLimits,
    ): Promise<ClaimedDelivery[]> {
      if (take <= 0) return [];
      const { underWay } = limits;
      const claimIn = async (trx: Kysely<Database>): Promise<ClaimedDelivery[]> => {
        const due: { id: string; next_attempt_at: number | null }[] = [];
        const userRoom = new Map<string, number>();
        for (const subscription of await subscriptionsWithDueDeliveries(trx, now, limits, take)) {
          const userId = subscription.user_id;
          const leftForUser = userRoom.get(userId) ?? limits.userRoom(userId);
          const room = Math.min(limits.subscriptionRoom(subscription.id), leftForUser);
          if (room <= 0) continue;
          let rows = trx
            .selectFrom('webhook_deliveries')
            .select(['id', 'next_attempt_at'])
            .where('status', '=', 'pending')
            .where('subscription_id', '=', subscription.id)
            .where('next_attempt_at', '<=', now)
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(room);
          if (underWay.length > 0) rows = rows.where('id', 'not in', underWay);
          if (dialect === 'postgres') rows = rows.forUpdate().skipLocked();
          const claimable = await rows.execute();
          due.push(...claimable);
          userRoom.set(userId, leftForUser - claimable.length);
        }
        const picked = due
          .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || (a.id < b.id ? -1 : 1))
          .slice(0, take)
          .map((row) => row.id);
        if (picked.length === 0) return [];
        const lease = dialect === 'postgres' ? randomUUID() : null;
        if (lease !== null) {
          await trx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: leaseUntil, lease })
            .where('id', 'in', picked)
            .execute();
        }
        const rows = await trx
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
          .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
          .select([
            'd.id',
            'd.subscription_id',
            'd.created_at',
            'd.attempt_count',
            'e.id as event_id',
            'e.type',
            'e.data',
            'e.created_at as event_created_at',
            's.user_id',
            's.url',
            's.secret',
            's.previous_secret',
            's.previous_secret_until',
            's.updated_at as subscription_updated_at',
          ])
          .where('d.id', 'in', picked)
          .orderBy('d.next_attempt_at')
          .orderBy('d.id')
          .execute();
        return rows.map((row) => ({
          id: row.id,
          subscriptionId: row.subscription_id,
          userId: row.user_id,
          url: row.url,
          secrets:
            row.previous_secret !== null && (row.previous_secret_until ?? 0) > now
              ? [row.secret, row.previous_secret]
              : [row.secret],
          eventId: row.event_id,
          eventType: row.type as EventType,
          data: row.data,
          eventCreatedAt: row.event_created_at,
          retryFrom: Math.max(row.created_at, row.subscription_updated_at),
          attemptCount: row.attempt_count,
          lease,
        }));
      };
      return dialect === 'postgres' ? transaction(db, claimIn) : claimIn(db);
    },

    /**
     * Records how the attempt on `claimed` went, if its lease still holds: delivered; or pending again at
     * `retryAt`; or failed when `retryAt` is null. A failure marks the subscription failing (since the delivery's
     * retry window began, unless it already was) and disables it once it has been failing for `disableAfterMs`;
     * when this call disabled it, it stores `disabledNotice` in the user's inbox with it, and returns that
     * notification (so the user is told once).
     */
    async finish(
      claimed: ClaimedDelivery,
      outcome: AttemptOutcome,
      now: number,
      retryAt: number | null,
      disableAfterMs: number,
      disabledNotice: (url: string) => { title: string; text: string },
    ): Promise<{ disabled: Notification | null }> {
      return outboxTransaction(db, async (trx) => {
        const { numUpdatedRows } = await trx
          .updateTable('webhook_deliveries')
          .set({
            status: outcome.ok ? 'delivered' : retryAt === null ? 'failed' : 'pending',
            attempt_count: claimed.attemptCount + 1,
            last_status_code: outcome.statusCode,
            last_error: outcome.error,
            next_attempt_at: outcome.ok ? null : retryAt,
            delivered_at: outcome.ok ? now : null,
            lease: null,
          })
          .where('id', '=', claimed.id)
          .where('lease', claimed.lease === null ? 'is' : '=', claimed.lease)
          .executeTakeFirst();
        if (numUpdatedRows === 0n) return { disabled: null };
        if (outcome.ok) {
          await trx
            .updateTable('webhook_subscriptions')
            .set({ failing_since: null })
            .where('id', '=', claimed.subscriptionId)
            .where('failing_since', 'is not', null)
            .execute();
          return { disabled: null };
        }
        // Failing since this delivery's retry window began: its last attempt, a retry window later, then finds the
        // subscription failing for at least that long. Not when the subscription changed since the claim (resumed,
        // given a new URL, which count its failing afresh): this attempt went to it as it was; the next one counts.
        // Nor before its last success: a delivery first tried long after it was made (behind a slow endpoint's
        // backlog) that fails just after its neighbours succeeded has not been failing for its whole window, and
        // counted so it disabled the subscription at its first failed attempt. The successes are looked for only
        // when the attempt comes more than a hundredth of the disabling time after the window began (sooner, they
        // could move the start by no more than that), and among the deliveries made from one disabling time
        // before it on (a backlog is sent oldest first: the successes just before are of deliveries made about
        // when it was), so a failure of a busy subscription does not read its month of deliveries.
        const failingFrom = async () => {
          if (now - claimed.retryFrom <= disableAfterMs / 100) return claimed.retryFrom;
          const { at } = await trx
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.max('delivered_at').as('at'))
            .where('subscription_id', '=', claimed.subscriptionId)
            .where('created_at', '>=', claimed.retryFrom - disableAfterMs)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Math.max(claimed.retryFrom, Number(at ?? 0));
        };
        const subscription = await trx
          .selectFrom('webhook_subscriptions')
          .select(['failing_since', 'updated_at'])
          .where('id', '=', claimed.subscriptionId)
          .executeTakeFirst();
        if (subscription?.failing_since === null && subscription.updated_at <= claimed.retryFrom) {
          await trx
            .updateTable('webhook_subscriptions')
            .set({ failing_since: await failingFrom() })
            .where('id', '=', claimed.subscriptionId)
            .where('failing_since', 'is', null)
            .where('updated_at', '<=', claimed.retryFrom)
            .execute();
        }
        const disabled = await trx
          .updateTable('webhook_subscriptions')
          .set({ active: 0, updated_at: now })
          .where('id', '=', claimed.subscriptionId)
          .where('active', '=', 1)
          .where('failing_since', '<=', now - disableAfterMs)
          .returning('url')
          .executeTakeFirst();
        if (!disabled) return { disabled: null };
        // The user is told in the disabling transaction: a crash cannot disable the subscription untold.
        const notification = await insertNotification(trx, {
          userId: claimed.userId,
          appId: await ensureNotifyingApp(trx),
          kind: 'direct',
          ...disabledNotice(disabled.url),
          generated: false,
        });
        return { disabled: notification };
      });
    },

    /** Makes the app that notifications about webhooks come from, if it is not there yet. */
    ensureNotifyingApp: () => ensureNotifyingApp(db),

    /**
     * Deletes delivered and failed deliveries made before `before`, and the pending ones of inactive (paused or
     * disabled) subscriptions made before it too, then the events no delivery needs. A subscription left inactive
     * no longer piles up deliveries for ever, and one resumed is not sent events older than the retention; an
     * active subscription's pending deliveries are left to their retries. PostgreSQL: an event another transaction
     * holds (a redelivery about to store its copy) is passed over, not waited for: deleted after that
     * transaction, it would take the copy with it (its deliveries cascade).
     */
    async prune(before: number): Promise<void> {
      await db
        .deleteFrom('webhook_deliveries')
        .where('created_at', '<', before)
        .where((eb) =>
          eb.or([
            eb('status', 'in', ['delivered', 'failed']),
            eb.and([
              eb('status', '=', 'pending'),
              eb(
                'subscription_id',
                'in',
                eb.selectFrom('webhook_subscriptions').select('id').where('active', '=', 0),
              ),
            ]),
          ]),
        )
        .execute();
      const unneeded = db
        .selectFrom('webhook_events as e')
        .select('e.id')
        .where('e.created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d')
                .select(sql`1`.as('one'))
                .whereRef('d.event_id', '=', 'e.id'),
            ),
          ),
        )
        .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked());
      await db.deleteFrom('webhook_events').where('id', 'in', unneeded).execute();
    },
  };
}

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;

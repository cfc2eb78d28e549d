// A key without an event's read scope must never get that event sent to a URL it sets, also when its change of a
// subscription's events and URL commits in the middle of a write that is recording events (PostgreSQL, where
// writes run side by side). The write here reads the user's subscriptions, waits while the change commits, then
// records an event the subscription wanted before the change: it must not be written for it. In the other order,
// the change waits for the write and then sees its pending delivery, and is refused. SQLite runs one write at a
// time, so only PostgreSQL is shown.
import { HttpError } from '../../server/src/http/http-errors';
import type { EventSelector } from '../../server/src/contract/webhooks';
import { sql } from 'kysely';
import { outboxTransaction, recordEvents } from '../../server/src/store/db/outbox';
import { devClient, ok } from '../helpers/http';
import { forSuite, startServer, type TestServer } from '../helpers/server';

const BASE = '/v1/dev/user/webhooks';
// Loopback, on a port nothing listens on: an attempt the server makes fails, and the delivery stays pending.
const OWNER_URL = 'http://127.0.0.1:9/owner';
const OTHER_URL = 'http://127.0.0.1:9/elsewhere';

/** As the route judges a key holding no memories:read: memory events may not be routed. */
function refuseMemories(types: readonly EventSelector[]) {
  if (types.some((type) => type === '*' || type.startsWith('memory.')))
    throw new HttpError(403, 'Insufficient permissions. Required scope: memories:read');
}

describe('changing a subscription while a write records events, on postgres', () => {
  const server = forSuite<TestServer>(() => startServer('postgres'));
  const api = devClient(server);

  async function subscription(events: string[]) {
    return ok(api.post(BASE, { url: OWNER_URL, events }));
  }
  const deliveriesOf = (id: string) => server.count('webhook_deliveries', { subscription_id: id });

  test('an event the subscription no longer wants when the write locks it is not written for it', async () => {
    const made = await subscription(['memory.created', 'goal.created']);
    const userId = server.init.user_id;
    const hooks = server.app.repositories.webhooks;
    let changed!: Promise<unknown>;
    await outboxTransaction(server.store.db, async (trx) => {
      // Reads the user's subscriptions, kept for the rest of the transaction. This one does not want the event, so
      // it is not locked, and the change commits now.
      await recordEvents(trx, userId, 'conversation.created', [{ id: 'c' }], Date.now());
      changed = hooks.update(userId, made.id, { events: ['goal.created'], url: OTHER_URL }, refuseMemories);
      await changed;
      await recordEvents(trx, userId, 'memory.created', [{ id: 'm' }], Date.now());
    });
    expect(await ok(api.get(`${BASE}/${made.id}`))).toMatchObject({
      url: OTHER_URL,
      events: ['goal.created'],
    });
    expect(await deliveriesOf(made.id)).toBe(0);
    await ok(api.delete(`${BASE}/${made.id}`));
  });

  test('a change waiting for a write that recorded an event for the subscription sees its delivery and is refused', async () => {
    const made = await subscription(['memory.created']);
    const userId = server.init.user_id;
    const hooks = server.app.repositories.webhooks;
    let changed!: Promise<unknown>;
    await outboxTransaction(server.store.db, async (trx) => {
      await recordEvents(trx, userId, 'memory.created', [{ id: 'm' }], Date.now());
      // The change waits for this write's lock on the subscription; it goes on once the write commits.
      changed = hooks.update(userId, made.id, { events: ['goal.created'], url: OTHER_URL }, refuseMemories);
      changed.catch(() => undefined);
    });
    await expect(changed).rejects.toMatchObject({ statusCode: 403 });
    expect(await ok(api.get(`${BASE}/${made.id}`))).toMatchObject({
      url: OWNER_URL,
      events: ['memory.created'],
    });
    expect(await deliveriesOf(made.id)).toBe(1);
    await ok(api.delete(`${BASE}/${made.id}`));
  });
});

describe("rotating a subscription's secret while another change to it commits, on postgres", () => {
  const server = forSuite<TestServer>(() => startServer('postgres'));
  const api = devClient(server);

  /** Resolves once a statement of another transaction waits for a row lock in the test's database. */
  async function someoneWaitsForALock() {
    for (;;) {
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(server.store.db);
      if (rows[0].waiting > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  test('the rotation leaves what the other change wrote as it is', async () => {
    const made = await ok(api.post(BASE, { url: OWNER_URL, events: ['goal.created'] }));
    let rotated!: Promise<unknown>;
    await server.store.db.transaction().execute(async (trx) => {
      // What the delivery worker writes when it disables a failing subscription, on another instance say: the
      // rotation starts while it is not committed yet, and must not write the subscription back as it was.
      await trx.updateTable('webhook_subscriptions').set({ active: 0 }).where('id', '=', made.id).execute();
      rotated = server.app.repositories.webhooks.rotateSecret(server.init.user_id, made.id, 60_000);
      await someoneWaitsForALock();
    });
    await rotated;
    expect(await ok(api.get(`${BASE}/${made.id}`))).toMatchObject({ url: OWNER_URL, active: false });
  });
});

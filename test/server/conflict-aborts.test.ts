// PostgreSQL aborts a transaction to resolve a conflict with another one: a deadlock (40P01), or a serialization
// failure (40001) when an operator runs a stricter isolation level. Nothing was written, and the server runs the
// transaction again; a write that stays aborted after its retries is a 503 with Retry-After (never a 500), and no
// attempt leaves a record or an event behind. The abort is PostgreSQL's own error, raised by a trigger this test
// installs in the server's database for the writes it marks, on the attempts it chooses.
import pg from 'pg';
import { configFromEnv } from '../../server/src/config';
import { eventReceiver, type EventReceiver, type ReceivedEvent } from '../helpers/event-receiver';
import { devClient, ok } from '../helpers/http';
import { forSuite, startServer, type TestServer } from '../helpers/server';

const UNAVAILABLE = { detail: 'The database is unavailable right now; retry shortly' };
const MEMORIES = '/v1/dev/user/memories';
const WEBHOOKS = '/v1/dev/user/webhooks';

describe('PostgreSQL aborting a write over a conflict', () => {
  let database: pg.Client;
  let receiver: EventReceiver;
  // Before the server's own: closing the server drops its database, ending this connection to it.
  afterAll(async () => {
    await database?.end();
    await receiver?.close();
  });
  const server = forSuite<TestServer>(() =>
    startServer('postgres', { events: { ...configFromEnv({}).events, pollMs: 50 } }),
  );
  const api = devClient(server);

  /** The next `aborts` writes marked 'conflict:' are aborted with `code`; counting attempts starts again. */
  async function abortNext(aborts: number, code: '40P01' | '40001') {
    await database.query('update conflict_plan set aborts = $1, code = $2', [aborts, code]);
    await database.query('alter sequence conflict_attempts restart');
  }
  async function attempts(): Promise<number> {
    const { rows } = await database.query<{ n: string }>(
      'select case when is_called then last_value else 0 end as n from conflict_attempts',
    );
    return Number(rows[0].n);
  }

  beforeAll(async () => {
    database = new pg.Client({ connectionString: server.databaseUrl });
    await database.connect();
    // nextval is not rolled back with the aborted transaction, so the sequence counts every attempt.
    await database.query(`
      create sequence conflict_attempts;
      create table conflict_plan (aborts int not null, code text not null);
      insert into conflict_plan values (0, '40P01');
      create function conflict_abort() returns trigger language plpgsql as $$
      declare plan conflict_plan;
      begin
        select * into plan from conflict_plan;
        if nextval('conflict_attempts') <= plan.aborts then
          raise exception 'conflict abort (injected by the test)' using errcode = plan.code;
        end if;
        return new;
      end $$;
      create trigger conflict_abort before insert on memories for each row
        when (new.content like 'conflict:%') execute function conflict_abort();
      create trigger conflict_abort before update on webhook_subscriptions for each row
        when (new.description like 'conflict:%') execute function conflict_abort();`);
    receiver = await eventReceiver();
  });

  test.each(['40P01', '40001'] as const)(
    'a create aborted once (%s) is run again: one record, one event',
    async (code) => {
      const hook = await ok(api.post(WEBHOOKS, { url: receiver.url, events: ['memory.created'] }));
      const content = `conflict: retried after ${code}`;
      await abortNext(1, code);
      const created = (await ok(api.post(MEMORIES, { content }))) as { id: string; content: string };
      expect(created.content).toBe(content);
      expect(await attempts()).toBe(2);

      const stored = await database.query('select id from memories where content = $1', [content]);
      expect(stored.rows).toEqual([{ id: created.id }]);
      const events = await database.query(
        "select id from webhook_events where type = 'memory.created' and data::jsonb ->> 'id' = $1",
        [created.id],
      );
      expect(events.rows).toHaveLength(1);
      const ofThisMemory = (received: ReceivedEvent[]) =>
        received.filter((event) => event.body.data.id === created.id);
      const [delivered] = ofThisMemory(await receiver.until((received) => ofThisMemory(received).length > 0));
      expect(delivered.headers['webhook-id']).toBe(events.rows[0].id);
      await ok(api.delete(`${WEBHOOKS}/${(hook as { id: string }).id}`));
    },
  );

  test('a create still aborted after its retries is a 503 with Retry-After, and nothing is stored', async () => {
    const content = 'conflict: aborted every time';
    await abortNext(100, '40P01');
    const reply = await api.post(MEMORIES, { content });
    expect({ status: reply.status, body: reply.body, retryAfter: reply.headers.get('retry-after') }).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfter: '2',
    });
    expect(await attempts()).toBe(3);
    expect(await server.count('memories', { content })).toBe(0);
    expect((await api.post(MEMORIES, { content: 'conflict: over' })).status).toBe(503);
    await abortNext(0, '40P01');
    expect((await api.post(MEMORIES, { content: 'conflict: over' })).status).toBe(200);
  });

  test('a change of a webhook subscription aborted once is run again', async () => {
    const hook = (await ok(api.post(WEBHOOKS, { url: receiver.url, events: ['ping'] }))) as { id: string };
    await abortNext(1, '40P01');
    const changed = await ok(api.patch(`${WEBHOOKS}/${hook.id}`, { description: 'conflict: renamed' }));
    expect(changed).toMatchObject({ id: hook.id, description: 'conflict: renamed' });
    expect(await attempts()).toBe(2);
    expect(await ok(api.get(`${WEBHOOKS}/${hook.id}`))).toMatchObject({ description: 'conflict: renamed' });
  });
});

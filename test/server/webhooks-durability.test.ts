// Event webhooks through crashes and several instances, with `devdata-server serve` processes (run `npm run
// build` first): killed with SIGKILL during a stream of writes, ten times, every acknowledged write's event still
// arrives (at least once) and no event arrives for a write that was not stored; on PostgreSQL the kills alternate
// between two instances sharing the deliveries, which never send one event at the same time, nor twice while
// every call succeeds.
import { runCli, serveCli, type ServeProcess } from '../helpers/cli';
import { eventReceiver, type EventReceiver } from '../helpers/event-receiver';
import { client, type Client } from '../helpers/http';
import { startPair, errorsLogged } from '../helpers/instances';
import { createDatabase, DIALECTS } from '../helpers/server';

const TEST_TIMEOUT_MS = 180_000;
jest.setTimeout(TEST_TIMEOUT_MS);

/** Quick polling and retries, so a restarted server picks up at once; a lease outlives a 1 s attempt. */
const ENV = {
  DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1',
  DEVDATA_EVENT_POLL_MS: '100',
  DEVDATA_EVENT_TIMEOUT_MS: '1000',
  DEVDATA_EVENT_RETRY_BASE_MS: '100',
  DEVDATA_EVENT_RETRY_MAX_DELAY_MS: '500',
};
const KILLS = 10;
/** Instances serving the database: a SQLite file has one server; PostgreSQL, two sharing the deliveries. */
const INSTANCES = { sqlite: 1, postgres: 2 };

async function subscribe(api: Client, url: string): Promise<string> {
  const made = await api.post('/v1/dev/user/webhooks', { url, events: ['memory.created'] });
  expect(made.status).toBe(200);
  return made.body.id;
}

/** Writes memories `<prefix>-<n>` four at a time until `stop()`; returns what was acknowledged. */
function writeStream(api: () => Client, prefix: string) {
  const acknowledged: string[] = [];
  let stopped = false;
  let n = 0;
  const writer = async () => {
    while (!stopped) {
      const content = `${prefix}-${n++}`;
      try {
        const reply = await api().post('/v1/dev/user/memories', { content });
        if (reply.status === 200 || reply.status === 201) acknowledged.push(content);
      } catch {
        // The server died mid-request: not acknowledged.
      }
    }
  };
  const writers = Promise.all([writer(), writer(), writer(), writer()]);
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await writers;
    },
  };
}

/**
 * Resolves with `wait`, or fails a little before the test's own timeout would end it without a word, with what
 * `explain` says of the state (which events are missing, what the servers logged) so that a rare hang can be read.
 */
async function orExplain<T>(wait: Promise<T>, deadline: number, explain: () => Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => void explain().then((why) => reject(new Error(why)), reject),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([wait, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every memory the database holds, by content. */
async function stored(api: Client): Promise<Map<string, string>> {
  const all = await api.get('/v1/dev/user/memories', { limit: 1000 });
  expect(all.status).toBe(200);
  return new Map((all.body as { id: string; content: string }[]).map((m) => [m.content, m.id]));
}

describe.each(DIALECTS)('kill -9 during writes on %s', (dialect) => {
  let receiver: EventReceiver;
  const servers: ServeProcess[] = [];
  /** Every process started, killed ones too, for their logs. */
  const started: ServeProcess[] = [];
  let drop: () => Promise<void> = async () => undefined;
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver?.close();
    await drop();
  });

  const instances = INSTANCES[dialect];
  test(`${instances} instance(s), ${KILLS} kills: every acknowledged write's event arrived, none for a write not stored, none sent twice at once`, async () => {
    const deadline = Date.now() + TEST_TIMEOUT_MS - 15_000;
    receiver = await eventReceiver();
    const database = await createDatabase(dialect);
    drop = database.drop;
    const serve = async () => {
      const server = await serveCli(database.url, ENV);
      started.push(server);
      return server;
    };
    const made = runCli(['init', '--database', database.url, '--json']);
    expect(made.status).toBe(0);
    const key = (JSON.parse(made.stdout) as { developer_key: string }).developer_key;
    for (let n = 0; n < instances; n += 1) servers.push(await serve());
    // Writes take turns over the instances; those sent to one being killed are not acknowledged.
    let turn = 0;
    const api = () => client(servers[turn++ % instances]!.baseUrl, key);
    const subscription = await subscribe(api(), receiver.url);

    const acknowledged: string[] = [];
    let round = 0;
    const contents = () => new Set(receiver.received.map((e) => e.body.data.content as string));
    const explain = async () => {
      const missing = acknowledged.filter((content) => !contents().has(content));
      const deliveries = await api()
        .get(`/v1/dev/user/webhooks/${subscription}/deliveries`, { limit: 20 })
        .then((reply) =>
          (reply.body.deliveries as Record<string, unknown>[])
            .map((d) => `${d.status} ${d.attempt_count} ${d.last_error} next ${d.next_attempt_at}`)
            .join('; '),
        )
        .catch((error: unknown) => String(error));
      const logs = started.map(
        (server, n) => `server ${n}:\n${server.logs.slice(-30).join('')}${server.stderr.join('')}`,
      );
      return [
        `round ${round}: ${receiver.received.length} events received, ${acknowledged.length} writes acknowledged`,
        `missing events for: ${missing.slice(0, 20).join(', ')}`,
        `newest deliveries: ${deliveries}`,
        ...logs,
      ].join('\n');
    };
    for (; round < KILLS; round += 1) {
      const stream = writeStream(api, `round${round}`);
      // Kill mid-stream, once this round has had writes acknowledged and events are being sent; on PostgreSQL
      // the other instance goes on taking writes and sending events meanwhile.
      const before = receiver.received.length;
      const victim = round % instances;
      try {
        await orExplain(
          receiver.until((r) => r.length > before + 2),
          deadline,
          explain,
        );
        while (stream.acknowledged.length < 2) {
          if (Date.now() > deadline) throw new Error(await explain());
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        servers[victim]!.child.kill('SIGKILL');
        await servers[victim]!.exited;
      } finally {
        await stream.stop();
      }
      acknowledged.push(...stream.acknowledged);
      servers[victim] = await serve();
    }

    await orExplain(
      receiver.until(() => acknowledged.every((content) => contents().has(content))),
      deadline,
      explain,
    );
    const records = await stored(api());
    for (const event of receiver.received) {
      // An event only for a stored record, carrying that record.
      expect(records.get(event.body.data.content as string)).toBe(event.body.data.id);
    }
    for (const content of acknowledged) expect(records.has(content)).toBe(true);
    // At least once means a call cut off by a kill may be sent again, but never by two instances at once.
    expect([...receiver.maxConcurrentPerId.values()].every((n) => n === 1)).toBe(true);
  });
});

(DIALECTS.includes('postgres') ? describe : describe.skip)('two instances on PostgreSQL', () => {
  test('each event is sent by one instance at a time, once when every call succeeds', async () => {
    // A slow answer widens the window in which both instances could send the same event.
    const receiver = await eventReceiver(() => ({ status: 200, delayMs: 20 }));
    const pair = await startPair({ ...ENV, DEVDATA_EVENT_TIMEOUT_MS: '10000' });
    try {
      const a = client(pair.a.baseUrl, pair.init.developer_key);
      const b = client(pair.b.baseUrl, pair.init.developer_key);
      await subscribe(a, receiver.url);
      const contents: string[] = [];
      for (let n = 0; n < 100; n += 4) {
        await Promise.all(
          [0, 1, 2, 3].map(async (i) => {
            const content = `pair-${n + i}`;
            const reply = await (i % 2 === 0 ? a : b).post('/v1/dev/user/memories', { content });
            expect([200, 201]).toContain(reply.status);
            contents.push(content);
          }),
        );
      }
      await receiver.until((r) => r.length >= contents.length);
      const received = receiver.received.map((e) => e.body.data.content as string);
      expect(received.sort()).toEqual(contents.sort());
      expect(new Set(receiver.received.map((e) => e.headers['webhook-id'])).size).toBe(contents.length);
      expect([...receiver.maxConcurrentPerId.values()].every((n) => n === 1)).toBe(true);
      expect([...errorsLogged(pair.a), ...errorsLogged(pair.b)]).toEqual([]);
    } finally {
      await pair.close();
      await receiver.close();
    }
  });
});

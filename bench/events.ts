// 8. Event webhooks: how soon a change made through the API reaches a subscriber (acknowledged write to the
// receiver's arrival), alone and then for 10 minutes beside three bad subscriptions of the same user (one hangs
// until the 10 s timeout, one always answers 500, one answers after 3 s), on SQLite and PostgreSQL, with the
// server's default delivery settings (about 25 minutes in all). test/server/webhooks*.test.ts show that every event arrives and how; the timings live here.
import { eventReceiver, type EventReceiver } from '../test/helpers/event-receiver';
import { createDatabase, fixed, init, percentile, serve, table, type Dialect } from './lib';

/** Changes of mixed types, one every SPACING_MS: ALONE_CHANGES, then as many as BESIDE_MS holds. */
const ALONE_CHANGES = 100;
const BESIDE_MS = 10 * 60_000;
const SPACING_MS = 100;

/** A developer-API call that accepts any 2xx: creates answer 200 (the real service's status) or 201. */
type Request = (method: string, path: string, body?: unknown) => Promise<any>;

function developer(baseUrl: string, key: string): Request {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

/** One change of the i-th kind: a memory, an action item created then completed, a goal's progress. */
async function change(api: Request, i: number, goalId: string): Promise<void> {
  switch (i % 4) {
    case 0:
      await api('POST', '/v1/dev/user/memories', { content: `bench ${i}` });
      break;
    case 1:
      await api('POST', '/v1/dev/user/action-items', { description: `bench ${i}` });
      break;
    case 2:
      await api('PATCH', `/v1/dev/user/goals/${goalId}/progress?current_value=${i}`);
      break;
    default:
      await api('POST', '/v1/dev/user/conversations/from-segments', {
        transcript_segments: [{ text: `bench ${i}`, speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1 }],
      });
  }
}

/**
 * Latencies (ms) from each change's start to its event's arrival at `healthy`, for changes made while `more(i)`
 * (i: how many were made) holds.
 */
async function phase(
  api: Request,
  healthy: EventReceiver,
  goalId: string,
  more: (i: number) => boolean,
): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; more(i); i += 1) {
    const before = healthy.received.length;
    const startedAt = Date.now();
    await change(api, i, goalId);
    pending.push(
      healthy
        .until((r) => r.length > before)
        .then((r) => void latencies.push(r[before].receivedAt - startedAt)),
    );
    await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
  }
  await Promise.all(pending);
  return latencies;
}

async function measure(dialect: Dialect) {
  const database = await createDatabase(dialect);
  const healthy = await eventReceiver();
  const bad = await Promise.all([
    eventReceiver(() => 'hang'),
    eventReceiver(() => ({ status: 500 })),
    eventReceiver(() => ({ status: 200, delayMs: 3_000 })),
  ]);
  const { developer_key: key } = init(database.url);
  const server = await serve(database.url, {
    env: { DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1' },
    logFile: `/tmp/bench-events-${dialect}.log`,
  });
  try {
    const api = developer(server.baseUrl, key);
    const goal = (await api('POST', '/v1/dev/user/goals', { title: 'Bench', target_value: 1_000 })) as {
      id: string;
    };
    await api('POST', '/v1/dev/user/webhooks', { url: healthy.url, events: ['*'] });
    const alone = await phase(api, healthy, goal.id, (i) => i < ALONE_CHANGES);
    for (const receiver of bad)
      await api('POST', '/v1/dev/user/webhooks', { url: receiver.url, events: ['*'] });
    const besideUntil = Date.now() + BESIDE_MS;
    const beside = await phase(api, healthy, goal.id, () => Date.now() < besideUntil);
    return { alone, beside, badCalls: bad.map((r) => r.received.length) };
  } finally {
    await server.stop();
    await Promise.all([healthy, ...bad].map((r) => r.close()));
    await database.drop();
  }
}

export async function events(): Promise<string> {
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const { alone, beside, badCalls } = await measure(dialect);
    const p50 = percentile(alone, 50);
    for (const [what, values] of [
      ['alone', alone],
      [`beside hanging, failing and slow subscriptions for ${BESIDE_MS / 60_000} min`, beside],
    ] as const) {
      rows.push([
        dialect,
        what,
        values.length,
        fixed(percentile(values, 50), 0),
        fixed(percentile(values, 95), 0),
        fixed(Math.max(...values), 0),
        fixed(percentile(values, 50) / p50),
      ]);
    }
    notes.push(`${dialect}: the hanging, failing and slow receivers got ${badCalls.join(', ')} calls`);
  }
  return [
    table(['database', 'healthy subscription', 'events', 'p50 ms', 'p95 ms', 'max ms', 'p50 / alone'], rows),
    '',
    `Change made through the API (memory, action item, goal progress, conversation in turn, one every ` +
      `${SPACING_MS} ms) to its event's arrival at a receiver on 127.0.0.1; default settings (woken on commit, ` +
      `1 s poll, 2 attempts per subscription at once). ${notes.join('; ')}.`,
  ].join('\n');
}

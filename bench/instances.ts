// 7. Several instances: how soon what one instance does reaches the other, over Redis and over PostgreSQL
// LISTEN/NOTIFY. A direct notification pushed through B arriving on a stream open on A, and a key revoked
// through A refused by B, each against a plain GET round trip on B in the same run. The suites in
// test/server/instances.test.ts show that both arrive, once and in order; the timings live here.
import { newTenant, openStream, promptingWebhook, startPair, type Pair } from '../test/helpers/instances';
import { fixed, percentile, table } from './lib';

const ROUND_TRIPS = 50;
/** Direct notifications are capped at 10 per user and app in a clock hour. */
const PUSHES = 10;
const REVOCATIONS = 20;
const ENV = {
  DEVDATA_RATE_LIMIT: '1000000/60',
  // A key stays cached for a minute: only the broadcast can make B refuse it sooner.
  DEVDATA_KEY_CACHE_TTL_MS: '60000',
  DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1',
};

async function measure(pair: Pair, webhookUrl: string) {
  const tenant = await newTenant(pair, webhookUrl);
  const roundTrips: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i += 1) {
    const t0 = performance.now();
    await tenant.user(pair.b).get('/v1/dev/key');
    roundTrips.push(performance.now() - t0);
  }

  const stream = await openStream(pair.a, tenant.key);
  const fanOut: number[] = [];
  try {
    for (let i = 0; i < PUSHES; i += 1) {
      const sentAt = performance.now();
      const reply = await tenant
        .app(pair.b)
        .post(`/v2/integrations/${tenant.appId}/notification`, undefined, {
          uid: tenant.userId,
          message: `Bench ${i}`,
        });
      if (reply.status !== 200) throw new Error(`push answered ${reply.status}`);
      await stream.waitFor(fanOut.length + 1);
      fanOut.push(stream.received[fanOut.length].at - sentAt);
    }
  } finally {
    await stream.close();
  }

  const revocation: number[] = [];
  for (let i = 0; i < REVOCATIONS; i += 1) {
    const created = await pair.admin(pair.a).post(`/v1/admin/users/${tenant.userId}/keys`, { name: 'bench' });
    const onB = () =>
      fetch(`${pair.b.baseUrl}/v1/dev/key`, { headers: { authorization: `Bearer ${created.body.key}` } });
    await onB(); // cached on B
    await pair.admin(pair.a).delete(`/v1/admin/keys/${created.body.id}`);
    const revokedAt = performance.now();
    while ((await onB()).status === 200) await new Promise((resolve) => setTimeout(resolve, 1));
    revocation.push(performance.now() - revokedAt);
  }
  return { roundTrips, fanOut, revocation };
}

export async function instances(): Promise<string> {
  const webhook = await promptingWebhook();
  const rows: (string | number)[][] = [];
  try {
    for (const [transport, env] of [
      ['Redis', { ...ENV, DEVDATA_REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' }],
      ['LISTEN/NOTIFY', ENV],
    ] as const) {
      const pair = await startPair(env);
      try {
        const { roundTrips, fanOut, revocation } = await measure(pair, webhook.url);
        const get = percentile(roundTrips, 50);
        for (const [what, values] of [
          ['push through B, on A’s stream', fanOut],
          ['revoked through A, refused by B', revocation],
        ] as const) {
          rows.push([
            transport,
            what,
            values.length,
            fixed(percentile(values, 50)),
            fixed(percentile(values, 99)),
            fixed(get),
            `${fixed(percentile(values, 50) / get, 1)}×`,
          ]);
        }
      } finally {
        await pair.close();
      }
    }
  } finally {
    await webhook.close();
  }
  return table(['transport', 'what', 'n', 'p50 ms', 'p99 ms', 'GET on B p50 ms', 'p50 / GET'], rows);
}

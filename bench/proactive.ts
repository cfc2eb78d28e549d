// 5. The proactive pipeline: 50 live sessions at once, each a user posting transcript segments that go to an
// app's webhook (a loopback server here) whose reply becomes a notification pushed to a push URL (also
// loopback). Ingest → push latency, as a ratio to a plain POST in the same run; then the same while a second
// installed app's webhook hangs, which must not hold up the healthy app (p50 within 1.5×).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { client, createDatabase, fixed, init, percentile, serve, table } from './lib';

const SESSIONS = 50;
const WEBHOOK_TIMEOUT_MS = 10_000;

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
  });
}

export async function proactive(): Promise<string> {
  // The push URL: when each user's notification arrived.
  const pushed = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const push = await listen(async (request, response) => {
    await body(request);
    const user = String(request.headers['x-devdata-user']);
    pushed.set(user, performance.now());
    waiting.get(user)?.();
    response.writeHead(200).end('{}');
  });
  // The healthy app's webhook asks for a notification; the other one never answers.
  const webhooks = await listen(async (request, response) => {
    const payload = JSON.parse(await body(request)) as { session_id: string };
    if (request.url?.startsWith('/hanging')) return;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        session_id: payload.session_id,
        notification: { prompt: `Check-in for ${payload.session_id}` },
      }),
    );
  });

  const db = await createDatabase('sqlite');
  const { admin_token: adminToken } = init(db.url);
  const server = await serve(db.url, {
    env: {
      DEVDATA_ALLOW_LOOPBACK_WEBHOOKS: '1',
      DEVDATA_PUSH_URL: `${push.url}/devdata`,
      DEVDATA_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    },
  });
  try {
    const admin = client(server.baseUrl, adminToken);
    const newApp = async (name: string, path: string) =>
      (
        await admin(
          'POST',
          '/v1/admin/apps',
          {
            name,
            capabilities: ['external_integration', 'proactive_notification'],
            external_integration: {
              triggers_on: 'transcript_processed',
              webhook_url: `${webhooks.url}${path}`,
            },
            proactive_notification: { scopes: [] },
          },
          201,
        )
      ).id as string;
    const healthy = await newApp('Healthy', '/healthy');
    const hanging = await newApp('Hanging', '/hanging');

    /** SESSIONS users with keys, each with `apps` installed. */
    const users = async (apps: string[]) =>
      Promise.all(
        Array.from({ length: SESSIONS }, async (_, i) => {
          const user = await admin('POST', '/v1/admin/users', { name: `user ${i}` }, 201);
          const key = await admin(
            'POST',
            `/v1/admin/users/${user.id}/keys`,
            { name: 'bench', scopes: ['conversations:write', 'action_items:write'] },
            201,
          );
          for (const app of apps)
            await admin('POST', `/v1/admin/apps/${app}/installs`, { user_id: user.id }, 201);
          return { id: user.id as string, api: client(server.baseUrl, key.key) };
        }),
      );

    /** Every user posts segments at once; the time from each POST to its user's push. */
    const sessions = async (group: Awaited<ReturnType<typeof users>>, label: string) => {
      const latencies = await Promise.all(
        group.map(async ({ id, api }, i) => {
          const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
          const t0 = performance.now();
          await api(
            'POST',
            `/v1/dev/user/transcripts/${label}-${i}/segments`,
            {
              segments: [
                { text: 'Let us plan the launch for Friday', speaker: 'SPEAKER_00', start: 0, end: 2 },
              ],
            },
            202,
          );
          await Promise.race([
            arrived,
            new Promise((_, reject) =>
              setTimeout(() => reject(new Error(`no push for ${label}-${i}`)), 20_000),
            ),
          ]);
          return pushed.get(id)! - t0;
        }),
      );
      return latencies;
    };
    /** Every user posts an action item at once: the plain POST to compare with. */
    const plainPosts = (group: Awaited<ReturnType<typeof users>>) =>
      Promise.all(
        group.map(async ({ api }) => {
          const t0 = performance.now();
          await api('POST', '/v1/dev/user/action-items', { description: 'Plan the launch' });
          return performance.now() - t0;
        }),
      );

    const alone = await users([healthy]);
    const plain = await plainPosts(alone);
    const pipeline = await sessions(alone, 'alone');
    const beside = await users([healthy, hanging]);
    const plainBeside = await plainPosts(beside);
    const withHanging = await sessions(beside, 'beside');

    const row = (name: string, values: number[], reference: number[]) => [
      name,
      `${fixed(percentile(values, 50))} / ${fixed(percentile(values, 99))} ms`,
      `**${fixed(percentile(values, 50) / percentile(reference, 50), 1)}×**`,
    ];
    return [
      `${SESSIONS} users at once, each posting one batch of live segments; the webhook and the push URL are loopback`,
      'servers in the bench process, devdata-server (SQLite) its own process without an LLM (the filled prompt is pushed).',
      '',
      table(
        ['run', 'p50 / p99', 'p50 ratio'],
        [
          row(`plain POST (${SESSIONS} action items at once)`, plain, plain),
          row('ingest → push, one healthy app', pipeline, plain),
          row('plain POST, second round', plainBeside, plainBeside),
          row('ingest → push, beside an app whose webhook hangs', withHanging, plainBeside),
        ],
      ),
      '',
      `Healthy app's p50 beside a hanging one / alone: **${fixed(percentile(withHanging, 50) / percentile(pipeline, 50), 2)}×** (must be ≤ 1.5).`,
    ].join('\n');
  } finally {
    await webhooks.close();
    await server.stop();
    await push.close();
    await db.drop();
  }
}

// Under load the server sheds requests at once (503 with Retry-After) instead of queueing them behind a stalled
// event loop, and serves again as soon as the loop catches up.
import { devClient, postMcp, type Client } from '../helpers/http';
import { forSuite, startServer } from '../helpers/server';

/** Waits until the server answers 200 again (it shed load for at most a few samples). */
async function settled(api: Client) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await api.get('/v1/dev/user/goals');
    if (reply.status === 200) return;
    expect(reply.status).toBe(503);
    if (Date.now() > deadline) throw new Error('still shedding load after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('load shedding', () => {
  const server = forSuite(() =>
    startServer('sqlite', { maxEventLoopDelayMs: 50, loadSampleIntervalMs: 100 }),
  );

  it('answers 503 with Retry-After while the event loop lags, and 200 once it has caught up', async () => {
    const api = devClient(server);
    // Starting the server (migrations, the first requests' compilation) lags the loop too: let it settle, and
    // let the two samples after start-up pass, during which the server does not shed.
    await settled(api);
    await new Promise((resolve) => setTimeout(resolve, 250));

    // The server runs in this process: keep its event loop lagging (300 ms of synchronous work at a time, as
    // a burst of heavy requests would) until a sample sees it, and while the request is made.
    const lag = setInterval(() => {
      const until = Date.now() + 300;
      while (Date.now() < until);
    }, 10);
    let shed;
    try {
      const deadline = Date.now() + 30_000;
      while (!server.app.isUnderPressure()) {
        if (Date.now() > deadline) throw new Error('the lag was never sampled');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      shed = await api.get('/v1/dev/user/goals');
    } finally {
      clearInterval(lag);
    }
    expect({ status: shed.status, body: shed.body, retryAfter: shed.headers.get('retry-after') }).toEqual({
      status: 503,
      body: { detail: 'The server is overloaded right now; retry shortly' },
      retryAfter: '2',
    });

    await settled(api);
  });

  it('answers an MCP tool call shed under load with an unavailable tool result, other MCP requests with the 503', async () => {
    const api = devClient(server);
    await settled(api);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const post = (body: unknown) => postMcp(server, server.init.developer_key, body);
    const lag = setInterval(() => {
      const until = Date.now() + 300;
      while (Date.now() < until);
    }, 10);
    let call;
    let list;
    try {
      const deadline = Date.now() + 30_000;
      const shedding = async () => {
        while (!server.app.isUnderPressure()) {
          if (Date.now() > deadline) throw new Error('the lag was never sampled');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      await shedding();
      call = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_memory', arguments: { content: 'Not written while shedding' } },
      });
      await shedding();
      list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    } finally {
      clearInterval(lag);
    }
    expect({ status: call.status, body: call.body, retryAfter: call.headers.get('retry-after') }).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          content: [
            {
              type: 'text',
              text: 'unavailable: The server is overloaded right now; try again in a few seconds',
            },
          ],
          structuredContent: {
            error: {
              code: 'unavailable',
              message: 'The server is overloaded right now; try again in a few seconds',
            },
          },
          isError: true,
        },
      },
      retryAfter: '2',
    });
    expect({ status: list.status, body: list.body }).toEqual({
      status: 503,
      body: { detail: 'The server is overloaded right now; retry shortly' },
    });
    expect(await server.count('memories')).toBe(0);

    await settled(api);
  });
});

describe('load shedding at start-up', () => {
  // Start-up work lags the loop before the server listens; the sample that saw it must not refuse the first
  // requests of a server that is idle by then (on a busy machine a start-up easily takes longer than the limit).
  const server = forSuite(() =>
    startServer(
      'sqlite',
      { maxEventLoopDelayMs: 50, loadSampleIntervalMs: 100 },
      {
        beforeListen: async () => {
          const until = Date.now() + 400;
          while (Date.now() < until);
        },
      },
    ),
  );

  it('serves the first requests after a start that lagged the loop', async () => {
    const api = devClient(server);
    const first = [];
    for (let i = 0; i < 5; i++) first.push((await api.get('/v1/dev/user/goals')).status);
    expect(first).toEqual([200, 200, 200, 200, 200]);
  });
});

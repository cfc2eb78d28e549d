// Under load the server sheds requests at once (503 with Retry-After) instead of queueing them behind a stalled
// event loop, and serves again as soon as the loop catches up.
import { devClient, type Client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';

/** Waits until the server answers 200 again (it shed load for at most a few samples). */
async function settled(api: Client) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const reply = await api.get('/v1/dev/user/goals');
    if (reply.status === 200) return;
    expect(reply.status).toBe(503);
    if (Date.now() > deadline) throw new Error('still shedding load after 5 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('load shedding', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('sqlite', { maxEventLoopDelayMs: 50, loadSampleIntervalMs: 500 });
  });
  afterAll(() => server.close());

  it('answers 503 with Retry-After while the event loop lags, and 200 once it has caught up', async () => {
    const api = devClient(server);
    // Starting the server (migrations, the first requests' compilation) lags the loop too: let it settle.
    await settled(api);

    // The server runs in this process: stall its event loop as a burst of synchronous work would, then wait
    // for the next sample to see the lag (it may or may not be the first timer to run after the stall).
    const until = Date.now() + 1_500;
    while (Date.now() < until);
    const deadline = Date.now() + 3_000;
    while (!server.app.isUnderPressure()) {
      if (Date.now() > deadline) throw new Error('the stall was never sampled');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const shed = await api.get('/v1/dev/user/goals');
    expect({ status: shed.status, body: shed.body, retryAfter: shed.headers.get('retry-after') }).toEqual({
      status: 503,
      body: { detail: 'The server is overloaded right now; retry shortly' },
      retryAfter: '2',
    });

    await settled(api);
  });
});

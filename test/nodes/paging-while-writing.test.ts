// Get Many with Return All reads an offset-paged, newest-first list page by page: records created between two pages
// push the others down, so the next page starts with some read already. Each comes out once. The server runs a
// hook of this test between the node's page requests, as another client writing at that moment would.
import { client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';
import { jsonOut, runDevData } from './helpers';

let server: TestServer;
/** Runs before each GET the server answers, with its URL. */
let beforeRead: ((url: string) => Promise<void>) | undefined;
beforeAll(async () => {
  server = await startServer(
    'sqlite',
    {},
    {
      beforeListen: (app) => {
        app.addHook('preHandler', async (request) => {
          if (request.method === 'GET') await beforeRead?.(request.url);
        });
      },
    },
  );
});
afterAll(() => server.close());

test('Action Item → Get Many, Return All: items created between pages come out once each', async () => {
  const api = client(server.baseUrl, server.init.developer_key);
  for (let batch = 0; batch < 24; batch++) {
    const action_items = Array.from({ length: 50 }, (_, i) => ({ description: `item ${batch * 50 + i}` }));
    expect((await api.post('/v1/dev/user/action-items/batch', { action_items })).status).toBe(200);
  }
  let pages = 0;
  beforeRead = async (url) => {
    if (!url.startsWith('/v1/dev/user/action-items?')) return;
    pages++;
    // Before the second page (offset 1000): five new ones at the head push five read ones onto it.
    if (pages === 2) {
      const action_items = Array.from({ length: 5 }, (_, i) => ({ description: `meanwhile ${i}` }));
      expect((await api.post('/v1/dev/user/action-items/batch', { action_items })).status).toBe(200);
    }
  };
  const result = await runDevData(server, { resource: 'actionItem', operation: 'getAll', returnAll: true });
  beforeRead = undefined;
  const ids = jsonOut(result).map((item) => item.id);
  expect(pages).toBe(2);
  expect(new Set(ids).size).toBe(ids.length);
  // The 1,200 there when it began, each once; the five created meanwhile came before them.
  expect(ids).toHaveLength(1_200);
});

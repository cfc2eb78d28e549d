// 4. The DevData node run by n8n-core's WorkflowExecute, as n8n runs it, against devdata-server in its own
// process: 1000 input items through Create Many against Create (one request per item), and Return All over
// 100,000 screen-activity rows (time, and this process's peak heap while n8n holds the items).
import type { INodeParameters } from 'n8n-workflow';
import { devDataWorkflow, runWorkflow, type TestCredentials } from '../test/nodes/helpers';
import { client, createDatabase, fixed, init, serve, table, timed } from './lib';

const ITEMS = 1000;
const SCREEN_ROWS = Number(process.env.BENCH_SCREEN_ROWS ?? 100_000);

async function run(credentials: TestCredentials, parameters: INodeParameters, items?: object[]) {
  const result = await runWorkflow(devDataWorkflow(parameters, { items }), credentials);
  if (result.error) throw new Error(`the workflow failed: ${result.error.message}`);
  return result.output('DevData');
}

export async function nodeInN8n(): Promise<string> {
  const db = await createDatabase('sqlite');
  const { developer_key: apiKey } = init(db.url);
  const server = await serve(db.url);
  try {
    const credentials = { devDataApi: { baseUrl: server.baseUrl, apiKey } } as unknown as TestCredentials;
    const items = Array.from({ length: ITEMS }, (_, i) => ({ task: `task ${i}` }));
    const create = { resource: 'actionItem', description: '={{ $json.task }}' };
    const perItem = await timed(() => run(credentials, { ...create, operation: 'create' }, items));
    const many = await timed(() => run(credentials, { ...create, operation: 'createMany' }, items));
    for (const output of [perItem.value, many.value]) {
      if (output.length !== ITEMS) throw new Error(`${output.length} items out of ${ITEMS}`);
    }

    const api = client(server.baseUrl, apiKey);
    const start = Date.UTC(2026, 0, 1);
    for (let offset = 0; offset < SCREEN_ROWS; offset += 1000) {
      const screen_activity = Array.from({ length: Math.min(1000, SCREEN_ROWS - offset) }, (_, i) => ({
        timestamp: new Date(start + (offset + i) * 1000).toISOString(),
        app_name: 'Code',
        window_title: `window ${offset + i}`,
        ocr_text: 'x'.repeat(200),
      }));
      await api('POST', '/v1/dev/user/screen-activity', { screen_activity });
    }
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 5);
    const all = await timed(() =>
      run(credentials, { resource: 'screenActivity', operation: 'getAll', returnAll: true }),
    );
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    clearInterval(sampler);
    if (all.value.length !== SCREEN_ROWS)
      throw new Error(`Return All gave ${all.value.length} of ${SCREEN_ROWS}`);
    const mb = (bytes: number) => `${fixed(bytes / 2 ** 20, 0)} MB`;
    return [
      'WorkflowExecute (n8n-core 2.41) running Manual Trigger → DevData; devdata-server on SQLite, its own process.',
      '',
      table(
        ['run', 'wall time', 'ratio'],
        [
          [`${ITEMS} items, Create (one request each)`, `${fixed(perItem.ms, 0)} ms`, ''],
          [
            `${ITEMS} items, Create Many (batches of 50)`,
            `${fixed(many.ms, 0)} ms`,
            `**${fixed(perItem.ms / many.ms, 1)}× faster**`,
          ],
          [
            `Return All over ${SCREEN_ROWS} screen rows`,
            `${fixed(all.ms, 0)} ms`,
            `peak heap **${mb(peak)}** (${mb(baseline)} before, sampled every 5 ms)`,
          ],
        ],
      ),
    ].join('\n');
  } finally {
    await server.stop();
    await db.drop();
  }
}

// The random two-way sync test for the examples that sync action items with a counterpart (an n8n Data Table, a
// PostgreSQL table), run in a real n8n against a devdata-server: random changes on both sides between the
// workflow's runs (creates, completions, description and due-date edits and clears, deletes, and both sides
// editing the same item), then both sides must hold the same items, once each, and the sync must have written no
// more than the changes plus a small constant (no echo).
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  devdataApi,
  n8nCredentials,
  n8nRequire,
  n8nSession,
  prepareN8n,
  Processes,
  startDevdataServer,
  tail,
  waitFor,
  type DevdataServer,
  type N8nInstance,
  E2E_OWNER,
} from './harness.ts';

const WRITE_NODES = [
  'Add row',
  'Update row',
  'Delete row',
  'Create in DevData',
  'Update in DevData',
  'Delete in DevData',
];
const WINDOWS = 8;
const CHANGES_PER_WINDOW = 80;
/** Writes the sync may make beyond one per change: none are expected; a little slack for a run that races a change. */
const WRITE_SLACK = 5;

const owner = E2E_OWNER;

/** The fields both sides hold. */
export interface Fields {
  description: string;
  completed: boolean;
  due_at: string | null;
}

/** The other side of the sync, as the test changes and reads it. */
export interface Side {
  /** Every row, each with `id`, the Fields and `devdata_id`. */
  rows(): Promise<any[]>;
  insert(fields: Fields): Promise<void>;
  update(id: number, fields: Partial<Fields>): Promise<void>;
  remove(id: number): Promise<void>;
}

export interface Counterpart {
  /** The example's file name in examples/ and its workflow id. */
  example: string;
  workflowId: string;
  /** n8n credentials besides DevData's, with the ids the example uses (made before n8n starts). */
  credentials(): Promise<unknown[]>;
  /** The user's set-up step besides the credentials (creating the table); n8n's REST API as the owner. */
  setUp(rest: Rest): Promise<Side>;
  /** Run after the processes stopped. */
  tearDown?(): Promise<void>;
}

export type Rest = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * The suite for one example: a devdata-server and an n8n with the example imported unchanged (only credentials
 * filled in) and published; the test makes random changes on both sides between the workflow's runs.
 */
export function syncSuite(counterpart: Counterpart): void {
  const processes = new Processes();
  const workDir = mkdtempSync(join(tmpdir(), 'devdata-e2e-sync-'));
  let devdata: DevdataServer;
  let n8n: N8nInstance;
  /** Set by the first test: n8n's REST API as the owner, and the other side it set up. */
  let setUp: { rest: Rest; side: Side } | undefined;

  beforeAll(async () => {
    devdata = await startDevdataServer(processes, workDir, {
      env: { DEVDATA_RATE_LIMIT: '1000000/60', DEVDATA_MAX_EVENT_LOOP_DELAY_MS: '0' },
    });
    const workflowsDir = join(workDir, 'workflows');
    mkdirSync(workflowsDir);
    const file = join(workflowsDir, counterpart.example);
    copyFileSync(join('examples', counterpart.example), file);
    n8n = await prepareN8n(processes, {
      workDir,
      credentials: [
        ...n8nCredentials(devdata.baseUrl, devdata.credentials),
        ...(await counterpart.credentials()),
      ],
      workflowFiles: [file],
      publish: [counterpart.workflowId],
      owner,
    });
    await n8n.start();
  }, 900_000);

  afterAll(async () => {
    await processes.stopAll();
    await counterpart.tearDown?.();
  });

  /** Every action item on the server. */
  const actionItems = async (): Promise<any[]> => {
    const all: any[] = [];
    for (;;) {
      const page = await devdataApi(devdata, `/v1/dev/user/action-items?limit=1000&offset=${all.length}`);
      all.push(...page.body);
      if (page.body.length < 1000) return all;
    }
  };
  /** Executions of the workflow that have finished, oldest first. */
  const finishedRuns = async (rest: Rest) => {
    const filter = encodeURIComponent(JSON.stringify({ workflowId: counterpart.workflowId }));
    const page = await rest('GET', `/executions?filter=${filter}&limit=100`);
    return (page.results as Array<{ id: string; status: string }>)
      .filter((e) => !['new', 'running', 'waiting'].includes(e.status))
      .sort((a, b) => Number(a.id) - Number(b.id));
  };
  /** Waits for the next run of the workflow to finish (the schedule's runs are 10 s apart). */
  const nextScheduledRun = async (rest: Rest) => {
    const before = (await finishedRuns(rest)).length;
    await waitFor(
      'the next sync run',
      async () => ((await finishedRuns(rest)).length > before ? true : undefined),
      40_000,
    );
  };

  test('500+ random changes on both sides over several runs: both sides end equal, no echo', async () => {
    const started = Date.now();
    try {
      const { rest } = await n8nSession(n8n, owner);
      const side = await counterpart.setUp(rest);
      setUp = { rest, side };
      const items = actionItems;
      const finished = () => finishedRuns(rest);
      const nextRun = () => nextScheduledRun(rest);

      // Deterministic randomness, so a failure can be replayed.
      let seed = 17;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
      let serial = 0;
      const description = (side: string) => `${side} task ${++serial}`;
      const dueAt = () =>
        random() < 0.3 ? null : new Date(Date.UTC(2027, 0, 1 + Math.floor(random() * 300), 9)).toISOString();
      const edit = (current: Fields): Partial<Fields> => {
        const kind = pick(['complete', 'describe', 'due']);
        if (kind === 'complete') return { completed: !current.completed };
        if (kind === 'describe') return { description: description('edited') };
        return { due_at: current.due_at === null ? (dueAt() ?? '2027-06-01T09:00:00.000Z') : null };
      };

      let changes = 0;
      const counts: Record<string, number> = {};
      const did = (kind: string, n = 1) => {
        counts[kind] = (counts[kind] ?? 0) + n;
        changes += n;
      };
      await nextRun(); // the table exists now: the first full run starts from both sides as they are
      for (let window = 0; window < WINDOWS; window++) {
        const [devItems, tableRows] = await Promise.all([items(), side.rows()]);
        const byDevdataId = new Map(tableRows.filter((r) => r.devdata_id).map((r) => [r.devdata_id, r]));
        const touched = new Set<string>();
        for (let i = 0; i < CHANGES_PER_WINDOW; i++) {
          const roll = random();
          const item = devItems.length ? pick(devItems) : undefined;
          const row = tableRows.length ? pick(tableRows) : undefined;
          if (roll < 0.2 || !item || !row) {
            const fields = {
              description: description('devdata'),
              completed: random() < 0.3,
              due_at: dueAt(),
            };
            const created = await devdataApi(devdata, '/v1/dev/user/action-items', {
              method: 'POST',
              body: fields,
            });
            expect(created.status).toBe(200);
            did('devdata create');
          } else if (roll < 0.35) {
            await side.insert({
              description: description('table'),
              completed: random() < 0.3,
              due_at: dueAt(),
            });
            did('table create');
          } else if (touched.has(`d${item.id}`) || touched.has(`t${row.id}`)) {
            continue; // one change per record and window keeps the count of changes exact
          } else if (roll < 0.55) {
            touched.add(`d${item.id}`);
            const reply = await devdataApi(devdata, `/v1/dev/user/action-items/${item.id}`, {
              method: 'PATCH',
              body: edit(item),
            });
            expect(reply.status).toBe(200);
            did('devdata edit');
          } else if (roll < 0.75) {
            touched.add(`t${row.id}`);
            await side.update(row.id, edit(row));
            did('table edit');
          } else if (
            roll < 0.85 &&
            byDevdataId.has(item.id) &&
            !touched.has(`t${byDevdataId.get(item.id).id}`)
          ) {
            // Both sides edit the same item between two runs: the later edit wins, whole record.
            const linked = byDevdataId.get(item.id);
            touched.add(`d${item.id}`).add(`t${linked.id}`);
            await devdataApi(devdata, `/v1/dev/user/action-items/${item.id}`, {
              method: 'PATCH',
              body: { description: description('devdata side of a conflict') },
            });
            await side.update(linked.id, {
              description: description('table side of a conflict'),
              completed: !linked.completed,
            });
            did('both sides edit one item', 2);
          } else if (roll < 0.93) {
            touched.add(`d${item.id}`);
            expect(
              (await devdataApi(devdata, `/v1/dev/user/action-items/${item.id}`, { method: 'DELETE' }))
                .status,
            ).toBe(200);
            did('devdata delete');
          } else {
            touched.add(`t${row.id}`);
            await side.remove(row.id);
            did('table delete');
          }
        }
        await nextRun();
      }
      // Settle: two more runs with nothing changing.
      await nextRun();
      await nextRun();

      const normal = (x: any): Fields => ({
        description: x.description,
        completed: x.completed === true,
        due_at: x.due_at ? new Date(x.due_at).toISOString() : null,
      });
      const [devItems, tableRows] = await Promise.all([items(), side.rows()]);
      const key = (f: Fields) => JSON.stringify(f);
      const devdataSide = devItems.map((i) => key(normal(i))).sort();
      const tableSide = tableRows.map((r) => key(normal(r))).sort();
      expect(tableSide).toEqual(devdataSide);
      // No duplicates: every description is made once, so each appears once on each side.
      expect(new Set(devItems.map((i) => i.description)).size).toBe(devItems.length);
      expect(devItems.length).toBeGreaterThan(50);

      // The sync's writes, from the executions n8n stored: the items its six write nodes returned.
      let writes = 0;
      const runs = await finished();
      for (const { id } of runs) {
        const execution = await rest('GET', `/executions/${id}`);
        const { runData } = n8nRequire('flatted').parse(execution.data).resultData;
        for (const name of WRITE_NODES)
          for (const nodeRun of runData[name] ?? []) writes += nodeRun.data?.main?.[0]?.length ?? 0;
      }
      expect(changes).toBeGreaterThanOrEqual(500);
      expect(writes).toBeLessThanOrEqual(changes + WRITE_SLACK);
      console.log(
        `${changes} changes (${JSON.stringify(counts)}), ${writes} sync writes, ${runs.length} runs, ` +
          `${devItems.length} items on each side, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    } catch (error) {
      console.error(
        `--- n8n log ---\n${tail(n8n.logFile)}\n--- devdata-server log ---\n${tail(devdata.logFile, 20)}`,
      );
      throw error;
    }
  }, 300_000);

  test('a run by hand (Execute workflow) writes nothing and says to publish: the published runs sync without duplicates', async () => {
    // n8n keeps static data only for a published workflow's runs: what a run by hand wrote would not be in the id
    // map, so the next published run would link both sides again (the row and the action item twice).
    if (!setUp) throw new Error('the test before sets up the other side');
    const { rest, side } = setUp;
    const description = 'made just before a run by hand';
    const created = await devdataApi(devdata, '/v1/dev/user/action-items', {
      method: 'POST',
      body: { description, completed: false, due_at: null },
    });
    expect(created.status).toBe(200);
    const workflowData = await rest('GET', `/workflows/${counterpart.workflowId}`);
    const { executionId } = await rest('POST', `/workflows/${counterpart.workflowId}/run`, {
      workflowData,
      triggerToStartFrom: { name: 'Every 10 seconds' },
    });
    const execution = await waitFor(
      'the run by hand',
      async () => {
        const found = await rest('GET', `/executions/${executionId}`);
        return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
      },
      60_000,
    );
    const { runData, error } = n8nRequire('flatted').parse(execution.data).resultData;
    expect(execution.status).toBe('error');
    expect(error.message).toMatch(/^Publish this workflow instead of running it by hand/);
    for (const name of WRITE_NODES) expect(runData[name]).toBeUndefined();
    // The published runs carry the new item over once.
    await nextScheduledRun(rest);
    await nextScheduledRun(rest);
    expect((await actionItems()).filter((i) => i.description === description)).toHaveLength(1);
    expect((await side.rows()).filter((r) => r.description === description)).toHaveLength(1);
  }, 180_000);
}

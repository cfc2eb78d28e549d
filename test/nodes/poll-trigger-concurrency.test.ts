// The DevData Poll Trigger while the user keeps writing, through n8n-core (helpers/polling.ts) against the real
// server on each database: writers create (one and in batches), edit and delete action items while New, Updated
// and Deleted Action Item poll; a transaction held open on the database holds a write half-done while later
// writes queue behind it and polls run (on PostgreSQL it begins before writes that commit ahead of it); n8n
// restarts between polls from the static data it saved (with its default of saving only after activation and
// when a poll emits). Every change must come through once, in order.
import {
  currentState,
  expectEveryChangeOnce,
  heldWrite,
  overtakenWrites,
  startWriters,
  type ActionItemRecord,
  type Tombstone,
} from '../helpers/action-item-changes';
import { newUser } from '../helpers/http';
import { DIALECTS, forSuite } from '../helpers/server';
import { credentialsFor, startNodeTestServer } from './helpers';
import { activePollingWorkflow, type ActivePollingWorkflow } from './helpers/polling';

/** 1,300 creations, 500 edits, 300 deletions, and the held writes on top. */
const PLAN = { create: 1300, update: 500, delete: 300 };
/** How long the test holds a write's transaction open, and the time between the end of one and the next. */
const HOLD_MS = 300;
const HOLD_GAP_MS = 700;
/** The least time between two polling rounds (a poll that finds nothing returns at once on PostgreSQL). */
const ROUND_MS = 50;
/** Every this many rounds, n8n restarts instead of polling. */
const RESTART_EVERY = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('%s: the poll trigger under concurrent writes and restarts', (dialect) => {
  const server = forSuite(() => startNodeTestServer({}, { dialect }));

  test(`${PLAN.create + PLAN.update + PLAN.delete}+ changes while New, Updated and Deleted poll: each once, in order`, async () => {
    const user = await newUser(server);
    const credentials = credentialsFor(server, user.key);
    const triggers: Record<'created' | 'updated' | 'deleted', ActivePollingWorkflow> = {
      created: activePollingWorkflow({ event: 'newActionItem' }, credentials),
      updated: activePollingWorkflow({ event: 'updatedActionItem' }, credentials),
      deleted: activePollingWorkflow({ event: 'deletedActionItem' }, credentials),
    };
    for (const trigger of Object.values(triggers)) await trigger.activate();

    let writing = true;
    const writers = startWriters(user.client, PLAN).finally(() => {
      writing = false;
    });
    const held: Array<Promise<{ began: number; stamp: number }>> = [];
    let holding = false;
    let heldEnded = 0;
    let rounds = 0;
    let restarts = 0;
    /** Polls every trigger once (or restarts n8n), starting a held write now and then; true if any emitted. */
    const pollAll = async () => {
      if (writing && !holding && Date.now() - heldEnded >= HOLD_GAP_MS) {
        holding = true;
        held.push(
          heldWrite(server.store.db, user.id, `held ${held.length}`, HOLD_MS, {
            startEarly: dialect === 'postgres',
          }).finally(() => {
            holding = false;
            heldEnded = Date.now();
          }),
        );
      }
      const restart = rounds % RESTART_EVERY === RESTART_EVERY - 1;
      if (restart) restarts += 1;
      rounds += 1;
      let emitted = false;
      for (const trigger of Object.values(triggers)) {
        const tick = restart ? await trigger.restart() : await trigger.tick();
        if (tick.error) throw tick.error;
        emitted ||= tick.items !== null;
      }
      return emitted;
    };
    while (writing) await Promise.all([pollAll(), sleep(ROUND_MS)]);
    await writers;
    const heldWrites = await Promise.all(held);
    // Every write has committed: poll until a whole round reports nothing.
    while (await pollAll());

    const emitted = (trigger: ActivePollingWorkflow) => trigger.emitted().flat();
    const now = await currentState(user.client);
    if (dialect === 'postgres') expect(overtakenWrites(heldWrites, now)).toBeGreaterThan(0);
    expectEveryChangeOnce(
      {
        created: emitted(triggers.created) as ActionItemRecord[],
        updated: emitted(triggers.updated) as ActionItemRecord[],
        deleted: emitted(triggers.deleted) as unknown as Tombstone[],
      },
      now,
      { records: PLAN.create + held.length, edits: PLAN.update, deletions: PLAN.delete },
    );
    expect(restarts).toBeGreaterThanOrEqual(2);
    expect(held.length).toBeGreaterThanOrEqual(2);
    // 2,100 writes and the polls beside them: under a minute on a quiet machine, seen past two on a busy one.
  }, 600_000);
});

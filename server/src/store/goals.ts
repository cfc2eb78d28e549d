// Goals with their history (the value per UTC day): every query, and how a row reads back. Goals are never
// deleted: abandoning one is an update.
import type { Kysely } from 'kysely';
import type { GoalSource, GoalStatus, GoalType, GoalValues } from '../contract/goals';
import { newId } from '../ids';
import { userWrite } from './db/write-clock';
import { asksForChanges, inFeedOrder, type FeedQuery } from './db/paging';
import { findOwned, insertRows, updateChanged, type Row } from './db/records';
import { Conflict } from './db/store-errors';
import { recordEvents } from './db/outbox';
import { fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';

const DAY_MS = 86_400_000;

/** Statuses in which a goal counts as inactive (`is_active: false`), left out of the default list. */
const INACTIVE_STATUSES: readonly string[] = ['achieved', 'abandoned'] satisfies GoalStatus[];

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the key of a goal's history entry. */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface Goal {
  id: string;
  goal_id: string;
  title: string;
  desired_outcome: string;
  goal_type: GoalType;
  source: GoalSource;
  status: GoalStatus;
  is_active: boolean;
  current_value: number;
  target_value: number;
  min_value: number;
  max_value: number;
  created_at: string;
  updated_at: string;
  focus_rank: number | null;
  horizon_at: string | null;
  metric: { type: GoalType; current: number; target: number; min: number; max: number; unit?: string };
  success_criteria: string[];
  unit: string | null;
  why_it_matters: string | null;
}

export interface NewGoal extends GoalValues {
  title: string;
  desired_outcome: string;
  goal_type: GoalType;
  source: GoalSource;
  status: GoalStatus;
  unit?: string | null;
  focus_rank?: number | null;
  /** Epoch ms. */
  horizon_at?: number | null;
  success_criteria: string[];
  why_it_matters?: string | null;
}

/** The fields to change; absent ones stay, null clears. */
export type GoalChanges = Partial<Omit<NewGoal, 'goal_type' | 'source'>>;

export interface GoalFilter extends FeedQuery {
  /** Absent: achieved and abandoned goals are left out, unless the query asks for changes. */
  include_inactive?: boolean;
  limit: number;
  /** How many to skip (the MCP tool pages by it; the REST list has no offset). */
  offset?: number;
}

/** One day's entry of a goal's history: the day's last value. */
export interface GoalHistoryEntry {
  date: string;
  value: number;
  recorded_at: string;
}

function decodeGoal(row: Row<'goals'>): Goal {
  const type = row.goal_type as GoalType;
  return {
    id: row.id,
    goal_id: row.id,
    title: row.title,
    desired_outcome: row.desired_outcome,
    goal_type: type,
    source: row.source as GoalSource,
    status: row.status as GoalStatus,
    is_active: !INACTIVE_STATUSES.includes(row.status),
    current_value: row.current_value,
    target_value: row.target_value,
    min_value: row.min_value,
    max_value: row.max_value,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    focus_rank: row.focus_rank,
    horizon_at: iso(row.horizon_at),
    metric: {
      type,
      current: row.current_value,
      target: row.target_value,
      min: row.min_value,
      max: row.max_value,
      ...(row.unit !== null ? { unit: row.unit } : {}),
    },
    success_criteria: fromJson<string[]>(row.success_criteria),
    unit: row.unit,
    why_it_matters: row.why_it_matters,
  };
}

/** Records `value` as the goal's entry for the UTC day of `at` (replacing that day's earlier one). */
async function recordHistory(trx: Kysely<Database>, goalId: string, value: number, at: number) {
  await trx
    .insertInto('goal_history')
    .values({ goal_id: goalId, day: utcDay(at), value, recorded_at: at })
    .onConflict((oc) => oc.columns(['goal_id', 'day']).doUpdateSet({ value, recorded_at: at }))
    .execute();
}

/** Progress is not recorded on an abandoned goal (the real service deletes it: there it is a 404). */
const abandonedProgress = (id: string) =>
  new Conflict(`Goal ${id} is abandoned: give it another status before recording progress`);

/** Nor by the change that abandons it. */
const progressWhileAbandoning = (id: string) =>
  new Conflict(
    `Goal ${id} is being abandoned: progress cannot be recorded in the same change; record it first, or leave current_value as it is`,
  );

export function goalsRepository(db: Kysely<Database>) {
  return {
    /** Newest created first, or with order=updated_at the changes since a point. */
    async list(userId: string, filter: GoalFilter): Promise<Goal[]> {
      let query = db.selectFrom('goals').selectAll().where('user_id', '=', userId);
      if (!(filter.include_inactive ?? asksForChanges(filter)))
        query = query.where('status', 'not in', INACTIVE_STATUSES);
      const rows = await inFeedOrder(query, filter)
        .limit(filter.limit)
        .offset(filter.offset ?? 0)
        .execute();
      return rows.map(decodeGoal);
    },

    /** The caller's goal (active or not), or NotFound "Goal". */
    async findOwned(userId: string, id: string): Promise<Goal> {
      return decodeGoal(await findOwned(db, 'goals', userId, id));
    },

    /** A new goal, its current value recorded as the first history entry. */
    async create(userId: string, goal: NewGoal): Promise<Goal> {
      const row = await userWrite(db, userId, async (trx, now) => {
        const created: Row<'goals'> = {
          id: newId(now),
          user_id: userId,
          title: goal.title,
          desired_outcome: goal.desired_outcome,
          goal_type: goal.goal_type,
          source: goal.source,
          status: goal.status,
          min_value: goal.min_value,
          max_value: goal.max_value,
          target_value: goal.target_value,
          current_value: goal.current_value,
          unit: goal.unit ?? null,
          focus_rank: goal.focus_rank ?? null,
          horizon_at: goal.horizon_at ?? null,
          success_criteria: toJson(goal.success_criteria),
          why_it_matters: goal.why_it_matters ?? null,
          created_at: now,
          updated_at: now,
        };
        await insertRows(trx, 'goals', [created]);
        await recordHistory(trx, created.id, created.current_value, now);
        await recordEvents(trx, userId, 'goal.created', [decodeGoal(created)], now);
        return created;
      });
      return decodeGoal(row);
    },

    /**
     * Changes the caller's goal; only a changed value moves updated_at, and a changed current value is also
     * today's history entry.
     */
    async update(userId: string, id: string, changes: GoalChanges): Promise<Goal> {
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, id);
        // Its other fields may change (a status brings it back), but not its progress while it is, or becomes,
        // abandoned.
        const endsAbandoned = (changes.status ?? current.status) === 'abandoned';
        if (
          endsAbandoned &&
          changes.current_value !== undefined &&
          changes.current_value !== current.current_value
        )
          throw current.status === 'abandoned' ? abandonedProgress(id) : progressWhileAbandoning(id);
        const values: GoalValues = {
          min_value: changes.min_value ?? current.min_value,
          max_value: changes.max_value ?? current.max_value,
          target_value: changes.target_value ?? current.target_value,
          current_value: changes.current_value ?? current.current_value,
        };
        const { row, changed } = await updateChanged(
          trx,
          'goals',
          current,
          {
            ...values,
            title: changes.title,
            desired_outcome: changes.desired_outcome,
            status: changes.status,
            unit: changes.unit,
            focus_rank: changes.focus_rank,
            horizon_at: changes.horizon_at,
            success_criteria:
              changes.success_criteria === undefined ? undefined : toJson(changes.success_criteria),
            why_it_matters: changes.why_it_matters,
          },
          at,
        );
        if (changed.current_value !== undefined) await recordHistory(trx, row.id, row.current_value, at);
        const updated = decodeGoal(row);
        if (Object.keys(changed).length > 0) await recordEvents(trx, userId, 'goal.updated', [updated], at);
        return updated;
      });
    },

    /**
     * Sets the caller's goal's current value and records it as today's history entry, even when unchanged (a
     * report is a measurement).
     */
    async reportProgress(userId: string, id: string, value: number): Promise<Goal> {
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, id);
        if (current.status === 'abandoned') throw abandonedProgress(id);
        const { row } = await updateChanged(trx, 'goals', current, { current_value: value }, at);
        await recordHistory(trx, row.id, row.current_value, at);
        const reported = decodeGoal(row);
        await recordEvents(trx, userId, 'goal.progress_recorded', [reported], at);
        return reported;
      });
    },

    /** The caller's goal's value per UTC day over the last `days` days up to today, oldest first. */
    async history(userId: string, id: string, days: number): Promise<GoalHistoryEntry[]> {
      const { id: goalId } = await findOwned(db, 'goals', userId, id, ['id']);
      const now = Date.now();
      // `YYYY-MM-DD` strings order as the days they name.
      const rows = await db
        .selectFrom('goal_history')
        .selectAll()
        .where('goal_id', '=', goalId)
        .where('day', '>=', utcDay(now - (days - 1) * DAY_MS))
        .where('day', '<=', utcDay(now))
        .orderBy('day', 'asc')
        .execute();
      return rows.map((r) => ({ date: r.day, value: r.value, recorded_at: iso(r.recorded_at) }));
    },

    /** Abandons the caller's goal; abandoning an abandoned one changes nothing. */
    async abandon(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, id);
        const { row, changed } = await updateChanged(trx, 'goals', current, { status: 'abandoned' }, at);
        if (Object.keys(changed).length > 0)
          await recordEvents(trx, userId, 'goal.updated', [decodeGoal(row)], at);
      });
    },
  };
}

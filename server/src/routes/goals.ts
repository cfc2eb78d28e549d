import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Selectable } from 'kysely';
import { callerId } from '../auth/hooks';
import { asksForChanges, changedAfter, checkFeedQuery } from '../change-feed';
import { changeFeedDescription } from '../contract/changes';
import { errors, idParam, iso, success, type ValidationIssue } from '../contract/common';
import {
  createGoalBody,
  goal,
  goalHistory,
  historyQuery,
  INACTIVE_STATUSES,
  listGoalsQuery,
  progressQuery,
  updateGoalBody,
  type GoalSource,
  type GoalStatus,
  type GoalType,
} from '../contract/goals';
import { UnprocessableError } from '../errors';
import { newId } from '../ids';
import { findOwned } from '../store/owned';
import { userWrite } from '../store/changes';
import type { Database, GoalsTable } from '../store/schema';

const tags = ['Goals'];
const params = idParam('goal_id');
const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the key of a goal's history entry. */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function toGoal(row: Selectable<GoalsTable>) {
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
    success_criteria: JSON.parse(row.success_criteria) as string[],
    unit: row.unit,
    why_it_matters: row.why_it_matters,
  };
}

type Values = Pick<GoalsTable, 'min_value' | 'max_value' | 'target_value' | 'current_value'>;
type ValueField = keyof Values;

/**
 * Cross-field checks of a goal's numbers: min ≤ max, and target and current within [min, max]. Each issue is
 * located at the first of its fields the request sent (the one the caller most likely got wrong).
 */
function valueIssues(v: Values, sent: ReadonlySet<string>): ValidationIssue[] {
  const at = (fields: ValueField[]) => ['body', fields.find((f) => sent.has(f)) ?? fields[0]];
  if (v.min_value > v.max_value) {
    return [
      {
        loc: at(['min_value', 'max_value']),
        msg: `min_value (${v.min_value}) must not be greater than max_value (${v.max_value})`,
        type: 'value_error',
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  for (const field of ['target_value', 'current_value'] as const) {
    if (v[field] < v.min_value || v[field] > v.max_value) {
      issues.push({
        loc: at([field, 'min_value', 'max_value']),
        msg: `${field} (${v[field]}) must be between min_value (${v.min_value}) and max_value (${v.max_value})`,
        type: 'value_error',
      });
    }
  }
  return issues;
}

const sentFields = (body: object) =>
  new Set(Object.entries(body).flatMap(([k, value]) => (value === undefined ? [] : [k])));

/** The numbers of a new goal: what was sent, with defaults by goal type. */
function initialValues(body: Pick<Partial<Values>, ValueField> & { goal_type: GoalType }): Values {
  const { goal_type, target_value, current_value, min_value, max_value } = body;
  if (goal_type === 'numeric') {
    if (target_value === undefined) {
      throw UnprocessableError.at(['body', 'target_value'], 'Field required for a numeric goal', 'missing');
    }
    const min = min_value ?? 0;
    const current = current_value ?? min;
    return {
      min_value: min,
      current_value: current,
      target_value,
      max_value: max_value ?? Math.max(target_value, current),
    };
  }
  const min = min_value ?? 0;
  const max = max_value ?? (goal_type === 'boolean' ? 1 : 10);
  return {
    min_value: min,
    max_value: max,
    target_value: target_value ?? max,
    current_value: current_value ?? min,
  };
}

async function recordHistory(db: Kysely<Database>, goalId: string, value: number, now: number) {
  await db
    .insertInto('goal_history')
    .values({ goal_id: goalId, day: utcDay(now), value, recorded_at: now })
    .onConflict((oc) => oc.columns(['goal_id', 'day']).doUpdateSet({ value, recorded_at: now }))
    .execute();
}

const goals: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  /**
   * Saves changes to a goal (stamping updated_at, unless nothing changed) and, when `record`, its current value
   * as today's history entry.
   */
  async function save(
    trx: Kysely<Database>,
    current: Selectable<GoalsTable>,
    changes: Partial<Selectable<GoalsTable>>,
    at: number,
    record: boolean,
  ) {
    const changed = Object.keys(changes).length > 0;
    const next = changed ? { ...current, ...changes, updated_at: at } : current;
    if (changed) {
      await trx
        .updateTable('goals')
        .set({ ...changes, updated_at: at })
        .where('id', '=', current.id)
        .execute();
    }
    if (record) await recordHistory(trx, current.id, next.current_value, at);
    return toGoal(next);
  }

  app.get(
    '/goals',
    {
      config: { scope: 'goals:read' },
      schema: {
        tags,
        summary:
          'List goals, newest first (active ones unless include_inactive), or the changes since a point',
        description: changeFeedDescription(
          'With updated_since or order=updated_at, include_inactive defaults to true, so achieved and abandoned ' +
            'goals (DELETE abandons a goal) show up as changes. Goals are never removed, so they have no tombstones.',
        ),
        querystring: listGoalsQuery,
        response: { 200: goal.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      checkFeedQuery(q);
      let query = db.selectFrom('goals').selectAll().where('user_id', '=', callerId(request));
      if (!(q.include_inactive ?? asksForChanges(q)))
        query = query.where('status', 'not in', INACTIVE_STATUSES);
      const after = changedAfter(q);
      if (after) query = query.where(after);
      query =
        q.order === 'updated_at'
          ? query.orderBy('updated_at', 'asc').orderBy('id', 'asc')
          : query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      const rows = await query.limit(q.limit).execute();
      return rows.map(toGoal);
    },
  );

  app.get(
    '/goals/:goal_id',
    {
      config: { scope: 'goals:read' },
      schema: {
        tags,
        summary: 'Get one goal (active or not)',
        params,
        response: { 200: goal, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => toGoal(await findOwned(db, 'goals', callerId(request), request.params.goal_id)),
  );

  app.post(
    '/goals',
    {
      config: { scope: 'goals:write' },
      schema: {
        tags,
        summary: 'Create a goal',
        description:
          'Defaults by goal_type: boolean 0–1 with target 1; scale 0–10 with target 10; numeric needs target_value, ' +
          'min_value defaults to 0 and max_value to the larger of target and current. current_value defaults to ' +
          'min_value. Records the first history entry.',
        body: createGoalBody,
        response: { 201: goal, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const values = initialValues(body);
      const issues = valueIssues(values, sentFields(body));
      if (issues.length > 0) throw new UnprocessableError(issues);
      const userId = callerId(request);
      const row = await userWrite(db, userId, async (trx, now) => {
        const created: Selectable<GoalsTable> = {
          id: newId(now),
          user_id: userId,
          title: body.title,
          desired_outcome: body.desired_outcome,
          goal_type: body.goal_type,
          source: body.source,
          status: body.status,
          ...values,
          unit: body.unit ?? null,
          focus_rank: body.focus_rank ?? null,
          horizon_at: body.horizon_at ?? null,
          success_criteria: JSON.stringify(body.success_criteria),
          why_it_matters: body.why_it_matters ?? null,
          created_at: now,
          updated_at: now,
        };
        await trx.insertInto('goals').values(created).execute();
        await recordHistory(trx, created.id, created.current_value, now);
        return created;
      });
      return reply.code(201).send(toGoal(row));
    },
  );

  app.patch(
    '/goals/:goal_id',
    {
      config: { scope: 'goals:write' },
      schema: {
        tags,
        summary: 'Update a goal (only the fields sent)',
        description:
          'Sets updated_at to the write time when a stored value changes; a PATCH with an empty body or with ' +
          'the values the goal already has changes nothing and keeps updated_at. A changed current_value is ' +
          "also today's (UTC) history entry.",
        params,
        body: updateGoalBody,
        response: { 200: goal, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const body = request.body;
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, request.params.goal_id);
        const values: Values = {
          min_value: body.min_value ?? current.min_value,
          max_value: body.max_value ?? current.max_value,
          target_value: body.target_value ?? current.target_value,
          current_value: body.current_value ?? current.current_value,
        };
        const issues = valueIssues(values, sentFields(body));
        if (issues.length > 0) throw new UnprocessableError(issues);
        const next: Partial<Selectable<GoalsTable>> = {
          ...values,
          title: body.title,
          desired_outcome: body.desired_outcome,
          status: body.status,
          unit: body.unit,
          focus_rank: body.focus_rank,
          horizon_at: body.horizon_at,
          success_criteria:
            body.success_criteria === undefined ? undefined : JSON.stringify(body.success_criteria),
          why_it_matters: body.why_it_matters,
        };
        // Only what was sent and differs from what is stored is a change.
        const changes = Object.fromEntries(
          Object.entries(next).filter(
            ([field, value]) => value !== undefined && value !== current[field as keyof GoalsTable],
          ),
        ) as Partial<Selectable<GoalsTable>>;
        return save(trx, current, changes, at, changes.current_value !== undefined);
      });
    },
  );

  app.patch(
    '/goals/:goal_id/progress',
    {
      config: { scope: 'goals:write' },
      schema: {
        tags,
        summary: "Set a goal's current value and record it as today's (UTC) history entry",
        description:
          "Always records today's history entry; sets updated_at to the write time when the value changes " +
          '(reporting the value the goal already has changes nothing in the goal and keeps updated_at).',
        params,
        querystring: progressQuery,
        response: { 200: goal, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const value = request.query.current_value;
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, request.params.goal_id);
        if (value < current.min_value || value > current.max_value) {
          throw UnprocessableError.at(
            ['query', 'current_value'],
            `current_value (${value}) must be between min_value (${current.min_value}) and max_value (${current.max_value})`,
          );
        }
        // A progress report is a measurement: it is today's entry even when the value did not change.
        const changes = value === current.current_value ? {} : { current_value: value };
        return save(trx, current, changes, at, true);
      });
    },
  );

  app.get(
    '/goals/:goal_id/history',
    {
      config: { scope: 'goals:read' },
      schema: {
        tags,
        summary: "A goal's value per UTC day (the day's last value), oldest first",
        params,
        querystring: historyQuery,
        response: { 200: goalHistory, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const current = await findOwned(db, 'goals', callerId(request), request.params.goal_id);
      const { days } = request.query;
      const now = Date.now();
      // `YYYY-MM-DD` strings order as the days they name.
      const rows = await db
        .selectFrom('goal_history')
        .selectAll()
        .where('goal_id', '=', current.id)
        .where('day', '>=', utcDay(now - (days - 1) * DAY_MS))
        .where('day', '<=', utcDay(now))
        .orderBy('day', 'asc')
        .execute();
      return {
        goal_id: current.id,
        days,
        history: rows.map((r) => ({ date: r.day, value: r.value, recorded_at: iso(r.recorded_at) })),
      };
    },
  );

  app.delete(
    '/goals/:goal_id',
    {
      config: { scope: 'goals:write' },
      schema: {
        tags,
        summary: 'Abandon a goal: it leaves the default list but can still be read',
        description:
          'An update, not a deletion: status becomes abandoned and updated_at the write time (no tombstone), ' +
          'so the change feed (order=updated_at, which includes inactive goals) reports it. Abandoning an ' +
          'abandoned goal changes nothing.',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'goals', userId, request.params.goal_id);
        if (current.status !== 'abandoned') {
          await trx
            .updateTable('goals')
            .set({ status: 'abandoned', updated_at: at })
            .where('id', '=', current.id)
            .execute();
        }
      });
      return { success: true as const };
    },
  );
};

export default goals;

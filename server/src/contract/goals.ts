import { z } from 'zod';
import { afterIdParam, feedQueryRules, orderParam, updatedSinceParam } from './change-feed';
import {
  dateTime,
  instant,
  limitParam,
  optionalOrNull,
  queryBool,
  queryInteger,
  queryNumber,
} from './common';
import { UnprocessableError } from '../http/http-errors';

export const GOAL_TYPES = ['boolean', 'scale', 'numeric'] as const;
export const GOAL_STATUSES = ['background', 'focused', 'paused', 'achieved', 'abandoned'] as const;
export const GOAL_SOURCES = ['user', 'ai_suggested', 'imported'] as const;

export const goalType = z.enum(GOAL_TYPES);
export const goalStatus = z.enum(GOAL_STATUSES);
export type GoalType = (typeof GOAL_TYPES)[number];
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export type GoalSource = (typeof GOAL_SOURCES)[number];

export const metric = z.object({
  type: goalType,
  current: z.number(),
  target: z.number(),
  min: z.number(),
  max: z.number(),
  unit: z.string().optional(),
});

export const goal = z
  .object({
    id: z.string(),
    goal_id: z.string(),
    title: z.string(),
    desired_outcome: z.string(),
    goal_type: goalType,
    source: z.enum(GOAL_SOURCES),
    status: goalStatus,
    is_active: z.boolean(),
    current_value: z.number(),
    target_value: z.number(),
    min_value: z.number(),
    max_value: z.number(),
    created_at: dateTime,
    updated_at: dateTime,
    focus_rank: z.number().int().nullable(),
    horizon_at: dateTime.nullable(),
    metric,
    success_criteria: z.array(z.string()),
    unit: z.string().nullable(),
    why_it_matters: z.string().nullable(),
  })
  .meta({ id: 'Goal' });

export const listGoalsQuery = z
  .object({
    limit: limitParam(1000, 10),
    include_inactive: queryBool.optional().meta({
      description:
        'Include achieved and abandoned goals. Default false, but true with updated_since or order=updated_at ' +
        '(a goal being achieved or abandoned is a change a sync must see); pass false to leave them out.',
    }),
    updated_since: updatedSinceParam,
    order: orderParam('created_at_desc', 'newest created first'),
    after_id: afterIdParam,
  })
  .check(feedQueryRules);

const editable = {
  title: z.string().trim().min(1).max(500),
  desired_outcome: z.string().max(2000),
  status: goalStatus,
  target_value: z.number(),
  current_value: z.number(),
  min_value: z.number(),
  max_value: z.number(),
  unit: z.string().max(50).nullable(),
  focus_rank: z.number().int().min(0).max(1000).nullable(),
  horizon_at: instant.nullable(),
  success_criteria: z.array(z.string().trim().min(1).max(500)).max(20),
  why_it_matters: z.string().max(2000).nullable(),
};

export const createGoalBody = z.strictObject({
  title: editable.title,
  desired_outcome: editable.desired_outcome.default(''),
  // The real service's default: a scale from 0 to 10.
  goal_type: goalType.default('scale'),
  source: z.enum(GOAL_SOURCES).default('user'),
  status: editable.status.default('focused'),
  target_value: editable.target_value.optional().meta({ description: 'Required for numeric goals' }),
  current_value: editable.current_value.optional(),
  min_value: editable.min_value.optional(),
  max_value: editable.max_value.optional(),
  unit: editable.unit.optional(),
  focus_rank: editable.focus_rank.optional(),
  horizon_at: editable.horizon_at.optional(),
  success_criteria: editable.success_criteria.default([]),
  why_it_matters: editable.why_it_matters.optional(),
});

/**
 * A goal's update: any of its editable fields, each optional. null is not given for the fields the real service
 * has (an Optional there); `unit`, `focus_rank`, `horizon_at` and `why_it_matters` take null to remove the value.
 */
export const updateGoalBody = z.strictObject({
  ...z.strictObject(editable).partial().shape,
  title: optionalOrNull(editable.title),
  target_value: optionalOrNull(editable.target_value),
  current_value: optionalOrNull(editable.current_value),
  min_value: optionalOrNull(editable.min_value),
  max_value: optionalOrNull(editable.max_value),
  unit: editable.unit.optional().meta({ description: 'null removes the unit' }),
  focus_rank: editable.focus_rank.optional().meta({ description: 'null removes the rank' }),
  horizon_at: editable.horizon_at.optional().meta({ description: 'New horizon, ISO 8601; null removes it' }),
  why_it_matters: editable.why_it_matters.optional().meta({ description: 'null removes it' }),
});

export const progressQuery = z.object({
  current_value: queryNumber().meta({
    description: 'The new current value (stored as given, even outside min_value–max_value)',
  }),
});

export const historyQuery = z.object({
  days: queryInteger(z.number().min(1).max(365), 30).meta({
    description: 'UTC days back from today (1–365)',
  }),
});

export const goalHistory = z
  .object({
    goal_id: z.string(),
    days: z.number().int(),
    history: z.array(
      z.object({
        date: z.iso.date(),
        value: z.number(),
        recorded_at: dateTime,
      }),
    ),
  })
  .meta({ id: 'GoalHistory' });

/** A goal's numbers. Like the real service, none is checked against the others: each is stored as given. */
export interface GoalValues {
  min_value: number;
  max_value: number;
  target_value: number;
  current_value: number;
}

/** The numbers of a new goal: what was sent, with defaults by goal type (422 for a numeric goal without target). */
export function initialValues(body: Partial<GoalValues> & { goal_type: GoalType }): GoalValues {
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

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createGoalBody,
  goal,
  goalHistory,
  historyQuery,
  initialValues,
  listGoalsQuery,
  progressQuery,
  updateGoalBody,
} from '../contract/goals';
import { partialUpdateNote, recordRoutes } from '../http/record-routes';

const goals: FastifyPluginAsyncZod = async (app) => {
  const repository = app.repositories.goals;
  const routes = recordRoutes(app, '/goals/:goal_id', { tags: ['Goals'], scopes: 'goals' });

  routes.list(
    {
      summary: 'List goals, newest first (active ones unless include_inactive), or the changes since a point',
      description:
        'With updated_since or order=updated_at, include_inactive defaults to true, so achieved and abandoned ' +
        'goals (DELETE abandons a goal) show up as changes. Goals are never removed, so they have no tombstones.',
      querystring: listGoalsQuery,
      response: goal.array(),
    },
    (userId, query) => repository.list(userId, query),
  );

  routes.get({ summary: 'Get one goal (active or not)', response: goal }, (userId, id) =>
    repository.findOwned(userId, id),
  );

  routes.create(
    {
      summary: 'Create a goal',
      description:
        'Defaults by goal_type: boolean 0–1 with target 1; scale 0–10 with target 10; numeric needs target_value, ' +
        'min_value defaults to 0 and max_value to the larger of target and current. current_value defaults to ' +
        'min_value. As in the real service, target_value and current_value may lie outside min_value–max_value ' +
        'and are stored as given. Records the first history entry.',
      body: createGoalBody,
      response: goal,
    },
    (userId, body) => repository.create(userId, { ...body, ...initialValues(body) }),
  );

  routes.update(
    {
      summary: 'Update a goal (only the fields sent)',
      description:
        partialUpdateNote('the goal') +
        " A changed current_value is also today's (UTC) history entry; 409 while the goal stays or becomes abandoned.",
      body: updateGoalBody,
      response: goal,
      conflicts: true,
    },
    (userId, id, body) => repository.update(userId, id, body),
  );

  routes.item(
    'PATCH',
    '/progress',
    {
      summary: "Set a goal's current value and record it as today's (UTC) history entry",
      description:
        "Always records today's history entry; sets updated_at to the write time when the value changes " +
        '(reporting the value the goal already has changes nothing in the goal and keeps updated_at). 409 on an ' +
        'abandoned goal.',
      querystring: progressQuery,
      response: goal,
      conflicts: true,
    },
    (userId, { goal_id }, { current_value }) => repository.reportProgress(userId, goal_id, current_value),
  );

  routes.item(
    'GET',
    '/history',
    {
      summary: "A goal's value per UTC day (the day's last value), oldest first",
      querystring: historyQuery,
      response: goalHistory,
    },
    async (userId, { goal_id }, { days }) => ({
      goal_id,
      days,
      history: await repository.history(userId, goal_id, days),
    }),
  );

  routes.remove(
    {
      summary: 'Abandon a goal: it leaves the default list but can still be read',
      description:
        'An update, not a deletion: status becomes abandoned and updated_at the write time (no tombstone), ' +
        'so the change feed (order=updated_at, which includes inactive goals) reports it. Abandoning an ' +
        'abandoned goal changes nothing.',
    },
    (userId, id) => repository.abandon(userId, id),
  );
};

export default goals;

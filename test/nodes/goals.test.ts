import { success } from '../../server/src/contract/common';
import { goal, goalHistory } from '../../server/src/contract/goals';
import { description as createGoalDescription } from '../../nodes/DevData/actions/goal/create.operation';
import { goalFields } from '../../nodes/DevData/actions/goal/fields';
import { expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());
let credentials: ReturnType<typeof credentialsFor>;
beforeAll(async () => {
  credentials = credentialsFor(server, (await newUser(server)).key);
});

const run = (params: Record<string, unknown>) =>
  runDevData(server, { resource: 'goal', ...params }, { credentials });

test('Goal → Create (numeric and scale), Get, Update, Update Progress, Get History, Get Many, Delete', async () => {
  const numeric = expectShape(
    goal,
    jsonOut(
      await run({
        operation: 'create',
        title: 'Run 100 km',
        goalType: 'numeric',
        targetValue: 100,
        additionalFields: {
          unit: 'km',
          successCriteria: ['Log every run', 'No injuries'],
          horizonAt: '2026-12-31T23:59:00Z',
          whyItMatters: 'Health',
        },
      }),
    )[0],
  );
  expect(numeric).toMatchObject({
    title: 'Run 100 km',
    goal_type: 'numeric',
    target_value: 100,
    unit: 'km',
    success_criteria: ['Log every run', 'No injuries'],
    horizon_at: '2026-12-31T23:59:00.000Z',
    status: 'focused',
    is_active: true,
  });

  const scale = expectShape(
    goal,
    jsonOut(
      await run({
        operation: 'create',
        title: 'Sleep well',
        goalType: 'scale',
        additionalFields: { targetValue: 8 },
      }),
    )[0],
  );
  expect(scale).toMatchObject({ goal_type: 'scale', target_value: 8, max_value: 10 });

  expect(
    expectShape(goal, jsonOut(await run({ operation: 'get', goalId: numeric.id, simplify: false }))[0]).id,
  ).toBe(numeric.id);

  const updated = expectShape(
    goal,
    jsonOut(
      await run({
        operation: 'update',
        goalId: numeric.id,
        updateFields: { title: 'Run 120 km', targetValue: 120, maxValue: 150 },
      }),
    )[0],
  );
  expect(updated).toMatchObject({
    title: 'Run 120 km',
    target_value: 120,
    max_value: 150,
    unit: 'km',
    why_it_matters: 'Health',
  });

  const progressed = expectShape(
    goal,
    jsonOut(await run({ operation: 'updateProgress', goalId: numeric.id, currentValue: 42.5 }))[0],
  );
  expect(progressed.current_value).toBe(42.5);

  const history = expectShape(
    goalHistory,
    jsonOut(await run({ operation: 'getHistory', goalId: numeric.id, days: 7 }))[0],
  );
  expect(history).toMatchObject({ goal_id: numeric.id, days: 7 });
  expect(history.history.at(-1)?.value).toBe(42.5);

  const active = jsonOut(await run({ operation: 'getAll', returnAll: true, simplify: false })).map((g) =>
    expectShape(goal, g),
  );
  expect(active.map((g) => g.id)).toEqual([scale.id, numeric.id]);
  expect(jsonOut(await run({ operation: 'getAll', limit: 1 })).map((g) => g.id)).toEqual([scale.id]);

  expectShape(success, jsonOut(await run({ operation: 'delete', goalId: scale.id }))[0]);
  expect(jsonOut(await run({ operation: 'getAll', returnAll: true })).map((g) => g.id)).toEqual([numeric.id]);
  const withInactive = jsonOut(
    await run({ operation: 'getAll', returnAll: true, options: { includeInactive: true } }),
  );
  expect(withInactive.map((g) => [g.id, g.status])).toEqual([
    [scale.id, 'abandoned'],
    [numeric.id, 'focused'],
  ]);
});

// With Goal Type an expression the editor cannot tell the type: it hides the numeric goal's own Target Value and
// shows the one under Additional Fields, which is where the user (or an AI agent's $fromAI) sets it.
test('Goal → Create with Goal Type by expression takes the Target Value set under Additional Fields', async () => {
  const created = jsonOut(
    await runDevData(
      server,
      {
        resource: 'goal',
        operation: 'create',
        title: '={{ $json.title }}',
        goalType: '={{ $json.type }}',
        additionalFields: { targetValue: '={{ $json.target }}' },
      },
      { credentials, items: [{ title: 'Run 42 km', type: 'numeric', target: 42 }] },
    ),
  );
  expect(created).toMatchObject([{ title: 'Run 42 km', goal_type: 'numeric', target_value: 42 }]);
});

// Issue 26, decision 4: like the real service, the server stores a value outside min–max as given.
test('Goal → Update Progress outside the range stores the value as given', async () => {
  const created = jsonOut(
    await run({ operation: 'create', title: 'Read books', goalType: 'numeric', targetValue: 12 }),
  )[0];
  const result = await run({ operation: 'updateProgress', goalId: created.id, currentValue: 50 });
  expect(result.error).toBeUndefined();
  expect(jsonOut(result)[0]).toMatchObject({ id: created.id, current_value: 50, max_value: 12 });
});

test('Goal → Update Progress sends a value JavaScript writes with an exponent (1e-7) as given', async () => {
  const created = jsonOut(
    await run({ operation: 'create', title: 'Tiny steps', goalType: 'numeric', targetValue: 1 }),
  )[0];
  for (const currentValue of [0.0000001, 2.5e21]) {
    const result = await run({ operation: 'updateProgress', goalId: created.id, currentValue });
    expect({ currentValue, error: result.error?.message }).toEqual({ currentValue, error: undefined });
    expect(jsonOut(result)[0]).toMatchObject({ id: created.id, current_value: currentValue });
  }
});

test('Goal → Update clears the fields chosen under Clear Fields, and refuses one both set and cleared', async () => {
  const created = expectShape(
    goal,
    jsonOut(
      await run({
        operation: 'create',
        title: 'Swim weekly',
        goalType: 'numeric',
        targetValue: 52,
        additionalFields: {
          unit: 'swims',
          focusRank: 3,
          horizonAt: '2027-06-30T00:00:00Z',
          whyItMatters: 'Shoulders',
        },
      }),
    )[0],
  );
  expect(created).toMatchObject({ unit: 'swims', focus_rank: 3, why_it_matters: 'Shoulders' });

  const cleared = expectShape(
    goal,
    jsonOut(
      await run({
        operation: 'update',
        goalId: created.id,
        updateFields: { clearFields: ['focusRank', 'horizonAt', 'unit', 'whyItMatters'], title: 'Swim' },
      }),
    )[0],
  );
  expect(cleared).toMatchObject({
    title: 'Swim',
    unit: null,
    focus_rank: null,
    horizon_at: null,
    why_it_matters: null,
    target_value: 52,
  });

  const both = await run({
    operation: 'update',
    goalId: created.id,
    updateFields: { unit: 'laps', clearFields: ['unit'] },
  });
  expect(both.error?.message).toBe(
    'Set either "Unit" or clear it under "Clear Fields", not both (input item 0)',
  );
  expect(jsonOut(await run({ operation: 'get', goalId: created.id }))[0]).toMatchObject({ unit: null });
});

// A user (or an AI agent) reads the limits off the descriptions: each text field's is the server's.
test('Goal → Create: each text field takes as many characters as its description says, and no more', async () => {
  const limits = [
    ['desiredOutcome', 2000],
    ['unit', 50],
    ['whyItMatters', 2000],
  ] as const;
  for (const [name, max] of limits) {
    const field = goalFields.find((f) => f.name === name)!;
    expect({ name, description: field.description }).toEqual({
      name,
      description: expect.stringContaining(`(up to ${max} characters)`),
    });
    const create = (length: number) =>
      run({
        operation: 'create',
        title: `Limits of ${name}`,
        goalType: 'scale',
        additionalFields: { [name]: 'x'.repeat(length) },
      });
    expect((await create(max)).error).toBeUndefined();
    expect((await create(max + 1)).error?.description).toContain(`${field.displayName} (`);
  }
  const criteria = goalFields.find((f) => f.name === 'successCriteria')!;
  expect(criteria.description).toContain('(up to 20, each 1–500 characters)');
  const withCriterion = (criterion: string) =>
    run({
      operation: 'create',
      title: 'Criteria',
      goalType: 'scale',
      additionalFields: { successCriteria: [criterion] },
    });
  expect((await withCriterion('x'.repeat(500))).error).toBeUndefined();
  expect((await withCriterion('x'.repeat(501))).error?.description).toContain('Success Criteria (');
});

// The Goal Type descriptions once said "target 1" and "target 10": with a Max Value set, the target is that.
test('Goal → Create of a boolean or scale goal with a Max Value and no target aims at the Max Value, as Goal Type says', async () => {
  const goalTypes = createGoalDescription.find((p) => p.name === 'goalType')!.options as Array<{
    value: string;
    description: string;
  }>;
  for (const goalType of ['boolean', 'scale']) {
    const [created] = jsonOut(
      await run({
        operation: 'create',
        title: `Max ${goalType}`,
        goalType,
        additionalFields: { maxValue: 5 },
      }),
    );
    expect(created).toMatchObject({ goal_type: goalType, max_value: 5, target_value: 5 });
    expect(goalTypes.find((option) => option.value === goalType)?.description).toContain(
      'the target is the Max Value unless set',
    );
  }
});

// Clear Fields by expression (an AI agent's $fromAI too) may hold any text: a goal's Title, sent as null, changed
// nothing while the item succeeded; a display name (Unit) was refused as the unknown field _unit.
test('Goal → Update fails the item when Clear Fields holds a name that is none of its options, sending nothing', async () => {
  const [created] = jsonOut(
    await run({
      operation: 'create',
      title: 'Keep me',
      goalType: 'scale',
      additionalFields: { unit: 'pts' },
    }),
  );
  const before = server.requestsTo('PATCH', `/v1/dev/user/goals/${created.id}`).length;
  for (const name of ['title', 'Unit']) {
    const result = await run({
      operation: 'update',
      goalId: created.id,
      updateFields: { clearFields: `={{ ["${name}"] }}` },
    });
    expect(result.error?.message).toBe(`"Clear Fields" cannot hold "${name}" (input item 0)`);
    expect((result.error as { description?: string }).description).toContain('unit (Unit)');
  }
  expect(server.requestsTo('PATCH', `/v1/dev/user/goals/${created.id}`)).toHaveLength(before);
  expect(jsonOut(await run({ operation: 'get', goalId: created.id }))[0]).toMatchObject({
    title: 'Keep me',
    unit: 'pts',
  });
});

test('Goal → Create leaves out an additional field whose expression gives null', async () => {
  const result = await runDevData(
    server,
    {
      resource: 'goal',
      operation: 'create',
      title: 'Nulls',
      goalType: 'scale',
      additionalFields: { desiredOutcome: '={{ $json.none }}', successCriteria: '={{ $json.none }}' },
    },
    { credentials, items: [{ none: null }] },
  );
  expect(result.error?.message).toBeUndefined();
  expect(jsonOut(result)[0]).toMatchObject({ title: 'Nulls', desired_outcome: '', success_criteria: [] });
});

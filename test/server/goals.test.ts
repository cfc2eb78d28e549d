import { errorBody, success, validationErrorBody } from '../../server/src/contract/common';
import { goal, goalHistory } from '../../server/src/contract/goals';
import { clearOfBoundary, DAY_MS } from '../helpers/clock';
import { devClient, expectShape, keyWithScopes, newUser, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/goals';
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.each(DIALECTS)('goals on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const historyRows = (goalId: string) =>
    server.store.db
      .selectFrom('goal_history')
      .selectAll()
      .where('goal_id', '=', goalId)
      .orderBy('day')
      .execute();

  async function create(client: Client, body: Record<string, unknown>) {
    const reply = await client.post(BASE, body);
    expect(reply.status).toBe(200);
    return expectShape(goal, reply.body);
  }

  it('creates a goal with defaults by type and reads it back', async () => {
    await clearOfBoundary(DAY_MS, 30_000);
    const numeric = await create(api, {
      title: 'Run 100 km',
      goal_type: 'numeric',
      target_value: 100,
      current_value: 12.5,
      unit: 'km',
      success_criteria: ['run three times a week'],
      horizon_at: '2026-12-31T23:00:00-01:00',
    });
    expect(numeric).toMatchObject({
      goal_id: numeric.id,
      title: 'Run 100 km',
      desired_outcome: '',
      goal_type: 'numeric',
      source: 'user',
      status: 'focused',
      is_active: true,
      min_value: 0,
      max_value: 100,
      target_value: 100,
      current_value: 12.5,
      unit: 'km',
      horizon_at: '2027-01-01T00:00:00.000Z',
      success_criteria: ['run three times a week'],
      focus_rank: null,
      why_it_matters: null,
      metric: { type: 'numeric', current: 12.5, target: 100, min: 0, max: 100, unit: 'km' },
    });
    const read = await api.get(`${BASE}/${numeric.id}`);
    expect(read.status).toBe(200);
    expect(expectShape(goal, read.body)).toEqual(numeric);

    const boolean = await create(api, { title: 'Ship it', goal_type: 'boolean' });
    expect(boolean).toMatchObject({ min_value: 0, max_value: 1, target_value: 1, current_value: 0 });
    expect(boolean.metric).toEqual({ type: 'boolean', current: 0, target: 1, min: 0, max: 1 });

    const scale = await create(api, { title: 'Feel rested', goal_type: 'scale', current_value: 4 });
    expect(scale).toMatchObject({ min_value: 0, max_value: 10, target_value: 10, current_value: 4 });

    // numeric: max defaults to the larger of target and current; current defaults to min.
    const down = await create(api, {
      title: 'Fewer tabs',
      goal_type: 'numeric',
      target_value: 10,
      current_value: 40,
    });
    expect(down).toMatchObject({ min_value: 0, max_value: 40, target_value: 10, current_value: 40 });
    const fromMin = await create(api, {
      title: 'Read',
      goal_type: 'numeric',
      target_value: 30,
      min_value: 5,
    });
    expect(fromMin).toMatchObject({ min_value: 5, max_value: 30, target_value: 30, current_value: 5 });

    // Creating records the first history entry, for today.
    expect((await historyRows(numeric.id)).map((r) => [r.day, r.value])).toEqual([
      [utcDay(Date.now()), 12.5],
    ]);
  });

  // Issue 26, decision 4: no cross-field range checks (the real service stores such numbers as given).
  it('refuses bad fields with a loc naming the field, not numbers outside min–max', async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ title: 'No target', goal_type: 'numeric' }, ['body', 'target_value']],
      [{ title: 'No target', goal_type: 'numeric', current_value: 3 }, ['body', 'target_value']],
      [{ title: 'x', goal_type: 'weekly' }, ['body', 'goal_type']],
      [{ title: 'x', target_value: 'ten' }, ['body', 'target_value']],
      [{ title: 'x', target_value: 1, status: 'done' }, ['body', 'status']],
      [{ target_value: 1 }, ['body', 'title']],
      [{ title: 'x', target_value: 1, success_criteria: 'all' }, ['body', 'success_criteria']],
      [{ title: 'x', target_value: 1, focus_rank: 1.5 }, ['body', 'focus_rank']],
    ];
    const before = await server.count('goals');
    for (const [body, loc] of cases) {
      const reply = await api.post(BASE, body);
      expect({ body, status: reply.status }).toEqual({ body, status: 422 });
      expect({ body, loc: expectShape(validationErrorBody, reply.body).detail[0].loc }).toEqual({
        body,
        loc,
      });
    }
    expect(await server.count('goals')).toBe(before);

    const crossed = await create(api, { title: 'x', target_value: 5, min_value: 10, max_value: 2 });
    expect(crossed).toMatchObject({ target_value: 5, min_value: 10, max_value: 2 });
    const above = await create(api, { title: 'x', goal_type: 'scale', max_value: 5, target_value: 8 });
    expect(above).toMatchObject({ target_value: 8, max_value: 5 });
  });

  it('updates only the fields sent and stores numbers outside min–max as given', async () => {
    await clearOfBoundary(DAY_MS, 30_000);
    const g = await create(api, {
      title: 'Meditate',
      goal_type: 'scale',
      current_value: 2,
      unit: 'sessions',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await api.patch(`${BASE}/${g.id}`, {
      title: 'Meditate daily',
      focus_rank: 1,
      unit: null,
    });
    expect(updated.status).toBe(200);
    const u = expectShape(goal, updated.body);
    expect(u).toMatchObject({
      title: 'Meditate daily',
      focus_rank: 1,
      unit: null,
      current_value: 2,
      max_value: 10,
    });
    expect(u.metric.unit).toBeUndefined();
    expect(Date.parse(u.updated_at)).toBeGreaterThan(Date.parse(g.updated_at));
    expect(expectShape(goal, (await api.get(`${BASE}/${g.id}`)).body)).toEqual(u);

    const wrongType = await api.patch(`${BASE}/${g.id}`, { current_value: '5' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail[0].loc).toEqual(['body', 'current_value']);
    // Nothing was written by the refused update.
    expect(expectShape(goal, (await api.get(`${BASE}/${g.id}`)).body)).toEqual(u);

    const widened = await api.patch(`${BASE}/${g.id}`, {
      max_value: 20,
      target_value: 15,
      current_value: 12,
    });
    expect(widened.status).toBe(200);
    expect(widened.body).toMatchObject({ max_value: 20, target_value: 15, current_value: 12 });
    // A changed current value is today's history entry.
    const rows = await historyRows(g.id);
    expect(rows.map((r) => [r.day, r.value])).toEqual([[utcDay(Date.now()), 12]]);

    const achieved = await api.patch(`${BASE}/${g.id}`, { status: 'achieved' });
    expect(achieved.body).toMatchObject({ status: 'achieved', is_active: false });
    const refocused = await api.patch(`${BASE}/${g.id}`, { status: 'paused' });
    expect(refocused.body).toMatchObject({ status: 'paused', is_active: true });
  });

  it('records progress once per UTC day and reports history in a days window', async () => {
    await clearOfBoundary(DAY_MS, 30_000);
    const g = await create(api, { title: 'Save money', target_value: 1000, current_value: 100 });
    const now = Date.now();
    // Past entries, inserted directly and out of order.
    await server.store.db
      .insertInto('goal_history')
      .values([
        { goal_id: g.id, day: utcDay(now - 2 * DAY_MS), value: 80, recorded_at: now - 2 * DAY_MS },
        { goal_id: g.id, day: utcDay(now - 40 * DAY_MS), value: 10, recorded_at: now - 40 * DAY_MS },
        { goal_id: g.id, day: utcDay(now - 29 * DAY_MS), value: 30, recorded_at: now - 29 * DAY_MS },
        { goal_id: g.id, day: utcDay(now - 30 * DAY_MS), value: 20, recorded_at: now - 30 * DAY_MS },
      ])
      .execute();

    await new Promise((resolve) => setTimeout(resolve, 5));
    const first = await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: 250 });
    expect(first.status).toBe(200);
    const afterFirst = expectShape(goal, first.body);
    expect(afterFirst).toMatchObject({ current_value: 250, metric: { current: 250 } });
    expect(Date.parse(afterFirst.updated_at)).toBeGreaterThan(Date.parse(g.updated_at));
    const second = await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: '312.5' });
    expect(second.status).toBe(200);
    expect(expectShape(goal, (await api.get(`${BASE}/${g.id}`)).body).current_value).toBe(312.5);

    const history = await api.get(`${BASE}/${g.id}/history`);
    expect(history.status).toBe(200);
    const h = expectShape(goalHistory, history.body);
    expect(h.goal_id).toBe(g.id);
    expect(h.days).toBe(30);
    // The last 30 UTC days including today: 29 days ago is in, 30 and 40 days ago are out; today holds the last value.
    expect(h.history.map((e) => [e.date, e.value])).toEqual([
      [utcDay(now - 29 * DAY_MS), 30],
      [utcDay(now - 2 * DAY_MS), 80],
      [utcDay(Date.now()), 312.5],
    ]);

    const short = expectShape(goalHistory, (await api.get(`${BASE}/${g.id}/history`, { days: 3 })).body);
    expect(short.history.map((e) => e.value)).toEqual([80, 312.5]);
    const today = expectShape(goalHistory, (await api.get(`${BASE}/${g.id}/history`, { days: 1 })).body);
    expect(today.history.map((e) => e.value)).toEqual([312.5]);
    const long = expectShape(goalHistory, (await api.get(`${BASE}/${g.id}/history`, { days: 365 })).body);
    expect(long.history.map((e) => e.value)).toEqual([10, 20, 30, 80, 312.5]);

    for (const days of ['0', '366', 'week', '1.5']) {
      const reply = await api.get(`${BASE}/${g.id}/history`, { days });
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', 'days']);
    }
  });

  it('refuses progress that is not a number, and stores one outside min–max as given', async () => {
    const g = await create(api, { title: 'Rate my focus', goal_type: 'scale', current_value: 5 });
    for (const value of ['lots', '', 'Infinity', '1e999', '0x10', '1e']) {
      const reply = await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: value });
      expect({ value, status: reply.status }).toEqual({ value, status: 422 });
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', 'current_value']);
    }
    const missing = await api.patch(`${BASE}/${g.id}/progress`);
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['query', 'current_value']);
    expect(expectShape(goal, (await api.get(`${BASE}/${g.id}`)).body).current_value).toBe(5);
    const edge = await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: 10 });
    expect(edge.status).toBe(200);
    expect(edge.body.current_value).toBe(10);
    for (const value of [11, -0.5]) {
      const outside = await api.patch(`${BASE}/${g.id}/progress`, undefined, {
        current_value: String(value),
      });
      expect(outside.status).toBe(200);
      expect(outside.body).toMatchObject({ current_value: value, min_value: 0, max_value: 10 });
    }
    // JavaScript writes these with an exponent (String(0.0000001) is '1e-7'), as the node's query string does.
    for (const value of [0.0000001, 2.5e21, -3e-9]) {
      const tiny = await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: String(value) });
      expect({ value, status: tiny.status }).toEqual({ value, status: 200 });
      expect(tiny.body.current_value).toBe(value);
    }
    expect(
      (await api.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: '2.5E3' })).body,
    ).toMatchObject({
      current_value: 2500,
    });
  });

  it('lists active goals newest first; delete abandons a goal', async () => {
    const user = await newUser(server);
    const a = await create(user.client, { title: 'A', target_value: 1 });
    const b = await create(user.client, { title: 'B', target_value: 1, status: 'background' });
    const c = await create(user.client, { title: 'C', target_value: 1, status: 'achieved' });
    const d = await create(user.client, { title: 'D', target_value: 1 });
    expect(c.is_active).toBe(false);

    const list = async (query?: Record<string, string | number | boolean>) => {
      const reply = await user.client.get(BASE, query);
      expect(reply.status).toBe(200);
      return expectShape(goal.array(), reply.body).map((x) => x.id);
    };
    expect(await list()).toEqual([d.id, b.id, a.id]);
    expect(await list({ include_inactive: true })).toEqual([d.id, c.id, b.id, a.id]);
    expect(await list({ limit: 2 })).toEqual([d.id, b.id]);

    const deleted = await user.client.delete(`${BASE}/${b.id}`);
    expect(deleted.status).toBe(200);
    expectShape(success, deleted.body);
    const gone = expectShape(goal, (await user.client.get(`${BASE}/${b.id}`)).body);
    expect(gone).toMatchObject({ id: b.id, status: 'abandoned', is_active: false });
    expect(await list()).toEqual([d.id, a.id]);
    expect(await list({ include_inactive: 'true' })).toEqual([d.id, c.id, b.id, a.id]);
    expect(await list({ include_inactive: 'false' })).toEqual([d.id, a.id]);
    // Deleting again is harmless; the goal stays abandoned.
    expect((await user.client.delete(`${BASE}/${b.id}`)).status).toBe(200);

    // No progress on an abandoned goal, by either route: a 409, nothing changed, no history, no event.
    const abandoned = `Goal ${b.id} is abandoned: give it another status before recording progress`;
    const historyBefore = await server.count('goal_history');
    const eventsBefore = await server.count('webhook_events');
    const progress = await user.client.patch(`${BASE}/${b.id}/progress`, undefined, { current_value: 5 });
    expect(progress.status).toBe(409);
    expect(progress.body).toEqual({ detail: abandoned });
    const patched = await user.client.patch(`${BASE}/${b.id}`, { current_value: 5 });
    expect(patched.status).toBe(409);
    expect(patched.body).toEqual({ detail: abandoned });
    expect((await user.client.get(`${BASE}/${b.id}`)).body).toEqual(gone);
    expect(await server.count('goal_history')).toBe(historyBefore);
    expect(await server.count('webhook_events')).toBe(eventsBefore);
    // Its other fields may change, and a status brings it back, progress with it.
    expect((await user.client.patch(`${BASE}/${b.id}`, { title: 'B, later' })).status).toBe(200);
    const back = await user.client.patch(`${BASE}/${b.id}`, { status: 'focused', current_value: 5 });
    expect(back.body).toMatchObject({ status: 'focused', current_value: 5, title: 'B, later' });
    // Nor is progress recorded by the change that abandons it; with its value as it is, it may be abandoned so.
    const [backHistory, backEvents] = [
      await server.count('goal_history'),
      await server.count('webhook_events'),
    ];
    const abandoning = await user.client.patch(`${BASE}/${b.id}`, { status: 'abandoned', current_value: 6 });
    expect({ status: abandoning.status, body: abandoning.body }).toEqual({
      status: 409,
      body: {
        detail: `Goal ${b.id} is being abandoned: progress cannot be recorded in the same change; record it first, or leave current_value as it is`,
      },
    });
    expect((await user.client.get(`${BASE}/${b.id}`)).body).toEqual(back.body);
    expect(await server.count('goal_history')).toBe(backHistory);
    expect(await server.count('webhook_events')).toBe(backEvents);
    const abandonedAsIs = await user.client.patch(`${BASE}/${b.id}`, {
      status: 'abandoned',
      current_value: 5,
    });
    expect(abandonedAsIs.body).toMatchObject({ status: 'abandoned', current_value: 5 });

    for (const limit of ['0', '1001', '2.5', 'ten']) {
      const reply = await user.client.get(BASE, { limit });
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['query', 'limit']);
    }
    const flag = await user.client.get(BASE, { include_inactive: 'maybe' });
    expect(flag.status).toBe(422);
    expect(flag.body.detail[0].loc).toEqual(['query', 'include_inactive']);
  });

  it('refuses missing and wrong credentials and missing scopes', async () => {
    const anonymous = await fetch(`${server.baseUrl}${BASE}`);
    expect(anonymous.status).toBe(401);
    expectShape(errorBody, await anonymous.json());
    const malformed = await fetch(`${server.baseUrl}${BASE}`, { headers: { authorization: 'Token abc' } });
    expect(malformed.status).toBe(401);

    const g = await create(api, { title: 'Scoped', target_value: 3 });
    const writeOnly = await keyWithScopes(server, ['goals:write']);
    for (const reply of await Promise.all([
      writeOnly.get(BASE),
      writeOnly.get(`${BASE}/${g.id}`),
      writeOnly.get(`${BASE}/${g.id}/history`),
    ])) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: 'Insufficient permissions. Required scope: goals:read' });
    }
    const readOnly = await keyWithScopes(server, ['goals:read']);
    for (const reply of await Promise.all([
      readOnly.post(BASE, { title: 'x', target_value: 1 }),
      readOnly.patch(`${BASE}/${g.id}`, { title: 'y' }),
      readOnly.patch(`${BASE}/${g.id}/progress`, undefined, { current_value: 1 }),
      readOnly.delete(`${BASE}/${g.id}`),
    ])) {
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ detail: 'Insufficient permissions. Required scope: goals:write' });
    }
    expect(expectShape(goal, (await api.get(`${BASE}/${g.id}`)).body)).toEqual(g);
  });

  it("answers 404 for missing goals and another user's", async () => {
    const other = await newUser(server);
    const mine = await create(api, { title: 'Private goal', target_value: 5 });
    const requests = (client: Client, id: string) => [
      client.get(`${BASE}/${id}`),
      client.patch(`${BASE}/${id}`, { title: 'taken' }),
      client.patch(`${BASE}/${id}/progress`, undefined, { current_value: 1 }),
      client.get(`${BASE}/${id}/history`),
      client.delete(`${BASE}/${id}`),
    ];
    for (const reply of await Promise.all([
      ...requests(other.client, mine.id),
      ...requests(api, 'no-such-goal'),
      ...requests(api, 'g'.repeat(100)),
    ])) {
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ detail: 'Goal not found' });
    }
    // No record ID is longer than 100 characters: a longer one is refused at the path, as the manual says.
    for (const reply of await Promise.all(requests(api, 'g'.repeat(101)))) {
      expect(reply.status).toBe(422);
      expect(expectShape(validationErrorBody, reply.body).detail[0].loc).toEqual(['path', 'goal_id']);
    }
    expect(
      expectShape(goal.array(), (await other.client.get(BASE, { include_inactive: true })).body),
    ).toEqual([]);
    expect(expectShape(goal, (await api.get(`${BASE}/${mine.id}`)).body)).toEqual(mine);
  });
});

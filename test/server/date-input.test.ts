// A malformed date in a query or a body, on both databases: a 422 at the field whose msg names the forms the field
// takes (zod's own said only "Invalid input" or "Invalid ISO datetime"), on every kind of route that takes one.
// A missing date is still "Field required", and one outside the years 0001–9999 still says so.
import { validationErrorBody } from '../../server/src/contract/common';
import { devClient, expectShape, ok, type Query } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const DEV = '/v1/dev/user';
const DATE_TIME = 'Expected an ISO 8601 date-time such as 2026-11-21T09:30:00Z or 2026-11-21T10:30:00+01:00';
const DATE_OR_DATE_TIME =
  'Expected a date such as 2026-11-21 (that whole UTC day) or an ISO 8601 date-time such as 2026-11-21T09:30:00Z';

describe.each(DIALECTS)('date input on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const dev = devClient(server);

  /** The one issue of a 422: where and what. */
  const issue = (reply: { status: number; body: unknown }) => {
    expect(reply.status).toBe(422);
    const { detail } = expectShape(validationErrorBody, reply.body);
    expect(detail).toHaveLength(1);
    return { loc: detail[0].loc, msg: detail[0].msg };
  };

  /** Each GET of `cases` (path, query, the query field at fault) is a 422 at that field saying `msg`. */
  async function expectRefused(cases: [string, Query, string][], msg: string) {
    for (const [path, query, field] of cases) {
      expect({ path, query, ...issue(await dev.get(path, query)) }).toEqual({
        path,
        query,
        loc: ['query', field],
        msg,
      });
    }
  }

  it('answers a malformed date bound of a list with the forms it takes', async () => {
    const cases: [string, Query, string][] = [
      [`${DEV}/conversations`, { start_date: 'yesterday' }, 'start_date'],
      [`${DEV}/conversations`, { end_date: '2025-02-30' }, 'end_date'],
      [`${DEV}/conversations/search`, { query: 'budget', start_date: 'last week' }, 'start_date'],
      [`${DEV}/action-items`, { end_date: '21/11/2026' }, 'end_date'],
      [`${DEV}/screen-activity`, { start_date: '2026-11-21 09:30' }, 'start_date'],
    ];
    await expectRefused(cases, DATE_OR_DATE_TIME);
  });

  it('answers a malformed date-time in a query or a body with the forms it takes', async () => {
    const queries: [string, Query, string][] = [
      [`${DEV}/memories`, { updated_since: 'yesterday' }, 'updated_since'],
      [`${DEV}/goals`, { updated_since: '2026-11-21' }, 'updated_since'],
      [`${DEV}/deleted`, { since: '2026-13-01T00:00:00Z' }, 'since'],
    ];
    await expectRefused(queries, DATE_TIME);

    const bodies: [string, object, (string | number)[]][] = [
      [`${DEV}/action-items`, { description: 'x', due_at: 'tomorrow' }, ['due_at']],
      [`${DEV}/action-items`, { description: 'x', due_at: 1_764_000_000 }, ['due_at']],
      [`${DEV}/conversations`, { text: 'x', started_at: '2026-11-21' }, ['started_at']],
      [
        `${DEV}/conversations`,
        { text: 'x', structured: { events: [{ title: 'Call', start: 'noon' }] } },
        ['structured', 'events', 0, 'start'],
      ],
      [`${DEV}/goals`, { title: 'Run', target_value: 5, horizon_at: 'next year' }, ['horizon_at']],
      [
        `${DEV}/screen-activity`,
        { screen_activity: [{ timestamp: 'now', app_name: 'Editor' }] },
        ['screen_activity', 0, 'timestamp'],
      ],
    ];
    for (const [path, body, at] of bodies) {
      expect({ path, body, ...issue(await dev.post(path, body)) }).toEqual({
        path,
        body,
        loc: ['body', ...at],
        msg: DATE_TIME,
      });
    }
  });

  it("says to send an offset's + as %2B when a query string read it as a space", async () => {
    // `?updated_since=2026-11-21T10:30:00+01:00`, typed as the 422 shows the form, reaches the server with a space
    // where the + was (a query string's + is a space): the forms alone left the caller with no way to tell why.
    const PLUS =
      ": in a query string a + reads as a space, so write the offset's + as %2B (2026-11-21T10:30:00%2B01:00)";
    // The helper sends a space as + (URLSearchParams), as a caller typing + does.
    await expectRefused(
      [
        [
          `${DEV}/action-items`,
          { order: 'updated_at', updated_since: '2026-11-21T10:30:00 01:00' },
          'updated_since',
        ],
        [`${DEV}/deleted`, { since: '2026-11-21T10:30 05:30' }, 'since'],
      ],
      DATE_TIME + PLUS,
    );
    await expectRefused(
      [[`${DEV}/conversations`, { start_date: '2026-11-21T10:30:00.123 01:00' }, 'start_date']],
      DATE_OR_DATE_TIME + PLUS,
    );
    // The same value with %2B is taken; a space elsewhere is only refused with the forms.
    expect(await ok(dev.get(`${DEV}/deleted`, { since: '2026-11-21T10:30:00+01:00' }))).toEqual([]);
    await expectRefused(
      [[`${DEV}/memories`, { updated_since: '2026-11-21 10:30:00Z' }, 'updated_since']],
      DATE_TIME,
    );
  });

  it('still says a missing date is required, and a date outside 0001–9999 is out of range', async () => {
    expect(
      issue(await dev.post(`${DEV}/screen-activity`, { screen_activity: [{ app_name: 'Editor' }] })),
    ).toEqual({
      loc: ['body', 'screen_activity', 0, 'timestamp'],
      msg: 'Field required',
    });
    expect(
      issue(await dev.post(`${DEV}/action-items`, { description: 'x', due_at: '0000-12-31T00:00:00Z' })),
    ).toEqual({
      loc: ['body', 'due_at'],
      msg: 'Date must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (UTC)',
    });
    expect(await server.count('action_items')).toBe(0);
    expect(await server.count('screen_activity')).toBe(0);
  });

  it('takes a time without seconds with an offset too, as ISO 8601 and the real service do', async () => {
    // zod's own datetime took `T10:00` (no offset) but refused `T10:00Z` and `T10:00+01:00` with a 422.
    const due = async (due_at: string) => {
      const reply = await dev.post(`${DEV}/action-items`, { description: 'x', due_at });
      expect({ due_at, status: reply.status }).toEqual({ due_at, status: 200 });
      return (reply.body as { due_at: string }).due_at;
    };
    expect(await due('2026-12-01T10:00Z')).toBe('2026-12-01T10:00:00.000Z');
    expect(await due('2026-12-01T10:00+01:00')).toBe('2026-12-01T09:00:00.000Z');
    expect(await due('2026-12-01T10:00-03:30')).toBe('2026-12-01T13:30:00.000Z');
    expect(await due('2026-12-01T10:00')).toBe('2026-12-01T10:00:00.000Z');

    const listed = await ok(
      dev.get(`${DEV}/action-items`, { start_date: '2026-12-01T09:59Z', end_date: '2026-12-01T10:00+00:00' }),
    );
    expect((listed as { due_at: string }[]).length).toBe(0); // created now, not on 1 December: a filter, not a 422

    // Still refused: an hour alone, a minute past 59, a day the month lacks.
    for (const due_at of ['2026-12-01T10Z', '2026-12-01T10:60Z', '2026-02-30T10:00Z'])
      expect({
        due_at,
        ...issue(await dev.post(`${DEV}/action-items`, { description: 'x', due_at })),
      }).toEqual({
        due_at,
        loc: ['body', 'due_at'],
        msg: DATE_TIME,
      });
  });
});

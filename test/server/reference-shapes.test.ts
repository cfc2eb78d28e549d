// devdata-server's answers against the real service's developer API document (our transcription of it in
// test/helpers/reference-shapes.ts), for every endpoint both have, on both databases: each answer's status is
// one the document lists for that endpoint and its body has the document's shape for that status, except where
// REFERENCE_EXCEPTIONS (our interface) says otherwise.
import { client, devClient, keyWithScopes } from '../helpers/http';
import {
  exceptionFor,
  exerciseDeveloperApi,
  missingFields,
  problemWith,
  REFERENCE_ENDPOINTS,
  REFERENCE_EXCEPTIONS,
  type Exchange,
} from '../helpers/reference-shapes';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

describe.each(DIALECTS)('on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  let exchanges: Exchange[] = [];

  beforeAll(async () => {
    const narrow = await keyWithScopes(server, ['memories:read']);
    exchanges = await exerciseDeveloperApi(devClient(server), client(server.baseUrl), narrow);
  });

  test('every answer has a documented status and the documented shape, but for the listed exceptions', () => {
    const problems = exchanges
      .map((e) => ({ e, problem: problemWith(e) }))
      .filter(({ problem }) => problem !== undefined)
      .map(
        ({ e, problem }) => `${e.endpoint} (${e.case}) → ${e.status}: ${problem}\n${JSON.stringify(e.body)}`,
      );
    expect(problems).toEqual([]);
  });

  test('every 2xx answer has every field the document describes (but those it may leave out)', () => {
    const absent = exchanges
      .map((e) => ({ e, fields: missingFields(e) }))
      .filter(({ fields }) => fields.length > 0)
      .map(({ e, fields }) => `${e.endpoint} (${e.case}): ${fields.join(', ')}`);
    expect(absent).toEqual([]);
  });

  test('every documented endpoint and status was asked for, and every exception is needed', () => {
    const seen = new Set(exchanges.map((e) => `${e.endpoint} ${e.status}`));
    const documented = Object.entries(REFERENCE_ENDPOINTS).flatMap(([endpoint, statuses]) =>
      Object.keys(statuses).map((status) => `${endpoint} ${status}`),
    );
    // The one status a request may not reach: the conversation list's 400 for an unknown category, which our
    // server may answer with the interface's 422 instead.
    const unreached = documented.filter((d) => !seen.has(d));
    expect(unreached.filter((d) => d !== 'GET /v1/dev/user/conversations 400')).toEqual([]);
    const used = new Set(exchanges.map(exceptionFor).filter((e) => e !== undefined));
    expect(REFERENCE_EXCEPTIONS.filter((e) => !used.has(e)).map((e) => e.why)).toEqual([]);
  });
});

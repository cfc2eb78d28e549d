// Each input that once made the server answer 5xx (issue 13), now a 4xx naming the field, on both databases:
// JSON nested 100,000 deep, tampered cursors, dates outside the years 0001–9999, segment times that overflow the
// conversation's instants, lone surrogates, HEAD on a list. Every refusal leaves the lists readable.
import { fingerprint } from '../../server/src/contract/cursor';
import { HOSTILE_SEARCH_QUERIES } from '../helpers/fuzz';
import { adminClient, devClient, expect422, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const DEEP = 100_000;
const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
const deepObject = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);

/** A cursor as the server made it, with its position's fields replaced (the filters' fingerprint kept). */
function tamper(cursor: string, change: Record<string, unknown>): string {
  const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  return Buffer.from(JSON.stringify({ ...position, ...change })).toString('base64url');
}

describe.each(DIALECTS)('hostile input on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const dev = devClient(server);
  const admin = adminClient(server);

  const listsStillAnswer = async () => {
    for (const path of [
      '/v1/dev/user/conversations',
      '/v1/dev/user/screen-activity',
      '/v1/dev/user/action-items',
      '/v1/dev/user/goals',
      '/v1/dev/user/notifications',
    ]) {
      const reply = await dev.get(path);
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
    }
  };

  it('refuses a body nested 100,000 deep, of arrays or objects, on any route with a 422', async () => {
    for (const path of [
      '/v1/dev/user/conversations',
      '/v1/dev/user/memories',
      '/v1/dev/user/screen-activity',
      '/v1/dev/user/goals',
    ]) {
      for (const body of [deepArray, deepObject, `{"structured":{"events":[${deepObject}]},"text":"hi"}`]) {
        const reply = await dev.raw('POST', path, {
          headers: {
            authorization: `Bearer ${server.init.developer_key}`,
            'content-type': 'application/json',
          },
          body,
        });
        expect(reply.status).toBe(422);
        expect(reply.body.detail[0].type).toBe('json_too_deep');
      }
    }
    // Within the bound, the body reaches its schema as any other does.
    const nested = '{"content":' + '['.repeat(90) + ']'.repeat(90) + '}';
    const withinBound = await dev.raw('POST', '/v1/dev/user/memories', {
      headers: { authorization: `Bearer ${server.init.developer_key}`, 'content-type': 'application/json' },
      body: nested,
    });
    expect422(withinBound, ['body', 'content']);
    await listsStillAnswer();
  });

  it('refuses a lone surrogate in a body value or key with a 422 naming where', async () => {
    expect422(await dev.post('/v1/dev/user/memories', { content: 'half \ud800 a pair' }), [
      'body',
      'content',
    ]);
    expect422(await dev.post('/v1/dev/user/memories', { content: 'c', ['k\udc00']: 1 }), ['body', 'k\udc00']);
    const pair = await dev.post('/v1/dev/user/memories', { content: 'a whole pair 😀 stays' });
    expect(pair.status).toBe(200);
    expect(pair.body.content).toBe('a whole pair 😀 stays');
  });

  it('refuses a list of scopes or capabilities longer than its choices whole, with one 422 issue', async () => {
    // Each unknown entry was an issue of its own: 2.7 million empty strings (8 MiB) blocked the server for
    // seconds and ended in a 500 (the issues' messages outgrew a string), 100,000 made a 40 MB answer.
    const junk = (count: number) => Array.from({ length: count }, () => '');
    const hostile: [Client, string, Record<string, unknown>, (string | number)[]][] = [
      [dev, '/v1/dev/keys', { name: 'k', scopes: junk(2_700_000) }, ['body', 'scopes']],
      [
        admin,
        `/v1/admin/users/${server.init.user_id}/keys`,
        { name: 'k', scopes: junk(100_000) },
        ['body', 'scopes'],
      ],
      [admin, '/v1/admin/apps', { name: 'a', capabilities: junk(100_000) }, ['body', 'capabilities']],
      [
        admin,
        '/v1/admin/apps',
        { name: 'a', capabilities: [], proactive_notification: { scopes: junk(100_000) } },
        ['body', 'proactive_notification', 'scopes'],
      ],
      [
        admin,
        `/v1/admin/apps/${server.init.app_id}/installs`,
        { user_id: server.init.user_id, granted_scopes: junk(100_000) },
        ['body', 'granted_scopes'],
      ],
    ];
    for (const [api, path, body, loc] of hostile) {
      const reply = await api.post(path, body);
      expect({ path, status: reply.status, detail: reply.body.detail }).toEqual({
        path,
        status: 422,
        detail: [{ loc, msg: expect.stringMatching(/^Too big/), type: 'too_big' }],
      });
    }
    // A known value listed twice still counts once.
    const twice = await dev.post('/v1/dev/keys', { name: 'k', scopes: Array(40).fill('memories:read') });
    expect(twice.status).toBe(200);
    expect(twice.body.scopes).toEqual(['memories:read']);
    await listsStillAnswer();
  });

  it('names an unknown field of 8 MB in its loc, and quotes only its first 100 characters in the message', async () => {
    // The message repeated the whole name, and measured its edit distance to every field the object takes: one
    // such field was a 16 MB answer, seconds in the making.
    const field = `name_${'x'.repeat(8_000_000)}`;
    const shown = `Unknown field '${field.slice(0, 100)}…';`;
    const unknownFields = [
      [
        await admin.post('/v1/admin/apps', { name: 'a', capabilities: [], [field]: 1 }),
        "did you mean 'name'?",
      ],
      [await admin.post('/v1/admin/users', { [field]: 1 }), "did you mean 'name'?"],
      [
        await admin.raw('DELETE', '/v1/admin/keys/nokey', {
          headers: { authorization: `Bearer ${server.init.admin_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ [field]: 1 }),
        }),
        'this route takes no body',
      ],
    ] as const;
    for (const [reply, hint] of unknownFields) {
      expect422(reply, ['body', field]);
      const issue = reply.body.detail.find((d: { loc: string[] }) => d.loc[1] === field);
      expect(
        issue.msg.startsWith(shown) && issue.msg.includes(hint) ? 'quoted' : issue.msg.slice(0, 300),
      ).toBe('quoted');
    }
  });

  it('lists the first 100 issues of a body of 300,000 unknown fields, and says how many more there are', async () => {
    // Each was an issue of its own: a 40 MB answer, seconds in the making while the server answered nothing else.
    const fields = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, 1]));
    for (const reply of [
      await dev.post('/v1/dev/user/memories', { content: 'Kept apart', ...fields }),
      await admin.raw('DELETE', '/v1/admin/keys/nokey', {
        headers: { authorization: `Bearer ${server.init.admin_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(fields),
      }),
    ]) {
      expect422(reply, ['body', 'k0']);
      const detail = reply.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
      expect(detail).toHaveLength(101);
      expect(detail[99].loc).toEqual(['body', 'k99']);
      expect(detail[100]).toEqual({
        loc: ['body'],
        msg: '299900 more issues like these not listed: fix those listed and send again',
        type: 'too_many_issues',
      });
    }
    expect((await dev.get('/v1/dev/user/memories', { limit: 100 })).body).not.toContainEqual(
      expect.objectContaining({ content: 'Kept apart' }),
    );
  });

  it('refuses a body that is not UTF-8 with a 422 instead of storing U+FFFD for its bytes', async () => {
    const headers = {
      authorization: `Bearer ${server.init.developer_key}`,
      'content-type': 'application/json',
    };
    for (const bytes of [[0xff, 0xfe], [0xed, 0xa0, 0x80], [0xc3]]) {
      const body = Buffer.concat([
        Buffer.from('{"description":"'),
        Buffer.from(bytes),
        Buffer.from(' bad"}'),
      ]);
      const reply = await dev.raw('POST', '/v1/dev/user/action-items', { headers, body });
      expect422(reply, ['body']);
      expect(reply.body.detail[0].type).toBe('json_invalid');
    }
    const utf8 = await dev.raw('POST', '/v1/dev/user/action-items', {
      headers,
      body: Buffer.from('{"description":"Grüße 😀"}'),
    });
    expect(utf8.status).toBe(200);
    expect(utf8.body.description).toBe('Grüße 😀');
    await listsStillAnswer();
  });

  it('refuses tampered cursors (a huge instant, a NUL or an over-long id) with a 422 at cursor', async () => {
    const base = Date.parse('2026-05-01T00:00:00Z');
    const rows = [0, 1, 2].map((n) => ({
      timestamp: new Date(base + n * 1000).toISOString(),
      app_name: 'Code',
      window_title: 'w',
      ocr_text: 't',
    }));
    expect((await dev.post('/v1/dev/user/screen-activity', { screen_activity: rows })).status).toBe(200);
    const first = await dev.get('/v1/dev/user/screen-activity', { limit: 1 });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const cursor: string = first.body.next_cursor;
    for (const change of [
      { t: -1e300 },
      { t: 1e300 },
      { t: 1.5 },
      { i: 'a\u0000b' },
      { i: 'x'.repeat(5000) },
    ]) {
      expect422(await dev.get('/v1/dev/user/screen-activity', { limit: 1, cursor: tamper(cursor, change) }), [
        'query',
        'cursor',
      ]);
    }
    // Admin deliveries: its cursor is refused the same way (made here by hand; no delivery exists yet).
    const page = await admin.get('/v1/admin/deliveries');
    expect(page.status).toBe(200);
    // The fingerprint of the unfiltered list, as the server makes it: only the position is forged.
    const f = fingerprint({ list: 'admin deliveries' });
    for (const position of [
      { t: -1e300, i: 'x' },
      { t: 0, i: 'a\u0000b' },
    ]) {
      const forged = Buffer.from(JSON.stringify({ ...position, f })).toString('base64url');
      const reply = await admin.get('/v1/admin/deliveries', { cursor: forged });
      expect422(reply, ['query', 'cursor']);
      expect(reply.body.detail[0].type).toBe('cursor_invalid');
    }
    // The same position with a valid one reads the list.
    const valid = Buffer.from(JSON.stringify({ t: Date.now(), i: 'z', f })).toString('base64url');
    expect((await admin.get('/v1/admin/deliveries', { cursor: valid })).status).toBe(200);
    await listsStillAnswer();
  });

  it('refuses dates outside 0001–9999 UTC, given or derived, with a 422 naming the field', async () => {
    for (const [field, value] of [
      ['finished_at', '0000-06-01T00:00:00Z'],
      ['started_at', '0001-01-01T00:30:00+01:00'],
      ['finished_at', '9999-12-31T23:00:00-05:00'],
    ] as const) {
      expect422(
        await dev.post('/v1/dev/user/conversations', {
          text: 'edge date',
          started_at: '2026-01-01T00:00:00Z',
          [field]: value,
        }),
        ['body', field],
      );
    }
    expect422(
      await dev.post('/v1/dev/user/action-items', { description: 'd', due_at: '0000-01-01T00:00:00Z' }),
      ['body', 'due_at'],
    );
    // Derived: a start at 9999-12-31 plus an hour of segments would finish in the year 10000.
    expect422(
      await dev.post('/v1/dev/user/conversations/from-segments', {
        started_at: '9999-12-31T23:30:00Z',
        transcript_segments: [{ text: 'late', start: 0, end: 3600 }],
      }),
      ['body', 'finished_at'],
    );
    await listsStillAnswer();
  });

  it('refuses segment times beyond a year (1e21, 1e308) at the segment, live or not', async () => {
    for (const end of [1e21, 1e308, 31_536_001]) {
      expect422(
        await dev.post('/v1/dev/user/conversations/from-segments', {
          transcript_segments: [{ text: 'far', start: 0, end }],
        }),
        ['body', 'transcript_segments', 0, 'end'],
      );
      expect422(
        await dev.post('/v1/dev/user/transcripts/edge-session/segments', {
          segments: [{ text: 'far', start: 0, end }],
        }),
        ['body', 'segments', 0, 'end'],
      );
    }
    const year = await dev.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [{ text: 'a year long', start: 0, end: 31_536_000 }],
    });
    expect(year.status).toBe(200);
    await listsStillAnswer();
  });

  it('refuses a speaker label whose number is no exact speaker_id, live or not; the largest one round-trips', async () => {
    for (const field of ['speaker', 'speaker_name']) {
      for (const label of ['SPEAKER_99999999999999999999', `Speaker ${'9'.repeat(92)}`]) {
        expect422(
          await dev.post('/v1/dev/user/conversations/from-segments', {
            transcript_segments: [{ text: 'who?', [field]: label, start: 0, end: 1 }],
          }),
          ['body', 'transcript_segments', 0, field],
        );
        expect422(
          await dev.post('/v1/dev/user/transcripts/edge-session/segments', {
            segments: [{ text: 'who?', [field]: label, start: 0, end: 1 }],
          }),
          ['body', 'segments', 0, field],
        );
      }
    }
    // A label the server does not read the speaker from is stored as given.
    const unread = await dev.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [
        { text: 'a', speaker: 'SPEAKER_99999999999999999999', speaker_id: 3, start: 0, end: 1 },
        { text: 'b', speaker: 'SPEAKER_1', speaker_name: `Speaker ${'9'.repeat(30)}`, start: 1, end: 2 },
      ],
    });
    expect(unread.status).toBe(200);
    expect(unread.body.transcript_segments.map((s: { speaker_id: number }) => s.speaker_id)).toEqual([3, 1]);
    const largest = await dev.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [{ text: 'me', speaker: `SPEAKER_${Number.MAX_SAFE_INTEGER}`, start: 0, end: 1 }],
    });
    expect(largest.status).toBe(200);
    const [segment] = largest.body.transcript_segments;
    expect(segment.speaker_id).toBe(Number.MAX_SAFE_INTEGER);
    const again = await dev.post('/v1/dev/user/conversations/from-segments', {
      transcript_segments: [segment],
    });
    expect(again.status).toBe(200);
    expect(again.body.transcript_segments[0].speaker_id).toBe(Number.MAX_SAFE_INTEGER);
    await listsStillAnswer();
  });

  it('answers HEAD on a list like its GET, without a body', async () => {
    for (const path of ['/v1/dev/user/conversations', '/v1/dev/user/screen-activity', '/v1/dev/user/goals']) {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${server.init.developer_key}` },
      });
      expect({ path, status: response.status, body: await response.text() }).toEqual({
        path,
        status: 200,
        body: '',
      });
    }
  });

  it('takes search queries in any engine syntax as words, or refuses them with a 422 naming query', async () => {
    const planted = (
      await dev.post('/v1/dev/user/conversations', { text: 'budget anna title overview word' })
    ).body.id as string;
    // Operators are read as words (or dropped): these find the conversation by its words budget and anna.
    for (const query of ['budget -anna', '-budget', '(budget', '^budget', 'budget & | ! <-> :*']) {
      const reply = await dev.get('/v1/dev/user/conversations/search', { query });
      expect(reply.status).toBe(200);
      expect((reply.body as Array<{ conversation: { id: string } }>).map((r) => r.conversation.id)).toContain(
        planted,
      );
    }
    for (const path of [
      '/v1/dev/user/conversations/search',
      '/v1/dev/user/memories/search',
      '/v1/dev/user/action-items',
    ]) {
      for (const query of [...HOSTILE_SEARCH_QUERIES, '', '"', 'x'.repeat(501)]) {
        const reply = await dev.get(path, { query });
        if (reply.status !== 200) expect422(reply, ['query', 'query']);
      }
    }
    await listsStillAnswer();
  });
});

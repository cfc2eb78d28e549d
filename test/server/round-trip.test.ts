// Writes that round-trip (issue 13): every value a write accepts reads back identically through every endpoint
// that shows it — the write's own answer, the record's GET (where there is one) and its list — on both databases;
// a value that could not is refused with a 422 naming the field. Dates read back as the same instant, written
// the one way the server writes dates (UTC, `Z`, milliseconds); text fields are trimmed (documented); -0 reads
// back as 0, which JSON cannot tell apart.
import { devClient, expect422, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const EDGE_STRINGS = [
  'x'.repeat(5000),
  'astral 😀 and combining é (e\u0301), RTL ‏שלום‏, CJK 漢字',
  'line\nbreaks\tand\u2028separators\u2029and \\ "quotes"',
  'a BOM \ufeff inside, \uffff noncharacter and \u007f DEL',
  "'; DROP TABLE memories; --",
];

/** What `pick` takes from each reader's answer (the write's own, a GET, a list): each must equal `expected`. */
async function readsBack(
  readers: (() => Promise<{ status: number; body: any }>)[],
  pick: (body: any) => unknown,
  expected: unknown,
) {
  for (const read of readers) {
    const reply = await read();
    expect([200, 201]).toContain(reply.status);
    expect(pick(reply.body)).toEqual(expected);
  }
}

describe.each(DIALECTS)('writes that round-trip on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const dev: Client = devClient(server);

  it('strings: edge text reads back unchanged in a memory, its list and its update', async () => {
    for (const content of EDGE_STRINGS) {
      const created = await dev.post('/v1/dev/user/memories', {
        content,
        tags: [content.slice(0, 50).trim()],
      });
      expect(created.status).toBe(200);
      expect(created.body.content).toBe(content);
      const id = created.body.id;
      await readsBack(
        [() => dev.get('/v1/dev/user/memories', { limit: 1000 })],
        (body) => body.find((m: any) => m.id === id)?.content,
        content,
      );
      const updated = await dev.patch(`/v1/dev/user/memories/${id}`, { content: `${content.slice(0, 10)}!` });
      expect(updated.body.content).toBe(`${content.slice(0, 10)}!`);
    }
    // Refused where text cannot be stored and read back: NUL, a lone surrogate, over the bound.
    expect422(await dev.post('/v1/dev/user/memories', { content: 'a\u0000b' }), ['body', 'content']);
    expect422(await dev.post('/v1/dev/user/memories', { content: 'a\ud800b' }), ['body', 'content']);
    expect422(await dev.post('/v1/dev/user/memories', { content: 'x'.repeat(5001) }), ['body', 'content']);
    expect422(await dev.post('/v1/dev/user/memories', { content: 'ok', tags: ['\udfff'] }), [
      'body',
      'tags',
      0,
    ]);
  });

  it('numbers: extreme doubles in a goal read back exactly; -0 as 0', async () => {
    const values = {
      min_value: -1.7976931348623157e308,
      max_value: 1.7976931348623157e308,
      target_value: 1e308,
      current_value: 5e-324,
    };
    const created = await dev.post('/v1/dev/user/goals', {
      title: 'extremes',
      goal_type: 'numeric',
      ...values,
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    const readers = [
      async () => created,
      () => dev.get(`/v1/dev/user/goals/${id}`),
      async () => {
        const list = await dev.get('/v1/dev/user/goals', { include_inactive: true, limit: 1000 });
        return { status: list.status, body: list.body.find((g: any) => g.id === id) };
      },
    ];
    for (const [field, value] of Object.entries(values)) await readsBack(readers, (g) => g[field], value);
    const zero = await dev.patch(`/v1/dev/user/goals/${id}`, { current_value: -0, target_value: 0.1 + 0.2 });
    expect(zero.status).toBe(200);
    expect(Object.is(zero.body.current_value, 0)).toBe(true);
    await readsBack([() => dev.get(`/v1/dev/user/goals/${id}`)], (g) => g.target_value, 0.30000000000000004);
    // Segment times and speaker ids, at their bounds and fractional.
    const segments = [
      { text: 'first', start: 0, end: 1.23456789, speaker_id: 0 },
      { text: 'last', start: 31_535_999.5, end: 31_536_000, speaker_id: Number.MAX_SAFE_INTEGER },
    ];
    const conversation = await dev.post('/v1/dev/user/conversations/from-segments', {
      started_at: '2026-01-01T00:00:00Z',
      transcript_segments: segments,
    });
    expect(conversation.status).toBe(200);
    const conversationId = conversation.body.id;
    const pickSegments = (c: any) =>
      c.transcript_segments.map((s: any) => ({
        text: s.text,
        start: s.start,
        end: s.end,
        speaker_id: s.speaker_id,
      }));
    await readsBack(
      [
        async () => conversation,
        () => dev.get(`/v1/dev/user/conversations/${conversationId}`, { include_transcript: true }),
        async () => {
          const list = await dev.get('/v1/dev/user/conversations', { include_transcript: true, limit: 100 });
          return { status: list.status, body: list.body.find((c: any) => c.id === conversationId) };
        },
      ],
      pickSegments,
      segments,
    );
    expect(conversation.body.finished_at).toBe('2027-01-01T00:00:00.000Z');
    expect422(
      await dev.post('/v1/dev/user/conversations/from-segments', {
        transcript_segments: [{ text: 'x', start: 0, end: 1e21 }],
      }),
      ['body', 'transcript_segments', 0, 'end'],
    );
  });

  it('dates: years 0001 and 9999, offsets and fractional seconds read back as the same instant', async () => {
    const cases: [string, string][] = [
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
      ['2026-06-01T12:00:00+05:30', '2026-06-01T06:30:00.000Z'],
      ['2026-06-01T12:00:00.123456Z', '2026-06-01T12:00:00.123Z'],
      ['2026-06-01T12:00:00', '2026-06-01T12:00:00.000Z'],
      ['0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00.000Z'],
    ];
    for (const [sent, shown] of cases) {
      const item = await dev.post('/v1/dev/user/action-items', { description: `due ${sent}`, due_at: sent });
      expect(item.status).toBe(200);
      const id = item.body.id;
      await readsBack(
        [
          async () => item,
          async () => {
            const list = await dev.get('/v1/dev/user/action-items', { limit: 1000 });
            return { status: list.status, body: list.body.find((a: any) => a.id === id) };
          },
        ],
        (a) => a.due_at,
        shown,
      );
      const conversation = await dev.post('/v1/dev/user/conversations', {
        text: 'dated',
        started_at: sent,
        finished_at: sent,
      });
      expect(conversation.status).toBe(200);
      await readsBack(
        [
          async () => conversation,
          () => dev.get(`/v1/dev/user/conversations/${conversation.body.id}`),
          async () => {
            const list = await dev.get('/v1/dev/user/conversations', { limit: 100 });
            return { status: list.status, body: list.body.find((c: any) => c.id === conversation.body.id) };
          },
        ],
        (c) => [c.started_at, c.finished_at],
        [shown, shown],
      );
    }
    const screen = await dev.post('/v1/dev/user/screen-activity', {
      screen_activity: ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'].map((timestamp) => ({
        timestamp,
        app_name: 'Edge',
        window_title: 'w',
        ocr_text: 't',
      })),
    });
    expect(screen.status).toBe(200);
    const page = await dev.get('/v1/dev/user/screen-activity', { app: 'Edge' });
    expect(page.body.screen_activity.map((r: any) => r.timestamp)).toEqual([
      '0001-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ]);
    for (const [field, value] of [
      ['due_at', '0000-12-31T23:59:59Z'],
      ['due_at', '9999-12-31T23:59:59-00:01'],
      ['due_at', '0001-01-01T00:00:00+00:01'],
    ]) {
      expect422(await dev.post('/v1/dev/user/action-items', { description: 'd', [field]: value }), [
        'body',
        field,
      ]);
    }
  });

  it('booleans and nullables: completed, discarded, due_at, folder_id and horizon_at read back as written', async () => {
    const item = await dev.post('/v1/dev/user/action-items', {
      description: 'flags',
      completed: true,
      due_at: null,
    });
    expect(item.status).toBe(200);
    expect([item.body.completed, item.body.due_at]).toEqual([true, null]);
    const reopened = await dev.patch(`/v1/dev/user/action-items/${item.body.id}`, { completed: false });
    expect([reopened.body.completed, reopened.body.completed_at]).toEqual([false, null]);
    const listed = (await dev.get('/v1/dev/user/action-items', { limit: 1000 })).body.find(
      (a: any) => a.id === item.body.id,
    );
    expect([listed.completed, listed.due_at, listed.completed_at]).toEqual([false, null, null]);

    const conversation = await dev.post('/v1/dev/user/conversations', {
      text: 'to discard',
      folder_id: null,
    });
    expect(conversation.body.folder_id).toBeNull();
    const discarded = await dev.patch(`/v1/dev/user/conversations/${conversation.body.id}`, {
      discarded: true,
    });
    expect(discarded.body.discarded).toBe(true);
    const shown = await dev.get(`/v1/dev/user/conversations/${conversation.body.id}`);
    expect([shown.body.discarded, shown.body.folder_id]).toEqual([true, null]);

    const goal = await dev.post('/v1/dev/user/goals', {
      title: 'nullable',
      goal_type: 'numeric',
      target_value: 1,
      horizon_at: null,
      unit: null,
      why_it_matters: null,
      success_criteria: ['one', 'two'],
    });
    expect(goal.status).toBe(200);
    const read = await dev.get(`/v1/dev/user/goals/${goal.body.id}`);
    expect([
      read.body.horizon_at,
      read.body.unit,
      read.body.why_it_matters,
      read.body.success_criteria,
    ]).toEqual([null, null, null, ['one', 'two']]);
  });
});

// Live transcript sessions at their edges, on both databases: how much one holds, its conversation's status (and
// whether lists and search show it), a title the user gave, session IDs shared with from-segments creates, and how
// long a session ID may be. The user has no app installed, so nothing is dispatched.
import { errorBody } from '../../server/src/contract/common';
import {
  conversation,
  MAX_SESSION_SEGMENTS,
  MAX_SESSION_TEXT,
} from '../../server/src/contract/conversations';
import { conversationSearchResult } from '../../server/src/contract/search';
import { expectShape, newUser, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer, type TestServer } from '../helpers/server';

const segment = (text: string, start = 0) => ({ text, start, end: start + 1 });
const append = (api: Client, sessionId: string, segments: object[]) =>
  api.post(`/v1/dev/user/transcripts/${sessionId}/segments`, { segments });

async function stored(api: Client, id: string) {
  const read = await api.get(`/v1/dev/user/conversations/${id}`, { include_transcript: true });
  return expectShape(conversation, read.body);
}

describe.each(DIALECTS)('live transcript sessions on %s', (dialect) => {
  const server = forSuite<TestServer>(() => startServer(dialect));
  const user = async () => (await newUser(server)).client;

  test(`holds up to ${MAX_SESSION_SEGMENTS} segments; one more is a 409 that says what to do`, async () => {
    const api = await user();
    const batch = (n: number) => Array.from({ length: 500 }, (_, i) => segment('word', n * 500 + i));
    let conversationId = '';
    for (let n = 0; n < MAX_SESSION_SEGMENTS / 500; n++) {
      const reply = await append(api, 'long-session', batch(n));
      expect(reply.status).toBe(202);
      conversationId = reply.body.conversation_id;
    }
    const refused = await append(api, 'long-session', [segment('one more', MAX_SESSION_SEGMENTS)]);
    expect(refused.status).toBe(409);
    expect(expectShape(errorBody, refused.body).detail).toBe(
      `Transcript session long-session holds ${MAX_SESSION_SEGMENTS} segments; with these it would pass the most a session holds (${MAX_SESSION_SEGMENTS} segments, ${MAX_SESSION_TEXT} characters of text): finish it and go on under a new session ID`,
    );
    const kept = await stored(api, conversationId);
    expect(kept.transcript_segments).toHaveLength(MAX_SESSION_SEGMENTS);
    expect(kept.transcript_segments!.at(-1)!.end).toBe(MAX_SESSION_SEGMENTS);
    expect((await api.post('/v1/dev/user/transcripts/long-session/finish')).status).toBe(200);
  }, 120_000);

  test(`holds up to ${MAX_SESSION_TEXT} characters of text; more is a 409`, async () => {
    const api = await user();
    const long = 'x'.repeat(MAX_SESSION_TEXT / 500);
    const first = await append(
      api,
      'wordy-session',
      Array.from({ length: 500 }, (_, i) => segment(long, i)),
    );
    expect(first.status).toBe(202);
    const refused = await append(api, 'wordy-session', [segment('y', 500)]);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/^Transcript session wordy-session holds 500 segments; /);
    expect((await stored(api, first.body.conversation_id)).transcript_segments).toHaveLength(500);
  }, 60_000);

  test('the summary follows the transcript, but a title the user gave stays', async () => {
    const api = await user();
    const first = await append(api, 'titled', [segment('hello there')]);
    const id = first.body.conversation_id;
    expect((await stored(api, id)).structured.title).toBe('hello there');
    await append(api, 'titled', [segment('general kenobi', 1)]);
    expect((await stored(api, id)).structured).toMatchObject({
      title: 'hello there general kenobi',
      overview: 'hello there general kenobi',
    });

    expect((await api.patch(`/v1/dev/user/conversations/${id}`, { title: 'Star Wars quotes' })).status).toBe(
      200,
    );
    await append(api, 'titled', [segment('you are a bold one', 2)]);
    expect((await stored(api, id)).structured).toMatchObject({
      title: 'Star Wars quotes',
      overview: 'hello there general kenobi you are a bold one',
    });
  });

  test('its conversation is in_progress until the session is finished, and lists only say so when asked', async () => {
    const api = await user();
    const made = await api.post('/v1/dev/user/conversations', { text: 'Made whole' });
    expect(made.body.status).toBe('completed');
    const id = (await append(api, 'status-session', [segment('still talking')])).body.conversation_id;
    expect((await stored(api, id)).status).toBe('in_progress');

    const listed = async (query: Record<string, string>) => {
      const reply = await api.get('/v1/dev/user/conversations', query);
      expect(reply.status).toBe(200);
      return expectShape(conversation.array(), reply.body).map((c) => [c.id, c.status]);
    };
    const done = [made.body.id, 'completed'];
    // As the real service's list: completed conversations only, unless statuses asks for more.
    expect(await listed({})).toEqual([done]);
    expect(await listed({ statuses: '' })).toEqual([done]);
    expect(await listed({ statuses: 'in_progress' })).toEqual([[id, 'in_progress']]);
    expect(await listed({ statuses: 'completed, in_progress' })).toEqual([[id, 'in_progress'], done]);
    // The change feed shows a live session's conversation as it grows; statuses narrows it as asked.
    expect(await listed({ order: 'updated_at' })).toEqual([done, [id, 'in_progress']]);
    expect(await listed({ order: 'updated_at', statuses: 'completed' })).toEqual([done]);

    expect((await api.post('/v1/dev/user/transcripts/status-session/finish')).status).toBe(200);
    expect((await stored(api, id)).status).toBe('completed');
    expect(await listed({})).toEqual([[id, 'completed'], done]);
    expect(await listed({ statuses: 'in_progress' })).toEqual([]);
    expect(await listed({ order: 'updated_at' })).toEqual([done, [id, 'completed']]);

    const refused = await api.get('/v1/dev/user/conversations', {
      statuses: 'processing,in_progress,failed',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({
      loc: ['query', 'statuses'],
      msg: 'Unknown statuses processing, failed; use in_progress, completed',
    });
  });

  test('search finds its conversation only when statuses asks for in_progress, and by default once finished', async () => {
    const api = await user();
    const made = await api.post('/v1/dev/user/conversations', { text: 'Pelican migration, made whole' });
    const id = (await append(api, 'search-session', [segment('pelican migration live')])).body
      .conversation_id;

    const found = async (query: Record<string, string>) => {
      const reply = await api.get('/v1/dev/user/conversations/search', { query: 'pelican', ...query });
      expect(reply.status).toBe(200);
      return expectShape(conversationSearchResult.array(), reply.body)
        .map(({ conversation: { id, status } }) => [id, status])
        .sort();
    };
    const done = [made.body.id, 'completed'];
    // As the real service, which indexes a conversation for search only once it is processed.
    expect(await found({})).toEqual([done]);
    expect(await found({ statuses: '' })).toEqual([done]);
    expect(await found({ statuses: 'in_progress' })).toEqual([[id, 'in_progress']]);
    expect(await found({ statuses: 'in_progress,completed' })).toEqual([[id, 'in_progress'], done].sort());

    expect((await api.post('/v1/dev/user/transcripts/search-session/finish')).status).toBe(200);
    expect(await found({})).toEqual([[id, 'completed'], done].sort());
    expect(await found({ statuses: 'in_progress' })).toEqual([]);

    const refused = await api.get('/v1/dev/user/conversations/search', {
      query: 'pelican',
      statuses: 'failed',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({
      loc: ['query', 'statuses'],
      msg: 'Unknown status failed; use in_progress, completed',
    });
  });

  test("a live session's ID is refused by from-segments, and a from-segments ID by finish", async () => {
    const api = await user();
    const live = await append(api, 'live-one', [segment('live words')]);
    const refused = await api.post('/v1/dev/user/conversations/from-segments', {
      client_session_id: 'live-one',
      transcript_segments: [segment('imported words')],
      structured: { title: 'Mine', overview: 'o', category: 'other' },
    });
    expect(refused.status).toBe(409);
    expect(expectShape(errorBody, refused.body).detail).toBe(
      'client_session_id live-one is the ID of a live transcript session, not of a conversation created from segments: use another client_session_id',
    );
    const session = await stored(api, live.body.conversation_id);
    expect(session.structured.title).toBe('live words');
    expect(session.transcript_segments!.map((s) => s.text)).toEqual(['live words']);
    expect((await append(api, 'live-one', [segment('still live', 1)])).status).toBe(202);

    const made = await api.post('/v1/dev/user/conversations/from-segments', {
      client_session_id: 'imported-one',
      transcript_segments: [segment('imported words')],
    });
    expect(made.status).toBe(200);
    const finish = await api.post('/v1/dev/user/transcripts/imported-one/finish');
    expect(finish.status).toBe(409);
    expect(finish.body.detail).toBe(
      'Session ID imported-one is the client_session_id of a conversation created from segments, not a live transcript session: use another session ID',
    );
  });

  test('a create may not claim the source live sessions have', async () => {
    const api = await user();
    for (const path of ['/v1/dev/user/conversations/from-segments', '/v1/dev/user/conversations']) {
      const body = path.endsWith('from-segments')
        ? { transcript_segments: [segment('words')], source: 'live_transcript' }
        : { text: 'words', source: 'live_transcript' };
      const reply = await api.post(path, body);
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0]).toMatchObject({
        loc: ['body', 'source'],
        msg: 'live_transcript is the source of the conversations live transcript sessions make: give another, e.g. api',
      });
    }
  });

  test('a session ID may have 200 characters; a longer one is a 422 naming it', async () => {
    const api = await user();
    expect((await append(api, 's'.repeat(200), [segment('long id')])).status).toBe(202);
    const refused = await append(api, 's'.repeat(201), [segment('too long id')]);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['path', 'session_id'], type: 'too_big' });
  });
});

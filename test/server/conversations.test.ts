import { actionItem } from '../../server/src/contract/action-items';
import { errorBody, success, validationErrorBody } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { folder } from '../../server/src/contract/folders';
import { newId } from '../../server/src/ids';
import { isRetryOf, type Conversation } from '../../server/src/store/conversations';
import {
  client,
  devClient,
  expect422,
  expectShape,
  keyWithScopes,
  newUser,
  type Client,
} from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/conversations';

describe.each(DIALECTS)('conversations on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const countRows = (filter: { userId?: string; clientSessionId?: string } = {}) =>
    server.count('conversations', {
      ...(filter.userId !== undefined ? { user_id: filter.userId } : {}),
      ...(filter.clientSessionId !== undefined ? { client_session_id: filter.clientSessionId } : {}),
    });

  const createText = async (as: Client, body: Record<string, unknown>) => {
    const reply = await as.post(BASE, body);
    expect(reply.status).toBe(200);
    return expectShape(conversation, reply.body);
  };

  describe('create from text', () => {
    it('derives the summary from the text and stores it as one segment', async () => {
      const text = '  We agreed to ship the new billing page next Tuesday after the review.  ';
      const before = Date.now();
      const created = await createText(api, { text });
      expect(created).toMatchObject({
        language: 'en',
        source: 'api',
        folder_id: null,
        folder_name: null,
        discarded: false,
      });
      // Issue 26: no place means no geolocation field (the real service's document), not null.
      expect(created).not.toHaveProperty('geolocation');
      expect(created.structured.title).toBe('We agreed to ship the new billing page…');
      expect(created.structured.overview).toBe(text.trim());
      expect(created.structured.category).toBe('other');
      expect(created.structured.action_items).toEqual([]);
      expect(created.transcript_segments).toHaveLength(1);
      expect(created.transcript_segments![0]).toMatchObject({
        text: text.trim(),
        speaker_id: 0,
        speaker_name: 'Speaker 0',
        is_user: false,
        start: 0,
        end: 0,
      });
      const started = Date.parse(created.started_at);
      expect(started).toBeGreaterThanOrEqual(before);
      expect(started).toBeLessThanOrEqual(Date.now());
      expect(created.finished_at).toBe(created.started_at);

      const fetched = await api.get(`${BASE}/${created.id}`);
      expect(fetched.status).toBe(200);
      const body = expectShape(conversation, fetched.body);
      expect(body).not.toHaveProperty('transcript_segments');
      expect(body.structured.title).toBe(created.structured.title);
    });

    it('keeps a short title whole, cuts a long overview and lets supplied fields win', async () => {
      const short = await createText(api, { text: 'Quick sync' });
      expect(short.structured.title).toBe('Quick sync');
      expect(short.structured.overview).toBe('Quick sync');

      const long = await createText(api, { text: 'word '.repeat(200) });
      expect(long.structured.overview.length).toBeLessThanOrEqual(300);
      expect(long.structured.overview.length).toBeGreaterThan(250);
      expect(long.structured.overview.endsWith('…')).toBe(true);

      const given = await createText(api, {
        text: 'Dentist appointment moved to Friday',
        structured: { title: 'Dentist', overview: 'Moved.', category: 'health', emoji: '🦷' },
        language: 'de',
        source: 'phone',
        started_at: '2025-06-01T10:00:00+02:00',
        geolocation: { latitude: 52.52, longitude: 13.405, address: 'Berlin' },
      });
      expect(given.structured).toMatchObject({
        title: 'Dentist',
        overview: 'Moved.',
        category: 'health',
        emoji: '🦷',
      });
      expect(given).toMatchObject({ language: 'de', source: 'phone' });
      expect(given.started_at).toBe('2025-06-01T08:00:00.000Z');
      expect(given.finished_at).toBe('2025-06-01T08:00:00.000Z');
      expect(given.geolocation).toEqual({ latitude: 52.52, longitude: 13.405, address: 'Berlin' });
    });

    it('puts a new conversation in one of the caller’s folders, never another user’s', async () => {
      const made = await api.post('/v1/dev/user/folders', { name: 'Work' });
      const work = expectShape(folder, made.body);
      const inFolder = await createText(api, { text: 'Standup notes', folder_id: work.id });
      expect(inFolder).toMatchObject({ folder_id: work.id, folder_name: 'Work' });
      const fetched = await api.get(`${BASE}/${inFolder.id}`);
      expect(fetched.body).toMatchObject({ folder_id: work.id, folder_name: 'Work' });

      const other = await newUser(server);
      const before = await countRows({ userId: other.id });
      const refused = await other.client.post(BASE, { text: 'sneaky', folder_id: work.id });
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ detail: 'Folder not found' });
      const missing = await api.post(BASE, { text: 'lost', folder_id: 'no-such-folder' });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ detail: 'Folder not found' });
      expect(await countRows({ userId: other.id })).toBe(before);
    });

    it('rejects bad bodies with FastAPI 422s and stores nothing', async () => {
      const before = await countRows();
      expect422(await api.post(BASE, { text: 123 }), ['body', 'text']);
      expect422(await api.post(BASE, {}), ['body', 'text']);
      expect422(await api.post(BASE, { text: '   ' }), ['body', 'text']);
      expect422(await api.post(BASE, { text: 'x', started_at: 'yesterday' }), ['body', 'started_at']);
      expect422(await api.post(BASE, { text: 'x', structured: { category: 'nonsense' } }), [
        'body',
        'structured',
        'category',
      ]);
      expect422(await api.post(BASE, { text: 'x', geolocation: { latitude: 91, longitude: 0 } }), [
        'body',
        'geolocation',
        'latitude',
      ]);
      expect422(
        await api.post(BASE, {
          text: 'x',
          started_at: '2025-01-02T00:00:00Z',
          finished_at: '2025-01-01T00:00:00Z',
        }),
        ['body', 'finished_at'],
      );
      const missingBody = await api.post(BASE);
      expect(missingBody.status).toBe(422);
      expectShape(validationErrorBody, missingBody.body);
      expect(await countRows()).toBe(before);
    });
  });

  describe('create from segments', () => {
    const FROM_SEGMENTS = `${BASE}/from-segments`;

    it('maps speakers, joins the text and derives the times from the last segment', async () => {
      const reply = await api.post(FROM_SEGMENTS, {
        started_at: '2025-05-05T09:00:00Z',
        transcript_segments: [
          { text: 'Hello there.', speaker: 'SPEAKER_01', start: 0, end: 2.5 },
          { text: 'Hi, I am here.', speaker_id: 3, is_user: true, start: 2.5, end: 5 },
          { text: 'Great, let us begin the planning meeting now.', speaker: 'Alice', start: 5, end: 90.25 },
          { text: 'Sure.', start: 91, end: 92 },
        ],
      });
      expect(reply.status).toBe(200);
      const created = expectShape(conversation, reply.body);
      const segments = created.transcript_segments!;
      expect(segments.map((s) => [s.speaker_id, s.speaker_name, s.is_user])).toEqual([
        [1, 'SPEAKER_01', false],
        [3, 'Speaker 3', true],
        [0, 'Alice', false],
        [0, 'Speaker 0', false],
      ]);
      expect(segments.map((s) => [s.start, s.end])).toEqual([
        [0, 2.5],
        [2.5, 5],
        [5, 90.25],
        [91, 92],
      ]);
      expect(new Set(segments.map((s) => s.id)).size).toBe(4);
      expect(created.structured.title).toBe('Hello there. Hi, I am here. Great, let…');
      expect(created.structured.overview).toBe(
        'Hello there. Hi, I am here. Great, let us begin the planning meeting now. Sure.',
      );
      expect(created.started_at).toBe('2025-05-05T09:00:00.000Z');
      expect(created.finished_at).toBe('2025-05-05T09:01:32.000Z');

      const withTranscript = await api.get(`${BASE}/${created.id}`, { include_transcript: true });
      expect(expectShape(conversation, withTranscript.body).transcript_segments).toEqual(segments);
      const without = await api.get(`${BASE}/${created.id}`, { include_transcript: false });
      expect(without.body).not.toHaveProperty('transcript_segments');
    });

    it('derives started_at from finished_at', async () => {
      const reply = await api.post(FROM_SEGMENTS, {
        finished_at: '2025-05-05T10:00:00Z',
        transcript_segments: [{ text: 'One minute of talk', start: 0, end: 60 }],
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({
        started_at: '2025-05-05T09:59:00.000Z',
        finished_at: '2025-05-05T10:00:00.000Z',
      });
    });

    it('is idempotent by client_session_id, also under concurrent retries', async () => {
      const body = {
        client_session_id: `session-${dialect}-1`,
        transcript_segments: [{ text: 'Retry me', start: 0, end: 1 }],
      };
      const first = await api.post(FROM_SEGMENTS, body);
      expect(first.status).toBe(200);
      const second = await api.post(FROM_SEGMENTS, body);
      expect(second.status).toBe(200);
      expect(expectShape(conversation, second.body).id).toBe(first.body.id);
      expect(second.body.structured.title).toBe('Retry me');
      // A retry is still one after the conversation was renamed.
      expect((await api.patch(`${BASE}/${first.body.id}`, { title: 'Renamed' })).status).toBe(200);
      expect((await api.post(FROM_SEGMENTS, body)).body.id).toBe(first.body.id);
      // Other content under the same ID is refused, not dropped: other segments, another speaker, language, start.
      for (const changed of [
        { transcript_segments: [{ text: 'Other', start: 0, end: 9 }] },
        { transcript_segments: [{ ...body.transcript_segments[0], speaker: 'SPEAKER_01' }] },
        { transcript_segments: [{ ...body.transcript_segments[0], is_user: true }] },
        { language: 'de' },
        { started_at: '2025-05-05T10:00:00Z' },
      ]) {
        const refused = await api.post(FROM_SEGMENTS, { ...body, ...changed });
        expect(refused.status).toBe(409);
        expect(refused.body.detail).toBe(
          `client_session_id ${body.client_session_id} was already used for a different conversation (other transcript_segments, language, source, geolocation, started_at or finished_at): send the same body to retry, or use another client_session_id`,
        );
      }
      const read = await api.get(`${BASE}/${first.body.id}`, { include_transcript: true });
      expect(read.body.transcript_segments.map((s: { text: string }) => s.text)).toEqual(['Retry me']);
      expect(await countRows({ clientSessionId: body.client_session_id })).toBe(1);

      // Another user may use the same session id for their own conversation.
      const other = await newUser(server);
      const theirs = await other.client.post(FROM_SEGMENTS, body);
      expect(theirs.status).toBe(200);
      expect(theirs.body.id).not.toBe(first.body.id);

      const racing = { ...body, client_session_id: `session-${dialect}-race` };
      const replies = await Promise.all(Array.from({ length: 8 }, () => api.post(FROM_SEGMENTS, racing)));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
      expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
      expect(await countRows({ clientSessionId: racing.client_session_id })).toBe(1);
    });

    it('rejects 0 or 501 segments and bad segments with 422, storing nothing', async () => {
      const before = await countRows();
      const segment = { text: 'x', start: 0, end: 1 };
      expect422(await api.post(FROM_SEGMENTS, { transcript_segments: [] }), ['body', 'transcript_segments']);
      expect422(await api.post(FROM_SEGMENTS, { transcript_segments: Array(501).fill(segment) }), [
        'body',
        'transcript_segments',
      ]);
      expect422(await api.post(FROM_SEGMENTS, {}), ['body', 'transcript_segments']);
      expect422(
        await api.post(FROM_SEGMENTS, { transcript_segments: [segment, { text: 'y', start: 'a', end: 1 }] }),
        ['body', 'transcript_segments', 1, 'start'],
      );
      expect422(await api.post(FROM_SEGMENTS, { transcript_segments: [{ start: 0, end: 1 }] }), [
        'body',
        'transcript_segments',
        0,
        'text',
      ]);
      expect422(await api.post(FROM_SEGMENTS, { transcript_segments: [{ text: 'y', start: 5, end: 1 }] }), [
        'body',
        'transcript_segments',
        0,
        'end',
      ]);
      expect422(await api.post(FROM_SEGMENTS, { transcript_segments: [segment], client_session_id: 42 }), [
        'body',
        'client_session_id',
      ]);
      expect(await countRows()).toBe(before);

      const max = await api.post(FROM_SEGMENTS, { transcript_segments: Array(500).fill(segment) });
      expect(max.status).toBe(200);
      expect(max.body.transcript_segments).toHaveLength(500);
      expect(await countRows()).toBe(before + 1);
    });
  });

  describe('list', () => {
    it('orders by started_at then id, newest first, with limit and offset', async () => {
      const user = await newUser(server);
      const at = (iso: string) => createText(user.client, { text: `at ${iso}`, started_at: iso });
      const a = await at('2025-01-01T10:00:00Z');
      const b = await at('2025-01-03T10:00:00Z');
      const c1 = await at('2025-01-02T10:00:00Z');
      const c2 = await at('2025-01-02T10:00:00Z');

      const all = await user.client.get(BASE);
      expect(all.status).toBe(200);
      const listed = expectShape(conversation.array(), all.body);
      expect(listed.map((c) => c.id)).toEqual([b.id, c2.id, c1.id, a.id]);
      expect(listed.every((c) => c.transcript_segments === undefined)).toBe(true);

      const page = await user.client.get(BASE, { limit: 2, offset: 1 });
      expect(page.body.map((c: { id: string }) => c.id)).toEqual([c2.id, c1.id]);

      const withTranscript = await user.client.get(BASE, { include_transcript: true, limit: 1 });
      const first = expectShape(conversation.array(), withTranscript.body);
      expect(first).toHaveLength(1);
      expect(first[0].transcript_segments?.[0].text).toBe('at 2025-01-03T10:00:00Z');
    });

    it('filters by a date-only range covering whole UTC days, and by date-time', async () => {
      const user = await newUser(server);
      const at = (iso: string) => createText(user.client, { text: iso, started_at: iso });
      await at('2025-03-09T23:59:59.999Z');
      const dayStart = await at('2025-03-10T00:00:00.000Z');
      const dayEnd = await at('2025-03-10T23:59:59.999Z');
      const nextDay = await at('2025-03-11T00:00:00.000Z');

      const oneDay = await user.client.get(BASE, { start_date: '2025-03-10', end_date: '2025-03-10' });
      expect(oneDay.status).toBe(200);
      expect(expectShape(conversation.array(), oneDay.body).map((c) => c.id)).toEqual([
        dayEnd.id,
        dayStart.id,
      ]);

      const fromDay = await user.client.get(BASE, { start_date: '2025-03-10' });
      expect(fromDay.body.map((c: { id: string }) => c.id)).toEqual([nextDay.id, dayEnd.id, dayStart.id]);

      const offsetTime = await user.client.get(BASE, {
        start_date: '2025-03-10T12:00:00+02:00',
        end_date: '2025-03-11T00:00:00Z',
      });
      expect(offsetTime.body.map((c: { id: string }) => c.id)).toEqual([nextDay.id, dayEnd.id]);

      expect422(await user.client.get(BASE, { start_date: 'yesterday' }), ['query', 'start_date']);
      expect422(await user.client.get(BASE, { end_date: '2025-02-30' }), ['query', 'end_date']);
    });

    it('hides discarded conversations unless asked and filters by folder', async () => {
      const user = await newUser(server);
      const kept = await createText(user.client, { text: 'kept', started_at: '2025-04-01T00:00:00Z' });
      const dropped = await createText(user.client, { text: 'dropped', started_at: '2025-04-02T00:00:00Z' });
      const discard = await user.client.patch(`${BASE}/${dropped.id}`, { discarded: true });
      expect(discard.status).toBe(200);
      expect(expectShape(conversation, discard.body).discarded).toBe(true);

      expect((await user.client.get(BASE)).body.map((c: { id: string }) => c.id)).toEqual([kept.id]);
      const everything = await user.client.get(BASE, { include_discarded: true });
      expect(everything.body.map((c: { id: string }) => c.id)).toEqual([dropped.id, kept.id]);
      expect((await user.client.get(`${BASE}/${dropped.id}`)).body.discarded).toBe(true);

      const box = (await user.client.post('/v1/dev/user/folders', { name: 'Box' })).body;
      const boxed = await createText(user.client, { text: 'boxed', folder_id: box.id });
      const inBox = await user.client.get(BASE, { folder_id: box.id });
      expect(inBox.body.map((c: { id: string }) => c.id)).toEqual([boxed.id]);
      expect(inBox.body[0].folder_name).toBe('Box');
    });

    it('validates the query with FastAPI bodies', async () => {
      for (const limit of ['0', '1001', '2.5', 'ten']) {
        expect422(await api.get(BASE, { limit }), ['query', 'limit']);
      }
      expect((await api.get(BASE, { limit: 1000 })).status).toBe(200);
      expect422(await api.get(BASE, { offset: -1 }), ['query', 'offset']);
      expect422(await api.get(BASE, { include_transcript: 'maybe' }), ['query', 'include_transcript']);
      expect422(await api.get(BASE, { include_discarded: 'maybe' }), ['query', 'include_discarded']);
    });

    it('defaults to 25 records', async () => {
      const user = await newUser(server);
      for (let i = 0; i < 26; i++) await createText(user.client, { text: `n${i}` });
      expect((await user.client.get(BASE)).body).toHaveLength(25);
      expect((await user.client.get(BASE, { offset: 25 })).body).toHaveLength(1);
    });
  });

  describe('update and delete', () => {
    it('renames, moves between folders and back to none', async () => {
      const created = await createText(api, {
        text: 'Budget planning for next quarter',
        structured: { emoji: '💰' },
      });
      const renamed = await api.patch(`${BASE}/${created.id}`, { title: '  Budget Q3  ' });
      expect(renamed.status).toBe(200);
      const body = expectShape(conversation, renamed.body);
      expect(body.structured).toMatchObject({
        title: 'Budget Q3',
        overview: 'Budget planning for next quarter',
        category: 'other',
        emoji: '💰',
      });
      expect(body).not.toHaveProperty('transcript_segments');
      expect(body.discarded).toBe(false);

      const folderReply = await api.post('/v1/dev/user/folders', { name: 'Finance' });
      const moved = await api.patch(`${BASE}/${created.id}`, { folder_id: folderReply.body.id });
      expect(moved.body).toMatchObject({ folder_id: folderReply.body.id, folder_name: 'Finance' });
      expect(moved.body.structured.title).toBe('Budget Q3');
      expect((await api.get(`${BASE}/${created.id}`)).body).toMatchObject({
        folder_id: folderReply.body.id,
        folder_name: 'Finance',
        structured: { title: 'Budget Q3' },
      });

      const unfiled = await api.patch(`${BASE}/${created.id}`, { folder_id: null });
      expect(unfiled.body).toMatchObject({ folder_id: null, folder_name: null });
      expect((await api.get(`${BASE}/${created.id}`)).body.folder_id).toBeNull();

      const unchanged = await api.patch(`${BASE}/${created.id}`, {});
      expect(unchanged.status).toBe(200);
      expect(unchanged.body.structured.title).toBe('Budget Q3');
    });

    it('refuses a folder that is not the caller’s and bad bodies, changing nothing', async () => {
      const created = await createText(api, { text: 'Stay put' });
      const other = await newUser(server);
      const theirFolder = (await other.client.post('/v1/dev/user/folders', { name: 'Theirs' })).body;
      const refused = await api.patch(`${BASE}/${created.id}`, {
        folder_id: theirFolder.id,
        title: 'Changed',
      });
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ detail: 'Folder not found' });

      expect422(await api.patch(`${BASE}/${created.id}`, { discarded: 'yes' }), ['body', 'discarded']);
      expect422(await api.patch(`${BASE}/${created.id}`, { title: '' }), ['body', 'title']);
      expect422(await api.patch(`${BASE}/${created.id}`, { title: 7 }), ['body', 'title']);

      const row = await server.store.db
        .selectFrom('conversations')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      expect(row.folder_id).toBeNull();
      expect(row.discarded).toBe(0);
      expect(JSON.parse(row.structured).title).toBe('Stay put');
    });

    it('embeds linked action items and unlinks them when the conversation is deleted', async () => {
      const created = await createText(api, { text: 'Call the plumber tomorrow' });
      const item = await api.post('/v1/dev/user/action-items', {
        description: 'Call the plumber',
        conversation_id: created.id,
      });
      expect(item.status).toBe(200);
      const fetched = expectShape(conversation, (await api.get(`${BASE}/${created.id}`)).body);
      expect(fetched.structured.action_items).toEqual([
        expect.objectContaining({ description: 'Call the plumber', completed: false, due_at: null }),
      ]);

      const deleted = await api.delete(`${BASE}/${created.id}`);
      expect(deleted.status).toBe(200);
      expectShape(success, deleted.body);
      expect((await api.get(`${BASE}/${created.id}`)).status).toBe(404);
      const gone = await server.store.db
        .selectFrom('conversations')
        .select('id')
        .where('id', '=', created.id)
        .executeTakeFirst();
      expect(gone).toBeUndefined();

      const listed = expectShape(actionItem.array(), (await api.get('/v1/dev/user/action-items')).body);
      expect(listed.find((i) => i.id === item.body.id)).toMatchObject({ conversation_id: null });
      const stored = await server.store.db
        .selectFrom('action_items')
        .select('conversation_id')
        .where('id', '=', item.body.id)
        .executeTakeFirstOrThrow();
      expect(stored.conversation_id).toBeNull();
      expect((await api.delete(`${BASE}/${created.id}`)).status).toBe(404);
    });

    it('answers 404 for a missing conversation and for another user’s', async () => {
      const mine = await createText(api, { text: 'private' });
      const other = await newUser(server);
      for (const [as, id] of [
        [api, 'no-such-conversation'],
        [other.client, mine.id],
      ] as const) {
        for (const reply of [
          await as.get(`${BASE}/${id}`),
          await as.get(`${BASE}/${id}`, { include_transcript: true }),
          await as.patch(`${BASE}/${id}`, { title: 'stolen' }),
          await as.delete(`${BASE}/${id}`),
        ]) {
          expect(reply.status).toBe(404);
          expect(reply.body).toEqual({ detail: 'Conversation not found' });
        }
      }
      expect((await other.client.get(BASE)).body).toEqual([]);
      const row = await server.store.db
        .selectFrom('conversations')
        .select('structured')
        .where('id', '=', mine.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.structured).title).toBe('private');
    });
  });

  describe('authentication and scopes', () => {
    it('answers 401 without a valid key', async () => {
      const anonymous = await fetch(`${server.baseUrl}${BASE}`);
      expect(anonymous.status).toBe(401);
      expect(expectShape(errorBody, await anonymous.json()).detail).toBe(
        "Missing or invalid Authorization header. Must be 'Bearer API_KEY'",
      );
      const wrong = await client(server.baseUrl, 'svc_dev_00000000000000000000000000000000').post(BASE, {
        text: 'x',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ detail: 'Invalid API Key' });
    });

    it('answers 403 for a key without the read or write scope', async () => {
      const existing = await createText(api, { text: 'scoped' });
      const readOnly = await keyWithScopes(server, ['conversations:read']);
      const writeOnly = await keyWithScopes(server, ['conversations:write']);
      const needWrite = { detail: 'Insufficient permissions. Required scope: conversations:write' };
      const needRead = { detail: 'Insufficient permissions. Required scope: conversations:read' };
      const before = await countRows();

      for (const reply of [
        await readOnly.post(BASE, { text: 'x' }),
        await readOnly.post(`${BASE}/from-segments`, {
          transcript_segments: [{ text: 'x', start: 0, end: 1 }],
        }),
        await readOnly.patch(`${BASE}/${existing.id}`, { title: 'x' }),
        await readOnly.delete(`${BASE}/${existing.id}`),
      ]) {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual(needWrite);
      }
      for (const reply of [await writeOnly.get(BASE), await writeOnly.get(`${BASE}/${existing.id}`)]) {
        expect(reply.status).toBe(403);
        expect(reply.body).toEqual(needRead);
      }
      expect((await readOnly.get(`${BASE}/${existing.id}`)).status).toBe(200);
      expect(await countRows()).toBe(before);
      expect((await api.get(`${BASE}/${existing.id}`)).body.structured.title).toBe('scoped');
    });
  });
});

describe('the retry check and record ids', () => {
  it('leaves the id clock alone, so ids made after it in the same millisecond still sort in creation order', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const at = new Date(now).toISOString();
    const existing: Conversation = {
      id: newId(now),
      created_at: at,
      updated_at: at,
      started_at: at,
      finished_at: at,
      language: 'en',
      source: 'api',
      status: 'completed',
      structured: { title: 't', overview: 'o', category: 'other', emoji: '🧠', events: [], action_items: [] },
      transcript_segments: [
        {
          id: newId(now),
          text: 'Retry me',
          speaker_id: 0,
          speaker_name: 'Speaker 0',
          is_user: false,
          person_id: null,
          start: 0,
          end: 1,
        },
      ],
      folder_id: null,
      folder_name: null,
      discarded: false,
      starred: false,
      text_source: null,
      text_source_spec: null,
    };
    const before = newId(now);
    expect(
      isRetryOf(existing, {
        language: 'en',
        source: 'api',
        transcript_segments: [{ text: 'Retry me', start: 0, end: 1, is_user: false }],
      }),
    ).toBe(true);
    expect(newId(now) > before).toBe(true);
  });
});

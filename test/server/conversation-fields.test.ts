// The conversation fields and behaviours taken from the real service (issue 26, decision 5): a create answers
// the whole record, every record shows its `status`, `structured.emoji` and `structured.events`, `geolocation`
// is left out when there is none, the list filters by categories and starred and pages up to 1000, a text
// conversation keeps its text_source, and a title may be 500 characters long.
import { conversation } from '../../server/src/contract/conversations';
import { devClient, expect422, expectShape, newUser, ok, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const BASE = '/v1/dev/user/conversations';
const FROM_SEGMENTS = `${BASE}/from-segments`;
/** Decision 1 of issue 26: every create under /v1/dev/ answers 200, as the real service's do. */
const CREATED = 200;

describe.each(DIALECTS)('conversation fields of the real service on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const createText = async (as: Client, body: Record<string, unknown>) =>
    expectShape(conversation, await ok(as.post(BASE, body), CREATED));

  /** The conversation `id` as its GET and the list (discarded ones included) show it. */
  const readBack = async (as: Client, id: string) => {
    const one = expectShape(conversation, await ok(as.get(`${BASE}/${id}`)));
    const list = expectShape(
      conversation.array(),
      await ok(as.get(BASE, { limit: 1000, include_discarded: true })),
    );
    return [one, list.find((c) => c.id === id)];
  };

  describe('create', () => {
    it('answers the whole record with status completed, from text, from segments and on a replay', async () => {
      const fromText = await createText(api, { text: 'Status check' });
      expect(fromText).toMatchObject({ status: 'completed', discarded: false, language: 'en' });
      expect(fromText.structured.title).toBe('Status check');
      expect(fromText.transcript_segments).toHaveLength(1);

      const segments = {
        client_session_id: `status-${dialect}`,
        transcript_segments: [{ text: 'From segments', start: 0, end: 1 }],
      };
      const first = expectShape(conversation, await ok(api.post(FROM_SEGMENTS, segments), CREATED));
      expect(first).toMatchObject({ status: 'completed', discarded: false });
      expect(first.transcript_segments?.[0].text).toBe('From segments');
      const replay = await api.post(FROM_SEGMENTS, segments);
      expect(replay.status).toBe(200);
      expect(expectShape(conversation, replay.body)).toMatchObject({
        id: first.id,
        status: 'completed',
      });

      // The record carries its status wherever it is read, not only in the create's answer.
      for (const shown of await readBack(api, fromText.id))
        expect(shown).toMatchObject({ status: 'completed' });
    });

    it('takes back the segments a conversation shows, speaker names included, as they are', async () => {
      const original = expectShape(
        conversation,
        await ok(
          api.post(FROM_SEGMENTS, {
            transcript_segments: [
              { text: 'Shall we?', speaker: 'Anna', is_user: false, start: 0, end: 1 },
              { text: 'Yes.', speaker: 'SPEAKER_03', is_user: true, start: 1, end: 2 },
            ],
          }),
          CREATED,
        ),
      );
      const shown = expectShape(
        conversation,
        await ok(api.get(`${BASE}/${original.id}`, { include_transcript: true })),
      );
      const copy = expectShape(
        conversation,
        await ok(api.post(FROM_SEGMENTS, { transcript_segments: shown.transcript_segments }), CREATED),
      );
      const speakers = (c: { transcript_segments?: { speaker_id: number; speaker_name: string }[] }) =>
        c.transcript_segments?.map(({ speaker_id, speaker_name }) => ({ speaker_id, speaker_name }));
      expect(speakers(copy)).toEqual(speakers(shown));
      expect(speakers(copy)).toEqual([
        { speaker_id: 0, speaker_name: 'Anna' },
        { speaker_id: 3, speaker_name: 'SPEAKER_03' },
      ]);
    });

    it('takes null for the optional fields the real service takes null for', async () => {
      const created = await createText(api, {
        text: 'Nulls',
        started_at: null,
        finished_at: null,
        language: null,
        geolocation: null,
        text_source_spec: null,
      });
      expect(created).toMatchObject({ language: 'en', text_source: 'other_text', text_source_spec: null });
      expect(created).not.toHaveProperty('geolocation');
      expect(created.finished_at).toBe(created.started_at);
    });
  });

  describe('structured.emoji and structured.events', () => {
    it('default to 🧠 and [] everywhere a record shows', async () => {
      const created = await createText(api, { text: 'No emoji given' });
      const fromSegments = expectShape(
        conversation,
        await ok(
          api.post(FROM_SEGMENTS, { transcript_segments: [{ text: 'Nor here', start: 0, end: 1 }] }),
          CREATED,
        ),
      );
      for (const record of [created, fromSegments]) {
        expect(record.structured).toMatchObject({ emoji: '🧠', events: [] });
        for (const shown of await readBack(api, record.id)) {
          expect(shown?.structured).toMatchObject({ emoji: '🧠', events: [] });
        }
      }
      const renamed = await ok(api.patch(`${BASE}/${created.id}`, { title: 'Renamed' }));
      expect(renamed.structured).toMatchObject({ title: 'Renamed', emoji: '🧠', events: [] });
    });

    it('round-trip as given, with the real service’s defaults for what an event leaves out', async () => {
      const events = [
        {
          title: 'Dentist',
          description: 'Check-up',
          start: '2026-12-01T10:00:00+01:00',
          duration: 45,
          created: true,
        },
        { title: 'Call Sam', start: '2026-12-02T08:30:00Z' },
      ];
      const expected = [
        {
          title: 'Dentist',
          description: 'Check-up',
          start: '2026-12-01T09:00:00.000Z',
          duration: 45,
          created: true,
        },
        {
          title: 'Call Sam',
          description: '',
          start: '2026-12-02T08:30:00.000Z',
          duration: 30,
          created: false,
        },
      ];
      const fromText = await createText(api, {
        text: 'Book the dentist and call Sam',
        structured: { emoji: '🦷', events },
      });
      const fromSegments = expectShape(
        conversation,
        await ok(
          api.post(FROM_SEGMENTS, {
            transcript_segments: [{ text: 'Dentist on Tuesday', start: 0, end: 2 }],
            structured: { events },
          }),
          CREATED,
        ),
      );
      expect(fromText.structured).toMatchObject({ emoji: '🦷', events: expected });
      expect(fromSegments.structured).toMatchObject({ emoji: '🧠', events: expected });
      for (const record of [fromText, fromSegments]) {
        for (const shown of await readBack(api, record.id))
          expect(shown?.structured.events).toEqual(expected);
      }
    });

    it('refuses events of the wrong types, naming the field, and stores nothing', async () => {
      const before = await server.count('conversations');
      const event = { title: 'Event', start: '2026-12-01T10:00:00Z' };
      const post = (bad: Record<string, unknown>) =>
        api.post(BASE, { text: 'x', structured: { events: [event, { ...event, ...bad }] } });
      const at = (field: string) => ['body', 'structured', 'events', 1, field];
      expect422(await post({ title: undefined }), at('title'));
      expect422(await post({ title: 7 }), at('title'));
      expect422(await post({ start: 'tomorrow' }), at('start'));
      expect422(await post({ start: undefined }), at('start'));
      expect422(await post({ duration: 2.5 }), at('duration'));
      expect422(await post({ duration: '30' }), at('duration'));
      expect422(await post({ description: null }), at('description'));
      expect422(await post({ created: 'yes' }), at('created'));
      expect422(await api.post(BASE, { text: 'x', structured: { events: {} } }), [
        'body',
        'structured',
        'events',
      ]);
      expect422(await api.post(BASE, { text: 'x', structured: { events: Array(101).fill(event) } }), [
        'body',
        'structured',
        'events',
      ]);
      expect(await server.count('conversations')).toBe(before);
      await createText(api, { text: 'x', structured: { events: Array(100).fill(event) } });
    });
  });

  describe('geolocation', () => {
    it('is left out when there is none, and shown as given when there is one', async () => {
      const placeless = await createText(api, { text: 'Nowhere in particular' });
      const fromSegments = expectShape(
        conversation,
        await ok(
          api.post(FROM_SEGMENTS, { transcript_segments: [{ text: 'Nor here', start: 0, end: 1 }] }),
          CREATED,
        ),
      );
      for (const record of [placeless, fromSegments]) {
        expect(record).not.toHaveProperty('geolocation');
        for (const shown of await readBack(api, record.id)) expect(shown).not.toHaveProperty('geolocation');
      }
      const place = { latitude: 48.8584, longitude: 2.2945, google_place_id: 'ChIJLU7jZClu5kcR4PcOOO6p3I0' };
      const placed = await createText(api, { text: 'At the tower', geolocation: place });
      expect(placed.geolocation).toEqual(place);
      for (const shown of await readBack(api, placed.id)) expect(shown?.geolocation).toEqual(place);
    });

    it('is optional in the OpenAPI document, while the summary’s emoji and events are always there', async () => {
      const doc = (await ok(fetchJson(`${server.baseUrl}/openapi.json`))) as {
        components: { schemas: Record<string, { required?: string[]; properties: Record<string, unknown> }> };
      };
      const record = doc.components.schemas.Conversation;
      expect(record.properties).toHaveProperty('geolocation');
      expect(record.required).not.toContain('geolocation');
      expect(record.required).toEqual(
        expect.arrayContaining(['status', 'starred', 'text_source', 'text_source_spec']),
      );
      expect(record.properties.status).toMatchObject({ enum: ['in_progress', 'completed'] });
      expect(doc.components.schemas.Structured.required).toEqual(expect.arrayContaining(['emoji', 'events']));
    });
  });

  describe('list', () => {
    it('filters by categories, any of a comma-separated list, and refuses an unknown one by name', async () => {
      const user = await newUser(server);
      const inCategory = (category: string, title = category) =>
        createText(user.client, { text: `about ${category}`, structured: { title, category } });
      const work = await inCategory('work');
      const health = await inCategory('health');
      const real = await inCategory('real');
      // A title holding the stored form of another category must not match it.
      const lookalike = await inCategory('other', '"category":"work"');
      const ids = async (query: Record<string, string>) =>
        expectShape(conversation.array(), await ok(user.client.get(BASE, query))).map((c) => c.id);

      expect(await ids({ categories: 'work' })).toEqual([work.id]);
      expect((await ids({ categories: ' work , real,' })).sort()).toEqual([work.id, real.id].sort());
      expect(await ids({ categories: 'health,health' })).toEqual([health.id]);
      expect(await ids({ categories: 'other' })).toEqual([lookalike.id]);
      expect(await ids({ categories: 'music' })).toEqual([]);
      expect(await ids({ categories: '' })).toHaveLength(4);

      const refused = await user.client.get(BASE, { categories: 'work,nonsense' });
      expect422(refused, ['query', 'categories']);
      expect(refused.body.detail[0].msg).toMatch(/^Unknown category nonsense; use personal, /);
    });

    it('gives every conversation a starred flag, false until a PATCH sets it, and filters by it', async () => {
      const user = await newUser(server);
      const plain = await createText(user.client, { text: 'plain' });
      const favourite = await createText(user.client, { text: 'favourite' });
      expect([plain.starred, favourite.starred]).toEqual([false, false]);

      const starred = await ok(user.client.patch(`${BASE}/${favourite.id}`, { starred: true }));
      expect(expectShape(conversation, starred).starred).toBe(true);
      expect(Date.parse(starred.updated_at)).toBeGreaterThan(Date.parse(favourite.updated_at));
      for (const shown of await readBack(user.client, favourite.id)) expect(shown?.starred).toBe(true);
      const again = await ok(user.client.patch(`${BASE}/${favourite.id}`, { starred: true }));
      expect(again.updated_at).toBe(starred.updated_at);

      const ids = async (starredQuery: string) =>
        (await ok(user.client.get(BASE, { starred: starredQuery }))).map((c: { id: string }) => c.id);
      expect(await ids('true')).toEqual([favourite.id]);
      expect(await ids('false')).toEqual([plain.id]);
      expect422(await user.client.get(BASE, { starred: 'maybe' }), ['query', 'starred']);
      expect422(await user.client.patch(`${BASE}/${plain.id}`, { starred: 'yes' }), ['body', 'starred']);

      await ok(user.client.patch(`${BASE}/${favourite.id}`, { starred: false }));
      expect(await ids('true')).toEqual([]);
    });

    it('pages up to 1000 conversations at once', async () => {
      const user = await newUser(server);
      const segments = { transcript_segments: [{ text: 'one of many', start: 0, end: 1 }] };
      for (let made = 0; made < 1001; made += 50) {
        const batch = Math.min(50, 1001 - made);
        const replies = await Promise.all(
          Array.from({ length: batch }, () => user.client.post(FROM_SEGMENTS, segments)),
        );
        expect(replies.map((r) => r.status)).toEqual(Array(batch).fill(CREATED));
      }
      expect(await ok(user.client.get(BASE, { limit: 1000 }))).toHaveLength(1000);
      expect(await ok(user.client.get(BASE, { limit: 1000, offset: 1000 }))).toHaveLength(1);
      expect(await ok(user.client.get(BASE))).toHaveLength(25);
      expect422(await user.client.get(BASE, { limit: 1001 }), ['query', 'limit']);
    }, 120_000);
  });

  describe('text_source and titles', () => {
    it('keeps a text conversation’s text_source (default other_text) and text_source_spec', async () => {
      const plain = await createText(api, { text: 'No source given' });
      expect(plain).toMatchObject({ text_source: 'other_text', text_source_spec: null });
      const message = await createText(api, {
        text: 'Are we still on for lunch?',
        text_source: 'message',
        text_source_spec: 'slack',
      });
      expect(message).toMatchObject({ text_source: 'message', text_source_spec: 'slack' });
      for (const shown of await readBack(api, message.id)) {
        expect(shown).toMatchObject({ text_source: 'message', text_source_spec: 'slack' });
      }
      const spoken = await createText(api, { text: 'A transcript', text_source: 'audio_transcript' });
      expect(spoken.text_source).toBe('audio_transcript');

      const fromSegments = await ok(
        api.post(FROM_SEGMENTS, { transcript_segments: [{ text: 'Said aloud', start: 0, end: 1 }] }),
        CREATED,
      );
      expect(fromSegments).toMatchObject({ text_source: null, text_source_spec: null });

      expect422(await api.post(BASE, { text: 'x', text_source: 'email' }), ['body', 'text_source']);
      expect422(await api.post(BASE, { text: 'x', text_source_spec: 5 }), ['body', 'text_source_spec']);
      expect422(await api.post(BASE, { text: 'x', text_source_spec: 'x'.repeat(201) }), [
        'body',
        'text_source_spec',
      ]);
    });

    it('takes a title of up to 500 characters on create and PATCH, and the real service’s category real', async () => {
      const long = 't'.repeat(500);
      const created = await createText(api, { text: 'x', structured: { title: long, category: 'real' } });
      expect(created.structured).toMatchObject({ title: long, category: 'real' });
      const renamed = await ok(api.patch(`${BASE}/${created.id}`, { title: `${long.slice(1)}!` }));
      expect(renamed.structured.title).toBe(`${long.slice(1)}!`);
      expect422(await api.patch(`${BASE}/${created.id}`, { title: 'x'.repeat(501) }), ['body', 'title']);
      expect422(await api.post(BASE, { text: 'x', structured: { title: 'x'.repeat(501) } }), [
        'body',
        'structured',
        'title',
      ]);
      for (const shown of await readBack(api, created.id))
        expect(shown?.structured.title).toBe(`${long.slice(1)}!`);
    });
  });
});

async function fetchJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

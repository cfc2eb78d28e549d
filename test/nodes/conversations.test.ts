import { success } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { devClient, expectShape, newUser } from '../helpers/http';
import { forSuite } from '../helpers/server';
import { credentialsFor, jsonOut, NODE, runDevData, startNodeTestServer } from './helpers';

const server = forSuite(() => startNodeTestServer());

const fromText = (text: string, options: Record<string, unknown> = {}) =>
  runDevData(server, { resource: 'conversation', operation: 'createFromText', text, options });

describe('Conversation → Create From Text', () => {
  test('creates a conversation with the summary fields given and the dates in UTC', async () => {
    const out = jsonOut(
      await fromText('We agreed to ship on Friday. Alex will write the release notes.', {
        title: 'Release planning',
        category: 'work',
        startedAt: '2026-11-20T15:00:00Z',
        finishedAt: '2026-11-20T16:45:00+01:00',
        language: 'en',
        geolocation: { location: { latitude: 52.52, longitude: 13.405, address: 'Berlin' } },
      }),
    );
    const created = expectShape(conversation, out[0]);
    expect(created.structured).toMatchObject({ title: 'Release planning', category: 'work' });
    expect(created.started_at).toBe('2026-11-20T15:00:00.000Z');
    expect(created.finished_at).toBe('2026-11-20T15:45:00.000Z');
    expect(created.geolocation).toMatchObject({ latitude: 52.52, longitude: 13.405, address: 'Berlin' });
  });

  test("sends a place's Google Place ID and type with its coordinates", async () => {
    const location = { latitude: 48.1374, longitude: 11.5755, googlePlaceId: 'ChIJ2V-Mo_l1nkcRfZixfUq4DAE' };
    const out = jsonOut(
      await fromText('Coffee with Sam near the square.', {
        geolocation: { location: { ...location, locationType: 'cafe' } },
      }),
    );
    expect(expectShape(conversation, out[0]).geolocation).toEqual({
      latitude: 48.1374,
      longitude: 11.5755,
      google_place_id: 'ChIJ2V-Mo_l1nkcRfZixfUq4DAE',
      location_type: 'cafe',
    });
  });

  test('refuses a Location with only an address (Latitude and Longitude left at 0) rather than store 0, 0', async () => {
    const before = await server.count('conversations');
    const result = await fromText('Lunch with Sam.', { geolocation: { location: { address: 'Munich' } } });
    expect(result.error?.message).toBe(
      'Geolocation needs a Latitude and Longitude other than 0, 0 (input item 0)',
    );
    expect(result.error?.description).toMatch(/^The API stores a place only with its coordinates/);
    expect(await server.count('conversations')).toBe(before);
    // A place on the equator or on the prime meridian is kept.
    const out = jsonOut(
      await fromText('Boat trip.', { geolocation: { location: { latitude: 0, longitude: 9.45 } } }),
    );
    expect(expectShape(conversation, out[0]).geolocation).toEqual({ latitude: 0, longitude: 9.45 });
  });

  test('a summary field whose expression gives null (an input field that holds nothing) is left out, not refused', async () => {
    const result = await runDevData(
      server,
      {
        resource: 'conversation',
        operation: 'createFromText',
        text: 'We agreed to ship on Friday.',
        options: {
          title: '={{ $json.title }}',
          overview: '={{ $json.overview }}',
          emoji: '={{ $json.emoji }}',
          language: '={{ $json.language }}',
        },
      },
      { items: [{ title: null, overview: null, emoji: null, language: null }] },
    );
    expect(result.error).toBeUndefined();
    const created = expectShape(conversation, jsonOut(result)[0]);
    // Derived from the text, as when the fields are not set.
    expect(created.structured.title).not.toBe('');
    expect(created.language).toBe('en');
  });
});

test('Conversation → Create From Text keeps the events given, their start in UTC, defaults filled', async () => {
  const out = jsonOut(
    await fromText('Dentist on Tuesday at nine, and the team lunch on Friday.', {
      events: {
        event: [
          { title: 'Dentist', start: '2026-12-01T09:00:00+01:00', duration: 45, created: true },
          { title: 'Team lunch', description: 'At the usual place', start: '2026-12-04T12:00:00Z' },
        ],
      },
    }),
  );
  expect(expectShape(conversation, out[0]).structured.events).toEqual([
    { title: 'Dentist', description: '', start: '2026-12-01T08:00:00.000Z', duration: 45, created: true },
    {
      title: 'Team lunch',
      description: 'At the usual place',
      start: '2026-12-04T12:00:00.000Z',
      duration: 30,
      created: false,
    },
  ]);
  const bad = await fromText('Soon.', {
    events: { event: [{ title: 'When?', start: '2026-02-30T10:00:00Z' }] },
  });
  expect(bad.error?.message).toBe(
    'Event Start: "2026-02-30T10:00:00Z" is not a valid date and time (input item 0)',
  );
  // A year under 100 is that year, not 19xx.
  const early = await fromText('An old story.', {
    startedAt: '0050-06-01T00:00:00Z',
    events: { event: [{ title: 'Founding', start: '0099-12-31T10:00:00Z' }] },
  });
  expect(expectShape(conversation, jsonOut(early)[0])).toMatchObject({
    started_at: '0050-06-01T00:00:00.000Z',
    structured: { events: [{ title: 'Founding', start: '0099-12-31T10:00:00.000Z' }] },
  });
});

describe('Conversation → Create From Segments', () => {
  const segments = [
    { text: 'Shall we meet on Monday?', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 2.5 },
    { text: 'Monday works for me.', speaker: 'SPEAKER_01', is_user: false, start: 2.7, end: 4.1 },
  ];

  test('takes the segments as JSON from the input item, and is idempotent by client session id', async () => {
    const params = {
      resource: 'conversation',
      operation: 'createFromSegments',
      segmentsInput: 'json',
      transcriptSegmentsJson: '={{ $json.segments }}',
      options: { clientSessionId: 'session-42', title: 'Meeting' },
    };
    const first = expectShape(
      conversation,
      jsonOut(await runDevData(server, params, { items: [{ segments }] }))[0],
    );
    const again = expectShape(
      conversation,
      jsonOut(await runDevData(server, params, { items: [{ segments }] }))[0],
    );
    expect(again.id).toBe(first.id);
    const stored = await devClient(server).get(`/v1/dev/user/conversations/${first.id}`, {
      include_transcript: true,
    });
    expect(stored.body.transcript_segments.map((s: { text: string }) => s.text)).toEqual(
      segments.map((s) => s.text),
    );
  });

  /** Creates a conversation from the segments defined in the node; answers its transcript as stored. */
  async function storedFromSegmentsBelow(segment: Array<Record<string, unknown>>) {
    const out = jsonOut(
      await runDevData(server, {
        resource: 'conversation',
        operation: 'createFromSegments',
        segmentsInput: 'fields',
        transcriptSegments: { segment },
      }),
    );
    const created = expectShape(conversation, out[0]);
    const stored = await devClient(server).get(`/v1/dev/user/conversations/${created.id}`, {
      include_transcript: true,
    });
    return stored.body.transcript_segments;
  }

  test('takes the segments defined in the node', async () => {
    const stored = await storedFromSegmentsBelow([
      { text: 'Hello there', speaker: 'SPEAKER_00', isUser: true, start: 0, end: 1 },
      { text: 'Hi!', speaker: '', isUser: false, start: 1.2, end: 1.8 },
    ]);
    expect(stored).toMatchObject([
      { text: 'Hello there', is_user: true, start: 0, end: 1 },
      { text: 'Hi!', is_user: false, start: 1.2, end: 1.8 },
    ]);
  });

  test("defined below, a segment carries the speaking person's ID", async () => {
    const stored = await storedFromSegmentsBelow([
      {
        text: 'See you at nine',
        speaker: 'SPEAKER_01',
        isUser: false,
        personId: 'person-anna',
        start: 0,
        end: 1,
      },
      { text: 'Great', isUser: true, start: 1.1, end: 1.5 },
    ]);
    expect(stored).toMatchObject([
      { text: 'See you at nine', person_id: 'person-anna' },
      { text: 'Great', person_id: null },
    ]);
  });

  test('refuses segments that are not a JSON array, or not JSON at all', async () => {
    for (const json of ['{"text": "not a list"}', '[{"text": "Hi", "start": 0, "end": 1},]']) {
      const result = await runDevData(server, {
        resource: 'conversation',
        operation: 'createFromSegments',
        segmentsInput: 'json',
        transcriptSegmentsJson: json,
      });
      expect(result.error?.message).toBe('Segments (JSON) must be a JSON array of segments (input item 0)');
    }
  });
});

describe('Conversation → Get', () => {
  test('gets a conversation, with the transcript when asked', async () => {
    const created = jsonOut(await fromText('A short note about the garden.'))[0];
    const plain = jsonOut(
      await runDevData(server, {
        resource: 'conversation',
        operation: 'get',
        conversationId: created.id,
        simplify: false,
      }),
    );
    expect(expectShape(conversation, plain[0]).transcript_segments).toBeUndefined();
    const withTranscript = jsonOut(
      await runDevData(server, {
        resource: 'conversation',
        operation: 'get',
        conversationId: created.id,
        simplify: false,
        options: { includeTranscript: true },
      }),
    );
    expect(expectShape(conversation, withTranscript[0]).transcript_segments?.[0].text).toBe(
      'A short note about the garden.',
    );
  });

  test('a 404 names the conversation', async () => {
    const result = await runDevData(server, {
      resource: 'conversation',
      operation: 'get',
      conversationId: 'nope',
    });
    expect(result.error?.message).toBe(
      'Conversation not found: no conversation with ID "nope" exists for this user',
    );
    expect(result.error?.description).toBe('Conversation not found');
  });
});

describe('Conversation → Get Many', () => {
  test('pages through 250 conversations 100 at a time; Limit below and above a page', async () => {
    const user = await newUser(server);
    for (let i = 0; i < 250; i++) {
      const reply = await user.client.post('/v1/dev/user/conversations', {
        text: `Conversation number ${i}`,
        started_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      });
      expect(reply.status).toBe(200);
    }
    const credentials = credentialsFor(server, user.key);
    const list = (params: Record<string, unknown>) =>
      runDevData(
        server,
        { resource: 'conversation', operation: 'getAll', simplify: false, ...params },
        { credentials },
      );

    let before = server.requests.length;
    const all = jsonOut(await list({ returnAll: true }));
    expect(new Set(all.map((c) => c.id)).size).toBe(250);
    all.forEach((c) => expectShape(conversation, c));
    const listRequests = () =>
      server.requests
        .slice(before)
        .filter((r) => r.path === '/v1/dev/user/conversations')
        .map((r) => [r.query.get('limit'), r.query.get('offset')]);
    expect(listRequests()).toEqual([
      ['100', '0'],
      ['100', '100'],
      ['100', '200'],
    ]);

    before = server.requests.length;
    expect(jsonOut(await list({ limit: 30 })).map((c) => c.id)).toEqual(all.slice(0, 30).map((c) => c.id));
    expect(listRequests()).toEqual([['30', '0']]);

    before = server.requests.length;
    expect(jsonOut(await list({ limit: 130 })).map((c) => c.id)).toEqual(all.slice(0, 130).map((c) => c.id));
    expect(listRequests()).toEqual([
      ['100', '0'],
      ['30', '100'],
    ]);

    const inJanuaryFirstHour = jsonOut(
      await list({
        returnAll: true,
        filters: { startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-01T00:09:59Z' },
      }),
    );
    expect(inJanuaryFirstHour).toHaveLength(10);
  });
});

describe('Conversation → Update', () => {
  test('renames and moves into a folder, then out of it, sending only what was set', async () => {
    const created = jsonOut(await fromText('Budget review for next quarter.'))[0];
    const folder = await devClient(server).post('/v1/dev/user/folders', { name: 'Finance' });
    const update = (updateFields: Record<string, unknown>) =>
      runDevData(server, {
        resource: 'conversation',
        operation: 'update',
        conversationId: created.id,
        updateFields,
      });

    const moved = expectShape(
      conversation,
      jsonOut(await update({ title: 'Budget Q3', folderId: folder.body.id }))[0],
    );
    expect(moved).toMatchObject({ folder_id: folder.body.id, folder_name: 'Finance' });
    expect(moved.structured.title).toBe('Budget Q3');

    const out = expectShape(conversation, jsonOut(await update({ removeFromFolder: true }))[0]);
    expect(out).toMatchObject({ folder_id: null, folder_name: null });
    expect(out.structured.title).toBe('Budget Q3');
  });

  test('a folder that does not exist is named as the record not found, not the conversation', async () => {
    const created = jsonOut(await fromText('Notes about the garden.'))[0];
    const result = await runDevData(server, {
      resource: 'conversation',
      operation: 'update',
      conversationId: created.id,
      updateFields: { folderId: 'Finance' },
    });
    expect(result.error?.message).toBe('Folder not found: no folder with ID "Finance" exists for this user');
    expect(result.error?.description).toBe(
      'Folder not found: the folder this item refers to does not exist. Choose it from the list, or give its ID (not its name).',
    );
    expect(result.error?.context.itemIndex).toBe(0);
  });

  test('Create From Text with a folder that does not exist names the folder and its ID', async () => {
    const result = await fromText('Notes about the garden.', { folderId: 'Finance' });
    expect(result.error?.message).toBe('Folder not found: no folder with ID "Finance" exists for this user');
  });
});

describe('Conversation → Delete', () => {
  test('deletes a conversation', async () => {
    const created = jsonOut(await fromText('Something to forget.'))[0];
    const result = await runDevData(server, {
      resource: 'conversation',
      operation: 'delete',
      conversationId: created.id,
    });
    expectShape(success, jsonOut(result)[0]);
    expect(result.output(NODE)[0].pairedItem).toEqual({ item: 0 });
    expect((await devClient(server).get(`/v1/dev/user/conversations/${created.id}`)).status).toBe(404);
  });
});

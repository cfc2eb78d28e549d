import { actionItem } from '../../server/src/contract/action-items';
import { validationErrorBody } from '../../server/src/contract/common';
import { conversation } from '../../server/src/contract/conversations';
import { folder } from '../../server/src/contract/folders';
import { goal } from '../../server/src/contract/goals';
import { MEMORY_CATEGORIES, memory } from '../../server/src/contract/memories';
import { person } from '../../server/src/contract/people';
import { devClient, expectShape, newUser } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

// Issue 26: what clients written for the real service send and read back (server/README.md, Compatibility).
const DEV = '/v1/dev/user';

describe.each(DIALECTS)('fields and statuses of the real service on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  const expect422 = (reply: { status: number; body: unknown }) => {
    expect(reply.status).toBe(422);
    return expectShape(validationErrorBody, reply.body).detail;
  };

  it('answers 200 to every create under /v1/dev/', async () => {
    const creates: [string, object][] = [
      ['/folders', { name: 'Work' }],
      ['/goals', { title: 'Run', target_value: 5 }],
      ['/people', { name: 'Ada' }],
      ['/people', { name: 'ada' }],
      ['/screen-activity', { screen_activity: [{ timestamp: '2026-11-20T10:00:00Z', app_name: 'Editor' }] }],
      ['/memories', { content: 'Likes tea' }],
      ['/memories/batch', { memories: [{ content: 'Lives in Oslo' }] }],
      ['/action-items', { description: 'Buy milk' }],
      ['/action-items/batch', { action_items: [{ description: 'Call Bob' }] }],
      ['/conversations', { text: 'We agreed to ship on Friday.' }],
    ];
    for (const [path, body] of creates) {
      const reply = await api.post(`${DEV}${path}`, body);
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
    }
    const segments = {
      client_session_id: 'replayed',
      transcript_segments: [{ text: 'Hello there', start: 0, end: 1 }],
    };
    expect((await api.post(`${DEV}/conversations/from-segments`, segments)).status).toBe(200);
    expect((await api.post(`${DEV}/conversations/from-segments`, segments)).status).toBe(200);
  });

  it('refuses an unknown body field with 422 naming it and the field probably meant', async () => {
    const typo = await api.post(`${DEV}/action-items`, {
      description: 'x',
      due_date: '2026-12-01T10:00:00Z',
    });
    expect(expect422(typo)).toEqual([
      {
        loc: ['body', 'due_date'],
        msg: "Unknown field 'due_date'; did you mean 'due_at'?",
        type: 'extra_forbidden',
      },
    ]);

    // Nested: an entry of a batch; nothing of the batch is stored.
    const user = await newUser(server);
    const batch = await user.client.post(`${DEV}/action-items/batch`, {
      action_items: [
        { description: 'a' },
        { description: 'b' },
        { description: 'c' },
        { description: 'd', complted: true },
      ],
    });
    expect(expect422(batch)).toEqual([
      {
        loc: ['body', 'action_items', 3, 'complted'],
        msg: "Unknown field 'complted'; did you mean 'completed'?",
        type: 'extra_forbidden',
      },
    ]);
    expect(await server.count('action_items', { user_id: user.id })).toBe(0);

    // Nothing close: the fields the object takes are listed.
    const far = await api.post(`${DEV}/memories`, { content: 'x', xyzzy: 1 });
    expect(expect422(far)).toEqual([
      {
        loc: ['body', 'xyzzy'],
        msg: "Unknown field 'xyzzy'; fields here: content, category, visibility, tags",
        type: 'extra_forbidden',
      },
    ]);

    // Every unknown field of a body is named, each at its own loc, on updates too.
    const item = expectShape(actionItem, (await api.post(`${DEV}/action-items`, { description: 'y' })).body);
    const update = await api.patch(`${DEV}/action-items/${item.id}`, { done: true, dueAt: null });
    expect(expect422(update).map((issue) => [issue.loc, issue.type])).toEqual([
      [['body', 'done'], 'extra_forbidden'],
      [['body', 'dueAt'], 'extra_forbidden'],
    ]);
    const webhook = await api.post(`${DEV}/screen-activity`, {
      screen_activity: [{ timestamp: '2026-11-20T10:00:00Z', app_name: 'Editor', window: 'x' }],
    });
    expect(expect422(webhook)[0]).toMatchObject({
      loc: ['body', 'screen_activity', 0, 'window'],
      msg: "Unknown field 'window'; did you mean 'window_title'?",
    });
    // Query parameters stay lenient: clients add their own.
    expect((await api.get(`${DEV}/memories`, { client_tag: 'x' })).status).toBe(200);
  });

  it('refuses unknown fields in conversation bodies, nested ones too', async () => {
    const segment = await api.post(`${DEV}/conversations/from-segments`, {
      transcript_segments: [{ text: 'Hi', start: 0, end: 1, speakr: 'SPEAKER_01' }],
    });
    expect(expect422(segment)).toEqual([
      {
        loc: ['body', 'transcript_segments', 0, 'speakr'],
        msg: "Unknown field 'speakr'; did you mean 'speaker'?",
        type: 'extra_forbidden',
      },
    ]);
    // A known name inside the unknown one is a hint only where a word of it starts: `id` in `stt_provider` is not.
    const provider = await api.post(`${DEV}/conversations/from-segments`, {
      transcript_segments: [{ text: 'Hi', start: 0, end: 1, stt_provider: 'x' }],
    });
    expect(expect422(provider)[0].msg).toBe(
      "Unknown field 'stt_provider'; fields here: id, text, speaker, speaker_id, speaker_name, is_user, person_id, start, end",
    );
    const summary = await api.post(`${DEV}/conversations`, { text: 'x', structured: { titel: 'T' } });
    expect(expect422(summary)[0]).toMatchObject({
      loc: ['body', 'structured', 'titel'],
      msg: "Unknown field 'titel'; did you mean 'title'?",
    });
    const place = await api.post(`${DEV}/conversations`, {
      text: 'x',
      geolocation: { latitude: 1, longitude: 2, lat: 1 },
    });
    expect(expect422(place)[0]).toMatchObject({
      loc: ['body', 'geolocation', 'lat'],
      msg: "Unknown field 'lat'; did you mean 'latitude'?",
    });
    const live = await api.post(`${DEV}/transcripts/live-1/segments`, {
      segments: [{ text: 'Hi', start: 0, end: 1 }],
      sesion: 'x',
    });
    expect(expect422(live)[0]).toMatchObject({ loc: ['body', 'sesion'], type: 'extra_forbidden' });
    const rename = await api.patch(`${DEV}/conversations/nope`, { tittle: 'x' });
    expect(expect422(rename)[0]).toMatchObject({ loc: ['body', 'tittle'], type: 'extra_forbidden' });
  });

  it('accepts and stores every memory category of the real service, and filters by each', async () => {
    const user = await newUser(server);
    const ids: Record<string, string> = {};
    for (const category of MEMORY_CATEGORIES) {
      const reply = await user.client.post(`${DEV}/memories`, { content: `a ${category} fact`, category });
      expect(reply.status).toBe(200);
      const created = expectShape(memory, reply.body);
      expect(created.category).toBe(category);
      ids[category] = created.id;
    }
    for (const category of MEMORY_CATEGORIES) {
      const listed = await user.client.get(`${DEV}/memories`, { categories: category });
      expect(listed.status).toBe(200);
      expect(expectShape(memory.array(), listed.body).map((m) => [m.id, m.category])).toEqual([
        [ids[category], category],
      ]);
    }
    const both = await user.client.get(`${DEV}/memories`, { categories: 'work,skills' });
    expect(both.body.map((m: { category: string }) => m.category).sort()).toEqual(['skills', 'work']);
    expect((await user.client.post(`${DEV}/memories`, { content: 'x', category: 'gossip' })).status).toBe(
      422,
    );
  });

  it('marks memories as the real service marks API-made ones; a PATCH with content marks them edited', async () => {
    const created = expectShape(memory, (await api.post(`${DEV}/memories`, { content: 'Likes tea' })).body);
    expect(created).toMatchObject({ manually_added: true, reviewed: true, user_review: true, edited: false });

    const retagged = await api.patch(`${DEV}/memories/${created.id}`, { tags: ['drinks'] });
    expect(expectShape(memory, retagged.body).edited).toBe(false);
    const rewritten = await api.patch(`${DEV}/memories/${created.id}`, { content: 'Likes green tea' });
    expect(expectShape(memory, rewritten.body)).toMatchObject({ content: 'Likes green tea', edited: true });
    const listed = expectShape(memory.array(), (await api.get(`${DEV}/memories`)).body);
    expect(listed.find((m) => m.id === created.id)).toMatchObject({ edited: true, manually_added: true });
  });

  it('stores goal values outside min–max as given, and titles up to 500 characters', async () => {
    const title = 'g'.repeat(500);
    const reply = await api.post(`${DEV}/goals`, {
      title,
      goal_type: 'scale',
      target_value: 20,
      current_value: -3,
      min_value: 0,
      max_value: 10,
    });
    expect(reply.status).toBe(200);
    const created = expectShape(goal, reply.body);
    expect(created).toMatchObject({
      title,
      target_value: 20,
      current_value: -3,
      min_value: 0,
      max_value: 10,
    });

    const updated = await api.patch(`${DEV}/goals/${created.id}`, { min_value: 50, max_value: 40 });
    expect(expectShape(goal, updated.body)).toMatchObject({ min_value: 50, max_value: 40, target_value: 20 });
    const progress = await api.patch(`${DEV}/goals/${created.id}/progress?current_value=99`);
    expect(progress.status).toBe(200);
    expect(expectShape(goal, (await api.get(`${DEV}/goals/${created.id}`)).body).current_value).toBe(99);
    expect((await api.post(`${DEV}/goals`, { title: 'g'.repeat(501), target_value: 1 })).status).toBe(422);
  });

  it('makes a goal sent without goal_type a scale goal from 0 to 10, as the real service does', async () => {
    const reply = await api.post(`${DEV}/goals`, { title: 'Sleep well', target_value: 8 });
    expect(reply.status).toBe(200);
    expect(expectShape(goal, reply.body)).toMatchObject({
      goal_type: 'scale',
      min_value: 0,
      max_value: 10,
      target_value: 8,
      current_value: 0,
    });
  });

  it("gives folders the real service's defaults and takes its icon and order", async () => {
    const plain = expectShape(folder, (await api.post(`${DEV}/folders`, { name: 'Plain' })).body);
    expect(plain).toMatchObject({
      color: '#6B7280',
      icon: 'folder',
      order: 0,
      is_default: false,
      is_system: false,
      category_mapping: null,
    });
    const styled = expectShape(
      folder,
      (await api.post(`${DEV}/folders`, { name: 'Styled', color: '#4f46e5', icon: 'briefcase' })).body,
    );
    expect(styled).toMatchObject({ color: '#4f46e5', icon: 'briefcase' });
    const moved = await api.patch(`${DEV}/folders/${styled.id}`, { order: 3, color: null });
    expect(expectShape(folder, moved.body)).toMatchObject({ order: 3, color: '#6B7280', icon: 'briefcase' });
    const listed = expectShape(folder.array(), (await api.get(`${DEV}/folders`)).body);
    expect(listed.find((f) => f.id === styled.id)).toMatchObject({ order: 3, color: '#6B7280' });
    // is_default and is_system are the service's to set, not a client's.
    expect(expect422(await api.patch(`${DEV}/folders/${styled.id}`, { is_system: true }))[0].loc).toEqual([
      'body',
      'is_system',
    ]);
  });

  it('answers an empty batch with 200 and nothing created, as the real service does', async () => {
    const user = await newUser(server);
    const memories = await user.client.post(`${DEV}/memories/batch`, { memories: [] });
    expect({ status: memories.status, body: memories.body }).toEqual({
      status: 200,
      body: { memories: [], created_count: 0 },
    });
    const items = await user.client.post(`${DEV}/action-items/batch`, { action_items: [] });
    expect({ status: items.status, body: items.body }).toEqual({
      status: 200,
      body: { action_items: [], created_count: 0 },
    });
    expect(await server.count('memories', { user_id: user.id })).toBe(0);
    expect(await server.count('action_items', { user_id: user.id })).toBe(0);
  });

  it("takes an empty language as not given on both conversation creates, as the real service does ('en')", async () => {
    // The real service's creates read `request.language or 'en'`: a client mapping an empty field sends "".
    const fromText = await api.post(`${DEV}/conversations`, { text: 'Ship on Friday.', language: '' });
    expect(fromText.status).toBe(200);
    expect(expectShape(conversation, fromText.body).language).toBe('en');
    const fromSegments = await api.post(`${DEV}/conversations/from-segments`, {
      transcript_segments: [
        { text: 'Ship on Friday.', speaker: 'SPEAKER_00', is_user: true, start: 0, end: 1.5 },
      ],
      language: '',
    });
    expect(fromSegments.status).toBe(200);
    expect(expectShape(conversation, fromSegments.body).language).toBe('en');
    // A code is still at least two characters, and at most ten.
    for (const language of ['e', 'abcdefghijk']) {
      const refused = await api.post(`${DEV}/conversations`, { text: 'Ship on Friday.', language });
      expect(expect422(refused)[0]).toMatchObject({
        loc: ['body', 'language'],
        type: language === 'e' ? 'too_small' : 'too_big',
      });
    }
  });

  it('takes null as not given where the real service does (its Optional fields)', async () => {
    const made = await api.post(`${DEV}/memories`, { content: 'Likes tea', category: null });
    expect(made.status).toBe(200);
    const tea = expectShape(memory, made.body);
    expect(tea.category).toBe('manual');
    const unchanged = await api.patch(`${DEV}/memories/${tea.id}`, {
      content: null,
      category: null,
      visibility: null,
      tags: null,
    });
    expect(unchanged.status).toBe(200);
    expect(expectShape(memory, unchanged.body)).toMatchObject({
      content: 'Likes tea',
      category: 'manual',
      visibility: 'private',
      tags: [],
      edited: false,
    });
    const shared = await api.patch(`${DEV}/memories/${tea.id}`, { content: null, visibility: 'public' });
    expect(expectShape(memory, shared.body)).toMatchObject({ content: 'Likes tea', visibility: 'public' });

    const item = expectShape(
      actionItem,
      (await api.post(`${DEV}/action-items`, { description: 'Buy milk', due_at: '2026-12-01T10:00:00Z' }))
        .body,
    );
    const done = await api.patch(`${DEV}/action-items/${item.id}`, { description: null, completed: true });
    expect(done.status).toBe(200);
    expect(expectShape(actionItem, done.body)).toMatchObject({
      description: 'Buy milk',
      completed: true,
      due_at: '2026-12-01T10:00:00.000Z',
    });
    const kept = await api.patch(`${DEV}/action-items/${item.id}`, { completed: null });
    expect(expectShape(actionItem, kept.body).completed).toBe(true);

    const talk = expectShape(
      conversation,
      (await api.post(`${DEV}/conversations`, { text: 'Ship on Friday.' })).body,
    );
    const hidden = await api.patch(`${DEV}/conversations/${talk.id}`, { title: null, discarded: true });
    expect(hidden.status).toBe(200);
    expect(expectShape(conversation, hidden.body)).toMatchObject({
      structured: { title: talk.structured.title },
      discarded: true,
    });
    const back = await api.patch(`${DEV}/conversations/${talk.id}`, { title: 'Release', discarded: null });
    expect(expectShape(conversation, back.body)).toMatchObject({
      structured: { title: 'Release' },
      discarded: true,
    });

    const segments = await api.post(`${DEV}/conversations/from-segments`, {
      transcript_segments: [{ text: 'Hello there', start: 0, end: 1 }],
      source: null,
    });
    expect(segments.status).toBe(200);
    expect(expectShape(conversation, segments.body).source).toBe('api');
    // A place as the real service answers it (its unset fields null) can be sent back as it is.
    const place = {
      latitude: 59.9,
      longitude: 10.7,
      address: 'Oslo',
      google_place_id: null,
      location_type: null,
    };
    const placed = await api.post(`${DEV}/conversations`, { text: 'Met in Oslo.', geolocation: place });
    expect(placed.status).toBe(200);
    expect(expectShape(conversation, placed.body).geolocation).toEqual({
      latitude: 59.9,
      longitude: 10.7,
      address: 'Oslo',
    });

    const run = expectShape(goal, (await api.post(`${DEV}/goals`, { title: 'Run', target_value: 5 })).body);
    const nothing = {
      title: null,
      target_value: null,
      current_value: null,
      min_value: null,
      max_value: null,
    };
    const further = await api.patch(`${DEV}/goals/${run.id}`, { ...nothing, target_value: 7 });
    expect(further.status).toBe(200);
    expect(expectShape(goal, further.body)).toMatchObject({
      title: 'Run',
      target_value: 7,
      current_value: 0,
      min_value: 0,
      max_value: 10,
    });
  });

  it('reads every boolean query value the real service reads, t and f among them', async () => {
    const user = await newUser(server);
    await user.client.post(`${DEV}/action-items/batch`, {
      action_items: [{ description: 'Open' }, { description: 'Done', completed: true }],
    });
    const descriptions = async (completed: string) => {
      const reply = await user.client.get(`${DEV}/action-items`, { completed });
      expect({ completed, status: reply.status }).toEqual({ completed, status: 200 });
      return expectShape(actionItem.array(), reply.body).map((item) => item.description);
    };
    for (const yes of ['true', 'True', '1', 'on', 't', 'T', 'y', 'yes'])
      expect(await descriptions(yes)).toEqual(['Done']);
    for (const no of ['false', 'FALSE', '0', 'off', 'f', 'F', 'n', 'no'])
      expect(await descriptions(no)).toEqual(['Open']);
    const talk = expectShape(
      conversation,
      (await user.client.post(`${DEV}/conversations`, { text: 'Hi' })).body,
    );
    const withTranscript = await user.client.get(`${DEV}/conversations/${talk.id}`, {
      include_transcript: 't',
    });
    expect(expectShape(conversation, withTranscript.body).transcript_segments).toHaveLength(1);
  });

  it('still refuses a person body with an unknown field', async () => {
    const reply = await api.post(`${DEV}/people`, { name: 'Grace', nam: 'x' });
    expect(expect422(reply)[0]).toMatchObject({
      loc: ['body', 'nam'],
      msg: "Unknown field 'nam'; did you mean 'name'?",
    });
    expectShape(person, (await api.post(`${DEV}/people`, { name: 'Grace' })).body);
  });
});

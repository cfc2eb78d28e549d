import { actionItem } from '../../server/src/contract/action-items';
import { errorBody } from '../../server/src/contract/common';
import { conversationSearchResult, memorySearchResult } from '../../server/src/contract/search';
import { devClient, expect422, expectShape, keyWithScopes, newUser, ok, type Client } from '../helpers/http';
import { HOSTILE_SEARCH_QUERIES } from '../helpers/fuzz';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

const USER = '/v1/dev/user';

describe.each(DIALECTS)('search on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);

  async function conversation(
    client: Client,
    title: string,
    transcript: string,
    startedAt = '2026-03-01T10:00:00Z',
    overview = `About ${title.toLowerCase()}`,
  ): Promise<string> {
    const body = await ok(
      client.post(`${USER}/conversations`, {
        text: transcript,
        started_at: startedAt,
        structured: { title, overview },
      }),
    );
    return body.id;
  }

  const searchConversations = async (client: Client, query: Record<string, string | number>) =>
    expectShape(
      conversationSearchResult.array(),
      await ok(client.get(`${USER}/conversations/search`, query)),
    );
  const found = async (query: Record<string, string | number>, client: Client = api) =>
    (await searchConversations(client, query)).map((result) => result.conversation.id);

  let budget: string; // title and transcript
  let planning: string; // transcript only
  let promise: string;
  let reversed: string;
  let nextDay: string;
  let stranger: Awaited<ReturnType<typeof newUser>>;
  let strangers: string;

  beforeAll(async () => {
    budget = await conversation(api, 'Quarterly budget review', 'We went through the budget line by line.');
    planning = await conversation(
      api,
      'Team planning',
      'Anna asked whether the budget covers travel meetings.',
    );
    promise = await conversation(api, 'Call with Anna', 'I promised Anna the slides by Friday.');
    reversed = await conversation(api, 'Call with Ben', 'Anna promised me she would review it.');
    nextDay = await conversation(
      api,
      'Garden',
      'Planting tomatoes in the greenhouse.',
      '2026-03-02T08:30:00Z',
    );
    stranger = await newUser(server);
    strangers = await conversation(stranger.client, 'Budget of a stranger', 'budget budget tomatoes Anna');
  });

  it('finds conversations by words in title, overview or transcript, the title ranking first', async () => {
    const results = await searchConversations(api, { query: 'budget' });
    expect(results.map((r) => r.conversation.id)).toEqual([budget, planning]);
    expect(results[0].score).toBeGreaterThan(results[1].score);
    expect(results[0].conversation.transcript_segments).toBeUndefined();
    expect(await found({ query: 'greenhouse' })).toEqual([nextDay]);
  });

  it('finds the records with every word when there are some, drops stop words, and ignores case', async () => {
    expect(await found({ query: 'budget Anna' })).toEqual([planning]);
    expect(await found({ query: 'what did I promise Anna' })).toEqual(
      expect.arrayContaining([promise, reversed]),
    );
    expect(await found({ query: 'BUDGET travel' })).toEqual([planning]);
    expect(await found({ query: 'zeppelin' })).toEqual([]);
    expect(await found({ query: 'zeppelin airship' })).toEqual([]);
  });

  it('finds the records with any of the words when none has them all, most relevant first', async () => {
    expect(await found({ query: 'budget zeppelin' })).toEqual([budget, planning]);
    // No conversation has promise, Anna and greenhouse: those with two of them rank above one with Anna alone.
    const question = await found({ query: 'what did I promise Anna about the greenhouse?' });
    expect([...question].sort()).toEqual([promise, reversed, planning, nextDay].sort());
    expect(question.indexOf(promise)).toBeLessThan(question.indexOf(planning));
    expect(question.indexOf(reversed)).toBeLessThan(question.indexOf(planning));
    expect(await found({ query: '"line by line" zeppelin' })).toEqual([budget]);
    expect(await found({ query: '"Anna line" zeppelin' })).toEqual([]);
    expect(await found({ query: 'budget greenhouse', start_date: '2026-03-02' })).toEqual([nextDay]);
    expect(await found({ query: 'tomatoes zeppelin' }, stranger.client)).toEqual([strangers]);
  });

  it('matches a phrase in double quotes in its order only', async () => {
    expect(await found({ query: '"promised Anna"' })).toEqual([promise]);
    expect(await found({ query: '"Anna promised"' })).toEqual([reversed]);
    expect(await found({ query: '"line by line" budget' })).toEqual([budget]);
  });

  it('finds an address, a version, a file name or a contraction by the whole and by its words, on both engines', async () => {
    const support = await conversation(
      api,
      'Support follow-up',
      "Email bob@zetacorp.dev the logs of build 3.14.2 and report_final_v2.pdf from https://status.zetacorp.dev/incidents?id=7; Maya's team can't wait.",
    );
    for (const query of [
      'bob@zetacorp.dev',
      'zetacorp',
      'bob',
      '3.14.2',
      'report_final_v2.pdf',
      'final pdf',
      'https://status.zetacorp.dev/incidents?id=7',
      'incidents',
      '"bob zetacorp dev"',
      "Maya's",
      "Maya's team",
      "can't wait",
      '"3.14.2"',
    ])
      expect([query, await found({ query })]).toEqual([query, [support]]);
    expect(await found({ query: '"3.14.3"' })).toEqual([]);
    expect(await found({ query: '"zetacorp bob"' })).toEqual([]);
    await ok(api.delete(`${USER}/conversations/${support}`));
  });

  it('stems words: meetings finds meeting, promise finds promised', async () => {
    expect(await found({ query: 'meeting' })).toEqual([planning]);
    expect(await found({ query: 'promise slides' })).toEqual([promise]);
    expect(await found({ query: 'planted tomato' })).toEqual([nextDay]);
  });

  it('filters on when the conversation started, a date alone meaning its whole UTC day', async () => {
    expect(await found({ query: 'tomatoes', start_date: '2026-03-02' })).toEqual([nextDay]);
    expect(await found({ query: 'tomatoes', end_date: '2026-03-01' })).toEqual([]);
    expect(await found({ query: 'tomatoes', end_date: '2026-03-02' })).toEqual([nextDay]);
    expect(await found({ query: 'tomatoes', start_date: '2026-03-02T08:31:00Z' })).toEqual([]);
    expect(await found({ query: 'anna', start_date: '2026-03-01', end_date: '2026-03-01' })).toHaveLength(3);
    expect(await found({ query: 'anna', limit: 1 })).toHaveLength(1);
  });

  it("never returns another user's conversations, and theirs never returns ours", async () => {
    expect(await found({ query: 'stranger' })).toEqual([]);
    expect(await found({ query: 'budget' })).not.toContain(strangers);
    expect(await found({ query: 'budget' }, stranger.client)).toEqual([strangers]);
    expect(await found({ query: 'promised' }, stranger.client)).toEqual([]);
  });

  it('keeps the index in step with renames, discards and deletes', async () => {
    const id = await conversation(
      api,
      'Kayak trip',
      'Paddling along the fjord.',
      undefined,
      'A day outdoors',
    );
    expect(await found({ query: 'kayak' })).toEqual([id]);
    expect(await found({ query: 'outdoors' })).toEqual([id]);
    await ok(api.patch(`${USER}/conversations/${id}`, { title: 'Canoe outing' }));
    expect(await found({ query: 'kayak' })).toEqual([]);
    expect(await found({ query: 'canoe fjord' })).toEqual([id]);
    await ok(api.patch(`${USER}/conversations/${id}`, { discarded: true }));
    expect(await found({ query: 'canoe' })).toEqual([]);
    await ok(api.patch(`${USER}/conversations/${id}`, { discarded: false }));
    await ok(api.delete(`${USER}/conversations/${id}`));
    expect(await found({ query: 'canoe' })).toEqual([]);
  });

  it('finds what a live transcript session appended, asked for while it is open and by default once finished', async () => {
    const session = `search-${Math.random().toString(36).slice(2)}`;
    await ok(
      api.post(`${USER}/transcripts/${session}/segments`, {
        segments: [{ text: 'The harpsichord needs tuning', speaker: 'SPEAKER_00', start: 0, end: 2 }],
      }),
      202,
    );
    const [hit] = await searchConversations(api, {
      query: 'harpsichord',
      statuses: 'in_progress',
      include_transcript: 'true',
    });
    expect(hit.conversation.transcript_segments?.[0].text).toBe('The harpsichord needs tuning');
    await ok(api.post(`${USER}/transcripts/${session}/finish`));
    expect(await found({ query: 'harpsichord' })).toEqual([hit.conversation.id]);
  });

  it('stores and finds a transcript whose words would not fit in a PostgreSQL tsvector', async () => {
    // Words that never repeat, in letters of four bytes in UTF-8 (CJK Extension B): the first 300,000 characters of
    // such a transcript take more than a tsvector's 1 MB, which failed the create with a 500 on PostgreSQL.
    const letter = (n: number) => String.fromCodePoint(0x20000 + (n % 40_000));
    const word = (k: number) => letter(k) + letter(Math.floor(k / 40_000) + 7) + letter(k * 7 + 3);
    const segments = Array.from({ length: 40 }, (_, i) => ({
      text: [i === 0 ? 'kestrel' : '', ...Array.from({ length: 2250 }, (_, j) => word(i * 2250 + j))].join(
        ' ',
      ),
      speaker: 'SPEAKER_00',
      start: i,
      end: i + 1,
    }));
    const { id } = await ok(
      api.post(`${USER}/conversations/from-segments`, { transcript_segments: segments }),
    );
    expect(await found({ query: 'kestrel' })).toEqual([id]);
    expect(await found({ query: word(1000) })).toEqual([id]);
  });

  it('answers each conversation as a GET by id does, its action items oldest first and only its own', async () => {
    const id = await conversation(api, 'Harbour errands', 'Buy rope and paint the dinghy.');
    const other = await conversation(api, 'Dinghy race', 'The dinghy race starts at noon.');
    await ok(
      api.post(`${USER}/action-items`, {
        description: 'Buy rope',
        conversation_id: id,
        due_at: '2026-04-01T09:00:00Z',
      }),
    );
    await ok(
      api.post(`${USER}/action-items`, { description: 'Paint it', conversation_id: id, completed: true }),
    );
    await ok(api.post(`${USER}/action-items`, { description: 'Not about a conversation' }));
    const hits = await searchConversations(api, { query: 'dinghy' });
    expect(hits.map((hit) => hit.conversation.id).sort()).toEqual([id, other].sort());
    for (const hit of hits)
      expect(hit.conversation).toEqual(await ok(api.get(`${USER}/conversations/${hit.conversation.id}`)));
    const errands = hits.find((hit) => hit.conversation.id === id)!.conversation;
    expect(errands.structured.action_items?.map((item) => [item.description, item.completed])).toEqual([
      ['Buy rope', false],
      ['Paint it', true],
    ]);
    expect(hits.find((hit) => hit.conversation.id === other)!.conversation.structured.action_items).toEqual(
      [],
    );
    await ok(api.delete(`${USER}/conversations/${id}`));
    await ok(api.delete(`${USER}/conversations/${other}`));
  });

  it('is not taken for a conversation id, and needs conversations:read', async () => {
    expect422(await api.get(`${USER}/conversations/search`), ['query', 'query']);
    const memoriesOnly = await keyWithScopes(server, ['memories:read']);
    const refused = await memoriesOnly.get(`${USER}/conversations/search`, { query: 'budget' });
    expect(refused.status).toBe(403);
    expectShape(errorBody, refused.body);
  });

  describe('memories', () => {
    const memory = async (client: Client, content: string, category = 'manual') =>
      (await ok(client.post(`${USER}/memories`, { content, category }))).id as string;
    const foundMemories = async (query: Record<string, string>, client: Client = api) =>
      expectShape(memorySearchResult.array(), await ok(client.get(`${USER}/memories/search`, query))).map(
        (r) => r.memory.id,
      );

    it('finds memories by words, phrases and stems, within the categories given, and the caller’s only', async () => {
      const cycling = await memory(api, 'Anna loves cycling to work on sunny days', 'interesting');
      const coffee = await memory(api, 'Prefers black coffee in the morning', 'system');
      const theirs = await memory(stranger.client, 'Anna loves cycling too');
      expect(await foundMemories({ query: 'cycles' })).toEqual([cycling]);
      expect(await foundMemories({ query: '"black coffee"' })).toEqual([coffee]);
      expect(await foundMemories({ query: '"coffee black"' })).toEqual([]);
      expect(await foundMemories({ query: 'cycling', categories: 'system,manual' })).toEqual([]);
      expect(await foundMemories({ query: 'cycling', categories: 'interesting' })).toEqual([cycling]);
      expect(await foundMemories({ query: 'cycling' }, stranger.client)).toEqual([theirs]);
      expect(await foundMemories({ query: 'Anna coffee' })).toEqual(
        expect.arrayContaining([cycling, coffee]),
      );
      expect(await foundMemories({ query: 'Anna coffee' })).toHaveLength(2);
      expect(await foundMemories({ query: 'coffee zeppelin', categories: 'interesting' })).toEqual([]);
      expect422(await api.get(`${USER}/memories/search`, { query: 'x', categories: 'bogus' }), [
        'query',
        'categories',
      ]);

      await ok(api.patch(`${USER}/memories/${coffee}`, { content: 'Prefers green tea in the morning' }));
      expect(await foundMemories({ query: 'coffee' })).toEqual([]);
      expect(await foundMemories({ query: 'tea' })).toEqual([coffee]);
      await ok(api.delete(`${USER}/memories/${coffee}`));
      expect(await foundMemories({ query: 'tea' })).toEqual([]);
    });
  });

  describe('words beyond ASCII', () => {
    it('finds a word by the text as stored: dotted capitals, decomposed accents, combining vowel signs', async () => {
      const user = await newUser(server);
      const found = async (query: string) =>
        expectShape(
          memorySearchResult.array(),
          await ok(user.client.get(`${USER}/memories/search`, { query })),
        ).map((r) => r.memory.content);
      const decomposed = 'e\u0301clair';
      const words = ['İstanbul', decomposed, 'नमस्ते', 'Zürich'];
      for (const word of words)
        await ok(user.client.post(`${USER}/memories`, { content: `Said ${word} twice` }));
      for (const word of words) {
        expect({ word, found: await found(word) }).toEqual({ word, found: [`Said ${word} twice`] });
      }
      // Case folds as each engine folds the text it indexed.
      expect(await found('İSTANBUL')).toEqual(['Said İstanbul twice']);
      expect(await found('E\u0301CLAIR')).toEqual([`Said ${decomposed} twice`]);
      expect(await found('"said नमस्ते"')).toEqual(['Said नमस्ते twice']);
      // Marks alone are no word: like a query of punctuation, a 422 naming query.
      expect422(await user.client.get(`${USER}/memories/search`, { query: '\u0301\u0308' }), [
        'query',
        'query',
      ]);
    });

    it('finds an accented word by its letters with or without the accents, composed or decomposed', async () => {
      const user = await newUser(server);
      const found = async (query: string) =>
        expectShape(
          memorySearchResult.array(),
          await ok(user.client.get(`${USER}/memories/search`, { query })),
        )
          .map((r) => r.memory.content)
          .sort();
      const composed = 'Lunch with Müller at the café';
      const decomposed = 'Met Mu\u0308ller about the re\u0301sume\u0301';
      for (const content of [composed, decomposed])
        await ok(user.client.post(`${USER}/memories`, { content }));
      // A name typed on another keyboard (or by a model) comes composed, decomposed or without its accents.
      for (const query of ['Müller', 'Mu\u0308ller', 'muller', 'MULLER'])
        expect({ query, found: await found(query) }).toEqual({ query, found: [composed, decomposed] });
      for (const query of ['café', 'cafe', 'cafe\u0301'])
        expect({ query, found: await found(query) }).toEqual({ query, found: [composed] });
      for (const query of ['résumé', 'resume', '"met muller"'])
        expect({ query, found: await found(query) }).toEqual({ query, found: [decomposed] });
      // A letter with two accents folds too: Vietnamese names, composed (as typed) or decomposed.
      const vietnamese = 'Dinner with Nguyễn in Hà Nội';
      const vietnameseDecomposed = 'Call Nguye\u0302\u0303n tomorrow';
      for (const content of [vietnamese, vietnameseDecomposed])
        await ok(user.client.post(`${USER}/memories`, { content }));
      for (const query of ['Nguyễn', 'Nguye\u0302\u0303n', 'nguyen'])
        expect({ query, found: await found(query) }).toEqual({
          query,
          found: [vietnameseDecomposed, vietnamese],
        });
      expect(await found('"ha noi"')).toEqual([vietnamese]);
      // Only a Latin letter's accents fold: in Cyrillic, й (и and a breve) is a letter of its own.
      await ok(user.client.post(`${USER}/memories`, { content: 'Мой дом' }));
      expect(await found('мой')).toEqual(['Мой дом']);
      expect(await found('мои')).toEqual([]);
    });
  });

  describe('action items', () => {
    const list = async (query: Record<string, string | number>, client: Client = api) =>
      expectShape(actionItem.array(), await ok(client.get(`${USER}/action-items`, query))).map((a) => a.id);

    it('ranks the list by relevance with query, keeping its filters, and keeps the index in step', async () => {
      const batch = await ok(
        api.post(`${USER}/action-items/batch`, {
          action_items: [
            { description: 'Send Anna the invoice' },
            { description: 'Invoice the invoice of the invoices', completed: true },
            { description: 'Water the plants' },
          ],
        }),
      );
      const [anna, invoices, plants] = batch.action_items.map((item: { id: string }) => item.id);
      await ok(stranger.client.post(`${USER}/action-items`, { description: 'Send the invoice' }));
      expect(await list({ query: 'invoicing' })).toEqual([invoices, anna]);
      expect(await list({ query: 'invoice', completed: 'false' })).toEqual([anna]);
      expect(await list({ query: 'invoice', limit: 1, offset: 1 })).toEqual([anna]);
      expect(await list({ query: 'plants' })).toEqual([plants]);
      await ok(api.patch(`${USER}/action-items/${plants}`, { description: 'Repot the cactus' }));
      expect(await list({ query: 'plants' })).toEqual([]);
      expect(await list({ query: 'cactus' })).toEqual([plants]);
      await ok(api.delete(`${USER}/action-items/${plants}`));
      expect(await list({ query: 'cactus' })).toEqual([]);
      expect422(await api.get(`${USER}/action-items`, { query: 'invoice', order: 'updated_at' }), [
        'query',
        'query',
      ]);
    });
  });

  it('treats hostile query syntax as words or refuses it with a 422 naming query, never a 5xx', async () => {
    const paths = [`${USER}/conversations/search`, `${USER}/memories/search`, `${USER}/action-items`];
    for (const path of paths) {
      for (const query of [...HOSTILE_SEARCH_QUERIES, '', '   ', '"', 'x'.repeat(501)]) {
        const reply = await api.get(path, { query });
        if (reply.status !== 200) expect422(reply, ['query', 'query']);
      }
    }
    // Operators are words: NEAR would find the budget review alone and a quote would open a phrase no record holds
    // (as words, neither query has a record with every word, so those with any are found); a minus would leave out
    // Anna's conversation.
    expect(await found({ query: 'NEAR(budget line)' })).toEqual([budget, planning]);
    expect(await found({ query: 'budget -anna' })).toEqual([planning]);
    expect(await found({ query: 'budg*' })).toEqual([]);
    expect(await found({ query: '"unbalanced quote budget' })).toEqual([budget, planning]);
    expect422(await api.get(`${USER}/conversations/search`, { query: 'bud\u0000get' }), ['query', 'query']);
    expect422(await api.get(`${USER}/conversations/search`, { query: '***' }), ['query', 'query']);
  });
});

// Search with known answers among 10,000 conversations with transcripts and 10,000 memories of one user (issue 28):
// the filler is made-up words that no query uses, and a few records carry the words, phrases, stems and dates the
// queries look for, so each query has exactly one right answer. A second user holds the same words and is never
// returned. The records are written through the server's own repositories (app.repositories: the store code the
// routes call, each body parsed by the route's schema first), so the search indexes are the ones the writes keep;
// the second user's records and every search go over HTTP. Seeding through 10,400 requests took most of this
// file's time and twice its CPU, where the searches are what it is about.
import { createFromSegmentsBody } from '../../server/src/contract/conversations';
import { newMemory } from '../../server/src/contract/memories';
import { conversationSearchResult, memorySearchResult } from '../../server/src/contract/search';
import { devClient, expectShape, newUser, ok, type Client } from '../helpers/http';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

jest.setTimeout(300_000);

const USER = '/v1/dev/user';
const CONVERSATIONS = 10_000;
const MEMORIES = 10_000;
/** Memories per repository call: one write of the user each, all or none, as a batch request is. */
const MEMORY_BATCH = 500;

/** Made-up words: the filler, from a deterministic generator so every run is the same. */
const SYLLABLES = ['ka', 'lo', 'mi', 'ten', 'ru', 'sa', 'vor', 'ne', 'pli', 'dom', 'gu', 'fa', 'rix', 'bel'];
const FILLER = Array.from({ length: 600 }, (_, i) => {
  let word = '';
  for (let n = i + SYLLABLES.length; n > 0; n = Math.floor(n / SYLLABLES.length))
    word += SYLLABLES[n % SYLLABLES.length];
  return `${word}o`;
});
function filler(seed: number, words: number): string {
  let state = seed * 7919 + 1;
  return Array.from({ length: words }, () => {
    state = (state * 48271) % 2147483647;
    return FILLER[state % FILLER.length];
  }).join(' ');
}

/** Conversation c starts c hours after 2026-01-01T00:00Z (c = 2000, 2001, 2002 all start on 2026-03-25). */
const startOf = (c: number) => new Date(Date.UTC(2026, 0, 1) + c * 3_600_000).toISOString();

/** The conversations that carry what the queries look for, by index; every other one is filler only. */
const PLANTED: Record<number, { title?: string; overview?: string; said?: string }> = {
  1234: { title: 'Dentist appointment' },
  5678: { said: 'I still have to call the dentist about the crown' },
  9000: { said: 'I promised Anna the quarterly slides' },
  9001: { said: 'Anna promised me the quarterly slides' },
  4321: { overview: 'Planning the meetings for the offsite' },
  100: { said: 'tomatoes in the greenhouse' },
  2000: { said: 'tomatoes for the market' },
  2001: { said: 'tomatoes again' },
  2002: { said: 'watering the tomatoes' },
  7000: { said: 'tomatoes gone' },
};
/** The memories that carry the words, by index, with their category; the others are filler in `manual`. */
const PLANTED_MEMORIES: Record<number, { content: string; category: string }> = {
  17: { content: 'Prefers the dentist near the office', category: 'system' },
  6543: { content: 'The dentist is open on Fridays only', category: 'interesting' },
  9999: { content: 'Grows tomatoes on the balcony', category: 'habits' },
};

function conversationBody(c: number) {
  const planted = PLANTED[c] ?? {};
  return {
    started_at: startOf(c),
    structured: {
      title: planted.title ?? filler(c, 4),
      overview: planted.overview ?? filler(c + 50_000, 10),
    },
    transcript_segments: [
      { text: filler(c + 100_000, 12), speaker: 'SPEAKER_00', is_user: true, start: 0, end: 4 },
      {
        text: planted.said ?? filler(c + 150_000, 12),
        speaker: 'SPEAKER_01',
        is_user: false,
        start: 4,
        end: 8,
      },
    ],
  };
}

function memoryBody(m: number) {
  return PLANTED_MEMORIES[m] ?? { content: filler(m + 200_000, 8), category: 'manual' };
}

describe.each(DIALECTS)('search among 10,000 conversations and 10,000 memories on %s', (dialect) => {
  const server = forSuite(() => startServer(dialect));
  const api = devClient(server);
  /** Conversation ids by index, and memory ids by index. */
  let conversations: string[];
  let memories: string[];
  let stranger: Client;

  beforeAll(async () => {
    // One write at a time: a user's writes take turns anyway (each holds the user's write stamp), and writes
    // racing for it cost more than they overlap.
    const store = server.app.repositories;
    const userId = server.init.user_id;
    conversations = [];
    for (let c = 0; c < CONVERSATIONS; c++) {
      const body = createFromSegmentsBody.parse(conversationBody(c));
      // Every start and finish here is valid: nothing for the route's check of them to refuse.
      const created = await store.conversations.create(userId, body, null, () => undefined);
      conversations.push(created.conversation.id);
    }
    memories = [];
    for (let m = 0; m < MEMORIES; m += MEMORY_BATCH) {
      const batch = Array.from({ length: MEMORY_BATCH }, (_, i) => newMemory.parse(memoryBody(m + i)));
      memories.push(...(await store.memories.createMany(userId, batch)).map((memory) => memory.id));
    }
    // Another user with every word the queries use, in a conversation and a memory.
    stranger = (await newUser(server)).client;
    await ok(
      stranger.post(`${USER}/conversations`, {
        text: 'dentist tomatoes: I promised Anna the quarterly slides; meetings at the offsite',
        started_at: startOf(2001),
        structured: { title: 'Dentist and tomatoes' },
      }),
    );
    await ok(
      stranger.post(`${USER}/memories`, { content: 'The dentist grows tomatoes', category: 'system' }),
    );
  });

  const searchConversations = async (query: Record<string, string>, client: Client = api) =>
    expectShape(
      conversationSearchResult.array(),
      await ok(client.get(`${USER}/conversations/search`, query)),
    ).map((result) => result.conversation.id);
  const searchMemories = async (query: Record<string, string>) =>
    expectShape(memorySearchResult.array(), await ok(api.get(`${USER}/memories/search`, query))).map(
      (result) => result.memory.id,
    );
  const at = (...indexes: number[]) => indexes.map((c) => conversations[c]);
  const sorted = (ids: string[]) => [...ids].sort();

  it('holds every record written', async () => {
    expect(new Set(conversations).size).toBe(CONVERSATIONS);
    expect(new Set(memories).size).toBe(MEMORIES);
    const owner = { user_id: server.init.user_id };
    expect(await server.count('conversations', owner)).toBe(CONVERSATIONS);
    expect(await server.count('memories', owner)).toBe(MEMORIES);
  });

  it('finds a word wherever it is, a title match first, and nothing else', async () => {
    expect(await searchConversations({ query: 'dentist' })).toEqual(at(1234, 5678));
    expect(await searchConversations({ query: 'Dentist CROWN' })).toEqual(at(5678));
  });

  it('requires every word; a phrase in double quotes matches in its order only', async () => {
    expect(sorted(await searchConversations({ query: 'promised anna slides' }))).toEqual(
      sorted(at(9000, 9001)),
    );
    expect(await searchConversations({ query: '"promised Anna"' })).toEqual(at(9000));
    expect(await searchConversations({ query: '"Anna promised" quarterly' })).toEqual(at(9001));
  });

  it('finds a word by its stem', async () => {
    expect(await searchConversations({ query: 'meeting' })).toEqual(at(4321));
    expect(await searchConversations({ query: 'planned offsites' })).toEqual(at(4321));
  });

  it('filters on when the conversation started: a date alone is its whole UTC day', async () => {
    expect(sorted(await searchConversations({ query: 'tomatoes' }))).toEqual(
      sorted(at(100, 2000, 2001, 2002, 7000)),
    );
    expect(
      sorted(
        await searchConversations({ query: 'tomatoes', start_date: '2026-03-25', end_date: '2026-03-25' }),
      ),
    ).toEqual(sorted(at(2000, 2001, 2002)));
    expect(
      sorted(await searchConversations({ query: 'tomatoes', start_date: '2026-03-25T08:30:00Z' })),
    ).toEqual(sorted(at(2001, 2002, 7000)));
    expect(await searchConversations({ query: 'tomatoes', end_date: '2026-03-24' })).toEqual(at(100));
  });

  it("searches memories, within the categories given, and never another user's", async () => {
    expect(sorted(await searchMemories({ query: 'dentist' }))).toEqual(
      sorted([memories[17], memories[6543]]),
    );
    expect(await searchMemories({ query: 'dentist', categories: 'system' })).toEqual([memories[17]]);
    expect(await searchMemories({ query: '"dentist is open"' })).toEqual([memories[6543]]);
    expect(await searchMemories({ query: 'tomato' })).toEqual([memories[9999]]);
  });

  it("never returns another user's conversations, nor ours to them", async () => {
    const theirs = await searchConversations({ query: 'dentist tomatoes' }, stranger);
    expect(theirs).toHaveLength(1);
    expect(conversations).not.toContain(theirs[0]);
    // None of ours has both words, so ours with either are found, and theirs is not among them.
    const ours = await searchConversations({ query: 'dentist tomatoes' });
    expect([...ours].sort()).toEqual(
      [1234, 5678, 100, 2000, 2001, 2002, 7000].map((c) => conversations[c]).sort(),
    );
  });
});

// Conversations with their transcripts (created whole, or appended to by a live session) and the action items
// extracted from them: every query, and how a row reads back.
import { sql, type Kysely } from 'kysely';
import type { z } from 'zod';
import {
  DEFAULT_EMOJI,
  LIVE_TRANSCRIPT_SOURCE,
  MAX_SESSION_SEGMENTS,
  MAX_SESSION_TEXT,
  SPEAKER_LABEL,
  CONVERSATION_STATUSES,
  type ConversationStatus,
  type conversationEvent,
  type createConversationBody,
  type createFromSegmentsBody,
  type geolocation,
  type TEXT_SOURCES,
  type transcriptSegment,
} from '../contract/conversations';
import { newId } from '../ids';
import { userWrite } from './db/write-clock';
import type { Dialect } from './db/database';
import { Conflict, isUniqueViolation, NotFound } from './db/store-errors';
import { asksForChanges, inFeedOrder, type FeedQuery } from './db/paging';
import { createOwned, deleteOwned, findOwned, found, updateChanged, type Row } from './db/records';
import { recordEvents } from './db/outbox';
import { fromFlag, fromJson, iso, toFlag, toJson } from './db/rows';
import type { ActionItemsRepository, EmbeddedActionItem } from './action-items';
import type { Database } from './db/schema';
import { allElseAny, matching, type TermsMatch } from './db/search';
import type { SearchTerms } from '../contract/search-query';

type Geolocation = z.infer<typeof geolocation>;

// How a transcript is stored: the segments as given become stored segments with speaker labels, and the text
// gives the summary fields the caller left out. Shared by conversations created whole and live sessions.
export type Segment = z.infer<typeof transcriptSegment>;
export type SegmentInput = z.infer<typeof createFromSegmentsBody>['transcript_segments'][number];
type ConversationEvent = z.infer<typeof conversationEvent>;
/**
 * The summary as stored: the emoji and events only when given (read back with their defaults), the action
 * items not at all (they are records of their own).
 */
interface StoredStructured {
  title: string;
  overview: string;
  category: string;
  emoji?: string;
  events?: ConversationEvent[];
}
type StructuredInput = z.infer<typeof createFromSegmentsBody>['structured'];
type TextSource = (typeof TEXT_SOURCES)[number];

const TITLE_WORDS = 8;
const TITLE_MAX = 200;
const OVERVIEW_MAX = 300;
const ELLIPSIS = '…';

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1).trimEnd() + ELLIPSIS;
}

/** Why a live transcript session cannot take `sessionId`: session IDs and client_session_id are one namespace. */
const madeFromSegments = (sessionId: string) =>
  `Session ID ${sessionId} is the client_session_id of a conversation created from segments, not a live transcript session: use another session ID`;

/** The summary fields: what the caller supplied wins; the rest is derived from the text. */
function summarize(text: string, given: StructuredInput): StoredStructured {
  const words = text.split(/\s+/).filter(Boolean);
  const derivedTitle = words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? ELLIPSIS : '');
  return {
    title: given?.title ?? cut(derivedTitle, TITLE_MAX),
    overview: given?.overview ?? cut(words.join(' '), OVERVIEW_MAX),
    category: given?.category ?? 'other',
    ...(given?.emoji !== undefined ? { emoji: given.emoji } : {}),
    ...(given?.events !== undefined
      ? { events: given.events.map((event) => ({ ...event, start: iso(event.start) })) }
      : {}),
  };
}

/**
 * A segment's stored fields but its id: a speaker id and name from the label ("SPEAKER_01", else the name a read
 * segment carries) when not given. Pure, so a retry can compare with it without making ids.
 */
function segmentFields(input: SegmentInput): Omit<Segment, 'id'> {
  const label = input.speaker?.trim() || input.speaker_name?.trim() || undefined;
  const parsed = label ? SPEAKER_LABEL.exec(label) : null;
  const speakerId = input.speaker_id ?? (parsed ? Number(parsed[1]) : 0);
  return {
    text: input.text,
    speaker_id: speakerId,
    speaker_name: label ?? `Speaker ${speakerId}`,
    is_user: input.is_user,
    person_id: input.person_id ?? null,
    start: input.start,
    end: input.end,
  };
}

/** A segment as stored: its own id (an id the input carries is not kept) and its fields. */
function toSegment(input: SegmentInput, now: number): Segment {
  return { id: newId(now), ...segmentFields(input) };
}

/** What a segment sent again must have as stored for it to be the same segment. */
const SEGMENT_FIELDS = [
  'text',
  'speaker_id',
  'speaker_name',
  'is_user',
  'person_id',
  'start',
  'end',
] as const;

/**
 * Whether `input`, sent again with the client_session_id of the conversation `existing`, asks for that same
 * conversation: the same segments (text, speaker, is_user, person, times), language, source, place, and start and
 * finish where it gives them. The summary and folder are not compared: a PATCH may have changed them since.
 */
export function isRetryOf(existing: Conversation, input: NewConversation): boolean {
  const stored = existing.transcript_segments ?? [];
  const sameSegments =
    stored.length === input.transcript_segments.length &&
    input.transcript_segments.every((given, i) => {
      const wanted = segmentFields(given);
      return SEGMENT_FIELDS.every((field) => wanted[field] === stored[i][field]);
    });
  const sameInstant = (given: number | null | undefined, kept: string) =>
    given == null || given === Date.parse(kept);
  return (
    sameSegments &&
    existing.language === input.language &&
    existing.source === input.source &&
    JSON.stringify(existing.geolocation ?? null) === JSON.stringify(input.geolocation ?? null) &&
    sameInstant(input.started_at, existing.started_at) &&
    sameInstant(input.finished_at, existing.finished_at)
  );
}

/** Stored segments as read: those stored before segments had a person read back with none. */
function readSegments(json: string): Segment[] {
  return fromJson<Segment[]>(json).map((segment) => ({ ...segment, person_id: segment.person_id ?? null }));
}

/** What a new conversation is made of: its segments and what the caller says about it (instants in epoch ms). */
export type NewConversation = Omit<z.infer<typeof createFromSegmentsBody>, 'client_session_id'> &
  Partial<Pick<z.infer<typeof createConversationBody>, 'text_source' | 'text_source_spec'>>;

export interface Conversation {
  id: string;
  created_at: string;
  updated_at: string;
  started_at: string;
  finished_at: string;
  language: string;
  source: string;
  /** in_progress while the live session that made it is open (the `live` flag), else completed. */
  status: ConversationStatus;
  structured: Omit<StoredStructured, 'emoji' | 'events'> & {
    emoji: string;
    events: ConversationEvent[];
    action_items: EmbeddedActionItem[];
  };
  transcript_segments?: Segment[];
  /** Absent when the conversation has no place. */
  geolocation?: Geolocation;
  folder_id: string | null;
  folder_name: string | null;
  discarded: boolean;
  starred: boolean;
  text_source: TextSource | null;
  text_source_spec: string | null;
}

export interface ConversationFilter extends FeedQuery {
  /** Started at or after / at or before, epoch ms. */
  start_date?: number;
  end_date?: number;
  folder_id?: string;
  /** In any of these categories. */
  categories?: string[];
  starred?: boolean;
  include_transcript: boolean;
  /** In any of these; absent or empty: completed ones only, unless a list asks for changes. */
  statuses?: ConversationStatus[];
  /** Absent: discarded ones are left out, unless the query asks for changes. */
  include_discarded?: boolean;
  limit: number;
  offset: number;
}

/** What a conversation search narrows its answer by. */
type SearchFilter = Pick<
  ConversationFilter,
  'start_date' | 'end_date' | 'statuses' | 'include_transcript' | 'limit'
>;

/** The fields to change; absent ones stay. `folder_id: null` moves the conversation to no folder. */
export interface ConversationChanges {
  title?: string;
  discarded?: boolean;
  starred?: boolean;
  folder_id?: string | null;
}

/** A conversation row as read: the folder's name joined, the transcript only when asked for. */
type ConversationRow = Omit<Row<'conversations'>, 'transcript_segments' | 'client_session_id'> & {
  folder_name: string | null;
  transcript_segments?: string;
};

/**
 * The live flag of the conversations in any of `statuses` (the status is that flag), or undefined when both
 * statuses are asked for, which is no condition on it.
 */
function liveFlagOf(statuses: readonly ConversationStatus[]): number | undefined {
  const asked = new Set(statuses);
  return asked.size === 1 ? toFlag(asked.has('in_progress')) : undefined;
}

/** The stored summary with the emoji and events a summary always shows (their defaults when none were given). */
function decodeStructured(json: string, actionItems: EmbeddedActionItem[]): Conversation['structured'] {
  const { emoji = DEFAULT_EMOJI, events = [], ...rest } = fromJson<StoredStructured>(json);
  return { ...rest, emoji, events, action_items: actionItems };
}

function decodeConversation(
  row: ConversationRow,
  actionItems: EmbeddedActionItem[],
  withTranscript: boolean,
): Conversation {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    language: row.language,
    source: row.source,
    status: fromFlag(row.live) ? 'in_progress' : 'completed',
    structured: decodeStructured(row.structured, actionItems),
    ...(withTranscript && row.transcript_segments !== undefined
      ? { transcript_segments: readSegments(row.transcript_segments) }
      : {}),
    ...(row.geolocation !== null ? { geolocation: fromJson<Geolocation>(row.geolocation) } : {}),
    folder_id: row.folder_id,
    folder_name: row.folder_name,
    discarded: fromFlag(row.discarded),
    starred: fromFlag(row.starred),
    text_source: row.text_source as TextSource | null,
    text_source_spec: row.text_source_spec,
  };
}

/** `actionItems`: the action items extracted from the conversations, which this repository writes and reads too. */
export function conversationsRepository(
  db: Kysely<Database>,
  dialect: Dialect,
  actionItems: ActionItemsRepository,
) {
  function select(userId: string, withTranscript: boolean, trx: Kysely<Database> = db) {
    return trx
      .selectFrom('conversations as c')
      .leftJoin('folders as f', 'f.id', 'c.folder_id')
      .select([
        'c.id',
        'c.user_id',
        'c.folder_id',
        'c.language',
        'c.source',
        'c.structured',
        'c.geolocation',
        'c.discarded',
        'c.live',
        'c.starred',
        'c.text_source',
        'c.text_source_spec',
        'c.started_at',
        'c.finished_at',
        'c.created_at',
        'c.updated_at',
        'f.name as folder_name',
      ])
      .$if(withTranscript, (q) => q.select('c.transcript_segments'))
      .where('c.user_id', '=', userId);
  }

  /**
   * A conversation.updated event for each of the caller's conversations the write `trx` stamped `at` changed (no
   * other write of the user shares its stamp), as they read now: what a folder's rename or delete does to them.
   */
  async function recordStampedUpdates(trx: Kysely<Database>, userId: string, at: number): Promise<void> {
    await recordEvents(
      trx,
      userId,
      'conversation.updated',
      async () =>
        decodeAll(
          userId,
          await select(userId, false, trx).where('c.updated_at', '=', at).execute(),
          false,
          trx,
        ),
      at,
    );
  }

  /** The caller's conversation `id` as a row, or NotFound "Conversation". */
  async function findRow(userId: string, id: string, withTranscript: boolean, trx: Kysely<Database> = db) {
    const row = await select(userId, withTranscript, trx).where('c.id', '=', id).executeTakeFirst();
    return found(row, 'conversations');
  }

  async function decodeAll(
    userId: string,
    rows: ConversationRow[],
    withTranscript: boolean,
    trx: Kysely<Database> = db,
  ) {
    const items = await actionItems.ofConversations(
      userId,
      rows.map((row) => row.id),
      trx,
    );
    return rows.map((row) => decodeConversation(row, items.get(row.id) ?? [], withTranscript));
  }

  /** A live session's conversation as read in `trx`, with its transcript: the record its events carry. */
  async function liveConversation(trx: Kysely<Database>, userId: string, id: string) {
    return decodeAll(userId, [await findRow(userId, id, true, trx)], true, trx);
  }

  /** The caller's conversation made for `clientSessionId`, with its transcript, if there is one. */
  async function findBySession(userId: string, clientSessionId: string): Promise<Conversation | undefined> {
    const row = await select(userId, true)
      .where('c.client_session_id', '=', clientSessionId)
      .executeTakeFirst();
    return row && (await decodeAll(userId, [row], true))[0];
  }

  /** The name of the caller's folder `folderId`, or NotFound "Folder". */
  async function folderName(trx: Kysely<Database>, userId: string, folderId: string): Promise<string> {
    return (await findOwned(trx, 'folders', userId, folderId, ['name'])).name;
  }

  /** The conversations `terms` match in the way `match` says, as search answers them. */
  async function searchMatching(
    userId: string,
    terms: SearchTerms,
    match: TermsMatch,
    filter: SearchFilter,
  ): Promise<{ conversation: Conversation; score: number }[]> {
    const newest = filter.start_date === undefined && filter.end_date === undefined;
    let query = select(userId, filter.include_transcript)
      .innerJoin(matching(db, 'conversations', terms, userId, { newest, match }), 'm.id', 'c.id')
      .select('m.score')
      .where('c.discarded', '=', 0);
    const live = liveFlagOf(filter.statuses?.length ? filter.statuses : ['completed']);
    if (live !== undefined) query = query.where('c.live', '=', live);
    // The unary plus hides the dates from the index on (user, started_at): SQLite (no statistics) would otherwise
    // read the user's conversations in the range and ask FTS5 about each one, seconds for a range of thousands.
    const startedAt = sql<number>`+${sql.ref('c.started_at')}`;
    if (filter.start_date !== undefined) query = query.where(startedAt, '>=', filter.start_date);
    if (filter.end_date !== undefined) query = query.where(startedAt, '<=', filter.end_date);
    const page = query
      .orderBy('m.score', 'desc')
      .orderBy('c.started_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(filter.limit);
    if (dialect === 'postgres') {
      // The page's action items in the same query (a round trip less); SQLite has no round trips to save.
      const rows = await db
        .selectFrom(page.as('p'))
        .selectAll('p')
        .select((eb) => actionItems.embeddedJson(userId, eb.ref('p.id')).as('action_items'))
        .orderBy('p.score', 'desc')
        .orderBy('p.started_at', 'desc')
        .orderBy('p.id', 'desc')
        .execute();
      return rows.map(({ action_items: items, ...row }) => ({
        conversation: decodeConversation(row, actionItems.embeddedFromJson(items), filter.include_transcript),
        score: Number(row.score),
      }));
    }
    const rows = await page.execute();
    const conversations = await decodeAll(userId, rows, filter.include_transcript);
    return conversations.map((conversation, i) => ({ conversation, score: Number(rows[i].score) }));
  }

  return {
    /** Newest started first, or with order=updated_at the changes since a point. */
    async list(userId: string, filter: ConversationFilter): Promise<Conversation[]> {
      let query = select(userId, filter.include_transcript);
      if (filter.start_date !== undefined) query = query.where('c.started_at', '>=', filter.start_date);
      if (filter.end_date !== undefined) query = query.where('c.started_at', '<=', filter.end_date);
      if (filter.folder_id !== undefined) query = query.where('c.folder_id', '=', filter.folder_id);
      const categories = filter.categories;
      if (categories !== undefined && categories.length > 0) {
        // The category sits in the summary's JSON, written by JSON.stringify: a quote inside a text is escaped
        // there, so this pattern only matches the category field itself. Categories are lowercase letters only.
        query = query.where((eb) =>
          eb.or(categories.map((category) => eb('c.structured', 'like', `%"category":"${category}"%`))),
        );
      }
      if (filter.starred !== undefined) query = query.where('c.starred', '=', toFlag(filter.starred));
      if (!(filter.include_discarded ?? asksForChanges(filter))) query = query.where('c.discarded', '=', 0);
      const live = liveFlagOf(
        filter.statuses?.length
          ? filter.statuses
          : asksForChanges(filter)
            ? CONVERSATION_STATUSES
            : ['completed'],
      );
      if (live !== undefined) query = query.where('c.live', '=', live);
      const rows = await inFeedOrder(query, filter, { table: 'c', newest: 'started_at' })
        .limit(filter.limit)
        .offset(filter.offset)
        .execute();
      return decodeAll(userId, rows, filter.include_transcript);
    },

    /**
     * The caller's conversations that `terms` match (title, overview, transcript), most relevant first, each with
     * its score; discarded ones are left out, and so are those in progress unless `statuses` asks for them. When
     * none has every term, those with any one.
     */
    async search(
      userId: string,
      terms: SearchTerms,
      filter: SearchFilter,
    ): Promise<{ conversation: Conversation; score: number }[]> {
      return allElseAny(terms, (match) => searchMatching(userId, terms, match, filter));
    },

    /** The caller's conversation, or NotFound "Conversation". */
    async findOwned(userId: string, id: string, withTranscript: boolean): Promise<Conversation> {
      return (await decodeAll(userId, [await findRow(userId, id, withTranscript)], withTranscript))[0];
    },

    findBySession,

    /**
     * Stores a new conversation (NotFound "Folder" for a folder not the caller's). With a `clientSessionId` that
     * a concurrent request used first (it wins the race to the unique index), that one's conversation is
     * returned with `created: false`. `validate` sees the start and finish (epoch ms) as they would be stored,
     * after the folder check, and throws to refuse them.
     */
    async create(
      userId: string,
      input: NewConversation,
      clientSessionId: string | null,
      validate: (span: { started_at: number; finished_at: number }) => void,
    ): Promise<{ created: boolean; conversation: Conversation }> {
      let folder: string | null = null;
      let row: Row<'conversations'>;
      try {
        [row] = await createOwned(
          db,
          userId,
          'conversations',
          async (now, trx) => {
            folder = input.folder_id ? await folderName(trx, userId, input.folder_id) : null;
            const durationMs = Math.round(Math.max(...input.transcript_segments.map((s) => s.end)) * 1000);
            const startedAt =
              input.started_at ?? (input.finished_at != null ? input.finished_at - durationMs : now);
            const finishedAt = input.finished_at ?? startedAt + durationMs;
            validate({ started_at: startedAt, finished_at: finishedAt });
            const segments = input.transcript_segments.map((s) => toSegment(s, now));
            const text = segments.map((s) => s.text).join(' ');
            const created: Row<'conversations'> = {
              id: newId(now),
              user_id: userId,
              client_session_id: clientSessionId,
              folder_id: input.folder_id ?? null,
              language: input.language,
              source: input.source,
              structured: toJson(summarize(text, input.structured)),
              transcript_segments: toJson(segments),
              geolocation: input.geolocation ? toJson(input.geolocation) : null,
              discarded: 0,
              live: 0,
              starred: 0,
              text_source: input.text_source ?? null,
              text_source_spec: input.text_source_spec ?? null,
              started_at: startedAt,
              finished_at: finishedAt,
              created_at: now,
              updated_at: now,
            };
            return [created];
          },
          {
            type: 'conversation.created',
            record: (created) => decodeConversation({ ...created, folder_name: folder }, [], true),
          },
        );
      } catch (error) {
        const raced =
          clientSessionId !== null && isUniqueViolation(error)
            ? await findBySession(userId, clientSessionId)
            : undefined;
        if (!raced) throw error;
        return { created: false, conversation: raced };
      }
      return { created: true, conversation: decodeConversation({ ...row, folder_name: folder }, [], true) };
    },

    /**
     * Renames, discards, stars or moves the caller's conversation; only a changed value moves updated_at. A folder
     * given is checked even when it is the stored one (NotFound "Folder" when not the caller's).
     */
    async update(userId: string, id: string, changes: ConversationChanges): Promise<Conversation> {
      const updated = await userWrite(db, userId, async (trx, at) => {
        const current = await findRow(userId, id, false, trx);
        const stored = fromJson<StoredStructured>(current.structured);
        const folder =
          changes.folder_id === undefined || changes.folder_id === null
            ? null
            : await folderName(trx, userId, changes.folder_id);
        const { row, changed } = await updateChanged(
          trx,
          'conversations',
          current,
          {
            structured:
              changes.title !== undefined && changes.title !== stored.title
                ? toJson({ ...stored, title: changes.title })
                : undefined,
            discarded: changes.discarded === undefined ? undefined : toFlag(changes.discarded),
            starred: changes.starred === undefined ? undefined : toFlag(changes.starred),
            folder_id: changes.folder_id,
          },
          at,
        );
        const result = changed.folder_id === undefined ? row : { ...row, folder_name: folder };
        if (Object.keys(changed).length > 0)
          await recordEvents(
            trx,
            userId,
            'conversation.updated',
            () => decodeAll(userId, [result], false, trx),
            at,
          );
        return result;
      });
      return (await decodeAll(userId, [updated], false))[0];
    },

    /**
     * In the caller's write `trx` stamped `at` that renamed their folder `folderId`: its conversations show the
     * new name, so their updated_at moves and each is a conversation.updated event.
     */
    async folderRenamed(trx: Kysely<Database>, userId: string, folderId: string, at: number): Promise<void> {
      await trx
        .updateTable('conversations')
        .set({ updated_at: at })
        .where('user_id', '=', userId)
        .where('folder_id', '=', folderId)
        .execute();
      await recordStampedUpdates(trx, userId, at);
    },

    /**
     * In the caller's write `trx` stamped `at` that deleted their folder: its conversations, moved to none by the
     * delete, are each a conversation.updated event, as when they are moved by a PATCH.
     */
    folderDeleted: recordStampedUpdates,

    /**
     * Deletes the caller's conversation and leaves its tombstone; its action items stay, linked to none, each an
     * action_item.updated event.
     */
    async delete(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, async (trx, at) => {
        await deleteOwned(trx, 'conversations', userId, id, at, {
          table: 'action_items',
          link: 'conversation_id',
        });
        await actionItems.conversationDeleted(trx, userId, at);
      });
    },

    /**
     * Appends segments to the live session `sessionId`: its conversation (client_session_id = the session id)
     * is created by the first batch and flagged live until finished. Conflict when the session is finished, when
     * the ID is a from-segments conversation's, or when the batch would take the session past its bounds
     * (MAX_SESSION_SEGMENTS, MAX_SESSION_TEXT). Returns the conversation's id and the segments as stored.
     */
    async appendToSession(
      userId: string,
      sessionId: string,
      input: SegmentInput[],
    ): Promise<{ conversationId: string; added: Segment[] }> {
      const now = Date.now();
      const added = input.map((s) => toSegment(s, now));
      // The write stamp comes first: it also serializes this user's appends (see store/db/write-clock.ts).
      const conversationId = await userWrite(db, userId, async (trx, at) => {
        const find = () =>
          trx
            .selectFrom('conversations')
            .select(['id', 'live', 'source', 'started_at', 'transcript_segments', 'structured'])
            .where('user_id', '=', userId)
            .where('client_session_id', '=', sessionId)
            .$if(dialect === 'postgres', (q) => q.forUpdate())
            .executeTakeFirst();
        let row = await find();
        // Whether this batch made the session's conversation.
        let created = false;
        if (!row) {
          const startedAt = now - Math.round(Math.min(...input.map((s) => s.start)) * 1000);
          await trx
            .insertInto('conversations')
            .values({
              id: newId(now),
              user_id: userId,
              client_session_id: sessionId,
              folder_id: null,
              language: 'en',
              source: LIVE_TRANSCRIPT_SOURCE,
              structured: toJson(summarize('', undefined)),
              transcript_segments: '[]',
              geolocation: null,
              discarded: 0,
              live: 1,
              started_at: startedAt,
              finished_at: startedAt,
              created_at: at,
              updated_at: at,
            })
            .onConflict((oc) => oc.columns(['user_id', 'client_session_id']).doNothing())
            .execute();
          row = await find();
          if (!row) throw new Error('live session conversation vanished');
          created = true;
        }
        if (!fromFlag(row.live)) {
          // Session ids and from-segments' client_session_id are one namespace: a session's conversation is the
          // one with that client_session_id.
          throw new Conflict(
            row.source === LIVE_TRANSCRIPT_SOURCE
              ? `Transcript session ${sessionId} is finished: send further segments under a new session ID`
              : madeFromSegments(sessionId),
          );
        }
        const stored = readSegments(row.transcript_segments);
        const segments = [...stored, ...added];
        const textLength = segments.reduce((sum, s) => sum + s.text.length, 0);
        if (segments.length > MAX_SESSION_SEGMENTS || textLength > MAX_SESSION_TEXT) {
          throw new Conflict(
            `Transcript session ${sessionId} holds ${stored.length} segments; with these it would pass the most a ` +
              `session holds (${MAX_SESSION_SEGMENTS} segments, ${MAX_SESSION_TEXT} characters of text): finish ` +
              'it and go on under a new session ID',
          );
        }
        const text = segments.map((s) => s.text).join(' ');
        // The summary follows the transcript, but a title the user gave (a rename since the last batch) stays.
        const summary = summarize(text, undefined);
        const title = fromJson<StoredStructured>(row.structured).title;
        const renamed = title !== summarize(stored.map((s) => s.text).join(' '), undefined).title;
        // A loop, not Math.max(...ends): spreading thousands of arguments overflows the call stack.
        const lastEnd = segments.reduce((latest, s) => Math.max(latest, s.end), 0);
        const durationMs = Math.round(lastEnd * 1000);
        await trx
          .updateTable('conversations')
          .set({
            transcript_segments: toJson(segments),
            structured: toJson(renamed ? { ...summary, title } : summary),
            finished_at: row.started_at + durationMs,
            updated_at: at,
          })
          .where('id', '=', row.id)
          .execute();
        const id = row.id;
        if (created)
          await recordEvents(
            trx,
            userId,
            'conversation.created',
            () => liveConversation(trx, userId, id),
            at,
          );
        await recordEvents(
          trx,
          userId,
          'transcript.segments_received',
          [{ session_id: sessionId, conversation_id: id, segments: added }],
          at,
        );
        return id;
      });
      return { conversationId, added };
    },

    /**
     * Finishes the live session `sessionId` (NotFound "Transcript session" when there is none, Conflict when the ID
     * is a from-segments conversation's); finishing a finished one changes nothing. Returns its conversation's id
     * and finish time.
     */
    async finishSession(
      userId: string,
      sessionId: string,
    ): Promise<{ conversationId: string; finishedAt: string }> {
      const row = await db
        .selectFrom('conversations')
        .select(['id', 'live', 'source', 'started_at', 'finished_at'])
        .where('user_id', '=', userId)
        .where('client_session_id', '=', sessionId)
        .executeTakeFirst();
      if (!row) throw new NotFound('Transcript session');
      if (row.source !== LIVE_TRANSCRIPT_SOURCE) throw new Conflict(madeFromSegments(sessionId));
      let finishedAt = row.finished_at;
      if (fromFlag(row.live)) {
        finishedAt = await userWrite(db, userId, async (trx, at) => {
          // Read again under the user's write stamp, which orders the user's writes: an append since the read
          // above may have moved finished_at on, or another request finished the session (or deleted it).
          const current = await trx
            .selectFrom('conversations')
            .select(['live', 'finished_at'])
            .where('id', '=', row.id)
            .executeTakeFirst();
          if (!current) throw new NotFound('Transcript session');
          if (!fromFlag(current.live)) return current.finished_at;
          const end = Math.max(at, current.finished_at);
          await trx
            .updateTable('conversations')
            .set({ live: 0, finished_at: end, updated_at: at })
            .where('id', '=', row.id)
            .execute();
          await recordEvents(
            trx,
            userId,
            'conversation.updated',
            () => liveConversation(trx, userId, row.id),
            at,
          );
          return end;
        });
      }
      return { conversationId: row.id, finishedAt: iso(finishedAt) };
    },
  };
}

export type ConversationsRepository = ReturnType<typeof conversationsRepository>;

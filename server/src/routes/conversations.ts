import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely, Selectable } from 'kysely';
import type { z } from 'zod';
import { callerId } from '../auth/hooks';
import { asksForChanges, changedAfter, checkFeedQuery } from '../change-feed';
import { changeFeedDescription } from '../contract/changes';
import { errors, idParam, iso, success } from '../contract/common';
import {
  conversation,
  createConversationBody,
  createFromSegmentsBody,
  getConversationQuery,
  listConversationsQuery,
  updateConversationBody,
  type embeddedActionItem,
  type geolocation,
  type structured,
  type transcriptSegment,
} from '../contract/conversations';
import { notFound, UnprocessableError } from '../errors';
import { newId } from '../ids';
import { isUniqueViolation } from '../store/errors';
import { recordDeletion, userWrite } from '../store/changes';
import type { ConversationsTable, Database } from '../store/schema';

const tags = ['Conversations'];
const params = idParam('conversation_id');

type Segment = z.infer<typeof transcriptSegment>;
type StoredStructured = Omit<z.infer<typeof structured>, 'action_items' | 'events'>;
type EmbeddedActionItem = z.infer<typeof embeddedActionItem>;
type ConversationInput = z.infer<typeof createFromSegmentsBody>;

/** A conversation row as read for a response: the folder's name joined, the transcript only when asked for. */
type ConversationRow = Omit<
  Selectable<ConversationsTable>,
  'transcript_segments' | 'client_session_id' | 'live'
> & {
  folder_name: string | null;
  transcript_segments?: string;
};

const TITLE_WORDS = 8;
const TITLE_MAX = 200;
const OVERVIEW_MAX = 300;
const ELLIPSIS = '…';
const SPEAKER_LABEL = /^speaker[\s_-]*(\d+)$/i;

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1).trimEnd() + ELLIPSIS;
}

/** The summary fields: what the caller supplied wins; the rest is derived from the text. */
export function summarize(text: string, given: ConversationInput['structured']): StoredStructured {
  const words = text.split(/\s+/).filter(Boolean);
  const derivedTitle = words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? ELLIPSIS : '');
  return {
    title: given?.title ?? cut(derivedTitle, TITLE_MAX),
    overview: given?.overview ?? cut(words.join(' '), OVERVIEW_MAX),
    category: given?.category ?? 'other',
    ...(given?.emoji !== undefined ? { emoji: given.emoji } : {}),
  };
}

export function toSegment(input: ConversationInput['transcript_segments'][number], now: number): Segment {
  const label = input.speaker?.trim() || undefined;
  const parsed = label ? SPEAKER_LABEL.exec(label) : null;
  const speakerId = input.speaker_id ?? (parsed ? Number(parsed[1]) : 0);
  return {
    id: newId(now),
    text: input.text,
    speaker_id: speakerId,
    speaker_name: label ?? `Speaker ${speakerId}`,
    is_user: input.is_user,
    start: input.start,
    end: input.end,
  };
}

function toConversation(row: ConversationRow, actionItems: EmbeddedActionItem[], withTranscript: boolean) {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    language: row.language,
    source: row.source,
    structured: { ...(JSON.parse(row.structured) as StoredStructured), action_items: actionItems },
    ...(withTranscript && row.transcript_segments !== undefined
      ? { transcript_segments: JSON.parse(row.transcript_segments) as Segment[] }
      : {}),
    geolocation:
      row.geolocation === null ? null : (JSON.parse(row.geolocation) as z.infer<typeof geolocation>),
    folder_id: row.folder_id,
    folder_name: row.folder_name,
    discarded: row.discarded === 1,
  };
}

const conversations: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.store;

  function selectConversations(userId: string, withTranscript: boolean, trx: Kysely<Database> = db) {
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
        'c.started_at',
        'c.finished_at',
        'c.created_at',
        'c.updated_at',
        'f.name as folder_name',
      ])
      .$if(withTranscript, (q) => q.select('c.transcript_segments'))
      .where('c.user_id', '=', userId);
  }

  /** The action items extracted from each of these conversations, oldest first. */
  async function actionItemsOf(userId: string, ids: string[]): Promise<Map<string, EmbeddedActionItem[]>> {
    const byConversation = new Map<string, EmbeddedActionItem[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byConversation;
    const rows = await db
      .selectFrom('action_items')
      .selectAll()
      .where('user_id', '=', userId)
      .where('conversation_id', 'in', ids)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (const row of rows) {
      byConversation.get(row.conversation_id as string)?.push({
        description: row.description,
        completed: row.completed === 1,
        created_at: iso(row.created_at),
        updated_at: iso(row.updated_at),
        due_at: iso(row.due_at),
        completed_at: iso(row.completed_at),
      });
    }
    return byConversation;
  }

  async function render(userId: string, rows: ConversationRow[], withTranscript: boolean) {
    const items = await actionItemsOf(
      userId,
      rows.map((r) => r.id),
    );
    return rows.map((row) => toConversation(row, items.get(row.id) ?? [], withTranscript));
  }

  async function findOwned(userId: string, id: string, withTranscript: boolean, trx: Kysely<Database> = db) {
    const row = await selectConversations(userId, withTranscript, trx)
      .where('c.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('Conversation');
    return row;
  }

  async function ownedFolderName(trx: Kysely<Database>, userId: string, folderId: string): Promise<string> {
    const folder = await trx
      .selectFrom('folders')
      .select('name')
      .where('id', '=', folderId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!folder) throw notFound('Folder');
    return folder.name;
  }

  /**
   * Stores a new conversation from its segments. With a `client_session_id` already used by this caller (also
   * when a concurrent request wins the race to the unique index), the existing one is returned instead.
   */
  async function create(userId: string, input: ConversationInput, clientSessionId: string | null) {
    const findBySession = async () =>
      clientSessionId === null
        ? undefined
        : selectConversations(userId, true)
            .where('c.client_session_id', '=', clientSessionId)
            .executeTakeFirst();
    const existing = await findBySession();
    if (existing) return { created: false, conversation: (await render(userId, [existing], true))[0] };

    input.transcript_segments.forEach((segment, i) => {
      if (segment.end < segment.start) {
        throw UnprocessableError.at(
          ['body', 'transcript_segments', i, 'end'],
          'end must not be before start',
        );
      }
    });
    let created: { row: Selectable<ConversationsTable>; folderName: string | null };
    try {
      created = await userWrite(db, userId, async (trx, now) => {
        const folderName = input.folder_id ? await ownedFolderName(trx, userId, input.folder_id) : null;
        const durationMs = Math.round(Math.max(...input.transcript_segments.map((s) => s.end)) * 1000);
        const startedAt =
          input.started_at ?? (input.finished_at !== undefined ? input.finished_at - durationMs : now);
        const finishedAt = input.finished_at ?? startedAt + durationMs;
        if (finishedAt < startedAt) {
          throw UnprocessableError.at(['body', 'finished_at'], 'finished_at must not be before started_at');
        }
        const segments = input.transcript_segments.map((s) => toSegment(s, now));
        const text = segments.map((s) => s.text).join(' ');
        const row: Selectable<ConversationsTable> = {
          id: newId(now),
          user_id: userId,
          client_session_id: clientSessionId,
          folder_id: input.folder_id ?? null,
          language: input.language,
          source: input.source,
          structured: JSON.stringify(summarize(text, input.structured)),
          transcript_segments: JSON.stringify(segments),
          geolocation: input.geolocation ? JSON.stringify(input.geolocation) : null,
          discarded: 0,
          live: 0,
          started_at: startedAt,
          finished_at: finishedAt,
          created_at: now,
          updated_at: now,
        };
        await trx.insertInto('conversations').values(row).execute();
        return { row, folderName };
      });
    } catch (error) {
      const raced = isUniqueViolation(error) ? await findBySession() : undefined;
      if (!raced) throw error;
      return { created: false, conversation: (await render(userId, [raced], true))[0] };
    }
    return {
      created: true,
      conversation: toConversation({ ...created.row, folder_name: created.folderName }, [], true),
    };
  }

  app.get(
    '/conversations',
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags,
        summary: 'List conversations, newest started first, or the changes since a point (order=updated_at)',
        description: changeFeedDescription(
          'With updated_since or order=updated_at, include_discarded defaults to true, so a discard shows up as ' +
            'a change (discarded: true). A conversation’s updated_at moves when the conversation itself changes ' +
            '(title, discarded, folder, the folder’s name, transcript); changes to its action items show in the ' +
            'action items’ own updated_at. Deleting a conversation leaves a tombstone and unlinks its action ' +
            'items, which counts as a change of each of them.',
        ),
        querystring: listConversationsQuery,
        response: { 200: conversation.array(), ...errors(401, 403, 422, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      checkFeedQuery(q);
      const userId = callerId(request);
      let query = selectConversations(userId, q.include_transcript);
      if (q.start_date !== undefined) query = query.where('c.started_at', '>=', q.start_date);
      if (q.end_date !== undefined) query = query.where('c.started_at', '<=', q.end_date);
      if (q.folder_id !== undefined) query = query.where('c.folder_id', '=', q.folder_id);
      if (!(q.include_discarded ?? asksForChanges(q))) query = query.where('c.discarded', '=', 0);
      const after = changedAfter(q, 'c');
      if (after) query = query.where(after);
      query =
        q.order === 'updated_at'
          ? query.orderBy('c.updated_at', 'asc').orderBy('c.id', 'asc')
          : query.orderBy('c.started_at', 'desc').orderBy('c.id', 'desc');
      const rows = await query.limit(q.limit).offset(q.offset).execute();
      return render(userId, rows, q.include_transcript);
    },
  );

  app.get(
    '/conversations/:conversation_id',
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags,
        summary: 'Get one conversation',
        params,
        querystring: getConversationQuery,
        response: { 200: conversation, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const withTranscript = request.query.include_transcript;
      const row = await findOwned(userId, request.params.conversation_id, withTranscript);
      return (await render(userId, [row], withTranscript))[0];
    },
  );

  app.post(
    '/conversations',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Create a conversation from text',
        body: createConversationBody,
        response: { 201: conversation, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const { text, ...rest } = request.body;
      const input: ConversationInput = {
        ...rest,
        transcript_segments: [{ text, is_user: false, start: 0, end: 0 }],
      };
      const { conversation: created } = await create(callerId(request), input, null);
      return reply.code(201).send(created);
    },
  );

  app.post(
    '/conversations/from-segments',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Create a conversation from transcript segments (idempotent by client_session_id)',
        description:
          'Answers 201 with the new conversation, or 200 with the existing one when this client_session_id was used before.',
        body: createFromSegmentsBody,
        response: { 200: conversation, 201: conversation, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const result = await create(callerId(request), request.body, request.body.client_session_id ?? null);
      return reply.code(result.created ? 201 : 200).send(result.conversation);
    },
  );

  app.patch(
    '/conversations/:conversation_id',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Rename, discard or move a conversation (only the fields sent)',
        description:
          'Sets updated_at to the write time when a stored value changes (a discard too); a PATCH with an empty ' +
          'body or with the values the conversation already has changes nothing and keeps updated_at.',
        params,
        body: updateConversationBody,
        response: { 200: conversation, ...errors(401, 403, 404, 422, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const { title, discarded, folder_id } = request.body;
      const updated = await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(userId, request.params.conversation_id, false, trx);
        const changes: Partial<Selectable<ConversationsTable>> = {};
        let folderName = current.folder_name;
        const stored = JSON.parse(current.structured) as StoredStructured;
        if (title !== undefined && title !== stored.title) {
          changes.structured = JSON.stringify({ ...stored, title });
        }
        if (discarded !== undefined && (discarded ? 1 : 0) !== current.discarded) {
          changes.discarded = discarded ? 1 : 0;
        }
        if (folder_id !== undefined) {
          // Checked even when unchanged: a folder of someone else's is a 404 whatever is stored.
          const name = folder_id === null ? null : await ownedFolderName(trx, userId, folder_id);
          if (folder_id !== current.folder_id) {
            changes.folder_id = folder_id;
            folderName = name;
          }
        }
        if (Object.keys(changes).length === 0) return current;
        changes.updated_at = at;
        await trx.updateTable('conversations').set(changes).where('id', '=', current.id).execute();
        return { ...current, ...changes, folder_name: folderName };
      });
      return (await render(userId, [updated], false))[0];
    },
  );

  app.delete(
    '/conversations/:conversation_id',
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags,
        summary: 'Delete a conversation; its action items stay, linked to no conversation',
        description:
          'Leaves a tombstone (GET /v1/dev/user/deleted?type=conversation), written with the delete. Unlinking ' +
          'the action items is a change of each of them (their updated_at moves).',
        params,
        response: { 200: success, ...errors(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      await userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(userId, request.params.conversation_id, false, trx);
        await trx
          .updateTable('action_items')
          .set({ conversation_id: null, updated_at: at })
          .where('user_id', '=', userId)
          .where('conversation_id', '=', current.id)
          .execute();
        await trx.deleteFrom('conversations').where('id', '=', current.id).execute();
        await recordDeletion(trx, userId, 'conversation', current.id, at);
      });
      return { success: true as const };
    },
  );
};

export default conversations;

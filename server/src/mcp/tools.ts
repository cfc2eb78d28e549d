// The MCP tools: each one the REST endpoint it stands for, as a model calls it. A tool checks the same scope as
// its endpoint, parses its arguments with zod (the REST body schemas where the endpoint takes a body) and calls the
// same repository method the route does; what it answers is the record as the API returns it, made compact where
// a record can be large (a conversation's transcript).
import { z } from 'zod';
import { newActionItem, updateActionItemBody } from '../contract/action-items';
import { dateBound, instant } from '../contract/common';
import { CATEGORIES, CONVERSATION_STATUSES, type ConversationStatus } from '../contract/conversations';
import { newMemory, memoryCategory, updateMemoryBody } from '../contract/memories';
import { searchQueryParam } from '../contract/search-query';
import type { Scope } from '../contract/scopes';
import type { Repositories } from '../store';
import { conversationWithin, cutConversationSummary, listWithin } from './budget';

/** Who calls, and what a tool may reach. */
export interface ToolContext {
  userId: string;
  repositories: Repositories;
}

export interface McpTool {
  name: string;
  /** What a client shows a person for the tool (the model reads `name` and `description`). */
  title: string;
  description: string;
  /** The scope of the REST endpoint this tool stands for. */
  scope: Scope;
  /** Arguments as JSON; `.meta({description})` on each field is what a model reads. */
  input: z.ZodObject;
  /**
   * Reads only (no change on the server); creates (each call another record); edits (makes a record what its
   * arguments say, so a repeated call changes nothing more); or deletes.
   */
  kind: 'read' | 'create' | 'edit' | 'delete';
  run(context: ToolContext, args: never): Promise<unknown>;
}

/** A tool with its arguments typed by its schema. */
function tool<S extends z.ZodObject>(
  definition: Omit<McpTool, 'input' | 'run'> & {
    input: S;
    run(context: ToolContext, args: z.output<S>): Promise<unknown>;
  },
): McpTool {
  return definition as McpTool;
}

/** The tool that deletes one `record` ('action item': `delete_action_item`, taking `action_item_id`). */
function deleteTool(
  record: string,
  title: string,
  description: string,
  scope: Scope,
  repository: (repositories: Repositories) => { delete(userId: string, id: string): Promise<unknown> },
): McpTool {
  const idField = `${record.replaceAll(' ', '_')}_id`;
  return tool({
    name: `delete_${record.replaceAll(' ', '_')}`,
    title,
    description,
    scope,
    kind: 'delete',
    input: z.strictObject({ [idField]: id(record) }),
    run: async ({ userId, repositories }, args) => {
      await repository(repositories).delete(userId, args[idField] as string);
      return { success: true };
    },
  });
}

/** The transcript segments a conversation read gives at most unless asked for more. */
const DEFAULT_TRANSCRIPT_SEGMENTS = 50;
const MAX_TRANSCRIPT_SEGMENTS = 1000;
/**
 * The most bytes a tool result takes as sent (UTF-8, its JSON text and structuredContent together): what a model
 * reads of one answer, so a long transcript or a long summary does not fill its context.
 */
const RESULT_BYTES = 18_000;
/** The most a conversation read takes when max_transcript_segments asks for more segments. */
const MAX_RESULT_BYTES = 100_000;

const id = (what: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .meta({
      description: `The id of the ${what} (as a list or search tool returned it), not its title or text`,
    });

const limit = (max: number, fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `How many records to return at most (1–${max}, default ${fallback})` });

const offset = z
  .number()
  .int()
  .min(0)
  .default(0)
  .meta({ description: 'How many records to skip, for the next page (default 0)' });

/**
 * A date filter. null is no bound, as absent is: the real service's tools take it so, and a model that fills every
 * argument sends null for the ones it leaves open.
 */
const dateFilter = (side: 'start' | 'end', description: string) =>
  dateBound(side)
    .nullable()
    .optional()
    .transform((bound) => bound ?? undefined)
    .meta({ description });
const startDate = (what: string) =>
  dateFilter(
    'start',
    `Only those ${what} on or after this: YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time; null for none`,
  );
const endDate = (what: string) =>
  dateFilter(
    'end',
    `Only those ${what} on or before this: YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time; null for none`,
  );

const memoryCategories = z
  .array(memoryCategory)
  .optional()
  .meta({ description: 'Only memories in these categories (all when absent)' });

const includeInProgress = z
  .boolean()
  .default(false)
  .meta({
    description:
      'Include conversations still in progress (status in_progress: a live transcript not yet finished; ' +
      'default false)',
  });
/** The statuses `include_in_progress` stands for. */
const statusesOf = (inProgressToo: boolean): ConversationStatus[] =>
  inProgressToo ? [...CONVERSATION_STATUSES] : ['completed'];

/** An item's due date-time, with what null does to it (for an edit, unlike its other fields, it removes it). */
const dueAt = (nullMeans: string) =>
  instant
    .nullable()
    .optional()
    .meta({
      description: `Due date-time, ISO 8601 (e.g. 2026-11-21T09:30:00Z; no offset means UTC); ${nullMeans}`,
    });

/**
 * A field of an edit described as `description` and what null is for it: no change, as when it is absent (the
 * REST PATCH takes null so). A model that fills every argument sends null for those it means to keep.
 */
const unchangedByNull = <T extends z.ZodType>(field: T, description: string) =>
  field.meta({ description: `${description}; null: no change` });

/** The words of a search; a search answers the records with any of them when none has them all, a list's filter never. */
const searchQuery = (what: string, { anyWhenNoneHasAll }: { anyWhenNoneHasAll: boolean }) =>
  searchQueryParam.meta({
    description:
      `Words to find in ${what}, e.g. budget Anna: ` +
      (anyWhenNoneHasAll
        ? 'those with every word, in any of its forms (meetings finds meeting), or when none has them all, those with any'
        : 'every word must match, in any of its forms (meetings finds meeting)') +
      '; put a phrase in double quotes. At most 500 characters.',
  });

const maxTranscriptSegments = z
  .number()
  .int()
  .min(0)
  .max(MAX_TRANSCRIPT_SEGMENTS)
  .optional()
  .meta({
    description:
      `How many transcript segments to return at most (0–${MAX_TRANSCRIPT_SEGMENTS}), from ` +
      `transcript_segment_offset. Without it, up to ${DEFAULT_TRANSCRIPT_SEGMENTS} in an answer of at most ` +
      `${RESULT_BYTES} bytes; with it, as many as fit in ${MAX_RESULT_BYTES} bytes`,
  });

/** Where reading a transcript starts, 0 when absent. */
const readingOffset = (description: string) => z.number().int().min(0).default(0).meta({ description });

const transcriptSegmentOffset = readingOffset(
  'The transcript segment to start from (default 0), to read on: the answer gives ' +
    'transcript_next_segment_offset (null at the end) and transcript_segments_total',
);

const transcriptTextOffset = readingOffset(
  'The character of segment transcript_segment_offset to start from (default 0), to read on in a segment ' +
    'too long for one answer: the answer gives transcript_next_text_offset when it cut one',
);

export const TOOLS: McpTool[] = [
  tool({
    name: 'get_conversations',
    title: 'List conversations',
    description:
      "List the user's completed conversations, newest first, without transcripts (use get_conversation_by_id for " +
      'one transcript). Each has an id, when it started and finished, its status, and a summary (title, ' +
      'overview, category, action items). include_in_progress adds live transcripts still going on.',
    scope: 'conversations:read',
    kind: 'read',
    input: z.strictObject({
      start_date: startDate('conversations started'),
      end_date: endDate('conversations started'),
      categories: z
        .array(z.enum(CATEGORIES))
        .optional()
        .meta({ description: 'Only conversations in these categories (all when absent or empty)' }),
      starred: z
        .boolean()
        .optional()
        .meta({ description: 'true: starred ones only; false: the others only' }),
      include_discarded: z
        .boolean()
        .default(false)
        .meta({ description: 'Include conversations the user discarded (default false)' }),
      include_in_progress: includeInProgress,
      limit: limit(100, 25),
      offset,
    }),
    run: async ({ userId, repositories }, { include_in_progress: inProgressToo, ...args }) =>
      listWithin(
        'conversations',
        await repositories.conversations.list(userId, {
          ...args,
          statuses: statusesOf(inProgressToo),
          include_transcript: false,
          order: 'started_at_desc',
        }),
        {
          budget: RESULT_BYTES,
          cutter: cutConversationSummary,
          more: (shown) => `call again with offset ${args.offset + shown} for the next ones`,
        },
      ),
  }),
  tool({
    name: 'search_conversations',
    title: 'Search conversations',
    description:
      "Find the user's completed conversations about something (their title, overview and transcript), most " +
      'relevant first, without transcripts (use get_conversation_by_id with an id for one). Each result has the ' +
      'conversation and its score. When many match, the most recent are ranked: give start_date/end_date to ' +
      'reach older ones. include_in_progress adds live transcripts still going on.',
    scope: 'conversations:read',
    kind: 'read',
    input: z.strictObject({
      query: searchQuery('the conversations', { anyWhenNoneHasAll: true }),
      start_date: startDate('conversations started'),
      end_date: endDate('conversations started'),
      include_in_progress: includeInProgress,
      limit: limit(100, 10),
    }),
    run: async ({ userId, repositories }, { query, include_in_progress: inProgressToo, ...filter }) =>
      listWithin(
        'results',
        await repositories.conversations.search(userId, query, {
          ...filter,
          statuses: statusesOf(inProgressToo),
          include_transcript: false,
        }),
        {
          budget: RESULT_BYTES,
          cutter: (result, cut) => ({
            ...result,
            conversation: cutConversationSummary(result.conversation, cut),
          }),
          more: () => 'give start_date/end_date or more words to narrow the search',
        },
      ),
  }),
  tool({
    name: 'get_conversation_by_id',
    title: 'Read a conversation',
    description:
      'Read one conversation by its id, with its summary and a part of its transcript: from ' +
      `transcript_segment_offset (default the start), up to ${DEFAULT_TRANSCRIPT_SEGMENTS} segments in ` +
      `${RESULT_BYTES} bytes unless max_transcript_segments asks for more. Read on from ` +
      'transcript_next_segment_offset (and in a segment cut short, from transcript_next_text_offset); omitted ' +
      'says what was left out.',
    scope: 'conversations:read',
    kind: 'read',
    input: z.strictObject({
      conversation_id: id('conversation'),
      transcript_segment_offset: transcriptSegmentOffset,
      transcript_text_offset: transcriptTextOffset,
      max_transcript_segments: maxTranscriptSegments,
    }),
    run: async ({ userId, repositories }, args) =>
      conversationWithin(await repositories.conversations.findOwned(userId, args.conversation_id, true), {
        offset: args.transcript_segment_offset,
        textOffset: args.transcript_text_offset,
        count: args.max_transcript_segments ?? DEFAULT_TRANSCRIPT_SEGMENTS,
        budget: args.max_transcript_segments === undefined ? RESULT_BYTES : MAX_RESULT_BYTES,
      }),
  }),
  tool({
    name: 'get_memories',
    title: 'List memories',
    description:
      'List what the service remembers about the user (memories: facts and preferences), newest first.',
    scope: 'memories:read',
    kind: 'read',
    input: z.strictObject({
      categories: memoryCategories,
      limit: limit(100, 25),
      offset,
    }),
    run: async ({ userId, repositories }, args) =>
      listWithin(
        'memories',
        await repositories.memories.list(userId, { ...args, order: 'created_at_desc' }),
        {
          budget: RESULT_BYTES,
          more: (shown) => `call again with offset ${args.offset + shown} for the next ones`,
        },
      ),
  }),
  tool({
    name: 'search_memories',
    title: 'Search memories',
    description:
      'Find what the service remembers about the user on a subject, most relevant first. Each result has the ' +
      'memory and its score. When many match, the most recent are ranked: give categories to reach older ones.',
    scope: 'memories:read',
    kind: 'read',
    input: z.strictObject({
      query: searchQuery('the memories', { anyWhenNoneHasAll: true }),
      categories: memoryCategories,
      limit: limit(100, 10),
    }),
    run: async ({ userId, repositories }, { query, ...filter }) =>
      listWithin('results', await repositories.memories.search(userId, query, filter), {
        budget: RESULT_BYTES,
        more: () => 'give categories or more words to narrow the search',
      }),
  }),
  tool({
    name: 'create_memory',
    title: 'Create a memory',
    description: 'Remember a fact about the user (a memory). Answers the new memory with its id.',
    scope: 'memories:write',
    kind: 'create',
    input: newMemory.extend({
      content: newMemory.shape.content.meta({
        description: 'The fact, one or two sentences (1–5000 characters)',
      }),
      category: newMemory.shape.category.meta({
        description: 'Category (default manual; null gives the default)',
      }),
      visibility: newMemory.shape.visibility.meta({ description: 'private (default) or public' }),
      tags: newMemory.shape.tags.meta({ description: 'Up to 20 short tags (each 1–50 characters)' }),
    }),
    run: ({ userId, repositories }, args) => repositories.memories.create(userId, args),
  }),
  tool({
    name: 'edit_memory',
    title: 'Edit a memory',
    description: 'Change a memory: only the fields given change. Answers the memory as it now is.',
    scope: 'memories:write',
    kind: 'edit',
    input: updateMemoryBody.extend({
      memory_id: id('memory'),
      content: unchangedByNull(updateMemoryBody.shape.content, 'The new text (1–5000 characters)'),
      category: unchangedByNull(updateMemoryBody.shape.category, 'The new category'),
      visibility: unchangedByNull(updateMemoryBody.shape.visibility, 'private or public'),
      tags: unchangedByNull(
        updateMemoryBody.shape.tags,
        'The new tags, replacing the old ones (up to 20, each 1–50 characters)',
      ),
    }),
    run: ({ userId, repositories }, { memory_id: memoryId, ...changes }) =>
      repositories.memories.update(userId, memoryId, changes),
  }),
  deleteTool(
    'memory',
    'Delete a memory',
    'Delete a memory for good.',
    'memories:write',
    (repositories) => repositories.memories,
  ),
  tool({
    name: 'get_action_items',
    title: 'List action items',
    description:
      "List the user's action items (tasks, promises, follow-ups), newest first, or with query those whose " +
      'description matches, most relevant first.',
    scope: 'action_items:read',
    kind: 'read',
    input: z.strictObject({
      completed: z
        .boolean()
        .optional()
        .meta({ description: 'true: completed ones only; false: open ones only; absent: both' }),
      query: searchQuery('the descriptions', { anyWhenNoneHasAll: false }).optional(),
      conversation_id: id('conversation the items came from').optional(),
      start_date: startDate('items created'),
      end_date: endDate('items created'),
      limit: limit(100, 25),
      offset,
    }),
    run: async ({ userId, repositories }, args) =>
      listWithin(
        'action_items',
        await repositories.actionItems.list(userId, { ...args, order: 'created_at_desc' }),
        {
          budget: RESULT_BYTES,
          more: (shown) => `call again with offset ${args.offset + shown} for the next ones`,
        },
      ),
  }),
  tool({
    name: 'create_action_item',
    title: 'Create an action item',
    description: 'Add an action item (a task or follow-up) for the user. Answers the new item with its id.',
    scope: 'action_items:write',
    kind: 'create',
    input: newActionItem.extend({
      description: newActionItem.shape.description.meta({
        description: 'What is to be done (1–2000 characters)',
      }),
      completed: newActionItem.shape.completed.meta({ description: 'Already done (default false)' }),
      due_at: dueAt('null for none'),
      conversation_id: z.string().min(1).max(100).nullable().optional().meta({
        description:
          'The id of the conversation this item comes from (optional; null for none), not its title',
      }),
    }),
    run: ({ userId, repositories }, args) => repositories.actionItems.create(userId, args),
  }),
  tool({
    name: 'edit_action_item',
    title: 'Edit an action item',
    description: 'Change an action item: only the fields given change. Answers the item as it now is.',
    scope: 'action_items:write',
    kind: 'edit',
    input: updateActionItemBody.extend({
      action_item_id: id('action item'),
      description: unchangedByNull(
        updateActionItemBody.shape.description,
        'New text of the item (1–2000 characters)',
      ),
      completed: unchangedByNull(
        updateActionItemBody.shape.completed,
        'true marks it done, false open again',
      ),
      due_at: dueAt('null removes it'),
    }),
    run: ({ userId, repositories }, { action_item_id: itemId, ...changes }) =>
      repositories.actionItems.update(userId, itemId, changes),
  }),
  tool({
    name: 'complete_action_item',
    title: 'Complete an action item',
    description: 'Mark an action item done. Answers the item as it now is.',
    scope: 'action_items:write',
    kind: 'edit',
    input: z.strictObject({ action_item_id: id('action item') }),
    run: ({ userId, repositories }, args) =>
      repositories.actionItems.update(userId, args.action_item_id, { completed: true }),
  }),
  deleteTool(
    'action item',
    'Delete an action item',
    'Delete an action item for good.',
    'action_items:write',
    (repositories) => repositories.actionItems,
  ),
  tool({
    name: 'get_goals',
    title: 'List goals',
    description:
      "List the user's goals, newest first: active ones unless include_inactive. Each has its current and target value.",
    scope: 'goals:read',
    kind: 'read',
    input: z.strictObject({
      include_inactive: z
        .boolean()
        .default(false)
        .meta({ description: 'Include achieved and abandoned goals (default false)' }),
      limit: limit(100, 10),
      offset,
    }),
    // A goal's texts (its outcome, criteria and why) can take kB each: a list is kept to the budget as others are.
    run: async ({ userId, repositories }, args) =>
      listWithin('goals', await repositories.goals.list(userId, { ...args, order: 'created_at_desc' }), {
        budget: RESULT_BYTES,
        more: (shown) => `call again with offset ${args.offset + shown} for the next ones`,
      }),
  }),
  tool({
    name: 'get_goal',
    title: 'Read a goal',
    description: 'Read one goal by its id (active or not).',
    scope: 'goals:read',
    kind: 'read',
    input: z.strictObject({ goal_id: id('goal') }),
    run: ({ userId, repositories }, args) => repositories.goals.findOwned(userId, args.goal_id),
  }),
  tool({
    name: 'get_people',
    title: 'List people',
    description: 'List the people the user knows (speakers in conversations), by name, each with their id.',
    scope: 'people:read',
    kind: 'read',
    input: z.strictObject({ offset }),
    // All of them, as the REST list answers (a user has few): those from offset that fit in the answer.
    run: async ({ userId, repositories }, args) =>
      listWithin('people', (await repositories.people.list(userId)).slice(args.offset), {
        budget: RESULT_BYTES,
        more: (shown) => `call again with offset ${args.offset + shown} for the next ones`,
      }),
  }),
];

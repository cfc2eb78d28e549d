// Action items: every query, and how a row reads back.
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { inFeedOrder, type FeedQuery } from './db/paging';
import { newId } from '../ids';
import { userWrite } from './db/write-clock';
import {
  createOwned,
  deleteOwned,
  findOwned,
  updateChanged,
  type CreatedEvent,
  type Row,
} from './db/records';
import { recordEvents } from './db/outbox';
import { fromFlag, iso, toFlag } from './db/rows';
import type { Database } from './db/schema';
import { matching } from './db/search';
import type { SearchTerms } from '../contract/search-query';

export interface ActionItem {
  id: string;
  description: string;
  completed: boolean;
  created_at: string;
  updated_at: string;
  due_at: string | null;
  completed_at: string | null;
  conversation_id: string | null;
}

/** An action item as its conversation shows it. */
export type EmbeddedActionItem = Omit<ActionItem, 'id' | 'conversation_id'>;

export interface NewActionItem {
  description: string;
  completed: boolean;
  /** Epoch ms; null or absent for no due date. */
  due_at?: number | null;
  conversation_id?: string | null;
}

/** The fields to change; absent ones stay. `due_at: null` removes the due date. */
export interface ActionItemChanges {
  description?: string;
  completed?: boolean;
  due_at?: number | null;
}

export interface ActionItemFilter extends FeedQuery {
  conversation_id?: string;
  completed?: boolean;
  /** Created at or after / at or before, epoch ms. */
  start_date?: number;
  end_date?: number;
  /** Only the items whose description these terms match, most relevant first (the contract keeps feed order out). */
  query?: SearchTerms;
  limit: number;
  offset: number;
}

function decodeEmbedded(row: Row<'action_items'>): EmbeddedActionItem {
  return {
    description: row.description,
    completed: fromFlag(row.completed),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    due_at: iso(row.due_at),
    completed_at: iso(row.completed_at),
  };
}

function decodeActionItem(row: Row<'action_items'>): ActionItem {
  return { id: row.id, ...decodeEmbedded(row), conversation_id: row.conversation_id };
}

function newRow(userId: string, item: NewActionItem, at: number): Row<'action_items'> {
  return {
    id: newId(at),
    user_id: userId,
    description: item.description,
    completed: toFlag(item.completed),
    conversation_id: item.conversation_id ?? null,
    due_at: item.due_at ?? null,
    completed_at: item.completed ? at : null,
    created_at: at,
    updated_at: at,
  };
}

const CREATED: CreatedEvent<'action_items'> = { type: 'action_item.created', record: decodeActionItem };

export function actionItemsRepository(db: Kysely<Database>) {
  return {
    /** Newest created first, or with order=updated_at the changes since a point. */
    async list(userId: string, filter: ActionItemFilter): Promise<ActionItem[]> {
      let query = db.selectFrom('action_items').selectAll().where('user_id', '=', userId);
      if (filter.conversation_id !== undefined)
        query = query.where('conversation_id', '=', filter.conversation_id);
      if (filter.completed !== undefined) query = query.where('completed', '=', toFlag(filter.completed));
      if (filter.start_date !== undefined) query = query.where('created_at', '>=', filter.start_date);
      if (filter.end_date !== undefined) query = query.where('created_at', '<=', filter.end_date);
      const terms = filter.query;
      const ordered = terms
        ? query
            .innerJoin(matching(db, 'action_items', terms, userId), 'm.id', 'action_items.id')
            .orderBy('m.score', 'desc')
            .orderBy('created_at', 'desc')
            .orderBy('action_items.id', 'desc')
        : inFeedOrder(query, filter);
      const rows = await ordered.limit(filter.limit).offset(filter.offset).execute();
      return rows.map(decodeActionItem);
    },

    /** The items extracted from each of these conversations of the user, oldest first (read in `trx` if given). */
    async ofConversations(
      userId: string,
      ids: string[],
      trx: Kysely<Database> = db,
    ): Promise<Map<string, EmbeddedActionItem[]>> {
      const byConversation = new Map<string, EmbeddedActionItem[]>(ids.map((id) => [id, []]));
      if (ids.length === 0) return byConversation;
      const rows = await trx
        .selectFrom('action_items')
        .selectAll()
        .where('user_id', '=', userId)
        .where('conversation_id', 'in', ids)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      for (const row of rows) byConversation.get(row.conversation_id as string)?.push(decodeEmbedded(row));
      return byConversation;
    },

    /**
     * In the caller's write `trx` stamped `at` that deleted their conversation: its items, unlinked by the delete
     * (which stamped them `at`, as no other item of the user is in this write), are each an action_item.updated
     * event, their conversation_id now null.
     */
    async conversationDeleted(trx: Kysely<Database>, userId: string, at: number): Promise<void> {
      await recordEvents(
        trx,
        userId,
        'action_item.updated',
        async () =>
          (
            await trx
              .selectFrom('action_items')
              .selectAll()
              .where('user_id', '=', userId)
              .where('updated_at', '=', at)
              .orderBy('id')
              .execute()
          ).map(decodeActionItem),
        at,
      );
    },

    /**
     * PostgreSQL: the items extracted from the conversation `conversationId` (a column of the caller's query), oldest
     * first as `ofConversations` reads them, as one JSON array column, so that a page of conversations comes with its
     * items in its own query; `embeddedFromJson` decodes it.
     */
    embeddedJson(userId: string, conversationId: Expression<string>): RawBuilder<Row<'action_items'>[]> {
      return sql<Row<'action_items'>[]>`(select coalesce(json_agg(a order by a.created_at, a.id), '[]')
        from action_items a where a.user_id = ${userId} and a.conversation_id = ${conversationId})`;
    },

    embeddedFromJson(rows: Row<'action_items'>[]): EmbeddedActionItem[] {
      return rows.map(decodeEmbedded);
    },

    /** One item; its conversation, when given, must be the caller's (NotFound "Conversation" otherwise). */
    async create(userId: string, item: NewActionItem): Promise<ActionItem> {
      const [row] = await createOwned(
        db,
        userId,
        'action_items',
        async (at, trx) => {
          if (item.conversation_id)
            await findOwned(trx, 'conversations', userId, item.conversation_id, ['id']);
          return [newRow(userId, item, at)];
        },
        CREATED,
      );
      return decodeActionItem(row);
    },

    /** A batch, all of it or none, with one write stamp (created_at = updated_at); ids keep the input order. */
    async createMany(userId: string, items: NewActionItem[]): Promise<ActionItem[]> {
      const rows = await createOwned(
        db,
        userId,
        'action_items',
        (at) => items.map((item) => newRow(userId, item, at)),
        CREATED,
      );
      return rows.map(decodeActionItem);
    },

    /** completed: true stamps completed_at, false clears it; only a changed value moves updated_at. */
    async update(userId: string, id: string, changes: ActionItemChanges): Promise<ActionItem> {
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'action_items', userId, id);
        const completing = changes.completed !== undefined && toFlag(changes.completed) !== current.completed;
        const { row, changed } = await updateChanged(
          trx,
          'action_items',
          current,
          {
            description: changes.description,
            due_at: changes.due_at,
            ...(completing && {
              completed: toFlag(changes.completed!),
              completed_at: changes.completed ? at : null,
            }),
          },
          at,
        );
        const updated = decodeActionItem(row);
        // Completing is its own event; reopening, like any other change, is an update.
        if (Object.keys(changed).length > 0) {
          const type = completing && updated.completed ? 'action_item.completed' : 'action_item.updated';
          await recordEvents(trx, userId, type, [updated], at);
        }
        return updated;
      });
    },

    /** Deletes the caller's item and leaves its tombstone, in one transaction. */
    async delete(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, (trx, at) => deleteOwned(trx, 'action_items', userId, id, at));
    },
  };
}

export type ActionItemsRepository = ReturnType<typeof actionItemsRepository>;

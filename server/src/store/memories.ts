// Memories: every query, and how a row reads back.
import type { Kysely } from 'kysely';
import { inFeedOrder, type FeedQuery } from './db/paging';
import type { MemoryCategory } from '../contract/memories';
import { newId } from '../ids';
import { userWrite } from './db/write-clock';
import { createOwned, deleteOwned, findOwned, updateChanged, type Row } from './db/records';
import { recordEvents } from './db/outbox';
import { fromFlag, fromJson, iso, toJson } from './db/rows';
import type { Database } from './db/schema';
import { allElseAny, matching } from './db/search';
import type { SearchTerms } from '../contract/search-query';

export type MemoryVisibility = 'private' | 'public';

export interface Memory {
  id: string;
  content: string;
  category: MemoryCategory;
  visibility: MemoryVisibility;
  tags: string[];
  created_at: string;
  updated_at: string;
  manually_added: boolean;
  reviewed: boolean;
  user_review: boolean | null;
  edited: boolean;
}

export interface NewMemory {
  content: string;
  category: MemoryCategory;
  visibility: MemoryVisibility;
  tags: string[];
}

export interface MemoryFilter extends FeedQuery {
  /** Only these categories; empty or absent for all. */
  categories?: string[];
  limit: number;
  offset: number;
}

function decodeMemory(row: Row<'memories'>): Memory {
  return {
    id: row.id,
    content: row.content,
    category: row.category as MemoryCategory,
    visibility: row.visibility as MemoryVisibility,
    tags: fromJson<string[]>(row.tags),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    manually_added: fromFlag(row.manually_added),
    reviewed: fromFlag(row.reviewed),
    user_review: row.user_review === null ? null : fromFlag(row.user_review),
    edited: fromFlag(row.edited),
  };
}

/** The tags as stored: a tag is a label, so one given twice (the contract trims them) is kept once, where it first came. */
const storedTags = (tags: string[]) => toJson([...new Set(tags)]);

function newRow(userId: string, memory: NewMemory, at: number): Row<'memories'> {
  return {
    id: newId(at),
    user_id: userId,
    content: memory.content,
    category: memory.category,
    visibility: memory.visibility,
    tags: storedTags(memory.tags),
    // Made through the API: added by hand, reviewed and approved, as the real service marks such memories.
    manually_added: 1,
    reviewed: 1,
    user_review: 1,
    edited: 0,
    created_at: at,
    updated_at: at,
  };
}

export function memoriesRepository(db: Kysely<Database>) {
  /** A batch, all of it or none, with one write stamp; ids keep the input order. */
  async function createMany(userId: string, memories: NewMemory[]): Promise<Memory[]> {
    const rows = await createOwned(
      db,
      userId,
      'memories',
      (at) => memories.map((memory) => newRow(userId, memory, at)),
      { type: 'memory.created', record: decodeMemory },
    );
    return rows.map(decodeMemory);
  }

  return {
    /** Newest created first, or with order=updated_at the changes since a point. */
    async list(userId: string, filter: MemoryFilter): Promise<Memory[]> {
      let query = db.selectFrom('memories').selectAll().where('user_id', '=', userId);
      if (filter.categories !== undefined && filter.categories.length > 0)
        query = query.where('category', 'in', filter.categories);
      const rows = await inFeedOrder(query, filter).limit(filter.limit).offset(filter.offset).execute();
      return rows.map(decodeMemory);
    },

    /**
     * The caller's memories that `terms` match, most relevant first (then newest), each with its score; when none
     * has every term, those with any one.
     */
    async search(
      userId: string,
      terms: SearchTerms,
      filter: Pick<MemoryFilter, 'categories' | 'limit'>,
    ): Promise<{ memory: Memory; score: number }[]> {
      const newest = !filter.categories?.length;
      return allElseAny(terms, async (match) => {
        let query = db
          .selectFrom('memories')
          .innerJoin(matching(db, 'memories', terms, userId, { newest, match }), 'm.id', 'memories.id')
          .selectAll('memories')
          .select('m.score')
          .where('memories.user_id', '=', userId);
        if (filter.categories !== undefined && filter.categories.length > 0)
          query = query.where('memories.category', 'in', filter.categories);
        const rows = await query
          .orderBy('m.score', 'desc')
          .orderBy('memories.created_at', 'desc')
          .orderBy('memories.id', 'desc')
          .limit(filter.limit)
          .execute();
        return rows.map((row) => ({ memory: decodeMemory(row), score: Number(row.score) }));
      });
    },

    async create(userId: string, memory: NewMemory): Promise<Memory> {
      const [created] = await createMany(userId, [memory]);
      return created;
    },

    createMany,

    /**
     * Only a changed value moves updated_at. A PATCH carrying content marks the memory edited, as the real
     * service does (the first time, that is a change).
     */
    async update(userId: string, id: string, changes: Partial<NewMemory>): Promise<Memory> {
      return userWrite(db, userId, async (trx, at) => {
        const current = await findOwned(trx, 'memories', userId, id);
        const { row, changed } = await updateChanged(
          trx,
          'memories',
          current,
          {
            content: changes.content,
            category: changes.category,
            visibility: changes.visibility,
            tags: changes.tags === undefined ? undefined : storedTags(changes.tags),
            edited: changes.content === undefined ? undefined : 1,
          },
          at,
        );
        const updated = decodeMemory(row);
        if (Object.keys(changed).length > 0) await recordEvents(trx, userId, 'memory.updated', [updated], at);
        return updated;
      });
    },

    /** Deletes the caller's memory and leaves its tombstone, in one transaction. */
    async delete(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, (trx, at) => deleteOwned(trx, 'memories', userId, id, at));
    },
  };
}

// Conversation folders: every query, and how a row reads back. A folder's name is part of each of its
// conversations (their folder_name), so renaming or deleting one is a change of those conversations too, and
// an event of each.
import type { Kysely } from 'kysely';
import { DEFAULT_FOLDER_COLOR } from '../contract/folders';
import { newId } from '../ids';
import type { ConversationsRepository } from './conversations';
import { userWrite } from './db/write-clock';
import { createOwned, deleteOwned, found, updateChanged, type Row } from './db/records';
import { fromFlag, iso } from './db/rows';
import type { Database } from './db/schema';

export interface Folder {
  id: string;
  name: string;
  description: string | null;
  color: string;
  icon: string;
  order: number;
  is_default: boolean;
  is_system: boolean;
  category_mapping: string | null;
  conversation_count: number;
  created_at: string;
  updated_at: string;
}

/** A folder as a request gives it; a color or icon omitted or null takes the default. */
export interface NewFolder {
  name: string;
  description?: string | null;
  color?: string | null;
  icon?: string | null;
}

/** The fields to change; absent ones stay, null clears description and resets color or icon to the default. */
export type FolderChanges = Partial<NewFolder> & { order?: number };

const DEFAULT_ICON = 'folder';

type FolderRow = Row<'folders'> & { conversation_count: number | string | bigint | null };

function decodeFolder({ conversation_count, ...row }: FolderRow): Folder {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    color: row.color ?? DEFAULT_FOLDER_COLOR,
    icon: row.icon,
    order: row.display_order,
    is_default: fromFlag(row.is_default),
    is_system: fromFlag(row.is_system),
    category_mapping: row.category_mapping,
    conversation_count: Number(conversation_count ?? 0),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function foldersRepository(
  db: Kysely<Database>,
  conversations: Pick<ConversationsRepository, 'folderRenamed' | 'folderDeleted'>,
) {
  /** The caller's folders with how many conversations each holds (discarded ones not counted, as in the list). */
  function select(userId: string, trx: Kysely<Database> = db) {
    return trx
      .selectFrom('folders as f')
      .selectAll('f')
      .select((eb) =>
        eb
          .selectFrom('conversations as c')
          .select((cb) => cb.fn.countAll().as('n'))
          .whereRef('c.folder_id', '=', 'f.id')
          .where('c.discarded', '=', 0)
          .as('conversation_count'),
      )
      .where('f.user_id', '=', userId);
  }

  /** The caller's folder `id` with its count, or NotFound "Folder". */
  async function findRow(trx: Kysely<Database>, userId: string, id: string): Promise<FolderRow> {
    return found(await select(userId, trx).where('f.id', '=', id).executeTakeFirst(), 'folders');
  }

  return {
    /** By `order` (the user's arrangement, as the real service lists them), then oldest first. */
    async list(userId: string): Promise<Folder[]> {
      const rows = await select(userId)
        .orderBy('f.display_order')
        .orderBy('f.created_at')
        .orderBy('f.id')
        .execute();
      return rows.map(decodeFolder);
    },

    async create(userId: string, folder: NewFolder): Promise<Folder> {
      const [row] = await createOwned(db, userId, 'folders', (now) => [
        {
          id: newId(now),
          user_id: userId,
          name: folder.name,
          description: folder.description ?? null,
          color: folder.color ?? DEFAULT_FOLDER_COLOR,
          icon: folder.icon ?? DEFAULT_ICON,
          display_order: 0,
          is_default: 0,
          is_system: 0,
          category_mapping: null,
          created_at: now,
          updated_at: now,
        },
      ]);
      return decodeFolder({ ...row, conversation_count: 0 });
    },

    /**
     * Only a changed value moves updated_at; a new name moves its conversations' updated_at too, each a
     * conversation.updated event.
     */
    async update(userId: string, id: string, changes: FolderChanges): Promise<Folder> {
      return userWrite(db, userId, async (trx, at) => {
        const current = await findRow(trx, userId, id);
        const { row, changed } = await updateChanged(
          trx,
          'folders',
          current,
          {
            name: changes.name,
            description: changes.description,
            color: changes.color === null ? DEFAULT_FOLDER_COLOR : changes.color,
            icon: changes.icon === null ? DEFAULT_ICON : changes.icon,
            display_order: changes.order,
          },
          at,
        );
        if (changed.name !== undefined) await conversations.folderRenamed(trx, userId, current.id, at);
        return decodeFolder(row);
      });
    },

    /**
     * Deletes the caller's folder and leaves its tombstone; its conversations move to no folder, each a
     * conversation.updated event.
     */
    async delete(userId: string, id: string): Promise<void> {
      await userWrite(db, userId, async (trx, at) => {
        await deleteOwned(trx, 'folders', userId, id, at, { table: 'conversations', link: 'folder_id' });
        await conversations.folderDeleted(trx, userId, at);
      });
    },
  };
}

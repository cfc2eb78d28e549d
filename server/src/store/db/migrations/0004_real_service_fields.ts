import { sql, type Kysely } from 'kysely';

/** The color a folder has when none was given: the real service's default. */
const DEFAULT_FOLDER_COLOR = '#6B7280';

/** A column this migration adds: its name, type, and the default of a NOT NULL column (null: a nullable one). */
type AddedColumn = [name: string, type: 'integer' | 'text', notNullDefault: number | string | null];

// Existing memories were all made through the API, so they read as the real service's API-made memories do:
// manually added, reviewed, approved (user_review, set below), not edited.
const MEMORY_COLUMNS: AddedColumn[] = [
  ['manually_added', 'integer', 1],
  ['reviewed', 'integer', 1],
  // The user's verdict: 1 approved, 0 rejected, null not given.
  ['user_review', 'integer', null],
  ['edited', 'integer', 0],
];

const FOLDER_COLUMNS: AddedColumn[] = [
  ['icon', 'text', 'folder'],
  ['display_order', 'integer', 0],
  ['is_default', 'integer', 0],
  ['is_system', 'integer', 0],
  ['category_mapping', 'text', null],
];

async function addColumns(db: Kysely<unknown>, table: string, columns: AddedColumn[]): Promise<void> {
  for (const [name, type, notNullDefault] of columns) {
    await db.schema
      .alterTable(table)
      .addColumn(name, type, (c) => (notNullDefault === null ? c : c.notNull().defaultTo(notNullDefault)))
      .execute();
  }
}

async function dropColumns(db: Kysely<unknown>, table: string, columns: AddedColumn[]): Promise<void> {
  for (const [name] of [...columns].reverse()) {
    await db.schema.alterTable(table).dropColumn(name).execute();
  }
}

// Fields the real service has on memories and folders (issue 26).
export async function up(db: Kysely<unknown>): Promise<void> {
  await addColumns(db, 'memories', MEMORY_COLUMNS);
  await sql`update memories set user_review = 1`.execute(db);

  await sql`update folders set color = ${DEFAULT_FOLDER_COLOR} where color is null`.execute(db);
  await addColumns(db, 'folders', FOLDER_COLUMNS);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropColumns(db, 'folders', FOLDER_COLUMNS);
  await dropColumns(db, 'memories', MEMORY_COLUMNS);
}

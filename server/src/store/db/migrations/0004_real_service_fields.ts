import { sql, type Kysely } from 'kysely';

/** The color a folder has when none was given: the real service's default. */
const DEFAULT_FOLDER_COLOR = '#6B7280';

// Fields the real service has on memories and folders (issue 26). Existing memories were all made through the
// API, so they read as the real service's API-made memories do: manually added, reviewed, approved, not edited.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('memories')
    .addColumn('manually_added', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('memories')
    .addColumn('reviewed', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // The user's verdict: 1 approved, 0 rejected, null not given.
  await db.schema.alterTable('memories').addColumn('user_review', 'integer').execute();
  await sql`update memories set user_review = 1`.execute(db);
  await db.schema
    .alterTable('memories')
    .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await sql`update folders set color = ${DEFAULT_FOLDER_COLOR} where color is null`.execute(db);
  await db.schema
    .alterTable('folders')
    .addColumn('icon', 'text', (c) => c.notNull().defaultTo('folder'))
    .execute();
  await db.schema
    .alterTable('folders')
    .addColumn('display_order', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('folders')
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('folders')
    .addColumn('is_system', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('folders').addColumn('category_mapping', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['category_mapping', 'is_system', 'is_default', 'display_order', 'icon']) {
    await db.schema.alterTable('folders').dropColumn(column).execute();
  }
  for (const column of ['edited', 'user_review', 'reviewed', 'manually_added']) {
    await db.schema.alterTable('memories').dropColumn(column).execute();
  }
}

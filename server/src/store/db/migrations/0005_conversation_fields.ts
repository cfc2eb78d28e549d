import { sql, type Kysely } from 'kysely';

// Conversation fields the real service has (issue 26): starred, and the kind and origin of a text-created
// conversation's text (text_source, text_source_spec). Existing conversations are not starred.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('conversations')
    .addColumn('starred', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('conversations').addColumn('text_source', 'text').execute();
  await db.schema.alterTable('conversations').addColumn('text_source_spec', 'text').execute();
  // Conversations created from text before this version read back with the default text_source. They are the
  // ones stored as one unlabelled segment at 0–0 s, outside any session; JSON escapes every quote inside a
  // text, so these patterns can only match the stored structure, never the words.
  await sql`
    UPDATE conversations SET text_source = 'other_text'
    WHERE client_session_id IS NULL AND live = 0
      AND transcript_segments LIKE '[{"id":%,"speaker_id":0,"speaker_name":"Speaker 0","is_user":false,"start":0,"end":0}]'
      AND transcript_segments NOT LIKE '%"speaker_name":%"speaker_name":%'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('conversations').dropColumn('text_source_spec').execute();
  await db.schema.alterTable('conversations').dropColumn('text_source').execute();
  await db.schema.alterTable('conversations').dropColumn('starred').execute();
}

import type { Kysely } from 'kysely';
import { isPostgres, punctuationAsSpaces, raw } from './postgres';

// PostgreSQL only: a conversation whose indexed words take more than a tsvector holds is stored all the same. The
// first 300,000 characters of a transcript stay below a tsvector's 1 MB of words in any text of one to three bytes
// a letter, but not in one of words that never repeat, written in letters of four bytes (CJK Extension B, the
// mathematical alphabets, Adlam): its create, or its live session's next batch, failed with a 500 ("string is too
// long for tsvector"). Such a conversation is now indexed with the first 50,000 characters of its transcript, which
// stay below it whatever the text. Only the conversations' trigger changes: a memory or an action item is short.

/** The characters of a transcript indexed, and of one whose words would not fit in a tsvector. */
const TRANSCRIPT_CHARS = 300_000;
const FALLBACK_CHARS = 50_000;

/** A column's text (SQL) folded and split as 0014 indexes it, weighted for ranking. */
const weighted = (text: string, weight: string) =>
  `setweight(to_tsvector('english', ${punctuationAsSpaces(`search_folded(coalesce(${text}, ''))`)}), '${weight}')`;

/** The document of the conversation `new`, with at most `chars` characters of its transcript (0008's weights). */
const document = (chars: number) =>
  [
    weighted(`new.structured::jsonb ->> 'title'`, 'A'),
    weighted(`new.structured::jsonb ->> 'overview'`, 'B'),
    weighted(
      `left((select string_agg(s ->> 'text', ' ')
    from jsonb_array_elements(new.transcript_segments::jsonb) s), ${chars})`,
      'C',
    ),
  ].join(' || ');

/** The trigger function indexing each conversation written, its document made by `body`. */
const sync = (body: string) =>
  `create or replace function conversations_search_sync() returns trigger language plpgsql as $$
   declare
     doc tsvector;
   begin
     ${body}
     insert into conversations_search (id, document) values (new.id, doc)
       on conflict (id) do update set document = excluded.document;
     return null;
   end $$`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await raw(
    db,
    sync(`begin
       doc := ${document(TRANSCRIPT_CHARS)};
     exception when program_limit_exceeded then
       doc := ${document(FALLBACK_CHARS)};
     end;`),
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await raw(db, sync(`doc := ${document(TRANSCRIPT_CHARS)};`));
}

import { sql, type Kysely } from 'kysely';
import { isPostgres, punctuationAsSpaces, raw, reindexSearch } from './postgres';

// PostgreSQL only: accents no longer keep a word from being found. SQLite's tokenizer (unicode61) folds them, so
// there "cafe" finds "café" and "Müller" finds a Müller stored decomposed (u and a combining diaeresis), but
// PostgreSQL's english configuration indexes the word as written: a name typed without its accents, or composed
// where the text has it decomposed (or the other way round), found nothing. The text is now folded before it is
// parsed, by search_folded (which store/db/search.ts applies to a query's words too): decomposed, the combining
// diacritical marks (U+0300–U+036F) after a Latin letter dropped, and composed again. Other scripts' marks stay, as
// SQLite keeps them: in Cyrillic, й (и and a breve) is a letter of its own. Every stored document is rebuilt.
//
// Unicode normalization needs a UTF8 database; in any other the fold is the text as it is.

/** Indexes each record's text folded (or, back down, as 0012 did), from now on and for the rows stored. */
const reindex = (db: Kysely<unknown>, folded: boolean) =>
  reindexSearch(db, (text) => punctuationAsSpaces(folded ? `search_folded(${text})` : text));

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  const { rows } = await sql<{
    utf8: boolean;
  }>`select current_setting('server_encoding') = 'UTF8' as utf8`.execute(db);
  // Text all in ASCII (as most is) has nothing to fold: its length in bytes and in characters tell it (3 ms for a
  // transcript of 300,000 characters), and the normalizations (60 ms for it) are skipped.
  const fold = rows[0].utf8
    ? `case when octet_length($1) = length($1) then $1 else normalize(regexp_replace(normalize($1, NFD), '([A-Za-z\\u00c0-\\u024f\\u1e00-\\u1eff])[\\u0300-\\u036f]+', '\\1', 'g'), NFC) end`
    : '$1';
  await raw(
    db,
    `create function search_folded(text) returns text language sql immutable strict parallel safe
       as $$ select ${fold} $$`,
  );
  await reindex(db, true);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await reindex(db, false);
  await raw(db, 'drop function if exists search_folded(text)');
}

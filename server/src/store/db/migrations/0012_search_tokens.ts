import type { Kysely } from 'kysely';
import { isPostgres, punctuationAsSpaces, reindexSearch } from './postgres';

// PostgreSQL only: the indexed text is split where a query is split. A query's words are its runs of letters and
// digits (contract/search-query.ts), as SQLite's tokenizer splits the text, but PostgreSQL's parser keeps an email
// address, a URL, a host, a version or a file name whole ('bob@zetacorp.dev', '3.14.2'), so a record holding one
// was found neither by it nor by a part of it. ASCII punctuation now becomes a space before the text is parsed (the
// other characters that are neither letters nor digits separate words in the parser already), and every stored
// document is rebuilt.

/** Indexes each record's text split (or, back down, as 0008 did), from now on and for the rows stored. */
async function reindex(db: Kysely<unknown>, split: boolean): Promise<void> {
  if (!isPostgres(db)) return;
  await reindexSearch(db, split ? punctuationAsSpaces : (text) => text);
}

export const up = (db: Kysely<unknown>) => reindex(db, true);
export const down = (db: Kysely<unknown>) => reindex(db, false);

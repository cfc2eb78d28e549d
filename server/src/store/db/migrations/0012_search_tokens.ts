import type { Kysely } from 'kysely';
import { isPostgres, raw } from './postgres';

// PostgreSQL only: the indexed text is split where a query is split. A query's words are its runs of letters and
// digits (contract/search-query.ts), as SQLite's tokenizer splits the text, but PostgreSQL's parser keeps an email
// address, a URL, a host, a version or a file name whole ('bob@zetacorp.dev', '3.14.2'), so a record holding one
// was found neither by it nor by a part of it. ASCII punctuation now becomes a space before the text is parsed (the
// other characters that are neither letters nor digits separate words in the parser already), and every stored
// document is rebuilt.

const TABLES = ['conversations', 'memories', 'action_items'] as const;
// A tsvector holds at most 1 MB; 300,000 characters of transcript stay below it (as in 0008).
const TRANSCRIPT_CHARS = 300_000;
const PUNCTUATION = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;

/** `text` weighted for ranking, its punctuation made spaces when `split`. */
function weighted(text: string, weight: string, split: boolean): string {
  const source = `coalesce(${text}, '')`;
  const words = split
    ? `translate(${source}, '${PUNCTUATION.replaceAll("'", "''")}', '${' '.repeat(PUNCTUATION.length)}')`
    : source;
  return `setweight(to_tsvector('english', ${words}), '${weight}')`;
}

/** The document of the row `r` of `table`: its indexed columns, as 0008 weighted them. */
function document(table: (typeof TABLES)[number], r: string, split: boolean): string {
  if (table === 'memories') return weighted(`${r}.content`, 'A', split);
  if (table === 'action_items') return weighted(`${r}.description`, 'A', split);
  const transcript = `left((select string_agg(s ->> 'text', ' ')
    from jsonb_array_elements(${r}.transcript_segments::jsonb) s), ${TRANSCRIPT_CHARS})`;
  return [
    weighted(`${r}.structured::jsonb ->> 'title'`, 'A', split),
    weighted(`${r}.structured::jsonb ->> 'overview'`, 'B', split),
    weighted(transcript, 'C', split),
  ].join(' || ');
}

/** Indexes each record's text split (or, back down, as 0008 did), from now on and for the rows stored. */
async function reindex(db: Kysely<unknown>, split: boolean): Promise<void> {
  if (!isPostgres(db)) return;
  for (const table of TABLES) {
    const search = `${table}_search`;
    await raw(
      db,
      `create or replace function ${search}_sync() returns trigger language plpgsql as $$
       begin
         insert into ${search} (id, document) values (new.id, ${document(table, 'new', split)})
           on conflict (id) do update set document = excluded.document;
         return null;
       end $$`,
    );
    await raw(
      db,
      `update ${search} s set document = ${document(table, 'r', split)} from ${table} r where r.id = s.id`,
    );
  }
}

export const up = (db: Kysely<unknown>) => reindex(db, true);
export const down = (db: Kysely<unknown>) => reindex(db, false);

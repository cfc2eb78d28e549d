import { type Kysely, PostgresAdapter, sql } from 'kysely';

// What the PostgreSQL-only steps of migrations from 0011 on share. Like a migration, never change what these do:
// a migration that has shipped runs them as they were when it shipped.

/** Runs one statement of SQL as written. */
export const raw = (db: Kysely<unknown>, text: string) => sql.raw(text).execute(db);

export const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

// The search indexes' documents (0008's columns and weights), as 0012 and later migrations rebuild them.
const SEARCH_TABLES = ['conversations', 'memories', 'action_items'] as const;
type SearchTable = (typeof SEARCH_TABLES)[number];
// A tsvector holds at most 1 MB; 300,000 characters of transcript stay below it (as in 0008).
const TRANSCRIPT_CHARS = 300_000;
const PUNCTUATION = `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`;

/** `text` (SQL) with each ASCII punctuation character made a space. */
export const punctuationAsSpaces = (text: string) =>
  `translate(${text}, '${PUNCTUATION.replaceAll("'", "''")}', '${' '.repeat(PUNCTUATION.length)}')`;

/** The text (SQL) of a column, null as empty, prepared for the parser by `prepare` and weighted for ranking. */
function weighted(text: string, weight: string, prepare: (text: string) => string): string {
  return `setweight(to_tsvector('english', ${prepare(`coalesce(${text}, '')`)}), '${weight}')`;
}

/** The document of the row `r` of `table`: its indexed columns, as 0008 weighted them. */
function searchDocument(table: SearchTable, r: string, prepare: (text: string) => string): string {
  if (table === 'memories') return weighted(`${r}.content`, 'A', prepare);
  if (table === 'action_items') return weighted(`${r}.description`, 'A', prepare);
  const transcript = `left((select string_agg(s ->> 'text', ' ')
    from jsonb_array_elements(${r}.transcript_segments::jsonb) s), ${TRANSCRIPT_CHARS})`;
  return [
    weighted(`${r}.structured::jsonb ->> 'title'`, 'A', prepare),
    weighted(`${r}.structured::jsonb ->> 'overview'`, 'B', prepare),
    weighted(transcript, 'C', prepare),
  ].join(' || ');
}

/**
 * Indexes each record's text as `prepare` makes it ready for the parser: the triggers that index every record
 * written from now on, and every document stored, rebuilt.
 */
export async function reindexSearch(db: Kysely<unknown>, prepare: (text: string) => string): Promise<void> {
  for (const table of SEARCH_TABLES) {
    const search = `${table}_search`;
    await raw(
      db,
      `create or replace function ${search}_sync() returns trigger language plpgsql as $$
       begin
         insert into ${search} (id, document) values (new.id, ${searchDocument(table, 'new', prepare)})
           on conflict (id) do update set document = excluded.document;
         return null;
       end $$`,
    );
    await raw(
      db,
      `update ${search} s set document = ${searchDocument(table, 'r', prepare)} from ${table} r where r.id = s.id`,
    );
  }
}

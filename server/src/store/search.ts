// Full-text matching over the search indexes that migration 0008 keeps (SQLite FTS5, PostgreSQL tsvector): the
// ranked ids of the records a query matches, as a subquery a repository joins to its own table. The engines'
// query languages never see the caller's text: each term becomes a quoted FTS5 string, or goes through
// plainto_tsquery / phraseto_tsquery, so no operator a caller types has any effect.
import { PostgresAdapter, sql, type AliasedRawBuilder, type Kysely } from 'kysely';
import type { SearchTerms } from '../contract/search-query';

/** The indexed record types, and (SQLite) the weight of each indexed column in the ranking, in column order. */
const INDEXES = {
  conversations: [4, 2, 1], // title, overview, transcript
  memories: [1],
  action_items: [1],
} as const;
export type SearchIndex = keyof typeof INDEXES;

/** The subquery's rows: a matching record's id and its relevance (higher is more relevant). */
export interface Match {
  id: string;
  score: number;
}

/** FTS5: every term a quoted string (its tokens contain no quote), all of them required. */
function ftsQuery({ words, phrases }: SearchTerms): string {
  return [...words, ...phrases.map((phrase) => phrase.join(' '))].map((term) => `"${term}"`).join(' ');
}

/** PostgreSQL: the words (stemmed, english stop words dropped) and each phrase in order, all required. */
function tsQuery({ words, phrases }: SearchTerms) {
  const parts = [
    ...(words.length > 0 ? [sql`plainto_tsquery('english', ${words.join(' ')})`] : []),
    ...phrases.map((phrase) => sql`phraseto_tsquery('english', ${phrase.join(' ')})`),
  ];
  return sql.join(parts, sql` && `);
}

/**
 * The records of `index` that `terms` match, of every user (the caller joins its table and keeps the user's), as
 * the subquery `m` (id, score) for a query on `db`.
 */
export function matching<DB>(
  db: Kysely<DB>,
  index: SearchIndex,
  terms: SearchTerms,
): AliasedRawBuilder<Match, 'm'> {
  const search = sql.table(`${index}_search`);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // `offset 0` keeps the planner from folding the match into the outer query, where (its statistics not yet
    // gathered after a bulk load) it would walk every record of the user and probe the index once per record.
    return sql<Match>`(select s.id, ts_rank(s.document, q.query) as score
      from ${search} s, (select ${tsQuery(terms)} as query) q
      where s.document @@ q.query offset 0)`.as('m');
  }
  const keys = sql.table(`${index}_search_keys`);
  const weights = sql.join(INDEXES[index].map((weight) => sql.lit(weight)));
  return sql<Match>`(select k.id as id, -bm25(${search}, ${weights}) as score
    from ${search} join ${keys} k on k.doc = ${search}.rowid
    where ${search} match ${ftsQuery(terms)})`.as('m');
}

// Full-text matching over the search indexes that migration 0008 keeps (SQLite FTS5, PostgreSQL tsvector): the
// ranked ids of the records a query matches, as a subquery a repository joins to its own table. The engines'
// query languages never see the caller's text: each term becomes a quoted FTS5 string, or goes through
// plainto_tsquery / phraseto_tsquery, so no operator a caller types has any effect.
import { PostgresAdapter, sql, type AliasedRawBuilder, type Kysely } from 'kysely';
import type { SearchTerms } from '../../contract/search-query';

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

/** Which of a query's terms a record must have: every one, or (the fallback of a search) any one. */
export type TermsMatch = 'all' | 'any';

/** FTS5: every term a quoted string (its tokens contain no quote), all of them or any one required. */
function ftsQuery({ words, phrases }: SearchTerms, match: TermsMatch): string {
  return [...words, ...phrases.map((phrase) => phrase.join(' '))]
    .map((term) => `"${term}"`)
    .join(match === 'all' ? ' ' : ' OR ');
}

/** PostgreSQL: `words` as the index holds them, their accents folded (see migration 0014), as a tsquery. */
const pgWords = (parse: 'plainto_tsquery' | 'phraseto_tsquery', words: string[]) =>
  sql`${sql.raw(parse)}('english', search_folded(${words.join(' ')}))`;

/** PostgreSQL: the words (stemmed, english stop words dropped) and each phrase in order, all or any one required. */
function tsQuery({ words, phrases }: SearchTerms, match: TermsMatch) {
  const phraseParts = phrases.map((phrase) => pgWords('phraseto_tsquery', phrase));
  if (match === 'any')
    return sql.join([...words.map((word) => pgWords('plainto_tsquery', [word])), ...phraseParts], sql` || `);
  const parts = [...(words.length > 0 ? [pgWords('plainto_tsquery', words)] : []), ...phraseParts];
  return sql.join(parts, sql` && `);
}

/**
 * A search's answer: the records with every term, or when none has them all and there are several, those with any
 * one, as a search engine drops words a question's records lack (the real service's search is semantic, and finds
 * the conversation a question is about whatever words it asks with). `read` reads the answer for a way of matching.
 */
export async function allElseAny<T>(
  terms: SearchTerms,
  read: (match: TermsMatch) => Promise<T[]>,
): Promise<T[]> {
  const found = await read('all');
  return found.length > 0 || terms.words.length + terms.phrases.length < 2 ? found : read('any');
}

/**
 * A broad query (a common word, in most of a user's conversations) would otherwise rank every match before the best
 * few are known, at a cost in proportion to the matches: a search that asks only for the best (a limit of at most
 * 100, no filter but the user's) ranks this many of the user's matches, the ones stored last.
 */
export const RANKED_MATCHES = 500;

/**
 * PostgreSQL: the indexes whose tsvectors (a transcript's) are TOASTed, so that reading one is a lookup of its own.
 * The others are read with their heap rows, and checking a phrase in each of them costs little.
 */
const TOASTED: readonly SearchIndex[] = ['conversations'];

/**
 * PostgreSQL: the share of a user's search rows, the newest, in which a broad search looks for its RANKED_MATCHES
 * first (one in this many of the stored order the user's rows span).
 */
const NEWEST_SHARE = 5;

/**
 * PostgreSQL: the search rows of the RANKED_MATCHES of the user's matches stored last, as the lateral part of a
 * query that has the whole tsquery as `q.query`.
 *
 * The GIN index yields the user's matches oldest first, and sorting them all by `stored` to keep the newest was
 * most of a broad search (1.4 ms of 3.6 for a word in all of 10,000 conversations). So the matches stored in the
 * newest share of the user's stored order (whose ends 0013's index gives in two probes) are sorted first, and the
 * older ones only for the places that share leaves: when it holds RANKED_MATCHES, none. When the user's rows span
 * fewer than NEWEST_SHARE × RANKED_MATCHES places of the table's stored order (one sequence for every user), the
 * share is all of the user's rows, and there are no older ones to search.
 */
function newestMatches(index: SearchIndex, terms: SearchTerms, match: TermsMatch, userId: string) {
  const search = sql.table(`${index}_search`);
  const ranked = sql.lit(RANKED_MATCHES);
  // With any term, a record's phrase need not be checked: one of its other terms may be what it matches by.
  const checksPhrases = terms.phrases.length > 0 && match === 'all';
  if (checksPhrases && !TOASTED.includes(index))
    // A phrase is checked against each candidate's positions, here read with its heap row: in one pass over the
    // records with its words, not once per share of the stored order (memories' phrase: 1.9 ms against 2.8).
    return sql`select id, document from ${search} where document @@ q.query and user_id = ${userId}
      order by stored desc limit ${ranked}`;
  const allWords = pgWords('plainto_tsquery', [...terms.words, ...terms.phrases.flat()]);
  const newest = (older: boolean) => {
    const stored = sql`stored ${older ? sql`<` : sql`>=`} (select stored from b)`;
    if (!checksPhrases)
      return sql`select id, document, stored from ${search} where document @@ q.query and user_id = ${userId} and ${stored}
        order by stored desc limit ${ranked}`;
    // The index finds a phrase's records by its words alone, and only a record's positions, in its (TOASTed)
    // tsvector, tell whether they stand in order: checking every record with the words, for a phrase of common
    // words, read every tsvector (80 ms for 10,000 conversations). The records with all the words, newest first,
    // are checked one by one until enough have the phrases; `offset 0` keeps that check above the sort.
    return sql`select id, document, stored from (select id, document, stored from ${search}
        where document @@ ${allWords} and user_id = ${userId} and ${stored}
        order by stored desc offset 0) c
      where document @@ q.query limit ${ranked}`;
  };
  const share = sql`(max(stored) - min(stored)) / ${sql.lit(NEWEST_SHARE)}`;
  return sql`with b as materialized (select case when ${share} >= ${ranked} then max(stored) - ${share}
          else min(stored) end as stored, min(stored) as first
        from ${search} where user_id = ${userId}),
      w as materialized (${newest(false)})
    select id, document from (select id, document, stored from w
      union all
      select id, document, stored from (${newest(true)}) r
      where (select stored > first from b) and (select count(*) from w) < ${ranked}) n
    order by stored desc limit ${ranked}`;
}

/**
 * The records of `index` that `terms` match (every term, or with `match` 'any' any one), of `userId` (the caller
 * joins its table and still keeps the user's), as the subquery `m` (id, score) for a query on `db`: all of them, or
 * with `newest` the RANKED_MATCHES stored last.
 */
export function matching<DB>(
  db: Kysely<DB>,
  index: SearchIndex,
  terms: SearchTerms,
  userId: string,
  { newest = false, match = 'all' as TermsMatch } = {},
): AliasedRawBuilder<Match, 'm'> {
  const search = sql.table(`${index}_search`);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Migration 0009 put the user on each search row, so the user's matches come from the index and the small heap
    // rows, and only the ones checked or ranked have their tsvector read; 0011 numbered the rows in the order they
    // were stored. `offset 0` keeps the planner from folding the match into the outer query, where (its statistics
    // not yet gathered after a bulk load) it would walk every record of the user and probe the index once per record.
    // The matches come out most relevant first, so the caller's join reads its records in that order and, its own
    // order starting with the score, stops once it has its page and the score's ties (an incremental sort): the
    // ten of a first page, not all 500 ranked (for a word in 47% of 10,000 conversations, 4.6 ms to 3.3 ms). The
    // planner chooses that plan only when it expects more than a row or two: `offset 0` keeps the tsquery from being
    // folded into the plan, so a phrase or several words are priced as one word is, not as all but absent.
    return sql<Match>`(select s.id, ts_rank(s.document, q.query) as score
      from (select ${tsQuery(terms, match)} as query offset 0) q cross join lateral (${
        newest
          ? newestMatches(index, terms, match, userId)
          : sql`select id, document from ${search}
          where document @@ q.query and user_id = ${userId}`
      }) s
      order by score desc offset 0)`.as('m');
  }
  const keys = sql.table(`${index}_search_keys`);
  const weights = sql.join(INDEXES[index].map((weight) => sql.lit(weight)));
  const query = ftsQuery(terms, match);
  // A key's doc grows with each record stored. The newest matches are those from the doc of the user's
  // RANKED_MATCHES-th newest one up, found first by walking the matches newest first (CROSS JOIN keeps FTS5 the
  // outer loop, in its own order) down to it. A bound rather than a LIMIT here keeps the subquery one the caller's
  // query absorbs, driven by FTS5; with a LIMIT it would be built apart, and SQLite (no statistics) would rather
  // walk every record of the user and look each one up in it.
  const newestFrom = sql`coalesce((select n.rowid from ${search} n
      cross join ${keys} k on k.doc = n.rowid cross join ${sql.table(index)} r on r.id = k.id
      where n.${search} match ${query} and r.user_id = ${userId}
      order by n.rowid desc limit 1 offset ${sql.lit(RANKED_MATCHES - 1)}), 0)`;
  return sql<Match>`(select k.id as id, -bm25(${search}, ${weights}) as score
    from ${search} join ${keys} k on k.doc = ${search}.rowid
    where ${search} match ${query}${newest ? sql` and ${search}.rowid >= ${newestFrom}` : sql``})`.as('m');
}

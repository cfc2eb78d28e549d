import { z } from 'zod';

// The `query` of the search routes and of the action item list: how a person's words become search terms.

/** A parsed query: its words and phrases (words and phrase words are letters, marks and digits). */
export interface SearchTerms {
  words: string[];
  phrases: string[][];
}

export const MAX_QUERY_CHARS = 500;
const MAX_TERMS = 32;

// Words that say nothing of a record's subject: PostgreSQL's english stop words, which its index leaves out.
// Dropping them here too makes a question asked in full ("what did I promise Anna") and a word with an apostrophe
// ("Maya's": maya, s) find on SQLite what they find on PostgreSQL.
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers ' +
    'herself it its itself they them their theirs themselves what which who whom this that these those am is ' +
    'are was were be been being have has had having do does did doing a an the and but if or because as until ' +
    'while of at by for with about against between into through during before after above below to from up down ' +
    'in out on off over under again further then once here there when where why how all any both each few more ' +
    'most other some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

// A word is a run of letters, marks and digits with a letter or digit in it: a combining mark (the accent of a
// decomposed é, a Devanagari vowel sign) belongs to its word, and marks alone are none. Words keep their case:
// each engine folds a query's case as it folded the text it indexed, where JavaScript's lower case of İ (i and a
// combining dot) is in neither index.
const wordsOf = (text: string): string[] =>
  ((text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []) as string[]).filter((run) => /[\p{L}\p{N}]/u.test(run));

/** The words once each, whatever their case, the first spelling kept. */
const distinct = (words: string[]): string[] =>
  words.filter((word, i) => words.findIndex((w) => w.toLowerCase() === word.toLowerCase()) === i);

/**
 * The terms of a query as a person writes it: plain words, and phrases in double quotes (an unbalanced quote
 * opens no phrase). Everything but letters, marks and digits separates words, so the engines' operators (`*`,
 * `-`, `NEAR`, `OR`, parentheses) are words or nothing. Stop words are dropped from the plain words unless nothing
 * else is left.
 */
export function searchTerms(query: string): SearchTerms {
  const phrases: string[][] = [];
  const quoted = /"([^"]*)"/g;
  const outside = query.replace(quoted, (_, inside: string) => {
    const phrase = wordsOf(inside);
    if (phrase.length === 1) return ` ${phrase[0]} `;
    if (phrase.length > 1) phrases.push(phrase);
    return ' ';
  });
  const all = wordsOf(outside.replaceAll('"', ' '));
  const meaningful = all.filter((word) => !STOP_WORDS.has(word.toLowerCase()));
  return { words: distinct(meaningful.length > 0 || phrases.length > 0 ? meaningful : all), phrases };
}

/** The `query` parameter: at least one word, at most MAX_QUERY_CHARS characters and MAX_TERMS terms. */
export const searchQueryParam = z
  .string()
  .max(MAX_QUERY_CHARS)
  .transform((value, ctx) => {
    const terms = searchTerms(value);
    const count = terms.words.length + terms.phrases.length;
    if (count === 0 || count > MAX_TERMS) {
      ctx.addIssue({
        code: 'custom',
        message:
          count === 0
            ? 'query needs at least one word (letters or digits); put a phrase in double quotes'
            : `query has ${count} terms; use at most ${MAX_TERMS} words and phrases`,
      });
      return z.NEVER;
    }
    return terms;
  })
  .meta({
    description:
      'Plain words, all of which must match (stemmed: "meetings" finds "meeting"); when no record has them all, ' +
      'the records with any of them. A phrase in double quotes matches in that order. At most ' +
      `${MAX_QUERY_CHARS} characters. Ranked by relevance.`,
  });

import { z } from 'zod';

// The `query` of the search routes and of the action item list: how a person's words become search terms.

/** A parsed query: every word and every phrase must match (words and phrase words are letters and digits only). */
export interface SearchTerms {
  words: string[];
  phrases: string[][];
}

export const MAX_QUERY_CHARS = 500;
const MAX_TERMS = 32;

// Words that say nothing of a record's subject. PostgreSQL's english configuration drops these and more; dropping
// them here too makes a question asked in full ("what did I promise Anna") find the same records on SQLite.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by did do does for from had has have how i if in into is it its me my of on ' +
    'or our so than that the their them then there these they this to was we were what when where which who why ' +
    'will with you your'
  ).split(' '),
);

const wordsOf = (text: string): string[] => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) as string[];

/**
 * The terms of a query as a person writes it: plain words, and phrases in double quotes (an unbalanced quote
 * opens no phrase). Everything but letters and digits separates words, so the engines' operators (`*`, `-`, `NEAR`,
 * `OR`, parentheses) are words or nothing. Stop words are dropped from the plain words unless nothing else is left.
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
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  return { words: [...new Set(meaningful.length > 0 || phrases.length > 0 ? meaningful : all)], phrases };
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
      'Plain words, all of which must match (stemmed: "meetings" finds "meeting"); a phrase in double quotes ' +
      `matches in that order. At most ${MAX_QUERY_CHARS} characters. Ranked by relevance.`,
  });

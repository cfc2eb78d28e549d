import { textIssue } from '../contract/common';

/** How many characters of a refusing endpoint's reason a delivery record keeps. */
const REASON_SHOWN = 300;

/**
 * A reason a refusing endpoint gave, as a delivery record keeps it: on one line and cut to REASON_SHOWN
 * characters; '' when it is no string, or a text that cannot be stored as sent (a NUL or a lone surrogate).
 */
export function shownReason(said: unknown): string {
  if (typeof said !== 'string') return '';
  const line = said.replace(/\s+/g, ' ').trim();
  const codePoints = [...line];
  const shown = codePoints.length > REASON_SHOWN ? `${codePoints.slice(0, REASON_SHOWN).join('')}…` : line;
  return textIssue(shown) ? '' : shown;
}

/**
 * For a redirect, where it points and that it is not followed (the outbound rules vet the URL called, not
 * wherever it sends the call): ', a redirect to <URL>, which is not followed: <fix>'; '' for any other answer.
 */
export function redirectNote(url: string, location: unknown, fix: string): string {
  if (typeof location !== 'string' || !URL.canParse(location, url)) return '';
  const target = shownReason(new URL(location, url).href);
  return target ? `, a redirect to ${target}, which is not followed: ${fix}` : '';
}

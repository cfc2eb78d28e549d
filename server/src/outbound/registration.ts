import { UnprocessableError } from '../http/http-errors';
import type { OutboundPolicy } from './policy';

/** Refuses, as a 422 naming the field at `loc`, a URL the outbound policy would never call. */
export async function assertRegistrable(
  policy: OutboundPolicy,
  url: string,
  loc: (string | number)[],
): Promise<void> {
  const refused = await policy.refusal(url);
  if (refused) throw UnprocessableError.at(loc, `URL ${refused}`, 'url_refused');
}

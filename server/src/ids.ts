import { randomBytes } from 'node:crypto';

let lastMs = -1;
let sequence = 0;

/**
 * Record ids: 12 hex digits of creation time, 4 of a per-process sequence within that millisecond, then 8
 * random ones. Ids made in one process therefore sort in creation order, which breaks ties between records
 * created in the same millisecond (a batch keeps its input order).
 */
export function newId(now = Date.now()): string {
  if (now === lastMs) sequence += 1;
  else {
    lastMs = now;
    sequence = 0;
  }
  return (
    now.toString(16).padStart(12, '0') +
    sequence.toString(16).padStart(4, '0') +
    randomBytes(4).toString('hex')
  );
}

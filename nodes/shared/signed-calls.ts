// What both triggers do with DevData's signed calls: how old a signature may be, and remembering the calls already
// taken, so that an exact copy of one (a retry, or a replay by someone who saw it) starts nothing.

/** How far a call's signed timestamp may be from this machine's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * How long an accepted call is remembered. A call's timestamp is accepted up to the tolerance either side of
 * this clock, so an exact copy of a call can pass the signature check for at most twice the tolerance after it
 * first arrived: remembering it that long refuses every such copy.
 */
export const REMEMBER_MS = 2 * SIGNATURE_TOLERANCE_SECONDS * 1000;
/** At most this many calls are remembered per process; the oldest make way first. */
export const MAX_REMEMBERED = 10_000;

/**
 * The calls this process accepted lately, each with the time it may be forgotten, oldest first. Kept in
 * memory, per process: n8n's static data is saved per workflow as a whole and each webhook process holds its own
 * copy, so concurrent calls (and, in queue mode, separate webhook processes) would overwrite each other's keys
 * there. A copy that reaches another process, or arrives after a restart, is therefore not recognised.
 */
const remembered = new Map<string, number>();

/**
 * Remembers `key` (the trigger node and what identifies the call: an event id, a signature) and says whether it
 * is new. Called only for calls whose signature is valid, so a forged call cannot make a genuine one look like a
 * copy.
 */
export function firstDelivery(key: string, nowMs: number): boolean {
  for (const [oldest, forgetAt] of remembered) {
    if (forgetAt > nowMs && remembered.size < MAX_REMEMBERED) break;
    remembered.delete(oldest);
  }
  if (remembered.has(key)) return false;
  remembered.set(key, nowMs + REMEMBER_MS);
  return true;
}

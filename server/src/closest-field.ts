// Which known name an unknown one was probably meant as: for the contract's 422 messages and for a DEVDATA_*
// variable no setting reads. On its own, without the contract's schemas, so the CLI names a mistyped setting
// without loading them.

/** Levenshtein distance between two short strings (field names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}

/**
 * Whether `part` stands in `whole` where one of its words starts (`lat` in `latitude`, `window` in `window_title`):
 * `id` inside `stt_provider` or `video` is no hint that `id` was meant.
 */
function startsAWord(whole: string, part: string): boolean {
  for (let at = whole.indexOf(part); at !== -1; at = whole.indexOf(part, at + 1)) {
    if (at === 0 || whole[at - 1] === '_') return true;
  }
  return false;
}

/** The known field `field` was most likely meant as: within two edits, or one holding the other at a word start. */
export function closestField(field: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const contains = field.length > 0 && (startsAWord(name, field) || startsAWord(field, name));
    // Two edits apart at most means at most two characters longer or shorter, and one holding the other is as far
    // as their lengths differ: anything else is not measured (a field 8 MiB long took seconds to).
    const gap = Math.abs(field.length - name.length);
    const distance = contains
      ? gap
      : gap <= 2
        ? editDistance(field.toLowerCase(), name.toLowerCase())
        : Infinity;
    if ((distance <= 2 || contains) && (best === undefined || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

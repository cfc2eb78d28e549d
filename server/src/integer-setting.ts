/** The bounds of an integer setting, both included. */
export interface IntegerRange {
  min: number;
  max: number;
}

/**
 * An integer setting from the environment, written in plain decimal digits and within `range`; `fallback` when
 * unset or empty. Number() alone would take " 5", "1e3" and "0x10", and a value past 2147483647 reaching a timer
 * becomes Node's 1 ms, so both are refused with the setting, the value and the range.
 */
export function integerSetting(
  name: string,
  value: string | undefined,
  fallback: number,
  { min, max }: IntegerRange,
): number {
  if (value === undefined || value === '') return fallback;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

// Instants are written by store/rows.ts `iso`, which reuses the date part of the previous instant: its output
// must be exactly Date#toISOString's for every instant the server can store, in any order of days.
import { iso } from '../../server/src/store/db/rows';

describe('iso', () => {
  const check = (ms: number) => expect(iso(ms)).toBe(new Date(ms).toISOString());

  it('writes what Date#toISOString writes, at the edges of days, years and the range', () => {
    for (const ms of [
      0,
      -1,
      1,
      86_399_999,
      86_400_000,
      -86_400_000,
      -86_400_001,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1),
      -62_135_596_800_000,
      -62_167_219_200_000,
      253_402_300_799_999,
      253_402_300_800_000,
      -62_167_219_200_001,
    ]) {
      check(ms);
      check(ms + 1);
      check(ms - 1);
    }
  });

  it('writes what Date#toISOString writes for random instants, one day after another and day to day', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    for (let i = 0; i < 5000; i += 1) {
      const ms = Math.floor((random() - 0.5) * 2 * 260_000_000_000_000);
      check(ms);
      check(ms + Math.floor(random() * 86_400_000));
      check(ms + Math.floor(random() * 1000));
    }
  });

  it('keeps null as null', () => {
    expect(iso(null)).toBeNull();
  });
});

// The in-process request limiter (one instance, or any instance while Redis is away): fixed windows aligned
// to the clock, holding only the current window's counts so memory stays bounded under many keys.
import { FixedWindowLimiter } from '../../server/src/auth/rate-limit';

test('counts per key within a window and forgets every key of a window once the next begins', () => {
  const limiter = new FixedWindowLimiter(2, 60_000);
  for (let i = 0; i < 10_000; i += 1) limiter.count(`key-${i}`, 1_000);
  expect(limiter.size).toBe(10_000);
  expect(limiter.count('key-0', 59_999)).toEqual({ allowed: true, remaining: 0, resetAt: 60_000 });
  expect(limiter.count('key-0', 59_999)).toEqual({ allowed: false, remaining: 0, resetAt: 60_000 });

  expect(limiter.count('key-0', 60_000)).toEqual({ allowed: true, remaining: 1, resetAt: 120_000 });
  expect(limiter.size).toBe(1);
});

import { describe, expect, it } from 'vitest';
import { createLoginThrottle } from './login-throttle.ts';

describe('login throttle', () => {
  it('locks a key after the maximum number of failures and opens it after the lock time', () => {
    let t = 0;
    const th = createLoginThrottle({ maxFailures: 3, lockMs: 60_000, now: () => t });
    th.fail(['u:a']);
    th.fail(['u:a']);
    expect(th.retryAfter(['u:a'])).toBe(0);
    th.fail(['u:a']);
    expect(th.retryAfter(['u:a', 'ip:x'])).toBe(60);
    t = 30_000;
    expect(th.retryAfter(['u:a'])).toBe(30);
    t = 60_001;
    expect(th.retryAfter(['u:a'])).toBe(0);
  });

  it('forgets failures after a success', () => {
    const th = createLoginThrottle({ maxFailures: 2, lockMs: 1000, now: () => 0 });
    th.fail(['u:a']);
    th.succeed(['u:a']);
    th.fail(['u:a']);
    expect(th.retryAfter(['u:a'])).toBe(0);
  });
});

/**
 * Counts failed sign-ins per username and per IP. After `maxFailures` within the window, the key is locked
 * for `lockMs`. In memory: a restart forgets, and each API process counts on its own (see decision 002).
 */
export function createLoginThrottle(opts: { maxFailures: number; lockMs: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { failures: number; first: number; lockedUntil: number }>();

  const sweep = () => {
    const t = now();
    for (const [k, e] of entries) if (e.lockedUntil < t && t - e.first > opts.lockMs) entries.delete(k);
  };

  return {
    /** Seconds until the first locked key opens, or 0 when none of them is locked. */
    retryAfter(keys: string[]): number {
      const t = now();
      let wait = 0;
      for (const k of keys) {
        const e = entries.get(k);
        if (e && e.lockedUntil > t) wait = Math.max(wait, Math.ceil((e.lockedUntil - t) / 1000));
      }
      return wait;
    },
    fail(keys: string[]) {
      if (entries.size > 10_000) sweep();
      const t = now();
      for (const k of keys) {
        let e = entries.get(k);
        if (!e || t - e.first > opts.lockMs) e = { failures: 0, first: t, lockedUntil: 0 };
        e.failures++;
        if (e.failures >= opts.maxFailures) e.lockedUntil = t + opts.lockMs;
        entries.set(k, e);
      }
    },
    succeed(keys: string[]) {
      for (const k of keys) entries.delete(k);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

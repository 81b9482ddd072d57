import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { loginAttempts } from '../../db/schema/index.ts';

export type CodeThrottlePolicy = {
  /** Wrong codes per user, from any address, before each further code must wait. */
  freeFailures: number;
  /** The count is forgotten this long after the user's last wrong code (once any wait has passed). */
  windowMs: number;
  /** The first wait; it doubles with every further wrong code, up to maxDelayMs. */
  delayMs: number;
  maxDelayMs: number;
};

export type CodeAdmission = { ok: true; failures: number } | { ok: false; retryAfterSeconds: number };

/** The row of a user's code step in `login_attempts` (keys hold only hashes, as the sign-in throttle's do). */
const keyOf = (userId: string) => `codes:${crypto.createHash('sha256').update(userId).digest('hex')}`;

/**
 * Wrong two-factor codes counted per user, whatever the address (issue 42): with the password known, many
 * addresses each with their own allowance could otherwise try codes quickly. Counted before the check, in one
 * row locked while it is read, so a burst cannot slip past; a right code takes its count back. The device and
 * address allowance of decision 040 stays with the password step. Rows are purged with the sign-in throttle's.
 */
export function createCodeThrottle(opts: { database: Database; policy: CodeThrottlePolicy; now?: () => number }) {
  const { database, policy } = opts;
  // Read at each call (not the function itself), so a test clock applies.
  const now = opts.now ?? (() => Date.now());
  const delayAfter = (failures: number) =>
    failures < policy.freeFailures
      ? 0
      : Math.min(policy.maxDelayMs, policy.delayMs * 2 ** Math.min(30, failures - policy.freeFailures));

  return {
    /** Wrong codes that pass before the waits begin (the owner is told when they are spent). */
    freeFailures: policy.freeFailures,

    /** Admits one code and counts it as wrong, or says how long to wait; `failures` counts this one. */
    async admit(userId: string): Promise<CodeAdmission> {
      const t = now();
      const date = new Date(t);
      const key = keyOf(userId);
      return database.db.transaction(async (tx) => {
        await tx
          .insert(loginAttempts)
          .values({ key, failures: 0, firstAt: date, lastAt: date, nextAt: date })
          .onConflictDoNothing();
        const [row] = await tx.select().from(loginAttempts).where(eq(loginAttempts.key, key)).for('update');
        const fresh = t - row!.lastAt.getTime() > policy.windowMs && row!.nextAt.getTime() <= t;
        const failures = fresh ? 0 : row!.failures;
        const wait = row!.nextAt.getTime() - t;
        // Refused codes are not counted, so waiting out the delay is always enough.
        if (failures >= policy.freeFailures && wait > 0) {
          return { ok: false as const, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
        }
        const f = failures + 1;
        await tx
          .update(loginAttempts)
          .set({ failures: f, firstAt: fresh ? date : row!.firstAt, lastAt: date, nextAt: new Date(t + delayAfter(f)) })
          .where(eq(loginAttempts.key, key));
        return { ok: true as const, failures: f };
      });
    },

    /** A right code takes back the count admit added (earlier wrong ones stay counted). */
    async succeed(userId: string) {
      await database.db
        .update(loginAttempts)
        .set({ failures: sql`greatest(0, ${loginAttempts.failures} - 1)` })
        .where(eq(loginAttempts.key, keyOf(userId)));
    },
  };
}
export type CodeThrottle = ReturnType<typeof createCodeThrottle>;

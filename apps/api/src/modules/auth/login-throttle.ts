import crypto from 'node:crypto';
import { inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { loginAttempts } from '../../db/schema/index.ts';

export type LoginThrottlePolicy = {
  /** Failures per (username, address) pair before each further attempt must wait. */
  freeAttempts: number;
  /** The first wait; it doubles with every further failure of the pair, up to maxDelayMs. */
  delayMs: number;
  maxDelayMs: number;
  /** Counters are forgotten this long after the pair's last attempt, or after the address's first one. */
  windowMs: number;
  /** Failures per address within the window, across usernames. */
  addressMaxFailures: number;
  /**
   * Failures per username within the window, across addresses, after which that username is tried at most once
   * per delayMs. Slows guessing from many addresses without letting anyone lock the account.
   */
  usernameSlowAfter: number;
};

export type Admission = { ok: true; keys: AttemptKeys } | { ok: false; retryAfterSeconds: number };
type AttemptKeys = { pair: string; address: string; username: string };

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Usernames are hashed in the keys: people type their password into the username field. */
export function attemptKeys(username: string, ip: string): AttemptKeys {
  const u = username.trim().toLowerCase();
  return { pair: `pair:${sha(`${u}\0${ip}`)}`, address: `addr:${ip}`, username: `user:${sha(u)}` };
}

/**
 * Counts sign-in attempts in the database, so several API processes share the counts, and counts each attempt
 * BEFORE the password is checked: a concurrent burst cannot slip past the limit while the hashes are verified.
 * Every admitted attempt counts as a failure until `succeed` takes it back. See decision 012.
 */
export function createLoginThrottle(opts: { database: Database; policy: LoginThrottlePolicy; now?: () => number }) {
  const { database, policy } = opts;
  const now = opts.now ?? Date.now;
  let lastPurge = 0;

  const delayAfter = (failures: number) =>
    failures < policy.freeAttempts
      ? 0
      : Math.min(policy.maxDelayMs, policy.delayMs * 2 ** Math.min(30, failures - policy.freeAttempts));

  const purge = async (t: number) => {
    if (t - lastPurge < 10 * 60_000) return;
    lastPurge = t;
    const cutoff = new Date(t - policy.windowMs - policy.maxDelayMs);
    await database.db.delete(loginAttempts).where(lt(loginAttempts.lastAt, cutoff));
  };

  return {
    /** Admits one attempt and counts it, or says how long to wait. */
    async admit(username: string, ip: string): Promise<Admission> {
      const t = now();
      await purge(t);
      const keys = attemptKeys(username, ip);
      const date = new Date(t);
      return database.db.transaction(async (tx) => {
        const list = [keys.pair, keys.address, keys.username].sort();
        // Rows are created, then locked, in key order: concurrent attempts queue here instead of racing.
        await tx
          .insert(loginAttempts)
          .values(list.map((key) => ({ key, failures: 0, firstAt: date, lastAt: date, nextAt: date })))
          .onConflictDoNothing();
        const rows = await tx
          .select()
          .from(loginAttempts)
          .where(inArray(loginAttempts.key, list))
          .orderBy(loginAttempts.key)
          .for('update');
        const byKey = new Map(rows.map((r) => [r.key, r]));
        const pair = byKey.get(keys.pair)!;
        const address = byKey.get(keys.address)!;
        const user = byKey.get(keys.username)!;

        const pairFresh = t - pair.lastAt.getTime() > policy.windowMs && pair.nextAt.getTime() <= t;
        const pairFailures = pairFresh ? 0 : pair.failures;
        const addressFresh = t - address.firstAt.getTime() > policy.windowMs;
        const addressFailures = addressFresh ? 0 : address.failures;
        const userFresh = t - user.firstAt.getTime() > policy.windowMs;
        const userFailures = userFresh ? 0 : user.failures;

        let wait = 0;
        if (pairFailures > 0) wait = Math.max(wait, pair.nextAt.getTime() - t);
        if (addressFailures >= policy.addressMaxFailures) {
          wait = Math.max(wait, address.firstAt.getTime() + policy.windowMs - t);
        }
        if (userFailures >= policy.usernameSlowAfter) wait = Math.max(wait, user.nextAt.getTime() - t);
        // Refused attempts are not counted, so waiting out the delay is always enough.
        if (wait > 0) return { ok: false as const, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };

        const f = pairFailures + 1;
        await tx
          .update(loginAttempts)
          .set({
            failures: f,
            firstAt: pairFresh ? date : pair.firstAt,
            lastAt: date,
            nextAt: new Date(t + delayAfter(f)),
          })
          .where(inArray(loginAttempts.key, [keys.pair]));
        await tx
          .update(loginAttempts)
          .set({ failures: addressFailures + 1, firstAt: addressFresh ? date : address.firstAt, lastAt: date })
          .where(inArray(loginAttempts.key, [keys.address]));
        const uf = userFailures + 1;
        await tx
          .update(loginAttempts)
          .set({
            failures: uf,
            firstAt: userFresh ? date : user.firstAt,
            lastAt: date,
            nextAt: new Date(uf >= policy.usernameSlowAfter ? t + policy.delayMs : t),
          })
          .where(inArray(loginAttempts.key, [keys.username]));
        return { ok: true as const, keys };
      });
    },

    /** A success forgets the pair and takes back the attempt counted against the address and the username. */
    async succeed(keys: AttemptKeys) {
      await database.db.transaction(async (tx) => {
        // Same lock order as admit, so the two cannot deadlock.
        await tx
          .select({ key: loginAttempts.key })
          .from(loginAttempts)
          .where(inArray(loginAttempts.key, [keys.pair, keys.address, keys.username]))
          .orderBy(loginAttempts.key)
          .for('update');
        await tx.delete(loginAttempts).where(inArray(loginAttempts.key, [keys.pair]));
        await tx
          .update(loginAttempts)
          .set({ failures: sql`greatest(0, ${loginAttempts.failures} - 1)` })
          .where(inArray(loginAttempts.key, [keys.address, keys.username].sort()));
      });
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

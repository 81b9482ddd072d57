import crypto from 'node:crypto';
import { and, gt, inArray, like, lt, notLike, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { loginAttempts } from '../../db/schema/index.ts';
import { DEVICE_TRUST_MS } from './device-cookie.ts';

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
  /** How long an address or a device stays trusted for a username after a success. Default 90 days. */
  trustMs?: number;
};

export type Admission = { ok: true; keys: AttemptKeys } | { ok: false; retryAfterSeconds: number };
type AttemptKeys = {
  pair: string;
  address: string;
  username: string;
  /** Marks written on success: this address, and this device, signed in as this username. */
  knownAddress: string;
  knownDevice?: string;
  /** How this attempt was trusted, if it was: then it neither spent nor waited for the username's shared pool. */
  trust?: 'device' | 'address';
};

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Usernames are hashed in the keys: people type their password into the username field. */
export function attemptKeys(username: string, ip: string, device?: string): AttemptKeys {
  const u = username.trim().toLowerCase();
  const userKey = `user:${sha(u)}`;
  return {
    pair: `pair:${sha(`${u}\0${ip}`)}`,
    address: `addr:${ip}`,
    username: userKey,
    knownAddress: `known:${sha(`${u}\0${ip}`)}`,
    ...(device ? { knownDevice: deviceKey(userKey, device) } : {}),
  };
}

/** The mark of a device token for a username (its key holds only hashes). */
const deviceKey = (usernameKey: string, device: string) => `dev:${sha(`${usernameKey}\0${device}`)}`;

/** Keys that mark trust, kept for trustMs rather than the window. */
const TRUST_PREFIXES = ['known:', 'dev:'];

/**
 * Counts sign-in attempts in the database, so several API processes share the counts, and counts each attempt
 * BEFORE the password is checked: a concurrent burst cannot slip past the limit while the hashes are verified.
 * Every admitted attempt counts as a failure until `succeed` takes it back. See decision 012.
 */
export function createLoginThrottle(opts: { database: Database; policy: LoginThrottlePolicy; now?: () => number }) {
  const { database, policy } = opts;
  const now = opts.now ?? Date.now;
  const trustMs = policy.trustMs ?? DEVICE_TRUST_MS;
  let lastPurge = 0;

  const delayAfter = (failures: number) =>
    failures < policy.freeAttempts
      ? 0
      : Math.min(policy.maxDelayMs, policy.delayMs * 2 ** Math.min(30, failures - policy.freeAttempts));

  const purge = async (t: number) => {
    if (t - lastPurge < 10 * 60_000) return;
    lastPurge = t;
    const cutoff = new Date(t - policy.windowMs - policy.maxDelayMs);
    const isTrust = or(...TRUST_PREFIXES.map((p) => like(loginAttempts.key, `${p}%`)));
    const isCount = and(...TRUST_PREFIXES.map((p) => notLike(loginAttempts.key, `${p}%`)));
    await database.db
      .delete(loginAttempts)
      .where(
        or(
          and(isCount, lt(loginAttempts.lastAt, cutoff)),
          and(isTrust, lt(loginAttempts.lastAt, new Date(t - trustMs))),
        ),
      );
  };

  return {
    /**
     * Admits one attempt and counts it, or says how long to wait. `device` is the device token the browser sent:
     * a device, or an address, that signed in as this username before has its own count and never meets the
     * username's shared pool, so failures from elsewhere cannot keep the real user out (issue 26).
     */
    async admit(username: string, ip: string, device?: string): Promise<Admission> {
      const t = now();
      await purge(t);
      const keys = attemptKeys(username, ip, device);
      const date = new Date(t);
      return database.db.transaction(async (tx) => {
        const marks = await tx
          .select({ key: loginAttempts.key })
          .from(loginAttempts)
          .where(
            and(
              inArray(loginAttempts.key, [keys.knownAddress, ...(keys.knownDevice ? [keys.knownDevice] : [])]),
              gt(loginAttempts.lastAt, new Date(t - trustMs)),
            ),
          );
        const found = new Set(marks.map((m) => m.key));
        if (keys.knownDevice && found.has(keys.knownDevice)) {
          keys.trust = 'device';
          // The device's own count, wherever it signs in from.
          keys.pair = `dpair:${keys.knownDevice.slice(4)}`;
        } else if (found.has(keys.knownAddress)) keys.trust = 'address';
        // A trusted attempt is not counted in the username's pool: it is not the attack the pool slows.
        const list = [keys.pair, keys.address, ...(keys.trust ? [] : [keys.username])].sort();
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
        const user = byKey.get(keys.username);

        const pairFresh = t - pair.lastAt.getTime() > policy.windowMs && pair.nextAt.getTime() <= t;
        const pairFailures = pairFresh ? 0 : pair.failures;
        const addressFresh = t - address.firstAt.getTime() > policy.windowMs;
        const addressFailures = addressFresh ? 0 : address.failures;
        const userFresh = !user || t - user.firstAt.getTime() > policy.windowMs;
        const userFailures = userFresh ? 0 : user.failures;

        let wait = 0;
        if (pairFailures > 0) wait = Math.max(wait, pair.nextAt.getTime() - t);
        // A trusted device has its own count; others share the address's limit across usernames.
        if (keys.trust !== 'device' && addressFailures >= policy.addressMaxFailures) {
          wait = Math.max(wait, address.firstAt.getTime() + policy.windowMs - t);
        }
        if (user && userFailures >= policy.usernameSlowAfter) wait = Math.max(wait, user.nextAt.getTime() - t);
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
        if (user) {
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
        }
        return { ok: true as const, keys };
      });
    },

    /**
     * A success forgets the pair and takes back the attempt counted against the address and the username. It
     * marks this address, and the device token the browser will hold (`device`), as known for the username.
     */
    async succeed(keys: AttemptKeys, device?: string) {
      const counted = [keys.pair, keys.address, ...(keys.trust ? [] : [keys.username])];
      // The two-factor steps have no device token of their own: they mark the address only.
      const known = [keys.knownAddress, ...(device ? [deviceKey(keys.username, device)] : [])];
      const date = new Date(now());
      await database.db.transaction(async (tx) => {
        // Same lock order as admit, so the two cannot deadlock.
        await tx
          .select({ key: loginAttempts.key })
          .from(loginAttempts)
          .where(inArray(loginAttempts.key, counted))
          .orderBy(loginAttempts.key)
          .for('update');
        await tx.delete(loginAttempts).where(inArray(loginAttempts.key, [keys.pair]));
        await tx
          .update(loginAttempts)
          .set({ failures: sql`greatest(0, ${loginAttempts.failures} - 1)` })
          .where(inArray(loginAttempts.key, counted.filter((k) => k !== keys.pair).sort()));
        await tx
          .insert(loginAttempts)
          .values(known.sort().map((key) => ({ key, failures: 0, firstAt: date, lastAt: date, nextAt: date })))
          .onConflictDoUpdate({ target: loginAttempts.key, set: { lastAt: date } });
      });
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

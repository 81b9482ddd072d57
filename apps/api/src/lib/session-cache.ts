import { sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.ts';

/** How long a checked session is served from memory; any change that can end a session clears it at once. */
export const SESSION_CACHE_TTL_MS = 5_000;
const SESSION_CACHE_MAX = 10_000;

export type CachedSession = {
  sessionId: string;
  userId: string;
  username: string;
  rules: string[];
  lastUsedAt: Date;
  expiresAt: Date;
  twoFactorSetup: boolean;
};

/**
 * The session check of every request, served from memory for a few seconds (issue 15). Correctness comes
 * from invalidation, never from the time limit alone:
 * - this process clears it after its own revocations, deactivations, password and role changes commit
 *   (`sessionsChanged`), so the very next request is checked against the database;
 * - every process clears it on NOTIFY fd_auth, sent at commit by triggers on sessions, users, user_roles and
 *   roles (migration 0013), whoever wrote;
 * - while the listening connection is down nothing is served from memory.
 * An entry read from the database before a clear is not stored after it (the generation moved), so a check
 * that raced a revocation cannot bring the old state back.
 */
export class SessionCache {
  private gen = 0;
  private up = false;
  private entries = new Map<string, { s: CachedSession; gen: number; at: number }>();
  private listening: Promise<void> | undefined;
  private stop: (() => Promise<void>) | undefined;
  private waiting = new Map<string, () => void>();

  constructor(private readonly database: Database) {}

  /** Starts listening (once); until the listener is up, nothing is cached. */
  start(): void {
    this.listening ??= this.database
      .listen(
        'fd_auth',
        (payload) => {
          this.invalidate();
          this.waiting.get(payload)?.();
        },
        (up) => {
          this.up = up;
          this.invalidate();
        },
      )
      .then(
        (stop) => {
          this.stop = stop;
        },
        () => {
          this.listening = undefined;
        },
      );
  }

  get(tokenHash: string, now = Date.now()): CachedSession | undefined {
    const e = this.entries.get(tokenHash);
    if (!e) return undefined;
    if (!this.up || e.gen !== this.gen || now - e.at > SESSION_CACHE_TTL_MS) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return e.s;
  }

  /** Read before the database check; `set` stores the result only if nothing was cleared meanwhile. */
  generation(): number {
    return this.gen;
  }

  set(tokenHash: string, s: CachedSession, gen: number, now = Date.now()): void {
    if (!this.up || gen !== this.gen) return;
    if (this.entries.size >= SESSION_CACHE_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(tokenHash, { s, gen, at: now });
  }

  invalidate(): void {
    this.gen++;
    this.entries.clear();
  }

  /**
   * Resolves once every change committed before the call has reached this process: NOTIFYs arrive in commit
   * order, so receiving a marker sent now means the earlier ones were handled. For tests that write the
   * tables directly, as another process would. Rejects after `timeoutMs`.
   */
  async sync(timeoutMs = 5_000): Promise<void> {
    this.start();
    await this.listening;
    const marker = `sync:${Math.random().toString(36).slice(2)}`;
    const got = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fd_auth notification did not arrive')), timeoutMs);
      this.waiting.set(marker, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      await this.database.db.execute(sql`select pg_notify('fd_auth', ${marker})`);
      await got;
    } finally {
      this.waiting.delete(marker);
    }
  }

  async close(): Promise<void> {
    await this.listening;
    await this.stop?.();
    this.up = false;
    this.invalidate();
  }
}

const caches = new WeakMap<Db, SessionCache>();

/** The one session cache of a database connection (pool or PGlite). */
export function sessionCacheOf(database: Database): SessionCache {
  let c = caches.get(database.db);
  if (!c) caches.set(database.db, (c = new SessionCache(database)));
  return c;
}

/** Call after a transaction that revoked sessions or changed a user's status, password or roles has committed. */
export const sessionsChanged = (database: Database) => caches.get(database.db)?.invalidate();

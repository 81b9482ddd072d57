import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { ConflictError } from '../../http/errors.ts';
import { createKeyedQueue } from '../../lib/keyed-queue.ts';

export const ZONE_LOCK_TEXT = {
  busy: 'Another push to this zone is still running; try again in a moment',
} as const;

export interface ZoneLocks {
  /** Runs `fn` while no other holder of `key` runs, in this process and (on PostgreSQL) in any other. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * Per-zone mutual exclusion for read-modify-write pushes (decision 015).
 *
 * In the process, holders of a key queue one behind the other. On PostgreSQL the holder also takes a
 * transaction-scoped advisory lock keyed by the key's hash, so API processes sharing the database queue too;
 * the wait there is bounded by lock_timeout and answers 409. PGlite lives in one process, so the in-process
 * queue is all it needs (and a PGlite transaction would block every other query meanwhile).
 * `fn` must not use the database: on PostgreSQL it runs while the lock's transaction holds a pool connection.
 */
export function createZoneLocks(
  database: Pick<Database, 'db' | 'driver'> | null,
  opts: { waitMs?: number } = {},
): ZoneLocks {
  const waitMs = Math.max(1, Math.floor(opts.waitMs ?? 60_000));
  const local = createKeyedQueue().run;

  return {
    run(key, fn) {
      return local(key, async () => {
        if (!database || database.driver !== 'postgres') return fn();
        try {
          return await database.db.transaction(async (tx) => {
            await tx.execute(sql`select set_config('lock_timeout', ${`${waitMs}ms`}, true)`);
            await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
            return fn();
          });
        } catch (err) {
          // 55P03 lock_not_available: another process held the zone for longer than waitMs.
          if (
            (err as { code?: unknown }).code === '55P03' ||
            (err as { cause?: { code?: unknown } }).cause?.code === '55P03'
          ) {
            throw new ConflictError(ZONE_LOCK_TEXT.busy, undefined, 'zone_push_busy');
          }
          throw err;
        }
      });
    },
  };
}

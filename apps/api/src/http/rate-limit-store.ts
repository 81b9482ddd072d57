import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';

type Hit = { current: number; ttl: number };
type Callback = (err: Error | null, res?: Hit) => void;

/** The rate-limit counters' SQL: one upsert per counted request, a fixed window per key. */
export function createRateLimitRepository(database: Database) {
  const { db } = database;
  const rows = (r: unknown) => (r as { rows: Record<string, unknown>[] }).rows;
  return {
    async hit(key: string, windowMs: number): Promise<Hit> {
      const r = await db.execute(sql`
        insert into rate_limit_hits (key, hits, reset_at)
        values (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}))
        on conflict (key) do update set
          hits = case when rate_limit_hits.reset_at <= now() then 1 else rate_limit_hits.hits + 1 end,
          reset_at = case when rate_limit_hits.reset_at <= now()
            then now() + make_interval(secs => ${windowMs / 1000}) else rate_limit_hits.reset_at end
        returning hits, greatest(0, extract(epoch from (reset_at - now())) * 1000)::float8 as ttl`);
      const row = rows(r)[0]!;
      return { current: Number(row.hits), ttl: Math.ceil(Number(row.ttl)) };
    },
    async read(key: string): Promise<Hit> {
      const r = await db.execute(sql`
        select hits, greatest(0, extract(epoch from (reset_at - now())) * 1000)::float8 as ttl
        from rate_limit_hits where key = ${key} and reset_at > now()`);
      const row = rows(r)[0];
      return row ? { current: Number(row.hits), ttl: Math.ceil(Number(row.ttl)) } : { current: 0, ttl: 0 };
    },
    /** Drops windows that ended; bounded so one sweep never holds the table long. */
    async sweep() {
      await db.execute(sql`
        delete from rate_limit_hits where key in (
          select key from rate_limit_hits where reset_at < now() - interval '1 minute' limit 5000)`);
    },
  };
}

/**
 * A @fastify/rate-limit store on the database, so that several API processes behind one address count the
 * same requests (decision 036). Keys are hashed: addresses and user ids are not stored in clear.
 */
export function databaseRateLimitStore(database: Database) {
  const repo = createRateLimitRepository(database);
  const keyOf = (k: string) => crypto.createHash('sha256').update(k).digest('base64url');
  const sweeper = setInterval(() => void repo.sweep().catch(() => undefined), 60_000);
  sweeper.unref();
  class DatabaseRateLimitStore {
    incr(key: string, cb: Callback, timeWindow: number) {
      repo.hit(keyOf(key), timeWindow).then((h) => cb(null, h), cb);
    }
    read(key: string, cb: Callback) {
      repo.read(keyOf(key)).then((h) => cb(null, h), cb);
    }
    child() {
      return this;
    }
  }
  return { Store: DatabaseRateLimitStore, close: () => clearInterval(sweeper), repo };
}

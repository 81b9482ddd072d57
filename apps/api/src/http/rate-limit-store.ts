import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';

type Hit = { current: number; ttl: number };
type Callback = (err: Error | null, res?: Hit) => void;
type Counted = { key: string; hits: number; ttl: number };

/** The rate-limit counters' SQL: one upsert counts hits of many keys, a fixed window per key. */
export function createRateLimitRepository(database: Database) {
  const { db } = database;
  const rows = (r: unknown) => (r as { rows: Record<string, unknown>[] }).rows;
  return {
    /**
     * Adds `n` hits to each key (its window starting now when the last one has ended) and returns the new counts.
     * Keys are written in one order, so two processes counting the same keys never deadlock.
     */
    async hitMany(batch: { key: string; n: number; windowMs: number }[]): Promise<Counted[]> {
      if (!batch.length) return [];
      const sorted = [...batch].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      // Keys are base64url hashes: nothing in them needs quoting inside an array literal.
      const keys = `{${sorted.map((b) => b.key).join(',')}}`;
      const ns = `{${sorted.map((b) => Math.max(1, Math.floor(b.n))).join(',')}}`;
      const windows = `{${sorted.map((b) => b.windowMs / 1000).join(',')}}`;
      const r = await db.execute(sql`
        insert into rate_limit_hits (key, hits, reset_at)
        select t.k, t.n, now() + make_interval(secs => t.w)
        from unnest(${keys}::text[], ${ns}::int[], ${windows}::float8[]) with ordinality as t(k, n, w, i)
        order by t.i
        on conflict (key) do update set
          hits = case when rate_limit_hits.reset_at <= now() then excluded.hits
            else rate_limit_hits.hits + excluded.hits end,
          reset_at = case when rate_limit_hits.reset_at <= now() then excluded.reset_at
            else rate_limit_hits.reset_at end
        returning key, hits, greatest(0, extract(epoch from (reset_at - now())) * 1000)::float8 as ttl`);
      return rows(r).map((x) => ({
        key: String(x.key),
        hits: Number(x.hits),
        ttl: Math.ceil(Number(x.ttl)),
      }));
    },
    async hit(key: string, windowMs: number): Promise<Hit> {
      const [c] = await this.hitMany([{ key, n: 1, windowMs }]);
      return { current: c!.hits, ttl: c!.ttl };
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

export type RateLimitStoreOptions = {
  /** How long a hit far from its limit may wait before the database counts it. */
  flushMs?: number;
  /** From this share of the limit on, every hit is counted in the database before it is answered. */
  exactFrom?: number;
  /** Keys followed in memory at once; past that, hits are counted one by one. */
  maxKeys?: number;
};

type Entry = {
  hashed: string;
  windowMs: number;
  /** The database's count when it last answered for this key. */
  known: number;
  /** Hits answered here and not yet sent, and sent but not yet acknowledged. */
  pending: number;
  inflight: number;
  resetAt: number;
  syncedAt: number;
};

/**
 * A @fastify/rate-limit store on the database, so that several API processes behind one address count the
 * same requests (decision 036). Keys are hashed: addresses and user ids are not stored in clear.
 *
 * Counting every request with its own write cost more than the list it guarded (issue 15: every request
 * queued on the same counter row), so hits are counted in two ways (decision 038):
 * - far from the limit, a hit is answered at once and counted with every other waiting hit in one statement
 *   at most `flushMs` later;
 * - near the limit (from `exactFrom` of it), for a key not seen here before, in a new window or not heard of for
 *   a second, the hit is counted in the database first and answered with its count, so the limit itself is
 *   exact across processes.
 */
export function databaseRateLimitStore(database: Database, opts: RateLimitStoreOptions = {}) {
  const flushMs = opts.flushMs ?? 100;
  const exactFrom = opts.exactFrom ?? 0.5;
  const maxKeys = opts.maxKeys ?? 50_000;
  const staleMs = Math.max(1000, flushMs * 10);
  const repo = createRateLimitRepository(database);
  const keyOf = (k: string) => crypto.createHash('sha256').update(k).digest('base64url');
  const entries = new Map<string, Entry>();
  const sweeper = setInterval(() => void repo.sweep().catch(() => undefined), 60_000);
  sweeper.unref();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const settle = (e: Entry, n: number, c: Counted | undefined) => {
    e.inflight -= n;
    if (!c) return;
    e.known = c.hits;
    e.resetAt = Date.now() + c.ttl;
    e.syncedAt = Date.now();
  };

  const flush = async () => {
    timer = undefined;
    const batch: [Entry, number][] = [];
    for (const e of entries.values()) {
      if (!e.pending) continue;
      batch.push([e, e.pending]);
      e.inflight += e.pending;
      e.pending = 0;
    }
    if (!batch.length) return;
    try {
      const counted = await repo.hitMany(batch.map(([e, n]) => ({ key: e.hashed, n, windowMs: e.windowMs })));
      const byKey = new Map(counted.map((c) => [c.key, c]));
      for (const [e, n] of batch) settle(e, n, byKey.get(e.hashed));
    } catch {
      // Counting fails open for hits far from the limit; the next exact hit asks the database again.
      for (const [e, n] of batch) settle(e, n, undefined);
    }
  };
  const schedule = () => {
    if (!timer && !closed) (timer = setTimeout(() => void flush(), flushMs)).unref();
  };

  /** Room for one more key: ended windows with nothing waiting go first. */
  const room = (now: number) => {
    if (entries.size < maxKeys) return true;
    for (const [k, e] of entries) if (e.resetAt <= now && !e.pending && !e.inflight) entries.delete(k);
    return entries.size < maxKeys;
  };

  class DatabaseRateLimitStore {
    incr(key: string, cb: Callback, timeWindow: number, max: number) {
      const now = Date.now();
      let e = entries.get(key);
      if (!e) {
        if (!room(now)) {
          repo.hit(keyOf(key), timeWindow).then((h) => cb(null, h), cb);
          return;
        }
        e = { hashed: keyOf(key), windowMs: timeWindow, known: 0, pending: 0, inflight: 0, resetAt: 0, syncedAt: 0 };
        entries.set(key, e);
      }
      const estimate = e.known + e.pending + e.inflight + 1;
      if (e.resetAt <= now || now - e.syncedAt > staleMs || estimate >= max * exactFrom) {
        const entry = e;
        const n = entry.pending + 1;
        entry.pending = 0;
        entry.inflight += n;
        repo.hitMany([{ key: entry.hashed, n, windowMs: timeWindow }]).then(
          ([c]) => {
            settle(entry, n, c);
            cb(null, { current: c!.hits, ttl: c!.ttl });
          },
          (err: Error) => {
            settle(entry, n, undefined);
            cb(err);
          },
        );
        return;
      }
      e.pending++;
      schedule();
      cb(null, { current: estimate, ttl: Math.max(0, e.resetAt - now) });
    }
    read(key: string, cb: Callback) {
      const e = entries.get(key);
      repo.read(e?.hashed ?? keyOf(key)).then((h) => cb(null, { ...h, current: h.current + (e?.pending ?? 0) }), cb);
    }
    child() {
      return this;
    }
  }
  return {
    Store: DatabaseRateLimitStore,
    /** Sends the hits still waiting, then stops. */
    close: async () => {
      closed = true;
      clearInterval(sweeper);
      if (timer) clearTimeout(timer);
      await flush();
    },
    flush,
    repo,
  };
}

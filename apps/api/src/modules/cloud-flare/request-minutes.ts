import { and, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { cloudflareRequestsPerMinute as t } from '../../db/schema/index.ts';

/** How long the per-minute counts are kept. */
const KEEP_MS = 7 * 24 * 3_600_000;
/** How often a process writes what it counted. */
const FLUSH_MS = 5000;

/**
 * Cloudflare requests sent per account key and minute (issue 47: a fleet run's budget chart). Each process counts
 * in memory and adds its counts to the table every few seconds, so the chart sums every API process and worker;
 * a count not yet written when a process dies is lost, which a chart can bear.
 */
export function createRequestMinutes(db: Db, o: { flushMs?: number } = {}) {
  let pending = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (!pending.size) return flushing;
    const rows = [...pending].map(([k, n]) => {
      const [key, minute] = k.split('|') as [string, string];
      return { key, minute: new Date(Number(minute)), n };
    });
    pending = new Map();
    flushing = flushing
      .then(async () => {
        await db
          .insert(t)
          .values(rows)
          .onConflictDoUpdate({ target: [t.key, t.minute], set: { n: sql`${t.n} + excluded.n` } });
        // A week is kept; the prune rides on a write, rarely.
        if (Math.random() < 0.02) await db.delete(t).where(lt(t.minute, new Date(Date.now() - KEEP_MS)));
      })
      .catch(() => undefined);
    return flushing;
  };
  const timer = setInterval(() => void flush(), o.flushMs ?? FLUSH_MS);
  timer.unref();
  return {
    /** One request sent with the credentials of `key`, now. */
    sent(key: string) {
      const k = `${key}|${Math.floor(Date.now() / 60_000) * 60_000}`;
      pending.set(k, (pending.get(k) ?? 0) + 1);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    /** The counts of these keys per minute from `from` (inclusive) to `to` (exclusive). */
    async read(keys: string[], from: Date, to: Date) {
      if (!keys.length) return [];
      await flush();
      return db
        .select()
        .from(t)
        .where(and(inArray(t.key, keys), gte(t.minute, from), lt(t.minute, to)));
    },
  };
}
export type RequestMinutes = ReturnType<typeof createRequestMinutes>;

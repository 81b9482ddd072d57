import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { createTestDatabase } from '../test/harness.ts';
import { databaseRateLimitStore } from './rate-limit-store.ts';

type Hit = { current: number; ttl: number };
type Store = InstanceType<ReturnType<typeof databaseRateLimitStore>['Store']>;

const incr = (s: Store, key: string, max: number, windowMs = 60_000) =>
  new Promise<Hit>((resolve, reject) => s.incr(key, (err, h) => (err ? reject(err) : resolve(h!)), windowMs, max));

describe('database rate-limit store (batched far from the limit, exact near it)', () => {
  let database: Database;
  let drop: () => Promise<void>;
  const stores: ReturnType<typeof databaseRateLimitStore>[] = [];
  const open = (opts: Parameters<typeof databaseRateLimitStore>[1] = {}) => {
    const s = databaseRateLimitStore(database, { flushMs: 20, ...opts });
    stores.push(s);
    return s;
  };
  const stored = async () => {
    const r = await database.db.execute(sql`select coalesce(sum(hits), 0)::int as n from rate_limit_hits`);
    return Number((r as unknown as { rows: { n: number }[] }).rows[0]!.n);
  };

  beforeAll(async () => {
    ({ database, drop } = await createTestDatabase());
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await drop();
  });

  it('answers hits far from the limit without a write each, and the database counts every one of them', async () => {
    await database.exec('truncate rate_limit_hits');
    const s = open({ flushMs: 60_000 });
    const store = new s.Store();
    const answers: Hit[] = [];
    for (let i = 0; i < 50; i++) answers.push(await incr(store, 'u:far', 1000));
    // The first hit of a key is counted in the database; the next ones are answered from memory.
    expect(answers.map((a) => a.current)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(answers.every((a) => a.ttl > 0 && a.ttl <= 60_000)).toBe(true);
    expect(await stored()).toBe(1);
    await s.flush();
    expect(await stored()).toBe(50);
  });

  it('holds the limit exactly across two processes however the requests are spread', async () => {
    await database.exec('truncate rate_limit_hits');
    const a = new (open().Store)();
    const b = new (open().Store)();
    const max = 20;
    const counts: number[] = [];
    for (let i = 0; i < 30; i++) counts.push((await incr(i % 2 ? b : a, 'u:spread', max)).current);
    // Near the limit every hit is counted in the database first: the 21st is the first over the limit.
    expect(counts.filter((n) => n <= max)).toHaveLength(max);
    expect(counts.slice(max)).toEqual(Array.from({ length: 10 }, (_, i) => max + 1 + i));
  });

  it('lets a process answer from memory only up to half the limit before the database tells it the whole count', async () => {
    await database.exec('truncate rate_limit_hits');
    const sa = open();
    const a = new sa.Store();
    const b = new (open().Store)();
    await incr(b, 'u:shared', 100);
    for (let i = 0; i < 60; i++) await incr(a, 'u:shared', 100);
    await sa.flush();
    // b has heard only of its own hit: it answers from memory until its own estimate reaches half the limit
    // (in service its flush, every flushMs, would have told it sooner), then counts in the database.
    for (let i = 0; i < 48; i++) expect((await incr(b, 'u:shared', 100)).current).toBeLessThan(50);
    expect((await incr(b, 'u:shared', 100)).current).toBe(110);
    expect((await incr(a, 'u:shared', 100)).current).toBe(111);
  });

  it('counts many keys in one statement and starts a new window when the last one ended', async () => {
    await database.exec('truncate rate_limit_hits');
    const s = open();
    const store = new s.Store();
    for (const k of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) await incr(store, `k:${k}`, 1000, 300);
    await s.flush();
    expect(await stored()).toBe(9);
    await new Promise((r) => setTimeout(r, 350));
    expect((await incr(store, 'k:a', 1000, 300)).current).toBe(1);
  });

  it('keeps at most maxKeys keys in memory, counting the rest one by one', async () => {
    await database.exec('truncate rate_limit_hits');
    const s = open({ maxKeys: 2 });
    const store = new s.Store();
    for (const k of ['x', 'y', 'z']) {
      await incr(store, k, 1000);
      await incr(store, k, 1000);
    }
    await s.flush();
    expect(await stored()).toBe(6);
    expect((await incr(store, 'z', 1000)).current).toBe(3);
  });

  it('stores no key in clear', async () => {
    await database.exec('truncate rate_limit_hits');
    const s = open();
    await incr(new s.Store(), 'a:203.0.113.9', 10);
    const r = await database.db.execute(sql`select key from rate_limit_hits`);
    const keys = (r as unknown as { rows: { key: string }[] }).rows.map((x) => x.key);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('203.0.113.9');
  });
});

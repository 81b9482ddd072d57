import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { createTestDatabase } from '../../test/harness.ts';
import {
  createBudgetLanes,
  createRequestBudget,
  createSharedRequestBudget,
  type RequestBudget,
  type RequestBudgetOptions,
} from './request-budget.ts';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
}, 60_000);
afterAll(async () => drop?.());

// The same rules hold in one process and shared through the database (decision 034).
const kinds: [string, (o: RequestBudgetOptions) => RequestBudget][] = [
  ['in memory', (o) => createRequestBudget(o)],
  ['shared through the database', (o) => createSharedRequestBudget(database, o)],
];

describe.each(kinds)('request budget shares (decision 015), %s', (_name, make) => {
  const clock = () => {
    let t = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };
  let n = 0;
  const key = () => `cloud-${++n}-${Math.random()}`;

  it('one operator cannot spend the whole window: another still gets the rest', async () => {
    const c = clock();
    const k = key();
    const budget = make({ requests: 10, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 5; i++) expect(await budget.take(k, { owner: 'alice' })).toEqual({ ok: true });
    expect(await budget.take(k, { owner: 'alice' })).toMatchObject({ ok: false, reason: 'owner_share' });
    for (let i = 0; i < 5; i++) expect((await budget.take(k, { owner: 'bob' })).ok).toBe(true);
    expect(await budget.take(k, { owner: 'carol' })).toMatchObject({ ok: false, reason: 'window' });
    // Alice's first request leaves the window first; then she may spend again.
    c.advance(60_001);
    expect((await budget.take(k, { owner: 'alice' })).ok).toBe(true);
  });

  it('background calls cannot use the share reserved for interactive ones', async () => {
    const c = clock();
    const k = key();
    const budget = make({ requests: 10, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 7; i++) expect((await budget.take(k, { priority: 'background' })).ok).toBe(true);
    const refused = await budget.take(k, { priority: 'background' });
    expect(refused).toMatchObject({ ok: false, reason: 'background_share' });
    if (!refused.ok) expect(refused.retryAfterMs).toBe(60_000);
    // The reserved 30 % is still there for operators.
    for (let i = 0; i < 3; i++)
      expect((await budget.take(k, { priority: 'interactive', owner: 'alice' })).ok).toBe(true);
    expect(await budget.take(k, { owner: 'bob' })).toMatchObject({ ok: false, reason: 'window' });
  });

  it('keeps keys apart, and calls without an owner are capped only by the window', async () => {
    const budget = make({ requests: 4, windowMs: 60_000, interactiveReserve: 0.5, ownerShare: 1 });
    const [a, b] = [key(), key()];
    for (let i = 0; i < 4; i++) expect((await budget.take(a)).ok).toBe(true);
    expect((await budget.take(a)).ok).toBe(false);
    expect((await budget.take(b, { priority: 'background' })).ok).toBe(true);
    expect((await budget.take(b, { priority: 'background' })).ok).toBe(true);
    expect((await budget.take(b, { priority: 'background' })).ok).toBe(false);
  });

  it('a margin keeps requests counted a little longer than the window', async () => {
    const c = clock();
    const k = key();
    const budget = make({ requests: 1, windowMs: 1000, marginMs: 100, now: c.now });
    expect((await budget.take(k)).ok).toBe(true);
    c.advance(1050);
    expect(await budget.take(k)).toMatchObject({ ok: false, retryAfterMs: 50 });
    c.advance(51);
    expect((await budget.take(k)).ok).toBe(true);
  });
});

describe.each(kinds)('a lane of background calls (decision 054), %s', (_name, make) => {
  const REQUESTS = 20;
  const WINDOW = 1000;
  const MARGIN = 50;
  const SPAN = WINDOW + MARGIN;
  const LIMIT = 18; // 90 % of 20: the rest is kept for operators

  /** A fake clock that only the lane's sleeps move; every take counted. */
  const setup = () => {
    let t = 5_000_000 + Math.floor(Math.random() * 1_000_000);
    const now = () => t;
    const inner = make({ requests: REQUESTS, windowMs: WINDOW, interactiveReserve: 0.1, marginMs: MARGIN, now });
    const asked = { n: 0 };
    const budget: RequestBudget = {
      take: (k, o) => {
        asked.n++;
        return inner.take(k, o);
      },
      left: (k) => inner.left(k),
    };
    const lanes = createBudgetLanes(budget, {
      now,
      sleep: async (ms) => {
        t += ms;
      },
    });
    return { now, budget, lanes, asked };
  };
  const mostInAnySpan = (sent: number[]) => {
    const s = [...sent].sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < s.length; i++) {
      while (s[j]! <= s[i]! - SPAN) j++;
      most = Math.max(most, i - j + 1);
    }
    return most;
  };

  it('fills each window up to the background ceiling and never past it, with everyone asking at once', async () => {
    const { now, lanes, asked, budget } = setup();
    const k = `lane-${Math.random()}`;
    const start = now();
    const sent: number[] = [];
    const answers = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const a = await lanes.take(k, { priority: 'background', waitMs: 10 * SPAN });
        if (a.ok) sent.push(now());
        return a.ok;
      }),
    );
    expect(answers.every(Boolean)).toBe(true);
    expect(mostInAnySpan(sent)).toBe(LIMIT);
    // Each slot is taken the moment it frees: 18 at once, then 18 more as each span ends.
    for (let w = 0; w < 5; w++) expect(sent.filter((x) => x === start + w * SPAN)).toHaveLength(LIMIT);
    expect(sent.filter((x) => x === start + 5 * SPAN)).toHaveLength(100 - 5 * LIMIT);
    // One ask per slot and one per sleep, not one per waiting caller per freed slot.
    expect(asked.n).toBeLessThanOrEqual(100 + 6);
    // The operators' share is still free while the lane is full.
    expect((await budget.take(k, { priority: 'interactive', owner: 'alice' })).ok).toBe(true);
  });

  it('a caller whose wait, its time in line included, would pass its bound is refused, not sent late', async () => {
    const { lanes } = setup();
    const k = `lane-${Math.random()}`;
    const answers = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () => lanes.take(k, { priority: 'background', waitMs: SPAN + 10 })),
    );
    // The first window's and the second's; the third's would be two spans away.
    expect(answers.filter((a) => a.ok)).toHaveLength(2 * LIMIT);
    expect(answers.slice(2 * LIMIT).every((a) => !a.ok && a.reason === 'background_share')).toBe(true);
  });

  it('interactive calls do not queue behind background ones', async () => {
    const { lanes } = setup();
    const k = `lane-${Math.random()}`;
    for (let i = 0; i < LIMIT; i++) await lanes.take(k, { priority: 'background', waitMs: 10 * SPAN });
    const waiting = lanes.take(k, { priority: 'background', waitMs: 10 * SPAN });
    expect((await lanes.take(k, { priority: 'interactive', owner: 'bob' })).ok).toBe(true);
    expect((await waiting).ok).toBe(true);
  });

  it('near the ceiling each slot is its own ask, as it leaves', async () => {
    const { now, lanes, asked } = setup();
    const k = `lane-${Math.random()}`;
    const sent: number[] = [];
    await Promise.all(
      Array.from({ length: 2 * LIMIT }, async () => {
        if ((await lanes.take(k, { priority: 'background', waitMs: 10 * SPAN })).ok) sent.push(now());
      }),
    );
    expect(mostInAnySpan(sent)).toBe(LIMIT);
    // 36 callers in line would not leave the window half free: one slot per ask (and one ask per sleep).
    expect(asked.n).toBeGreaterThanOrEqual(2 * LIMIT);
  });

  it("an ask for many gets them while the window stays half free, else one; an owner's count too", async () => {
    const { budget } = setup();
    const k = `many-${Math.random()}`;
    // 20 a window, 18 for background work: 5 leave it under half of 18.
    expect(await budget.take(k, { priority: 'background', upTo: 5 })).toEqual({ ok: true, granted: 5 });
    expect(await budget.take(k, { priority: 'background', upTo: 5 })).toEqual({ ok: true, granted: 1 });
    // 6 in the window: 3 more leave it under half of 20, and carol under half of her 10.
    expect(await budget.take(k, { priority: 'interactive', owner: 'carol', upTo: 3 })).toEqual({
      ok: true,
      granted: 3,
    });
    expect(await budget.take(k, { priority: 'interactive', owner: 'carol', upTo: 3 })).toEqual({
      ok: true,
      granted: 1,
    });
  });
});

describe.each(kinds)('a busy lane far from its ceiling (issue 48), %s', (_name, make) => {
  it('one ask serves every caller in line', async () => {
    const t = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    const inner = make({ requests: 1000, windowMs: 1000, interactiveReserve: 0.1, now: () => t });
    let asked = 0;
    const lanes = createBudgetLanes(
      { take: (key, o) => (asked++, inner.take(key, o)), left: (key) => inner.left(key) },
      { now: () => t, sleep: async () => undefined },
    );
    const k = `busy-${Math.random()}`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => lanes.take(k, { priority: 'background', waitMs: 5000 })),
    );
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(asked).toBe(1);
    // All 30 are counted: the window has 970 left.
    expect(await inner.left(k)).toBe(970);
  });
});

describe('the shared budget', () => {
  it('two budgets over one database (two processes) together never pass the window', async () => {
    const k = `shared-${Math.random()}`;
    const opts = { requests: 20, windowMs: 60_000, interactiveReserve: 0.1 };
    const [one, two] = [createSharedRequestBudget(database, opts), createSharedRequestBudget(database, opts)];
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).take(k, { priority: 'background' })),
    );
    // 90 % of 20 for background work, whoever asks.
    expect(answers.filter((a) => a.ok)).toHaveLength(18);
    // Operators still get the reserved share.
    expect((await one.take(k, { owner: 'alice' })).ok).toBe(true);
    expect((await two.take(k, { owner: 'bob' })).ok).toBe(true);
    expect((await one.take(k, { owner: 'carol' })).ok).toBe(false);
    const rows = await database.db.execute(
      sql`select count(*)::int as n from cloudflare_budget_spend where key = ${k}`,
    );
    expect(Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n)).toBe(20);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { createTestDatabase } from '../../test/harness.ts';
import {
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

import { describe, expect, it } from 'vitest';
import { createRequestBudget } from './request-budget.ts';

describe('request budget shares (decision 015)', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('one operator cannot spend the whole window: another still gets the rest', () => {
    const c = clock();
    const budget = createRequestBudget({ requests: 10, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 5; i++) expect(budget.take('cloud', { owner: 'alice' })).toEqual({ ok: true });
    const refused = budget.take('cloud', { owner: 'alice' });
    expect(refused).toMatchObject({ ok: false, reason: 'owner_share' });
    for (let i = 0; i < 5; i++) expect(budget.take('cloud', { owner: 'bob' }).ok).toBe(true);
    expect(budget.take('cloud', { owner: 'carol' })).toMatchObject({ ok: false, reason: 'window' });
    // Alice's first request leaves the window first; then she may spend again.
    c.advance(60_001);
    expect(budget.take('cloud', { owner: 'alice' }).ok).toBe(true);
  });

  it('background calls cannot use the share reserved for interactive ones', () => {
    const c = clock();
    const budget = createRequestBudget({ requests: 10, windowMs: 60_000, now: c.now });
    for (let i = 0; i < 7; i++) expect(budget.take('cloud', { priority: 'background' }).ok).toBe(true);
    const refused = budget.take('cloud', { priority: 'background' });
    expect(refused).toMatchObject({ ok: false, reason: 'background_share' });
    if (!refused.ok) expect(refused.retryAfterMs).toBe(60_000);
    // The reserved 30 % is still there for operators.
    for (let i = 0; i < 3; i++) expect(budget.take('cloud', { priority: 'interactive', owner: 'alice' }).ok).toBe(true);
    expect(budget.take('cloud', { owner: 'bob' })).toMatchObject({ ok: false, reason: 'window' });
  });

  it('keeps keys apart, and calls without an owner are capped only by the window', () => {
    const budget = createRequestBudget({ requests: 4, windowMs: 60_000, interactiveReserve: 0.5, ownerShare: 1 });
    for (let i = 0; i < 4; i++) expect(budget.take('a').ok).toBe(true);
    expect(budget.take('a').ok).toBe(false);
    expect(budget.take('b', { priority: 'background' }).ok).toBe(true);
    expect(budget.take('b', { priority: 'background' }).ok).toBe(true);
    expect(budget.take('b', { priority: 'background' }).ok).toBe(false);
  });
});

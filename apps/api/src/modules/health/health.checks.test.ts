import { describe, expect, it } from 'vitest';
import type { Domain } from '@fleetdesk/contract';
import { createHealthChecks, type CheckDeps } from './health.checks.ts';

// The "Traffic fell" check (issue 47, decision 072) on its own: the brand's limit and the kept days are given.
const NOW = Date.parse('2026-03-20T12:00:00Z');
const day = (offset: number) => new Date(NOW + offset * 86_400_000).toISOString().slice(0, 10);

function run(o: {
  brandId?: string | null;
  limit?: number | null;
  zone?: boolean;
  /** Requests of each day from 14 days ago to yesterday (oldest first); fewer entries keep fewer days. */
  days?: number[];
  readAt?: Date | null;
  error?: string | null;
}) {
  const domain = {
    _id: 'd1',
    domainName: 'fell.example',
    brandId: o.brandId === undefined ? 'b1' : o.brandId,
    cloudId: o.zone === false ? null : 'c1',
    cloudZoneId: o.zone === false ? null : 'z1',
  } as unknown as Domain;
  const kept = (o.days ?? []).map((requests, i) => ({ day: day(-14 + i), requests }));
  const asked: string[] = [];
  const deps = {
    domains: { get: async () => domain },
    traffic: {
      fallPercentOfBrand: async () => (o.limit === undefined ? 30 : o.limit),
      readState: async () =>
        o.readAt === null ? null : { readAt: o.readAt ?? new Date(NOW - 3_600_000), error: o.error ?? null },
      days: async (_id: string, since: string, until: string) => {
        asked.push(`${since}..${until}`);
        return kept.filter((k) => k.day >= since && k.day <= until);
      },
    },
    now: () => NOW,
  } as unknown as CheckDeps;
  return {
    asked,
    result: createHealthChecks(deps)
      .run('d1', ['traffic_fell'])
      .then(([r]) => r!),
  };
}
const week = (n: number) => Array.from({ length: 7 }, () => n);

describe('the Traffic fell check', () => {
  it('is off by default: not applicable, saying why', async () => {
    expect(await run({ limit: null, days: [...week(100), ...week(1)] }).result).toMatchObject({
      state: 'na',
      reason: 'Off for this brand',
    });
    expect(await run({ brandId: null }).result).toMatchObject({ state: 'na', reason: 'The domain has no brand' });
    expect(await run({ zone: false }).result).toMatchObject({ state: 'na' });
  });

  it('is unknown while fewer than 14 days are kept, or the traffic was never read', async () => {
    const r = await run({ days: [...week(100), ...week(10)].slice(1), readAt: new Date(NOW - 3 * 86_400_000) }).result;
    expect(r.state).toBe('unknown');
    expect(r.reason).toBe('Only 13 of the 14 days it compares are kept');
    const failed = await run({ days: week(100), error: 'Cloudflare analytics refused the query: x' }).result;
    expect(failed).toMatchObject({ state: 'unknown' });
    expect(failed.reason).toContain('the last read failed: Cloudflare analytics refused');
    expect(await run({ readAt: null }).result).toMatchObject({
      state: 'unknown',
      reason: 'The traffic was not read from Cloudflare yet',
    });
  });

  it('compares the 7 days to yesterday with the 7 before: ok at or under the limit, or when it rose', async () => {
    const { asked, result } = run({ days: [...week(1_000), ...week(700)] });
    expect(await result).toMatchObject({ state: 'ok', observed: '7,000 → 4,900 requests (fell 30 %)' });
    expect(asked).toEqual([`${day(-14)}..${day(-1)}`]);
    expect(await run({ days: [...week(1_000), ...week(1_100)] }).result).toMatchObject({
      state: 'ok',
      observed: '7,000 → 7,700 requests (rose 10 %)',
    });
  });

  it('fails past the limit, with the numbers', async () => {
    const r = await run({ days: [...week(1_000), ...week(540)], limit: 30 }).result;
    expect(r.state).toBe('failing');
    expect(r.reason).toBe("Requests fell 46 % (7,000 → 3,780) against the week before; the brand's limit is 30 %");
    // Just past the limit reads as past it, never as the limit itself.
    const edge = await run({ days: [...week(1_000), ...week(698)], limit: 30 }).result;
    expect(edge.state).toBe('failing');
    expect(edge.reason).toContain('fell 30.2 %');
  });

  it('counts a day Cloudflare reported nothing for as zero when a later read covered it', async () => {
    // Traffic stopped: no days kept for the last week, read an hour ago.
    const r = await run({ days: week(1_000) }).result;
    expect(r).toMatchObject({ state: 'failing' });
    expect(r.reason).toContain('fell 100 % (7,000 → 0)');
  });
});

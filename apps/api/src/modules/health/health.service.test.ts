import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import { ALL_CHECKS, type HealthChecks } from './health.checks.ts';
import type { HealthRepository } from './health.repository.ts';
import { createHealthService, duration, type HealthOptions } from './health.service.ts';

// The periodic run's choice of domains, with the database and the providers replaced by records of the calls.
const options: HealthOptions = {
  cheapMinutes: 30,
  fullHours: 24,
  cycleMinutes: 5,
  maxDomainsPerRun: 100,
  concurrency: 2,
  // 20 Cloudflare calls per 5-minute window for each account: four full checks (5 calls) a run.
  cloudflareCallsPerWindow: 20,
  cloudflareWindowSeconds: 300,
};

function setUp(due: {
  full: { id: string; cloudId: string | null }[];
  cheap: { id: string; cloudId: string | null }[];
}) {
  const ran: { id: string; mode: string }[] = [];
  const asked: { mode: string; limit: number }[] = [];
  let saved = '';
  const repo = {
    due: async (mode: 'cheap' | 'full', _before: Date, limit: number) => {
      asked.push({ mode, limit });
      return due[mode].slice(0, limit);
    },
    store: async (id: string, results: unknown[], _at: Date, mode: string) => {
      ran.push({ id, mode: `${mode}:${results.length}` });
      return true;
    },
    domainsPerCloud: async () => [
      { cloudId: 'a', n: 40 },
      { cloudId: null, n: 3 },
    ],
    saveCycle: async (v: { message: string }) => {
      saved = v.message;
    },
  } as unknown as HealthRepository;
  const checks = { run: async (_id: string, keys: string[]) => keys.map(() => ({})) } as unknown as HealthChecks;
  const database = { db: { transaction: (fn: (tx: unknown) => unknown) => fn({}) } } as unknown as Database;
  const service = createHealthService({
    database,
    repo,
    checks,
    // The cycle never fixes anything.
    fixes: {
      apply: async () => {
        throw new Error('the cycle does not fix');
      },
    },
    idsForFilter: async () => [],
    background: (fn) => fn(),
    options,
  });
  return { service, ran, asked, saved: () => saved };
}

describe('the periodic run', () => {
  it("takes the longest-unchecked first within each account's share, then cheap checks with what is left", async () => {
    const full = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, cloudId: 'a' })),
      { id: 'b0', cloudId: 'b' },
      { id: 'none0', cloudId: null },
    ];
    const cheap = [
      { id: 'a0', cloudId: 'a' },
      { id: 'b1', cloudId: 'b' },
      { id: 'a9', cloudId: 'a' },
    ];
    const { service, ran, asked, saved } = setUp({ full, cheap });
    const r = await service.cycle(async () => undefined);
    // Account a: 20 calls, four full checks (a0-a3); a4 and a5 wait, b and the domain without a cloud go on.
    const fullRan = ran.filter((x) => x.mode === `full:${ALL_CHECKS.length}`).map((x) => x.id);
    expect(fullRan.sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'none0']);
    // Cheap checks: b1 fits b's share (5 + 1 calls); a is spent, and a0 was just checked in full.
    const cheapRan = ran.filter((x) => x.mode.startsWith('cheap')).map((x) => x.id);
    expect(cheapRan).toEqual(['b1']);
    expect(r).toMatchObject({ full: 6, cheap: 1 });
    // More candidates than a run takes, so a spent account does not hide the others.
    expect(asked.every((a) => a.limit === 500)).toBe(true);
    // 40 domains of account a at 5 calls over 240 calls an hour: 50 minutes; the 24-hour interval is the floor.
    expect(saved()).toBe(
      'Whole fleet (43 domains) checked every 24 hours at the current budgets (the budgets alone allow every 50 minutes); HTTP and DNS every 30 minutes',
    );
  });

  it('says durations in words', () => {
    expect([duration(30), duration(1.25), duration(0.5), duration(1 / 3600), duration(0)]).toEqual([
      '30 hours',
      '1.3 hours',
      '30 minutes',
      '1 second',
      '1 second',
    ]);
  });
});

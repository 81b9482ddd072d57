import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/fixtures.ts';

// The Jobs screen's chart (issue 47): jobs ended per hour, by end state, each hour of the range present.
const t = useTestApp();

const hourAgo = (n: number, minute = 10) => {
  const d = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - n * 3_600_000);
  d.setUTCMinutes(minute);
  return d;
};

async function ended(kind: string, area: string, state: string, finishedAt: Date, periodic = false) {
  await t.c.repos.jobs.insert({ kind, area, payload: {}, state: state as never, finishedAt, periodic });
}

describe('GET /api/jobs/per-hour', () => {
  it('counts the jobs ended in each hour by end state, for the areas the caller holds', async () => {
    await ended('domains.generate-sitemap', 'cnv:domains', 'completed', hourAgo(0));
    await ended('domains.generate-sitemap', 'cnv:domains', 'completed', hourAgo(0, 40));
    await ended('domains.generate-sitemap', 'cnv:domains', 'failed', hourAgo(2));
    await ended('fleet.run', 'cnv:domains', 'completed_with_failures', hourAgo(2));
    await ended('fleet.run', 'cnv:domains', 'cancelled', hourAgo(23));
    // Out of the range, of another area, and the schedule's housekeeping: not counted.
    await ended('domains.generate-sitemap', 'cnv:domains', 'completed', hourAgo(30));
    await ended('servers.health-check', 'cnv:servers', 'failed', hourAgo(1));
    await ended('health.cycle', 'cnv:domains', 'completed', hourAgo(1), true);
    await t.c.repos.jobs.insert({ kind: 'fleet.run', area: 'cnv:domains', payload: {}, state: 'running' });

    const h = await t.tokenFor(['cnv:domains']);
    const res = await t.inject({ method: 'GET', url: '/api/jobs/per-hour', headers: { authorization: h } });
    expect(res.statusCode, res.body).toBe(200);
    const hours = res.json().data.hours as { hour: string; completed: number; failed: number }[];
    expect(hours).toHaveLength(24);
    expect(hours[23]).toEqual({
      hour: hourAgo(0, 0).toISOString().replace('.000Z', 'Z'),
      completed: 2,
      withFailures: 0,
      failed: 0,
      cancelled: 0,
    });
    expect(hours[21]).toMatchObject({ completed: 0, withFailures: 1, failed: 1 });
    expect(hours[22]).toMatchObject({ completed: 0, withFailures: 0, failed: 0, cancelled: 0 });
    expect(hours[0]).toMatchObject({ cancelled: 1 });

    const all = await t.inject({
      method: 'GET',
      url: '/api/jobs/per-hour?hours=48&periodic=include',
      headers: { authorization: h },
    });
    const two = all.json().data.hours as { completed: number }[];
    expect(two).toHaveLength(48);
    expect(two.reduce((n, x) => n + x.completed, 0)).toBe(4);
  });

  it('refuses another range with a message, and callers without a jobs area', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    const bad = await t.inject({ method: 'GET', url: '/api/jobs/per-hour?hours=7', headers: { authorization: h } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('hours must be 24 or 48');
    const none = await t.tokenFor(['cnv:brands']);
    const res = await t.inject({ method: 'GET', url: '/api/jobs/per-hour', headers: { authorization: none } });
    expect(res.statusCode).toBe(403);
  });
});

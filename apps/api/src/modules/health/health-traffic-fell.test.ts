import { describe, expect, it } from 'vitest';
import type { DomainHealth } from '@fleetdesk/contract';
import { cloudOnSim, unique, useAdminCalls, useCloudflareSimApp } from '../../test/fixtures.ts';

// "Traffic fell" through Check now (issue 47, decision 072): the brand's limit, the traffic kept from the
// simulator's analytics, and no Cloudflare call of the check's own.
const { t, sim } = useCloudflareSimApp();
const { call, create } = useAdminCalls(t);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function domain(brandId: string, factor: number) {
  const { accountId, cloud } = await cloudOnSim(sim, create);
  const name = `${unique('fell')}.com`;
  const { zoneId } = sim.addZone(accountId, name, { status: 'active' });
  sim.setZoneTraffic(zoneId, { dailyRequests: 8_000, change: { since: day(-7), factor } });
  const d = await create('domains', { domainName: name, status: 'active', cloudId: cloud._id, brandId });
  const linked = await call('PUT', `/api/domains/${d._id}/cloud-flare/link-zone`, { cloudZoneId: zoneId });
  expect(linked.statusCode, linked.body).toBe(200);
  return d._id;
}
const trafficFell = async (id: string) => {
  const res = await call('POST', `/api/domains/${id}/health/check`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as DomainHealth).checks.find((c) => c.check === 'traffic_fell')!;
};

describe('the Traffic fell check through Check now', () => {
  it('is not applicable while the brand has no limit, unknown before the traffic is read, failing past it', async () => {
    const brand = await create('brands', { name: unique('brand') });
    expect(brand.trafficFallPercent).toBeNull();
    const id = await domain(brand._id, 0.4);

    expect(await trafficFell(id)).toMatchObject({ state: 'na', reason: 'Off for this brand', fix: null });

    const set = await call('PUT', `/api/brands/${brand._id}`, { name: brand.name, trafficFallPercent: 30 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.trafficFallPercent).toBe(30);
    expect(await trafficFell(id)).toMatchObject({
      state: 'unknown',
      reason: 'The traffic was not read from Cloudflare yet',
    });

    // The traffic read (the domain page's first view), then the check reads what was kept.
    expect((await call('GET', `/api/domains/${id}/traffic`)).statusCode).toBe(200);
    const graphql = () => sim.state.requests.filter((r) => r.path.endsWith('/graphql')).length;
    const before = graphql();
    const c = await trafficFell(id);
    expect(graphql()).toBe(before);
    expect(c.state).toBe('failing');
    expect(c.plane).toBe('Cloudflare');
    expect(c.label).toBe('Traffic fell');
    expect(c.reason).toMatch(
      /^Requests fell \d+ % \([\d,]+ → [\d,]+\) against the week before; the brand's limit is 30 %$/,
    );
    const kept = await t.c.repos.traffic.days(id, day(-14), day(-1));
    const sum = (from: number, to: number) =>
      kept.filter((k) => k.day >= day(from) && k.day <= day(to)).reduce((n, k) => n + k.requests, 0);
    expect(c.observed).toBe(
      `${sum(-14, -8).toLocaleString('en-US')} → ${sum(-7, -1).toLocaleString('en-US')} requests (fell ${Math.round(
        ((sum(-14, -8) - sum(-7, -1)) / sum(-14, -8)) * 100,
      )} %)`,
    );

    // A limit the fall does not pass reads ok.
    await call('PUT', `/api/brands/${brand._id}`, { name: brand.name, trafficFallPercent: 90 });
    expect((await trafficFell(id)).state).toBe('ok');
  });

  it('refuses a limit that is not a whole percent from 1 to 100, naming the field', async () => {
    for (const v of [0, 101, 12.5, 'x']) {
      const res = await call('POST', '/api/brands', { name: unique('brand'), trafficFallPercent: v });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().fields).toEqual({ trafficFallPercent: 'Traffic fall must be a whole percent from 1 to 100' });
    }
  });
});

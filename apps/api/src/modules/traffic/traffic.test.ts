import { describe, expect, it } from 'vitest';
import type { DomainTraffic } from '@fleetdesk/contract';
import { cloudOnSim, unique, useAdminCalls, useCloudflareSimApp } from '../../test/fixtures.ts';

// GET /api/domains/:id/traffic: the domain's Cloudflare traffic per day, read through the client from the
// simulator's GraphQL Analytics, kept in domain_traffic_days, answered from there.
const { t, sim } = useCloudflareSimApp();
const { call, create } = useAdminCalls(t);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function domainWithZone(shape?: Parameters<typeof sim.setZoneTraffic>[1]) {
  const { accountId, cloud } = await cloudOnSim(sim, create);
  const name = `${unique('tr')}.com`;
  const { zoneId } = sim.addZone(accountId, name, { status: 'active' });
  if (shape) sim.setZoneTraffic(zoneId, shape);
  const domain = await create('domains', { domainName: name, status: 'active', cloudId: cloud._id });
  const linked = await call('PUT', `/api/domains/${domain._id}/cloud-flare/link-zone`, { cloudZoneId: zoneId });
  expect(linked.statusCode, linked.body).toBe(200);
  return { domainId: domain._id, zoneId, accountId };
}

const graphqlCalls = () => sim.state.requests.filter((r) => r.path.endsWith('/graphql')).length;

describe('GET /api/domains/:id/traffic', () => {
  it('reads the zone once, keeps the days and answers 7 or 30 days from what it kept', async () => {
    const { domainId } = await domainWithZone({ dailyRequests: 5_000 });
    const before = graphqlCalls();
    const res = await call('GET', `/api/domains/${domainId}/traffic?range=7d`);
    expect(res.statusCode, res.body).toBe(200);
    const week = res.json().data as DomainTraffic;
    expect(week.state).toBe('ok');
    expect(week.error).toBeNull();
    expect(week.readAt).not.toBeNull();
    expect(week.days.map((d) => d.date)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(day));
    expect(week.since).toBe(day(-6));
    for (const d of week.days) {
      expect(d.requests).toBeGreaterThan(1_000);
      expect(d.status.s2xx + d.status.s3xx + d.status.s4xx + d.status.s5xx).toBe(d.requests);
      expect(d.visits).toBeLessThan(d.requests);
    }
    expect(week.totals.requests).toBe(week.days.reduce((n, d) => n + d.requests, 0));
    // A query may span 31 days at most (the simulator refuses more, as Cloudflare does): the first read takes two.
    expect(graphqlCalls()).toBe(before + 2);

    // The kept rows: the 37 days read (30 shown plus the week before, for the week-on-week comparison).
    const kept = await t.c.repos.traffic.days(domainId, day(-60), day(0));
    expect(kept).toHaveLength(37);
    expect(kept.find((r) => r.day === day(-3))?.requests).toBe(week.days[3]!.requests);

    // The month comes from the kept days: no second call to Cloudflare.
    const month = (await call('GET', `/api/domains/${domainId}/traffic?range=30d`)).json().data as DomainTraffic;
    expect(month.days).toHaveLength(30);
    expect(month.days.slice(-7)).toEqual(week.days);
    expect(graphqlCalls()).toBe(before + 2);
  });

  it('refresh reads Cloudflare again and replaces the kept days', async () => {
    const { domainId, zoneId } = await domainWithZone({ dailyRequests: 5_000 });
    const first = (await call('GET', `/api/domains/${domainId}/traffic`)).json().data as DomainTraffic;
    sim.setZoneTraffic(zoneId, { dailyRequests: 5_000, change: { since: day(-2), factor: 0.1 } });
    const before = graphqlCalls();
    const res = await call('POST', `/api/domains/${domainId}/traffic/refresh?range=7d`);
    expect(res.statusCode, res.body).toBe(200);
    // A later read asks only for the last 31 days: one query.
    expect(graphqlCalls()).toBe(before + 1);
    const after = res.json().data as DomainTraffic;
    expect(after.days.slice(0, 4)).toEqual(first.days.slice(0, 4));
    expect(after.days[6]!.requests).toBeLessThan(first.days[6]!.requests * 0.2);
  });

  it("a domain linked to another zone since is read anew, the old zone's days dropped", async () => {
    const { domainId, zoneId, accountId } = await domainWithZone({ dailyRequests: 5_000 });
    await call('GET', `/api/domains/${domainId}/traffic`);
    // The zone was deleted and made again at Cloudflare (a new id, the same name), and the domain linked to it.
    const name = sim.state.zones.get(zoneId)!.name;
    sim.state.zones.delete(zoneId);
    const again = sim.addZone(accountId, name, { status: 'active' });
    sim.setZoneTraffic(again.zoneId, { dailyRequests: 50 });
    const linked = await call('PUT', `/api/domains/${domainId}/cloud-flare/link-zone`, { cloudZoneId: again.zoneId });
    expect(linked.statusCode, linked.body).toBe(200);
    const before = graphqlCalls();
    const week = (await call('GET', `/api/domains/${domainId}/traffic`)).json().data as DomainTraffic;
    expect(graphqlCalls()).toBe(before + 2);
    expect(week.days.every((d) => d.requests < 100)).toBe(true);
    const kept = await t.c.repos.traffic.days(domainId, day(-60), day(0));
    expect(kept.every((r) => r.requests < 100)).toBe(true);
    expect((await t.c.repos.traffic.readState(domainId))?.zoneId).toBe(again.zoneId);
  });

  it('validates the range with a clear message, and answers 404 for an unknown domain', async () => {
    const { domainId } = await domainWithZone();
    for (const q of ['?range=90d', '?range=', '?range=7']) {
      const res = await call('GET', `/api/domains/${domainId}/traffic${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().message).toMatch(/range must be one of 7d, 30d/);
    }
    const missing = await call('GET', '/api/domains/00000000-0000-4000-8000-000000000000/traffic');
    expect(missing.statusCode).toBe(404);
    const badId = await call('GET', '/api/domains/not-an-id/traffic');
    expect(badId.statusCode).toBe(400);
  });

  it('a domain without a zone answers no_zone without asking Cloudflare', async () => {
    const { cloud } = await cloudOnSim(sim, create);
    const domain = await create('domains', { domainName: `${unique('nz')}.com`, status: 'active', cloudId: cloud._id });
    const before = graphqlCalls();
    const res = await call('GET', `/api/domains/${domain._id}/traffic`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as DomainTraffic;
    expect(data.state).toBe('no_zone');
    expect(data.days).toEqual([]);
    expect(graphqlCalls()).toBe(before);
  });

  it("Cloudflare's refusal is a 502 naming Cloudflare, kept as the domain's error beside the days read before", async () => {
    const { domainId, zoneId } = await domainWithZone();
    await call('GET', `/api/domains/${domainId}/traffic`);
    // The zone is gone at Cloudflare: the analytics query is refused.
    sim.state.zones.delete(zoneId);
    const res = await call('POST', `/api/domains/${domainId}/traffic/refresh`);
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(/^Cloudflare analytics refused the query: zone '[0-9a-f]{32}' does not exist/);
    const kept = (await call('GET', `/api/domains/${domainId}/traffic`)).json().data as DomainTraffic;
    expect(kept.state).toBe('ok');
    expect(kept.error).toMatch(/does not exist/);
    expect(kept.days.every((d) => d.requests > 0)).toBe(true);
  });

  it('the periodic run reads the domains never read, in the background share, and leaves fresh ones', async () => {
    const a = await domainWithZone();
    const b = await domainWithZone();
    await call('GET', `/api/domains/${a.domainId}/traffic`);
    const before = graphqlCalls();
    const r = await t.c.services.traffic.cycle(async () => undefined);
    expect(r.read).toBe(1);
    expect(r.failed).toBe(0);
    expect(graphqlCalls()).toBe(before + 2);
    expect(await t.c.repos.traffic.days(b.domainId, day(-6), day(0))).toHaveLength(7);
  });
});

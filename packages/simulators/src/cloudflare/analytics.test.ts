import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from './index.ts';

const TOKEN = 'tok_sim_analytics_0123456789abcdefghijklmn';
const OTHER = 'tok_sim_other_0123456789abcdefghijklmnopqr';
let sim: CloudflareSim;
let zoneId: string;
let otherZoneId: string;

const DAYS = `query Days($zoneTag: string!, $since: Date!, $until: Date!) {
  viewer {
    zones(filter: { zoneTag: $zoneTag }) {
      httpRequests1dGroups(limit: 100, filter: { date_geq: $since, date_leq: $until }, orderBy: [date_ASC]) {
        dimensions { date }
        sum { requests pageViews threats bytes responseStatusMap { edgeResponseStatus requests } }
        uniq { uniques }
      }
    }
  }
}`;

const HOURS = `query Hours($zoneTag: string!, $since: Time!, $until: Time!) {
  viewer {
    zones(filter: { zoneTag: $zoneTag }) {
      httpRequests1hGroups(limit: 1000, filter: { datetime_geq: $since, datetime_lt: $until }, orderBy: [datetime_ASC]) {
        dimensions { datetime }
        sum { requests }
      }
    }
  }
}`;

async function gql(body: unknown, token = TOKEN): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  sim = await startCloudflareSim();
  const a = sim.addAccount({ email: 'a@example.com', token: TOKEN }).accountId;
  const b = sim.addAccount({ email: 'b@example.com', token: OTHER }).accountId;
  zoneId = sim.addZone(a, 'traffic-a.com', { status: 'active' }).zoneId;
  otherZoneId = sim.addZone(b, 'traffic-b.com', { status: 'active' }).zoneId;
});

afterAll(async () => {
  await sim.close();
});

describe('cloudflare simulator: GraphQL Analytics', () => {
  it('answers a daily series in GraphQL shape, the same numbers every time for a zone', async () => {
    const variables = { zoneTag: zoneId, since: day(-6), until: day(0) };
    const first = await gql({ query: DAYS, variables });
    expect(first.status).toBe(200);
    expect(first.body.errors).toBeNull();
    const groups = first.body.data.viewer.zones[0].httpRequests1dGroups;
    expect(groups).toHaveLength(7);
    expect(groups.map((g: any) => g.dimensions.date)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(day));
    for (const g of groups) {
      expect(g.sum.requests).toBeGreaterThan(0);
      expect(g.sum.pageViews).toBeLessThan(g.sum.requests);
      expect(g.uniq.uniques).toBeLessThan(g.sum.requests);
      const statusTotal = g.sum.responseStatusMap.reduce((n: number, s: any) => n + s.requests, 0);
      expect(statusTotal).toBe(g.sum.requests);
    }
    const again = await gql({ query: DAYS, variables });
    expect(again.body).toEqual(first.body);
  });

  it('answers hours, and a shaped fall shows in the series', async () => {
    const since = new Date(Date.now() - 24 * 3_600_000);
    since.setUTCMinutes(0, 0, 0);
    const r = await gql({
      query: HOURS,
      variables: {
        zoneTag: zoneId,
        since: since.toISOString(),
        until: new Date(since.getTime() + 12 * 3_600_000).toISOString(),
      },
    });
    expect(r.body.errors).toBeNull();
    const hours = r.body.data.viewer.zones[0].httpRequests1hGroups;
    expect(hours).toHaveLength(12);
    expect(hours[0].dimensions.datetime).toBe(since.toISOString().replace('.000Z', 'Z'));

    const variables = { zoneTag: zoneId, since: day(-13), until: day(0) };
    sim.setZoneTraffic(zoneId, { dailyRequests: 10_000 });
    const before = (await gql({ query: DAYS, variables })).body.data.viewer.zones[0].httpRequests1dGroups;
    sim.setZoneTraffic(zoneId, { dailyRequests: 10_000, change: { since: day(-6), factor: 0.2 } });
    const after = (await gql({ query: DAYS, variables })).body.data.viewer.zones[0].httpRequests1dGroups;
    const total = (gs: any[]) => gs.reduce((n, g) => n + g.sum.requests, 0);
    expect(total(after.slice(0, 7))).toBe(total(before.slice(0, 7)));
    expect(total(after.slice(7))).toBeLessThan(total(before.slice(7)) * 0.3);
  });

  it('answers no groups for a zone that is not active (no traffic passes through it)', async () => {
    const pending = sim.addZone(sim.state.zones.get(zoneId)!.accountId, 'traffic-pending.com', { status: 'pending' });
    const r = await gql({ query: DAYS, variables: { zoneTag: pending.zoneId, since: day(-6), until: day(0) } });
    expect(r.body.errors).toBeNull();
    expect(r.body.data.viewer.zones[0].httpRequests1dGroups).toEqual([]);
  });

  it("refuses an unknown zone and another account's zone with a GraphQL error naming the path", async () => {
    for (const tag of ['0'.repeat(32), otherZoneId]) {
      const r = await gql({ query: DAYS, variables: { zoneTag: tag, since: day(-6), until: day(0) } });
      expect(r.status).toBe(200);
      expect(r.body.data).toBeNull();
      expect(r.body.errors[0].message).toMatch(/does not have access/);
      expect(r.body.errors[0].path).toEqual(['viewer', 'zones', 0]);
      expect(r.body.errors[0].extensions.timestamp).toMatch(/^\d{4}-/);
    }
  });

  it('refuses a range wider than the dataset allows, and data older than it keeps', async () => {
    const wide = await gql({ query: DAYS, variables: { zoneTag: zoneId, since: day(-60), until: day(0) } });
    expect(wide.body.data).toBeNull();
    expect(wide.body.errors[0].message).toMatch(/cannot request a time range wider than 2678400s/);
    const old = await gql({ query: DAYS, variables: { zoneTag: zoneId, since: day(-400), until: day(-390) } });
    expect(old.body.errors[0].message).toMatch(/cannot request data older than 31536000s/);
    const hours = await gql({
      query: HOURS,
      variables: {
        zoneTag: zoneId,
        since: new Date(Date.now() - 5 * 86_400_000).toISOString(),
        until: new Date().toISOString(),
      },
    });
    expect(hours.body.errors[0].message).toMatch(/wider than 259200s/);
  });

  it('refuses a malformed query, an unknown field, a bad date and a body that is not JSON', async () => {
    const syntax = await gql({ query: '{ viewer { zones(filter: {zoneTag: "x"}) { ' });
    expect(syntax.body.data).toBeNull();
    expect(syntax.body.errors[0].message).toMatch(/error parsing query: Syntax Error/);
    const field = await gql({
      query: DAYS.replace('pageViews', 'pageViewz'),
      variables: { zoneTag: zoneId, since: day(-1), until: day(0) },
    });
    expect(field.body.errors[0].message).toMatch(/Cannot query field "pageViewz"/);
    const date = await gql({ query: DAYS, variables: { zoneTag: zoneId, since: 'yesterday', until: day(0) } });
    expect(date.body.errors[0].message).toMatch(/Date expects a date/);
    const raw = await gql('not json');
    expect(raw.status).toBe(400);
    expect(raw.body.errors[0].message).toMatch(/expected a JSON object/);
  });

  it('takes the v4 refusals for bad credentials (the API in front of GraphQL)', async () => {
    const r = await gql({ query: DAYS, variables: {} }, 'tok_nobody_0123456789abcdefghijklmnopq');
    expect(r.status).toBe(403);
    expect(r.body.errors[0].code).toBe(10000);
  });
});

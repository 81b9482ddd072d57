import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardLinks } from '@fleetdesk/contract';
import { auditLog, clouds, domains, jobs, proxies, servers } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createDashboardRepository } from './dashboard.repository.ts';
import { createDashboardService, jobPercent } from './dashboard.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

const day = (offset: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offset)).toISOString().slice(0, 10);
};

async function seed() {
  const db = t.c.database.db;
  await db.insert(domains).values([
    { domainName: 'a-active.test', domainNameUnicode: 'a-active.test', status: 'active' },
    { domainName: 'b-expired.test', domainNameUnicode: 'b-expired.test', domainRegistratorExpirationDate: day(-1) },
    { domainName: 'c-today.test', domainNameUnicode: 'c-today.test', domainRegistratorExpirationDate: day(0) },
    {
      domainName: 'd-soon.test',
      domainNameUnicode: 'd-soon.test',
      domainRegistratorExpirationDate: day(30),
      status: 'inactive',
    },
    {
      domainName: 'e-later.test',
      domainNameUnicode: 'e-later.test',
      domainRegistratorExpirationDate: day(31),
      status: 'inactive',
    },
  ]);
  await db
    .insert(servers)
    .values([
      { ipAddress: '10.0.0.1', status: 'online' },
      { ipAddress: '10.0.0.2', status: 'online' },
      { ipAddress: '10.0.0.3', status: 'offline' },
      { ipAddress: '10.0.0.4' },
    ]);
  await db.insert(proxies).values([{ checkStatus: 'ok' }, { checkStatus: 'error' }, { checkStatus: 'error' }, {}]);
  await db.insert(clouds).values([{ email: 'one@cloud.test' }, { email: 'two@cloud.test' }]);
  await db.insert(jobs).values([
    {
      kind: 'domains.generate-sitemap',
      area: 'cnv:domains',
      payload: {},
      state: 'running',
      domainName: 'a-active.test',
      progress: { done: 1, total: 4 },
    },
    { kind: 'servers.health-check', area: 'cnv:servers', payload: {}, state: 'queued' },
    { kind: 'servers.health-check', area: 'cnv:servers', payload: {}, state: 'completed' },
    // The schedule's housekeeping: not among the operator's jobs, on the dashboard or the Jobs screen.
    {
      kind: 'alerts.evaluate',
      area: 'cnv:domains',
      payload: {},
      state: 'running',
      createdBy: 'schedule',
      periodic: true,
    },
    {
      kind: 'alerts.evaluate',
      area: 'cnv:domains',
      payload: {},
      state: 'completed',
      createdBy: 'schedule',
      periodic: true,
    },
  ]);
}

describe('GET /api/dashboard', () => {
  it('needs a session', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/dashboard' });
    expect(res.statusCode).toBe(401);
  });

  it('counts every area for an administrator, with the expiry window inclusive of today and day 30', async () => {
    await seed();
    const admin = await t.tokenFor(['cnv']);
    const res = await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: admin } });
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.today).toBe(day(0));
    expect(d.expiringWithinDays).toBe(30);
    expect(d.domains).toMatchObject({ total: 5, active: 3, inactive: 2, expired: 1, expiringSoon: 2 });
    expect(d.domains.expiring.map((x: { domainName: string }) => x.domainName)).toEqual([
      'c-today.test',
      'd-soon.test',
    ]);
    expect(d.domains.expiring[0].expirationDate).toBe(day(0));
    expect(d.servers).toEqual({ total: 4, online: 2, offline: 1, unknown: 1 });
    expect(d.proxies).toEqual({ total: 4, failing: 2, unchecked: 1 });
    expect(d.clouds).toEqual({ total: 2 });
    expect(d.runningJobs.total).toBe(2);
    expect(d.runningJobs.items[0]).toMatchObject({ kindLabel: 'Server health check', state: 'queued', percent: null });
    expect(d.runningJobs.items[1]).toMatchObject({ state: 'running', domainName: 'a-active.test', percent: 25 });
    // The administrator's own sign-in is in the audit trail.
    expect(Array.isArray(d.latestChanges)).toBe(true);
    // The health counts come in the same answer, as /api/health/summary gives them (one request, issue 47).
    const summary = (
      await t.inject({ method: 'GET', url: '/api/health/summary', headers: { authorization: admin } })
    ).json().data;
    expect(d.health).toEqual(summary);
    expect(d.health.domains.unchecked).toBe(5);
  });

  it('opens, from every figure, a list with exactly that many rows', async () => {
    await seed();
    const admin = await t.tokenFor(['cnv']);
    const d = (await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: admin } })).json().data;
    const links = dashboardLinks(d);
    const listed = async (link: string) => {
      const res = await t.inject({ method: 'GET', url: `/api${link}`, headers: { authorization: admin } });
      expect(res.statusCode, link).toBe(200);
      return res.json().data.itemsCount as number;
    };
    const figures: [number, string][] = [
      [d.domains.total, links.domains],
      [d.domains.active, links.active],
      [d.domains.inactive, links.inactive],
      [d.domains.expiringSoon, links.expiring],
      [d.domains.expired, links.expired],
      [d.servers.online, links.serversOnline],
      [d.servers.offline, links.serversOffline],
      [d.proxies.failing, links.proxiesFailing],
      [d.clouds.total, links.clouds],
      [d.runningJobs.total, links.jobs],
    ];
    for (const [figure, link] of figures) expect(await listed(link), link).toBe(figure);
    // The seed makes each filtered list differ from its whole list, so a link that lost its filter fails.
    expect(await listed(links.servers)).not.toBe(d.servers.online);
    expect(await listed(links.proxies)).not.toBe(d.proxies.failing);
    expect(await listed('/domains?expiresBefore=' + links.expiring.split('expiresBefore=')[1])).not.toBe(
      d.domains.expiringSoon,
    );
    // Scheduled runs are shown when asked for, and when their kind is asked for by name.
    expect(await listed('/jobs?periodic=only')).toBe(2);
    expect(await listed('/jobs?periodic=include')).toBe(5);
    expect(await listed('/jobs')).toBe(3);
    expect(await listed('/jobs?kind=alerts.evaluate')).toBe(2);
    // The list's filters name what they keep.
    expect(await listed('/proxies?check=unchecked')).toBe(d.proxies.unchecked);
    const bad = await t.inject({
      method: 'GET',
      url: '/api/servers?status=sideways',
      headers: { authorization: admin },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/status/);
  });

  it('shows the latest audit entries newest first, to administrators only', async () => {
    const db = t.c.database.db;
    await db.insert(auditLog).values([
      { action: 'create', entity: 'brands', entityId: 'x1', username: 'alice' },
      { action: 'update', entity: 'domains', entityId: 'x2', username: 'bob' },
    ]);
    const admin = await t.tokenFor(['cnv']);
    // A flood of sign-ins after the changes: the latest changes are still the changes.
    await db
      .insert(auditLog)
      .values(
        Array.from({ length: 30 }, () => ({ action: 'login', entity: 'sessions', entityId: 'u', username: 'carol' })),
      );
    const d = (await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: admin } })).json().data;
    expect(d.latestChanges.some((c: { action: string }) => c.action === 'login')).toBe(false);
    expect(d.latestChanges.slice(0, 2).map((c: { sentence: string }) => c.sentence)).toEqual([
      'bob changed a domain',
      'alice created a brand',
    ]);
    // The audit screen filters sign-ins out, or keeps only them, and filters by action.
    const audit = async (q: string) =>
      (await t.inject({ method: 'GET', url: `/api/audit-log?${q}`, headers: { authorization: admin } })).json().data;
    expect((await audit('signIns=exclude')).items.some((e: { action: string }) => e.action === 'login')).toBe(false);
    expect((await audit('signIns=only')).items.every((e: { action: string }) => e.action === 'login')).toBe(true);
    expect((await audit('action=create')).items.map((e: { sentence: string }) => e.sentence)).toContain(
      'alice created a brand',
    );

    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const other = (
      await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: domainsOnly } })
    ).json().data;
    expect(other.latestChanges).toBeNull();
  });

  it('leaves out the areas the caller may not read, and shows only their jobs', async () => {
    await seed();
    const token = await t.tokenFor(['cnv:servers']);
    const res = await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: token } });
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.domains).toBeNull();
    expect(d.health).toBeNull();
    expect(d.proxies).toBeNull();
    expect(d.clouds).toBeNull();
    expect(d.servers.total).toBe(4);
    expect(d.runningJobs.total).toBe(1);
    expect(d.runningJobs.items[0].kindLabel).toBe('Server health check');

    const none = await t.tokenFor(['cnv:brands']);
    const n = (await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: none } })).json().data;
    expect(n.runningJobs).toEqual({ total: 0, items: [] });
    expect(n.servers).toBeNull();
  });

  it("sums the fleet's kept traffic and names the domains whose traffic fell most against the week before", async () => {
    const db = t.c.database.db;
    const rows = await db
      .insert(domains)
      .values(
        ['fell.test', 'steady.test', 'grew.test', 'tiny.test', 'halved.test', 'ebb.test'].map((n) => ({
          domainName: n,
          domainNameUnicode: n,
        })),
      )
      .returning({ id: domains.id, name: domains.domainName });
    const id = (name: string) => rows.find((r) => r.name === name)!.id;
    // Requests a day in the previous week and in the last week (to yesterday); today's count is partial.
    const plan: Record<string, [number, number]> = {
      'fell.test': [1000, 100],
      'steady.test': [500, 500],
      'grew.test': [100, 300],
      'tiny.test': [10, 0],
      'halved.test': [400, 200],
      'ebb.test': [1000, 950],
    };
    for (const [name, [before, after]] of Object.entries(plan)) {
      const days = [];
      for (let i = -14; i <= 0; i++) {
        const requests = i === 0 ? 5 : i <= -8 ? before : after;
        days.push({
          domainId: id(name),
          day: day(i),
          requests,
          pageViews: Math.round(requests / 2),
          visits: Math.round(requests / 4),
          threats: 1,
          bytes: requests * 1000,
          status2xx: requests,
          status3xx: 0,
          status4xx: 0,
          status5xx: 0,
        });
      }
      await t.c.repos.traffic.keep({
        domainId: id(name),
        zoneId: `zone-${name}`,
        readAt: new Date(),
        keepFrom: day(-36),
        days,
      });
    }
    const token = await t.tokenFor(['cnv:domains']);
    const d = (await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: token } })).json().data;
    expect(d.traffic.domainsRead).toBe(6);
    expect(d.traffic.days).toHaveLength(14);
    expect(d.traffic.days[13]).toEqual({ date: day(0), requests: 30, pageViews: 18, visits: 6, threats: 6 });
    expect(d.traffic.week).toEqual({ since: day(-7), until: day(-1), requests: 7 * (100 + 500 + 300 + 0 + 200 + 950) });
    expect(d.traffic.previousWeek).toEqual({
      since: day(-14),
      until: day(-8),
      requests: 7 * (1000 + 500 + 100 + 10 + 400 + 1000),
    });
    // Largest fall first; a domain under 100 requests the week before (tiny), a fall under 10 % (ebb) and those that
    // did not fall are left out.
    expect(d.traffic.falls).toEqual([
      { _id: id('fell.test'), domainName: 'fell.test', requests: 700, previous: 7000, change: -90 },
      { _id: id('halved.test'), domainName: 'halved.test', requests: 1400, previous: 2800, change: -50 },
    ]);

    const servers = await t.tokenFor(['cnv:servers']);
    const other = (await t.inject({ method: 'GET', url: '/api/dashboard', headers: { authorization: servers } })).json()
      .data;
    expect(other.traffic).toBeNull();
  });

  it('counts against the given day (UTC), across a month end', async () => {
    await t.c.database.db.insert(domains).values([
      { domainName: 'x.test', domainNameUnicode: 'x.test', domainRegistratorExpirationDate: '2027-03-02' },
      { domainName: 'y.test', domainNameUnicode: 'y.test', domainRegistratorExpirationDate: '2027-03-03' },
    ]);
    const svc = createDashboardService({
      repo: createDashboardRepository(t.c.database.db),
      healthSummary: () => t.c.services.health.summary(),
      now: () => new Date('2027-01-31T23:30:00Z'),
    });
    const d = await svc.get({ userId: null, username: 'x', rules: ['cnv'], requestId: null });
    expect(d.today).toBe('2027-01-31');
    // 31 January + 30 days = 2 March.
    expect(d.domains).toMatchObject({ expiringSoon: 1, expired: 0 });
  });
});

describe('jobPercent', () => {
  it('reads bytes first, then units, and is null without a total', () => {
    expect(jobPercent(null)).toBeNull();
    expect(jobPercent({ done: 3 })).toBeNull();
    expect(jobPercent({ done: 3, total: 0 })).toBeNull();
    expect(jobPercent({ done: 1, total: 3 })).toBe(33);
    expect(jobPercent({ done: 9, total: 3 })).toBe(100);
    expect(jobPercent({ done: 1, total: 4, bytesDone: 50, bytesTotal: 100 })).toBe(50);
  });
});

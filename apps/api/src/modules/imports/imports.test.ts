import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_TEXT, toAsciiDomain, type ImportItem, type ImportPlan } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import { startIspManagerSim, type IspManagerSim } from '@fleetdesk/simulators/ispmanager/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// Imports end to end: the real job engine, the simulators, the domains service.
let t: TestApp;
let cfSim: CloudflareSim;
let daSim: DirectAdminSim;
let ncSim: NamecheapSim;
let ispSim: IspManagerSim;
const ISP_PASSWORD = 'isp-r00t-imp0rt';
let h: string;
let seq = 0;
const DA_PASSWORD = 'da-adm1n-imp0rt';

beforeAll(async () => {
  cfSim = await startCloudflareSim();
  daSim = await startDirectAdminSim({
    users: [
      { username: 'admin', password: DA_PASSWORD, level: 'admin' },
      { username: 'web', password: 'web-pa55word', domains: [] },
    ],
  });
  ispSim = await startIspManagerSim({ users: [{ username: 'root', password: ISP_PASSWORD }] });
  ncSim = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
  t = await createTestApp(
    {
      CLOUDFLARE_API_URL: cfSim.url,
      CLOUDFLARE_TIMEOUT_SECONDS: '5',
      DIRECTADMIN_TIMEOUT_SECONDS: '3',
      NAMECHEAP_CLIENT_IP: '198.51.100.7',
      NAMECHEAP_CALLS_PER_MINUTE: '10000',
      ISPMANAGER_TIMEOUT_SECONDS: '3',
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([cfSim?.close(), daSim?.close(), ncSim?.close(), ispSim?.close()]);
});

type Method = 'GET' | 'POST';
const call = (method: Method, url: string, payload?: object, auth = h) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

async function waitPlan(id: string, states: string[], timeoutMs = 60_000): Promise<ImportPlan> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `/api/imports/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().data as ImportPlan;
    if (states.includes(p.state)) return p;
    if (Date.now() > until) throw new Error(`import ${id} stayed ${p.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function plan(source: string, sourceId: string): Promise<ImportPlan> {
  const res = await call('POST', '/api/imports', { source, sourceId });
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed', 'cancelled']);
}
async function run(id: string): Promise<ImportPlan> {
  const res = await call('POST', `/api/imports/${id}/run`);
  expect(res.statusCode, res.body).toBe(200);
  return waitPlan(id, ['completed', 'completed_with_failures', 'failed', 'cancelled']);
}
async function allItems(id: string, query = ''): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for (let page = 1; ; page++) {
    const res = await call('GET', `/api/imports/${id}/items?page=${page}${query}`);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data as { items: ImportItem[]; itemsCount: number };
    out.push(...d.items);
    if (out.length >= d.itemsCount || !d.items.length) return out;
  }
}
const domainByName = async (name: string) => {
  const res = await call('GET', `/api/domains?search=${encodeURIComponent(name)}`);
  expect(res.statusCode, res.body).toBe(200);
  return (
    res.json().data.items as {
      _id: string;
      domainName: string;
      cloudId: string | null;
      cloudZoneId: string | null;
      serverId: string | null;
    }[]
  ).find((d) => d.domainName === name);
};

describe('importing a Cloudflare account', () => {
  it('plans every zone over several pages, creates and links, reports the rest, and a second run creates nothing', async () => {
    const email = `${unique('ops')}@example.com`;
    const token = `${unique('token')}-0123456789abcdef`;
    const { accountId } = cfSim.addAccount({ email, token });
    const cloud = await create('clouds', { email, token });
    const other = cfSim.addAccount({
      email: `${unique('other')}@example.com`,
      token: `${unique('t')}-0123456789abcdef`,
    });
    const otherCloud = await create('clouds', {
      email: `${unique('oc')}@example.com`,
      token: `${unique('x')}-0123456789abcdef`,
    });

    const tag = unique('acc');
    const names = Array.from({ length: 57 }, (_, i) => `${tag}-${i}.com`);
    const zones = names.map((n) => ({ name: n, ...cfSim.addZone(accountId, n, { status: 'active' }) }));
    // An existing domain without a zone is linked; one with another zone, or of another cloud, is reported.
    const linkable = await create('domains', { domainName: names[0], status: 'active', cloudId: null });
    const zoned = await create('domains', { domainName: names[1], status: 'active', cloudId: cloud._id });
    const otherZone = cfSim.addZone(other.accountId, names[1]!, { status: 'pending' });
    await t.c.database.db.execute(
      // Linked by hand earlier to a zone of another account.
      (await import('drizzle-orm')).sql`update domains set cloud_zone_id = ${otherZone.zoneId} where id = ${zoned._id}`,
    );
    await create('domains', { domainName: names[2], status: 'active', cloudId: otherCloud._id });
    // A zone already linked to another console domain (of another name) is not linked twice.
    const holder = await create('domains', { domainName: `${tag}-holder.com`, status: 'active', cloudId: cloud._id });
    await t.c.database.db.execute(
      (await import('drizzle-orm'))
        .sql`update domains set cloud_zone_id = ${zones[3]!.zoneId} where id = ${holder._id}`,
    );

    const p = await plan('cloudflare', cloud._id);
    expect(p.state, p.error ?? '').toBe('planned');
    expect(p.counts).toEqual({ total: 57, create: 53, link: 1, skip: 3 });
    const rows = await allItems(p._id);
    expect(rows).toHaveLength(57);
    const reason = (n: string) => rows.find((r) => r.name === n)?.reason;
    expect(reason(names[0]!)).toBe(IMPORT_TEXT.linkZone(zones[0]!.zoneId));
    expect(reason(names[1]!)).toBe(IMPORT_TEXT.otherZone(otherZone.zoneId));
    expect(reason(names[2]!)).toMatch(/uses another cloud/);
    expect(reason(names[3]!)).toBe(IMPORT_TEXT.zoneElsewhere(`${tag}-holder.com`));
    // The plan's rows are searchable.
    expect(await allItems(p._id, `&search=${names[56]}`)).toHaveLength(1);
    expect(await allItems(p._id, '&outcome=skip')).toHaveLength(3);

    const done = await run(p._id);
    expect(done.state, done.error ?? '').toBe('completed');
    expect(done.run).toMatchObject({ total: 54, done: 54, failed: 0, pending: 0 });
    const made = await domainByName(names[56]!);
    expect(made).toMatchObject({ cloudId: cloud._id, cloudZoneId: zones[56]!.zoneId });
    expect(await domainByName(names[0]!)).toMatchObject({
      _id: linkable._id,
      cloudId: cloud._id,
      cloudZoneId: zones[0]!.zoneId,
    });
    // Audited per domain.
    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${made!._id}`);
    expect(audit.json().data.items.map((a: { action: string }) => a.action)).toContain('import_domain');

    // Twice: everything is there already, nothing is created, and Run is refused.
    const again = await plan('cloudflare', cloud._id);
    expect(again.counts).toMatchObject({ total: 57, create: 0, link: 0, skip: 57 });
    const res = await call('POST', `/api/imports/${again._id}/run`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(IMPORT_TEXT.nothingToDo);
  }, 120_000);

  it('refuses a source that does not exist, on its field', async () => {
    const res = await call('POST', '/api/imports', {
      source: 'cloudflare',
      sourceId: '00000000-0000-4000-8000-000000000000',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.sourceId).toBeTruthy();
    const bad = await call('POST', '/api/imports', { source: 'nowhere' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('importing a server panel', () => {
  it("respects the server's capacity and reports the overflow", async () => {
    const tag = unique('da');
    const names = Array.from({ length: 8 }, (_, i) => `${tag}-${i}.com`);
    // The panel knows names in ASCII; an older console record holds this one in Unicode, and is found.
    const umlaut = `bücher-${tag}.de`;
    const umlautAscii = toAsciiDomain(umlaut)!;
    daSim.addDomain('web', umlautAscii);
    for (const n of names) daSim.addDomain('web', n);
    const server = await create('servers', {
      IPAddress: '127.0.0.1',
      domainsLimitQty: 5,
      directAdminUri: daSim.url,
      directAdminUsername: 'admin|web',
      directAdminPassword: DA_PASSWORD,
    });
    // One domain is on the server already (a place taken), one exists without a server (linked).
    await create('domains', { domainName: names[0], status: 'active', serverId: server._id });
    await create('domains', { domainName: names[1], status: 'active' });
    const old = await create('domains', { domainName: umlaut, status: 'active', serverId: server._id });
    await t.c.database.db.execute(
      (await import('drizzle-orm')).sql`update domains set domain_name = ${umlaut} where id = ${old._id}`,
    );

    const p = await plan('directadmin', server._id);
    expect(p.state, p.error ?? '').toBe('planned');
    // 5 places, 2 taken: names[1] (link) and two new ones fit; the other four are overflow.
    expect(p.counts).toEqual({ total: 9, create: 2, link: 1, skip: 6 });
    expect((await allItems(p._id, `&search=${tag}.de`))[0]).toMatchObject({
      outcome: 'skip',
      reason: IMPORT_TEXT.alreadyServer,
    });
    const rows = await allItems(p._id);
    expect(rows.filter((r) => r.reason === IMPORT_TEXT.overflow('127.0.0.1', 5))).toHaveLength(4);
    const done = await run(p._id);
    expect(done.run).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect(await domainByName(names[1]!)).toMatchObject({ serverId: server._id });
    expect(await domainByName(names[7]!)).toBeUndefined();
  }, 60_000);
});

describe('importing a DirectAdmin server with an admin login', () => {
  it("reads every user's sites through login-as, and the plan names the users read", async () => {
    const tag = unique('dadm');
    const sim = await startDirectAdminSim({
      users: [
        { username: 'admin', password: DA_PASSWORD, level: 'admin', domains: [`${tag}-admin.com`] },
        { username: 'alice', password: 'alice-pa55', domains: [`${tag}-a1.com`, `${tag}-a2.com`] },
        { username: 'bob', password: 'bob-pa55word', domains: [`${tag}-b1.com`] },
        { username: 'carol', password: 'carol-pa55', domains: [] },
      ],
    });
    try {
      const server = await create('servers', {
        IPAddress: '127.0.0.4',
        domainsLimitQty: 0,
        directAdminUri: sim.url,
        directAdminUsername: 'admin',
        directAdminPassword: DA_PASSWORD,
      });
      const p = await plan('directadmin', server._id);
      expect(p.state, p.error ?? '').toBe('planned');
      expect(p.sourceUsers).toEqual(['admin', 'alice', 'bob', 'carol']);
      expect(p.counts).toMatchObject({ total: 4, create: 4 });
      const rows = await allItems(p._id);
      expect(rows.map((r) => [r.name, r.detail.user]).sort()).toEqual([
        [`${tag}-a1.com`, 'alice'],
        [`${tag}-a2.com`, 'alice'],
        [`${tag}-admin.com`, 'admin'],
        [`${tag}-b1.com`, 'bob'],
      ]);
      // The users are listed with the admin's own login; each user's domains are read as that user.
      const logins = sim.requests.map((r) => `${r.command} ${r.login}`);
      expect(logins).toContain('CMD_API_SHOW_ALL_USERS admin');
      expect(logins).toContain('CMD_API_SHOW_DOMAINS admin|alice');
      expect(logins).toContain('CMD_API_SHOW_DOMAINS admin|carol');
      expect((await run(p._id)).run).toMatchObject({ done: 4, failed: 0 });
      expect(await domainByName(`${tag}-b1.com`)).toMatchObject({ serverId: server._id });

      // A user's own login reads that user's sites only (the panel refuses it the list of users).
      const userServer = await create('servers', {
        IPAddress: '127.0.0.5',
        domainsLimitQty: 0,
        directAdminUri: sim.url,
        directAdminUsername: 'bob',
        directAdminPassword: 'bob-pa55word',
      });
      const q = await plan('directadmin', userServer._id);
      expect(q.state, q.error ?? '').toBe('planned');
      expect(q.sourceUsers).toEqual(['bob']);
      expect((await allItems(q._id)).map((r) => r.name)).toEqual([`${tag}-b1.com`]);
      // An admin acting as one user ("admin|alice" on the server) reads that user's sites only.
      const asAlice = await create('servers', {
        IPAddress: '127.0.0.6',
        domainsLimitQty: 0,
        directAdminUri: sim.url,
        directAdminUsername: 'admin|alice',
        directAdminPassword: DA_PASSWORD,
      });
      const r = await plan('directadmin', asAlice._id);
      expect(r.sourceUsers).toEqual(['alice']);
      expect(r.counts.total).toBe(2);
      expect(sim.failedLogins()).toBe(0);
    } finally {
      await sim.close();
    }
  }, 90_000);
});

describe('importing an ISPmanager panel', () => {
  it('imports every site on a server without a limit, and a second plan skips them all', async () => {
    const tag = unique('isp');
    const names = Array.from({ length: 4 }, (_, i) => `${tag}-${i}.com`);
    for (const n of names) ispSim.addSite({ name: n, owner: 'www-root' });
    const server = await create('servers', {
      IPAddress: '127.0.0.2',
      domainsLimitQty: 0,
      ispmanagerUri: `${ispSim.url}/ispmgr`,
      ispmanagerUsername: 'root',
      ispmanagerPassword: ISP_PASSWORD,
      ispmanagerAcceptSelfSigned: true,
    });
    const p = await plan('ispmanager', server._id);
    expect(p.state, p.error ?? '').toBe('planned');
    expect(p.counts).toMatchObject({ create: 4, link: 0 });
    expect((await run(p._id)).run).toMatchObject({ done: 4, failed: 0 });
    expect(await domainByName(names[3]!)).toMatchObject({ serverId: server._id });
    expect((await plan('ispmanager', server._id)).counts).toMatchObject({ create: 0, link: 0 });
  }, 60_000);

  it('fails the plan with the reason when the server has no panel credentials', async () => {
    const server = await create('servers', { IPAddress: '127.0.0.3', domainsLimitQty: 0 });
    const res = await call('POST', '/api/imports', { source: 'ispmanager', sourceId: server._id });
    expect(res.statusCode).toBe(201);
    const p = await waitPlan(res.json().data._id, ['failed', 'planned'], 60_000);
    expect(p.state).toBe('failed');
    expect(p.error).toBe(IMPORT_TEXT.notPanel('ISPmanager'));
  }, 30_000);
});

describe('importing a registrar account', () => {
  it('pages through the whole account, creates with expiration dates, ties the unowned, and skips the rest', async () => {
    const apiUser = unique('acct').slice(0, 20);
    ncSim.addAccount({ apiUser, apiKey: 'nc-key-0123456789abcdef', balance: 10 });
    const reg = await create('domain-registrators', {
      name: unique('Namecheap'),
      type: 'namecheap',
      credentials: { endpointUrl: ncSim.url, apiUsername: apiUser, apiKey: 'nc-key-0123456789abcdef' },
    });
    const tag = unique('nc');
    // More than one page of Namecheap's list (100 a page).
    for (let i = 0; i < 105; i++) ncSim.addDomain(apiUser, `${tag}-${i}.net`, { expires: '2027-01-15' });
    await create('domains', { domainName: `${tag}-0.net`, status: 'active' });
    const p = await plan('registrar', reg._id);
    expect(p.state, p.error ?? '').toBe('planned');
    expect(p.counts).toEqual({ total: 105, create: 104, link: 1, skip: 0 });
    const done = await run(p._id);
    expect(done.run).toMatchObject({ total: 105, done: 105, failed: 0 });
    const res = await call('GET', `/api/domains?search=${tag}-104.net`);
    expect(res.json().data.items[0]).toMatchObject({
      domainRegistratorId: reg._id,
      domainRegistratorExpirationDate: '2027-01-15',
    });
    const again = await plan('registrar', reg._id);
    expect(again.counts).toMatchObject({ create: 0, link: 0, skip: 105 });
  }, 120_000);

  it("needs the Domain Registrators area to read the account's domains, when created, planned and run", async () => {
    const apiUser = unique('rule').slice(0, 20);
    ncSim.addAccount({ apiUser, apiKey: 'nc-key-0123456789abcdef', balance: 10 });
    const reg = await create('domain-registrators', {
      name: unique('Namecheap'),
      type: 'namecheap',
      credentials: { endpointUrl: ncSim.url, apiUsername: apiUser, apiKey: 'nc-key-0123456789abcdef' },
    });
    const tag = unique('hidden');
    ncSim.addDomain(apiUser, `${tag}.net`, { expires: '2028-03-01' });
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const needs = 'Importing from a registrar needs the Domain Registrators area';
    // The account's own list refuses a domains-only person; so does the import, before reading anything.
    expect((await call('GET', `/api/domain-registrators/${reg._id}/domains`, undefined, domainsOnly)).statusCode).toBe(
      403,
    );
    const refused = await call('POST', '/api/imports', { source: 'registrar', sourceId: reg._id }, domainsOnly);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'import_rule_missing', message: needs });
    // A plan made by someone with the rule: its names and expiry dates stay with that area, and so does Run.
    const p = await plan('registrar', reg._id);
    expect(p.state, p.error ?? '').toBe('planned');
    const items = await call('GET', `/api/imports/${p._id}/items`, undefined, domainsOnly);
    expect(items.statusCode).toBe(403);
    expect(items.body).not.toContain(tag);
    expect((await call('POST', `/api/imports/${p._id}/run`, undefined, domainsOnly)).statusCode).toBe(403);
    // A plan job queued without the rule (as one queued before a rule was taken away) fails with the reason.
    const row = await t.c.repos.imports.insertPlan({
      source: 'registrar',
      sourceId: reg._id,
      sourceLabel: 'test',
      createdBy: 'someone',
    });
    await t.c.jobEngine.enqueue('imports.plan', { planId: row.id, rules: ['cnv:domains'] });
    const failed = await waitPlan(row.id, ['failed', 'planned']);
    expect(failed).toMatchObject({ state: 'failed', error: needs });
    expect(failed.counts.total).toBe(0);
    // Panels and Cloudflare accounts are read on domain screens: the domains rule is theirs.
    const server = await create('servers', { IPAddress: '127.0.0.9', domainsLimitQty: 0 });
    expect(
      (await call('POST', '/api/imports', { source: 'ispmanager', sourceId: server._id }, domainsOnly)).statusCode,
    ).toBe(201);
  }, 60_000);
});

describe('an import whose names fail', () => {
  it('ends "Completed with failures" (the one rule of every plan), on the import and its job, never plain "Completed"', async () => {
    const tag = unique('full');
    const names = Array.from({ length: 4 }, (_, i) => `${tag}-${i}.com`);
    for (const n of names) ispSim.addSite({ name: n, owner: 'www-root' });
    const server = await create('servers', {
      IPAddress: '127.0.0.3',
      domainsLimitQty: 0,
      ispmanagerUri: `${ispSim.url}/ispmgr`,
      ispmanagerUsername: 'root',
      ispmanagerPassword: ISP_PASSWORD,
      ispmanagerAcceptSelfSigned: true,
    });
    const p = await plan('ispmanager', server._id);
    expect(p.counts).toMatchObject({ create: 4 });
    // The server fills up between plan and run: two names find no place and fail with the reason.
    await t.c.database.db.execute(
      (await import('drizzle-orm')).sql`update servers set domains_limit_qty = 2 where id = ${server._id}`,
    );
    const done = await run(p._id);
    expect(done.run).toMatchObject({ total: 4, done: 2, failed: 2 });
    expect(done.state).toBe('completed_with_failures');
    expect(done.stateText).toBe('Completed with failures: 2 of 4 failed');
    const job = (await call('GET', `/api/jobs/${done.jobId}`)).json().data;
    expect(job).toMatchObject({
      state: 'completed_with_failures',
      summary: '2 of 4 names imported, 2 failed: see the import',
    });
    // Nothing to pause or resume now; Retry failed writes again only the two that failed, once there is room.
    expect((await call('POST', `/api/imports/${p._id}/pause`)).json()).toMatchObject({
      code: 'import_state',
      message: 'The import is completed_with_failures, not running',
    });
    expect((await call('POST', `/api/imports/${p._id}/resume`)).statusCode).toBe(409);
    await t.c.database.db.execute(
      (await import('drizzle-orm')).sql`update servers set domains_limit_qty = 0 where id = ${server._id}`,
    );
    // Tried as an attacker would: bad ids answer 4xx with a message, another kind's plan is not an import.
    const fleetPlan = await t.c.repos.plans.insertPlan('fleet', { selection: {}, createdBy: 'x', state: 'planned' });
    for (const bad of [
      '%00',
      `${p._id}%00`,
      p._id.toUpperCase().replace(/-/g, 'X'),
      '..%2F..%2Fjobs',
      'x'.repeat(5000),
    ]) {
      const res = await call('POST', `/api/imports/${bad}/retry-failed`);
      expect(res.statusCode, bad).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, bad).toBeLessThan(500);
      expect(res.json().message, bad).toBeTruthy();
    }
    expect((await call('POST', `/api/imports/${fleetPlan.id}/pause`)).statusCode).toBe(404);
    // A burst of retries: one puts the failures back, the others are refused (the plan is running by then).
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', `/api/imports/${p._id}/retry-failed`)),
    );
    expect(burst.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const again = await waitPlan(p._id, ['completed', 'completed_with_failures', 'failed']);
    expect(again).toMatchObject({ state: 'completed', run: { total: 4, done: 4, failed: 0 } });
    const noMore = await call('POST', `/api/imports/${p._id}/retry-failed`);
    expect(noMore.statusCode).toBe(409);
    expect(noMore.json().message).toBe('No name of this import failed');
  }, 60_000);
});

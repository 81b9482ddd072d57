import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import {
  HEALTH_CHECKS,
  type DomainHealth,
  type DomainHealthCheck,
  type FleetItem,
  type FleetPlan,
  type HealthCheckKey,
  type HealthSummary,
} from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import {
  cloudflareTxtLookup,
  startYandexWebmasterSim,
  type YandexWebmasterSim,
} from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { startGoogleSearchSim, type GoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// "Fix all" of every fixable check through a fleet plan against the simulators: drift is made in a simulator
// behind the console's back, the plan takes each domain's own expected value, the run ends with the check at ok.
let t: TestApp;
let cf: CloudflareSim;
let nc: NamecheapSim;
let ya: YandexWebmasterSim;
let g: GoogleSearchSim;
/** What the sites serve to Google's sitemap reads: `host/name` → body. */
const served = new Map<string, string>();
let h: string;
let seq = 0;
const KEY = 'nc-api-key-for-tests-0123';

beforeAll(async () => {
  cf = await startCloudflareSim();
  // Yandex reads the verification record where the console put it: the zone's TXT records in Cloudflare.
  ya = await startYandexWebmasterSim({
    verifyDelayMs: 0,
    dnsTxtLookup: (host) =>
      [...cf.state.zones.values()].flatMap((z) =>
        [...z.dnsRecords.values()].filter((r) => r.type === 'TXT' && r.name === host).map((r) => r.content),
      ),
  });
  nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
  g = await startGoogleSearchSim({
    dnsTxtLookup: cloudflareTxtLookup(cf),
    fileLookup: (host, name) => served.get(`${host}/${name}`),
  });
  t = await createTestApp(
    {
      CLOUDFLARE_API_URL: cf.url,
      CLOUDFLARE_TIMEOUT_SECONDS: '5',
      YANDEX_WEBMASTER_API_URL: ya.url,
      GOOGLE_SEARCH_CONSOLE_API_URL: g.url,
      GOOGLE_SITE_VERIFICATION_API_URL: g.siteVerificationUrl,
      GOOGLE_SEARCH_TIMEOUT_SECONDS: '5',
      NAMECHEAP_CLIENT_IP: '198.51.100.7',
      NAMECHEAP_TIMEOUT_SECONDS: '2',
      NAMECHEAP_CALLS_PER_MINUTE: '10000',
      FLEET_ACCOUNT_CONCURRENCY: '1',
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([cf?.close(), nc?.close(), ya?.close(), g?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, token = h) =>
  t.inject({ method, url, headers: { authorization: token }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (p: string) => `${p}-${++seq}-${Math.random().toString(36).slice(2, 7)}`;

/** A domain with a zone (created through the console) in a new Cloudflare account. */
async function zoned(prefix: string, over: object = {}) {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  cf.addAccount({ email, token });
  const cloudId = (await create('clouds', { email, token }))._id;
  const name = `${unique(prefix)}.com`;
  const d = await create('domains', { domainName: name, status: 'active', cloudId, ...over });
  const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
  expect(res.statusCode, res.body).toBe(200);
  const zoneId = res.json().data.cloudZoneId as string;
  return { id: d._id, name, zoneId, zone: () => cf.state.zones.get(zoneId)! };
}
async function checkNow(id: string): Promise<DomainHealth> {
  const res = await call('POST', `/api/domains/${id}/health/check`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}
async function stored(id: string): Promise<DomainHealth> {
  const res = await call('GET', `/api/domains/${id}/health`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}
const check = (hh: DomainHealth, key: HealthCheckKey): DomainHealthCheck => {
  const c = hh.checks.find((x) => x.check === key);
  if (!c) throw new Error(`no ${key} in ${JSON.stringify(hh.checks.map((x) => x.check))}`);
  return c;
};
async function waitPlan(id: string, states: string[]): Promise<FleetPlan> {
  const until = Date.now() + 60_000;
  for (;;) {
    const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data as FleetPlan;
    if (states.includes(p.state)) return p;
    if (Date.now() > until) throw new Error(`plan ${id} stayed ${p.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const itemsOf = async (id: string) =>
  (await call('GET', `/api/fleet/plans/${id}/items`)).json().data.items as FleetItem[];

/** "Fix all" as the web asks for it: the fix over the domains failing the check (narrowed to this test's). */
async function fixAll(check: HealthCheckKey, search: string) {
  const res = await call('POST', '/api/fleet/plans', {
    selection: { filter: { failingCheck: check, search } },
    action: { kind: 'health_fix', check },
  });
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed']);
}
async function run(plan: FleetPlan) {
  const res = await call('POST', `/api/fleet/plans/${plan._id}/run`);
  expect(res.statusCode, res.body).toBe(200);
  return waitPlan(plan._id, ['completed', 'completed_with_failures', 'failed']);
}

describe('Fix all through a fleet plan, each domain to its own expected value', () => {
  it('SSL mode: the plan shows observed → expected per domain; the run sets each back, skips what changed meanwhile', async () => {
    const prefix = unique('fixssl');
    const [a, b, c] = [await zoned(prefix), await zoned(prefix), await zoned(prefix)];
    // Set through the console to different values, then changed at Cloudflare's dashboard.
    for (const [d, v] of [
      [a, 'strict'],
      [b, 'full'],
      [c, 'strict'],
    ] as const) {
      const set = await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: v });
      expect(set.statusCode, set.body).toBe(200);
      d.zone().settings.ssl.value = 'flexible';
      expect(check(await checkNow(d.id), 'cf_ssl')).toMatchObject({ state: 'failing', expected: v });
    }
    const planned = await fixAll('cf_ssl', prefix);
    expect(planned.state).toBe('planned');
    expect(planned.actionLabel).toBe('Fix a health check');
    expect(planned.description).toBe("Fix Cloudflare: SSL mode → each domain's expected value");
    const rows = Object.fromEntries((await itemsOf(planned._id)).map((i) => [i.domainName, i]));
    expect(rows[a.name]).toMatchObject({ outcome: 'change', before: 'flexible', after: 'strict' });
    expect(rows[b.name]).toMatchObject({ outcome: 'change', before: 'flexible', after: 'full' });
    // Between plan and run: b changed again at Cloudflare (skipped, not overwritten), c set back by hand (same).
    b.zone().settings.ssl.value = 'off';
    c.zone().settings.ssl.value = 'strict';
    const done = await run(planned);
    expect(done.run).toMatchObject({ total: 3, done: 1, same: 1, skipped: 1, failed: 0 });
    const after = Object.fromEntries((await itemsOf(planned._id)).map((i) => [i.domainName, i]));
    expect(after[b.name]!.status).toBe('skipped');
    expect(after[b.name]!.error).toContain('Changed since the plan (was flexible, now off)');
    expect(a.zone().settings.ssl.value).toBe('strict');
    expect(b.zone().settings.ssl.value).toBe('off');
    // The run stored what it read and fixed: the list and the tab follow without another Check now.
    expect(check(await stored(a.id), 'cf_ssl')).toMatchObject({ state: 'ok', observed: 'strict' });
    expect(check(await stored(c.id), 'cf_ssl').state).toBe('ok');
    expect(check(await stored(b.id), 'cf_ssl')).toMatchObject({ state: 'failing', observed: 'off' });
    const failingNow = (await call('GET', `/api/domains?failingCheck=cf_ssl&search=${prefix}`)).json().data;
    expect(failingNow.items.map((x: { _id: string }) => x._id)).toEqual([b.id]);
    // The fix is the single-domain action, audited under the plan.
    const audit = await t.c.database.db.execute(
      sql`select username, details from audit_log where entity_id = ${a.id} and action = 'cloudflare_set_ssl'
        order by audit_no desc limit 1`,
    );
    const last = (audit as unknown as { rows: { username: string; details: { sent: { value: string } } }[] }).rows[0]!;
    expect(last.username).toMatch(/^fleet plan #\d+/);
    expect(last.details.sent.value).toBe('strict');
  });

  it('TLS 1.3: set back to what was last set through the console', async () => {
    const prefix = unique('fixtls');
    const d = await zoned(prefix);
    expect((await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/tls_1_3`, { value: 'on' })).statusCode).toBe(
      200,
    );
    d.zone().settings.tls_1_3.value = 'off';
    expect(check(await checkNow(d.id), 'cf_tls13').state).toBe('failing');
    const planned = await fixAll('cf_tls13', prefix);
    expect((await itemsOf(planned._id))[0]).toMatchObject({ outcome: 'change', before: 'off', after: 'on' });
    const done = await run(planned);
    expect(done.state).toBe('completed');
    expect(d.zone().settings.tls_1_3.value).toBe('on');
    expect(check(await checkNow(d.id), 'cf_tls13').state).toBe('ok');
  });

  it("name servers: the registrar's set to each domain's zone's name servers", async () => {
    const prefix = unique('fixns');
    const apiUser = unique('acct').slice(0, 20);
    nc.addAccount({ apiUser, apiKey: KEY, balance: 200 });
    const reg = await create('domain-registrators', {
      name: unique('Namecheap'),
      type: 'namecheap',
      credentials: { endpointUrl: nc.url, apiUsername: apiUser, apiKey: KEY },
    });
    const doms = [
      await zoned(prefix, { domainRegistratorId: reg._id }),
      await zoned(prefix, { domainRegistratorId: reg._id }),
    ];
    const zoneNs = new Map<string, string>();
    for (const d of doms) {
      nc.addDomain(apiUser, d.name);
      const c = check(await checkNow(d.id), 'registrar_ns');
      expect(c.state).toBe('failing');
      zoneNs.set(d.name, c.expected!);
    }
    // Two Cloudflare accounts: two sets of name servers.
    expect(new Set(zoneNs.values()).size).toBe(2);
    const planned = await fixAll('registrar_ns', prefix);
    const rows = await itemsOf(planned._id);
    expect(rows).toHaveLength(2);
    for (const d of doms) {
      const row = rows.find((r) => r.domainName === d.name)!;
      // Each row's target is its own zone's name servers.
      expect(row).toMatchObject({ outcome: 'change', after: zoneNs.get(d.name) });
    }
    const done = await run(planned);
    expect(done.state).toBe('completed');
    expect(done.run.done).toBe(2);
    for (const d of doms) expect(check(await checkNow(d.id), 'registrar_ns').state).toBe('ok');
  });

  it("WAF rules: the domain's saved rules pushed again", async () => {
    const prefix = unique('fixwaf');
    const rule = await create('firewall-rules', {
      name: unique('Block admin'),
      action: 'block',
      expression: '(http.request.uri.path contains "/wp-admin")',
      defaultPriority: 10,
    });
    const d = await zoned(prefix);
    const put = await call('POST', `/api/domains/${d.id}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: rule._id, priority: 1 }],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await call('POST', `/api/domains/${d.id}/cloud-flare/update-firewall-rules`)).statusCode).toBe(200);
    const rs = [...d.zone().rulesets.values()].find((r) => r.phase === 'http_request_firewall_custom')!;
    rs.rules[0]!.expression = '(http.request.uri.path contains "/edited")';
    expect(check(await checkNow(d.id), 'cf_waf').state).toBe('failing');
    const planned = await fixAll('cf_waf', prefix);
    const [row] = await itemsOf(planned._id);
    expect(row!.before).toContain('/edited');
    expect(row!.after).toContain('/wp-admin');
    const done = await run(planned);
    expect(done.state).toBe('completed');
    expect(check(await checkNow(d.id), 'cf_waf').state).toBe('ok');
  });

  it("Yandex host: verified again through the zone's TXT record", async () => {
    const prefix = unique('fixya');
    const token = unique('ya-token');
    ya.addUser(token);
    const account = await create('yandex-webmaster/accounts', { name: unique('Yandex'), apiToken: token });
    const d = await zoned(prefix, { yandexWebmasterAccountId: account._id });
    const host = ya.addHost(token, `https://${d.name}`);
    expect(check(await checkNow(d.id), 'yandex_host')).toMatchObject({ state: 'failing', observed: 'not verified' });
    const planned = await fixAll('yandex_host', prefix);
    expect((await itemsOf(planned._id))[0]).toMatchObject({ outcome: 'change', before: 'not verified' });
    const done = await run(planned);
    expect(done.state, JSON.stringify(await itemsOf(planned._id))).toBe('completed');
    expect(host.verification.state).toBe('VERIFIED');
    // Verified now; the CRITICAL problems Yandex reports are a warning the fix was not about.
    expect(check(await stored(d.id), 'yandex_host').state).toBe('warning');
    host.summary.site_problems = { FATAL: 0, CRITICAL: 0 };
    expect(check(await checkNow(d.id), 'yandex_host').state).toBe('ok');
  });

  it('Yandex host, verified later: "DNS record added; waiting for Yandex to verify", counted as changed, not failed', async () => {
    const prefix = unique('fixyalater');
    const token = unique('ya-token');
    ya.addUser(token);
    const account = await create('yandex-webmaster/accounts', { name: unique('Yandex'), apiToken: token });
    const d = await zoned(prefix, { yandexWebmasterAccountId: account._id });
    const host = ya.addHost(token, `https://${d.name}`);
    expect(check(await checkNow(d.id), 'yandex_host')).toMatchObject({ state: 'failing' });
    const planned = await fixAll('yandex_host', prefix);
    // Yandex reads the TXT record a while after it was asked to: the run ends before it does.
    ya.setVerifyDelay(600_000);
    try {
      const done = await run(planned);
      const items = await itemsOf(planned._id);
      expect(items[0], JSON.stringify(items)).toMatchObject({
        status: 'done',
        error: 'DNS record added; waiting for Yandex to verify',
      });
      expect(done.state).toBe('completed');
      expect(done.runText).toBe('1 of 1 domain changed');
      expect(host.verification.state).toBe('IN_PROGRESS');
    } finally {
      ya.setVerifyDelay(0);
    }
  });

  it('Yandex host, changed but still failing: counted as changed, the row says what was changed and why it still fails', async () => {
    const prefix = unique('fixyafatal');
    const token = unique('ya-token');
    ya.addUser(token);
    const account = await create('yandex-webmaster/accounts', { name: unique('Yandex'), apiToken: token });
    const d = await zoned(prefix, { yandexWebmasterAccountId: account._id });
    const host = ya.addHost(token, `https://${d.name}`);
    // Verified by the fix, but Yandex reports a FATAL problem the fix is not about: the check fails after it.
    host.summary.site_problems = { FATAL: 1, CRITICAL: 0 };
    expect(check(await checkNow(d.id), 'yandex_host')).toMatchObject({ state: 'failing', observed: 'not verified' });
    const planned = await fixAll('yandex_host', prefix);
    const done = await run(planned);
    const items = await itemsOf(planned._id);
    expect(items[0], JSON.stringify(items)).toMatchObject({
      status: 'changed_failing',
      error: 'Changed: DNS record added; the check still fails: Yandex reports FATAL site problems',
    });
    expect(host.verification.state).toBe('VERIFIED');
    // The TXT record is in the zone: the audit trail and the run agree that something changed.
    expect([...d.zone().dnsRecords.values()].some((r) => r.type === 'TXT')).toBe(true);
    expect(done.run).toMatchObject({ total: 1, done: 1, stillFailing: 1, failed: 0 });
    expect(done.runText).toBe('1 of 1 domain changed (1 still failing)');
    // Never green while the check fails, and never "not changed".
    expect(done.state).toBe('completed_with_failures');
    expect(done.stateText).toBe('Completed with failures: 1 of 1 changed but still failing');
    await t.c.jobEngine.waitFor(done.jobId!, 30_000);
    const job = (await call('GET', `/api/jobs/${done.jobId}`)).json().data;
    expect(job).toMatchObject({
      state: 'completed_with_failures',
      stateText: 'Completed with failures: 1 of 1 changed but still failing',
      summary: '1 of 1 domain changed (1 still failing)',
    });
    expect(check(await stored(d.id), 'yandex_host')).toMatchObject({
      state: 'failing',
      observed: 'verified; 1 FATAL, 0 CRITICAL',
    });
  });

  it('Fix on the Health tab is the same path: the failing check set back, stored, audited', async () => {
    const d = await zoned(unique('fixone'));
    expect((await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'full' })).statusCode).toBe(
      200,
    );
    d.zone().settings.ssl.value = 'off';
    expect(check(await checkNow(d.id), 'cf_ssl').state).toBe('failing');
    const res = await call('POST', `/api/domains/${d.id}/health/fix`, { check: 'cf_ssl' });
    expect(res.statusCode, res.body).toBe(200);
    expect(check(res.json().data, 'cf_ssl')).toMatchObject({ state: 'ok', observed: 'full', expected: 'full' });
    expect(d.zone().settings.ssl.value).toBe('full');
    const bad = await call('POST', `/api/domains/${d.id}/health/fix`, { check: 'server' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('check must be one of');
  });

  /** A zoned domain whose Google domain property is added (not verified) with a new service account. */
  async function withGoogleProperty(prefix: string) {
    const key = g.createServiceAccount(unique('sa'));
    const account = await create('google-search/accounts', {
      name: unique('Google'),
      serviceAccountKey: JSON.stringify(key),
    });
    const d = await zoned(prefix);
    const add = await call('PUT', `/api/domains/${d.id}/google-search/property`, {
      accountId: account._id,
      kind: 'domain',
    });
    expect(add.statusCode, add.body).toBe(200);
    return { ...d, key, site: `sc-domain:${d.name}` };
  }

  it('Google property: not applicable without one, failing unverified, verified again through "Fix all"', async () => {
    const prefix = unique('fixgp');
    const none = await zoned(`${prefix}none`);
    const first = await checkNow(none.id);
    expect(check(first, 'google_property')).toMatchObject({
      state: 'na',
      reason: 'The domain has no Google Search Console property',
    });
    expect(check(first, 'google_sitemaps').state).toBe('na');
    const d = await withGoogleProperty(prefix);
    const before = await checkNow(d.id);
    expect(check(before, 'google_property')).toMatchObject({
      state: 'failing',
      observed: `${d.site}: siteUnverifiedUser`,
      expected: `${d.site} verified for ${d.key.client_email}`,
      reason: `Google lists ${d.key.client_email} as siteUnverifiedUser: the property lost (or never had) its verification`,
    });
    expect(check(before, 'google_sitemaps')).toMatchObject({
      state: 'na',
      reason: expect.stringContaining('not verified'),
    });
    const planned = await fixAll('google_property', prefix);
    const items = await itemsOf(planned._id);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ outcome: 'change', before: `${d.site}: siteUnverifiedUser` });
    const done = await run(planned);
    expect(done.state, JSON.stringify(await itemsOf(planned._id))).toBe('completed');
    // Google knows the owner now (the TXT record the fix put in the zone), and the check reads ok.
    expect([...(g.owners.get(`INET_DOMAIN ${d.name}`) ?? [])]).toContain(d.key.client_email);
    expect(check(await stored(d.id), 'google_property')).toMatchObject({
      state: 'ok',
      observed: `${d.site}: siteOwner`,
    });
  });

  it('Google sitemaps: failing on errors, Fix submits them again, warning on warnings, ok', async () => {
    const prefix = unique('fixgs');
    const d = await withGoogleProperty(prefix);
    expect((await call('POST', `/api/domains/${d.id}/google-search/verify`)).statusCode).toBe(200);
    expect(check(await checkNow(d.id), 'google_sitemaps')).toMatchObject({
      state: 'ok',
      observed: 'no sitemap submitted',
    });
    const good = `https://${d.name}/sitemap.xml`;
    const missing = `https://${d.name}/news.xml`;
    served.set(`${d.name}/sitemap.xml`, `<urlset><url><loc>https://${d.name}/</loc></url></urlset>`);
    for (const url of [good, missing]) {
      const res = await call('POST', `/api/domains/${d.id}/google-search/sitemaps`, { url });
      expect(res.statusCode, res.body).toBe(200);
    }
    // The site does not serve news.xml: Google reads an error in it.
    expect(check(await checkNow(d.id), 'google_sitemaps')).toMatchObject({
      state: 'failing',
      observed: '2 sitemaps; 1 with 1 error',
      reason: `Google reports errors in ${missing}`,
      fix: 'google_sitemaps',
    });
    served.set(`${d.name}/news.xml`, '<urlset></urlset>');
    const fixed = await call('POST', `/api/domains/${d.id}/health/fix`, { check: 'google_sitemaps' });
    expect(fixed.statusCode, fixed.body).toBe(200);
    // Submitted again and read: no error now, but a sitemap without a URL is Google's warning.
    expect(check(fixed.json().data, 'google_sitemaps')).toMatchObject({
      state: 'warning',
      observed: '2 sitemaps; 1 with 1 warning',
      reason: `Google reports warnings in ${missing}`,
    });
    expect(g.properties.get(d.site)!.sitemaps.get(missing)).toMatchObject({ errors: 0, warnings: 1 });
    served.set(`${d.name}/news.xml`, `<urlset><url><loc>https://${d.name}/news</loc></url></urlset>`);
    expect((await call('POST', `/api/domains/${d.id}/google-search/sitemaps`, { url: missing })).statusCode).toBe(200);
    expect(check(await checkNow(d.id), 'google_sitemaps')).toMatchObject({ state: 'ok', observed: '2 sitemaps' });
  });

  it('refuses a Google fix to a user without the Google area', async () => {
    const domainsOnly = await t.tokenFor(['cnv:domains'], { username: unique('gops').slice(0, 20) });
    for (const c of ['google_property', 'google_sitemaps']) {
      const denied = await call(
        'POST',
        '/api/fleet/plans',
        { selection: { filter: { failingCheck: c } }, action: { kind: 'health_fix', check: c } },
        domainsOnly,
      );
      expect(denied.statusCode, denied.body).toBe(403);
      expect(denied.json().message).toBe('Fixing Google properties and sitemaps needs the Google Search Console area');
    }
  });

  it('refuses a check without a fix, and a Yandex fix to a user without the Yandex area', async () => {
    const bad = await call('POST', '/api/fleet/plans', {
      selection: { filter: { failingCheck: 'server' } },
      action: { kind: 'health_fix', check: 'server' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('check must be one of');
    const domainsOnly = await t.tokenFor(['cnv:domains'], { username: unique('ops').slice(0, 20) });
    const denied = await call(
      'POST',
      '/api/fleet/plans',
      { selection: { filter: { failingCheck: 'yandex_host' } }, action: { kind: 'health_fix', check: 'yandex_host' } },
      domainsOnly,
    );
    expect(denied.statusCode, denied.body).toBe(403);
    expect(denied.json().message).toBe('Fixing Yandex hosts needs the Yandex Webmaster area');
  });
});

describe("the dashboard's counts", () => {
  const grouped = async () => {
    const res = await t.c.database.db.execute(
      sql`select check_key, state, count(*)::int as n from domain_health_checks group by check_key, state`,
    );
    const out: Record<string, number> = {};
    for (const r of (res as unknown as { rows: { check_key: string; state: string; n: number }[] }).rows)
      out[`${r.check_key}:${r.state}`] = r.n;
    return out;
  };
  const summary = async () => {
    const res = await call('GET', '/api/health/summary');
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as HealthSummary;
  };
  const kept = (s: HealthSummary) => {
    const out: Record<string, number> = {};
    for (const c of s.checks) for (const [st, n] of Object.entries(c.counts)) if (n) out[`${c.check}:${st}`] = n;
    return out;
  };

  it('are kept exactly as results change (compared with a GROUP BY), deletes included', async () => {
    const prefix = unique('counts');
    const d = await zoned(prefix);
    await checkNow(d.id);
    expect(kept(await summary())).toEqual(await grouped());
    expect((await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'strict' })).statusCode).toBe(
      200,
    );
    await checkNow(d.id);
    d.zone().settings.ssl.value = 'off';
    await checkNow(d.id);
    expect(kept(await summary())).toEqual(await grouped());
    // The domain deleted: its check rows go by cascade, and the counts with them.
    expect((await call('DELETE', `/api/domains/${d.id}`)).statusCode).toBeLessThan(300);
    expect(kept(await summary())).toEqual(await grouped());
  });

  it("each count's link (check and state) lists exactly as many domains as the panel shows", async () => {
    const s = await summary();
    let links = 0;
    for (const c of s.checks) {
      for (const st of ['failing', 'warning', 'unknown', 'ok'] as const) {
        const res = await call('GET', `/api/domains?check=${c.check}&checkState=${st}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data.itemsCount, `${c.check} ${st}`).toBe(c.counts[st] ?? 0);
        if (c.counts[st]) links++;
      }
    }
    expect(links).toBeGreaterThan(3);
    expect(s.checks.map((c) => c.check)).toEqual(HEALTH_CHECKS.map((c) => c.key));
    // "Any problem" of one check, and a state without its check refused.
    const problems = await call('GET', '/api/domains?check=cf_ssl');
    const ssl = s.checks.find((c) => c.check === 'cf_ssl')!.counts;
    expect(problems.json().data.itemsCount).toBe((ssl.failing ?? 0) + (ssl.warning ?? 0) + (ssl.unknown ?? 0));
    const alone = await call('GET', '/api/domains?checkState=warning');
    expect(alone.statusCode).toBe(400);
    expect(alone.json().fields).toMatchObject({ check: 'A check state needs the health check it is of' });
    expect((await call('GET', '/api/domains?check=cf_ssl&checkState=nope')).statusCode).toBe(400);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HEALTH_CHECKS,
  type DomainHealth,
  type DomainHealthCheck,
  type FleetPlan,
  type HealthCheckKey,
} from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { generateSelfSignedCert, startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { startSiteServer, type SiteServer } from '@fleetdesk/simulators/site/index.ts';
import { startYandexWebmasterSim, type YandexWebmasterSim } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { isExpensiveRoute } from '../../http/security.ts';

// Fleet health against the simulators: drift is made in a simulator behind the console's back, then checked.
let t: TestApp;
let cf: CloudflareSim;
let nc: NamecheapSim;
let proxy: ForwardProxy;
let site: SiteServer;
let ya: YandexWebmasterSim;
let da: DirectAdminSim;
let ssh: SshHost;
const sshKey = generateKeyPair('ed25519');
const DA_PASSWORD = 'da-admin-pa55word';
let h: string;
let seq = 0;
const KEY = 'nc-api-key-for-tests-0123';
/** Each site name's answer and certificate, changed by the tests. */
const sites = new Map<string, { status: number }>();
const certs = new Map<string, { key: string; cert: string }>();

beforeAll(async () => {
  cf = await startCloudflareSim();
  ssh = await startSshHost({ authorizedKeys: [sshKey.publicLine] });
  ya = await startYandexWebmasterSim({ verifyDelayMs: 0 });
  da = await startDirectAdminSim({
    users: [
      { username: 'admin', password: DA_PASSWORD, level: 'admin' },
      { username: 'web', password: 'web-pa55word', domains: [] },
    ],
  });
  nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
  proxy = await startForwardProxy({ kind: 'http', resolveName: (host) => (sites.has(host) ? '127.0.0.1' : undefined) });
  site = await startSiteServer({
    routes: {
      '/': (req) => ({ status: sites.get(String(req.headers.host).split(':')[0]!)?.status ?? 404, body: 'hello' }),
    },
    tls: { ...generateSelfSignedCert('Test CA', { validDays: 90 }), byName: certs },
  });
  t = await createTestApp(
    {
      CLOUDFLARE_API_URL: cf.url,
      CLOUDFLARE_TIMEOUT_SECONDS: '5',
      YANDEX_WEBMASTER_API_URL: ya.url,
      DIRECTADMIN_TIMEOUT_SECONDS: '3',
      NAMECHEAP_CLIENT_IP: '198.51.100.7',
      NAMECHEAP_TIMEOUT_SECONDS: '2',
      NAMECHEAP_CALLS_PER_MINUTE: '10000',
      HEALTH_SITE_PORT: String(site.port),
      HEALTH_ACCEPT_UNTRUSTED_CERTS: '1',
      HEALTH_TIMEOUT_SECONDS: '5',
      FLEET_ACCOUNT_CONCURRENCY: '1',
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([cf?.close(), nc?.close(), proxy?.close(), site?.close(), ya?.close(), da?.close(), ssh?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (p: string) => `${p}-${++seq}-${Math.random().toString(36).slice(2, 7)}`;

async function account() {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  cf.addAccount({ email, token });
  return (await create('clouds', { email, token }))._id;
}
/** A domain with a zone (created through the console) in a new Cloudflare account. */
async function zoned(over: object = {}) {
  const cloudId = await account();
  const name = `${unique('site')}.com`;
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
const check = (hh: DomainHealth, key: HealthCheckKey): DomainHealthCheck => {
  const c = hh.checks.find((x) => x.check === key);
  if (!c) throw new Error(`no ${key} in ${JSON.stringify(hh.checks.map((x) => x.check))}`);
  return c;
};
const listed = async (query: string) => {
  const res = await call('GET', `/api/domains?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { items: { _id: string; healthState: string | null; healthProblems: number }[] };
};

describe('checks against the simulators', () => {
  it('a domain without any inputs is not applicable everywhere, never failing', async () => {
    const d = await create('domains', { domainName: `${unique('bare')}.com`, status: 'active' });
    const hh = await checkNow(d._id);
    expect(hh.checks).toHaveLength(HEALTH_CHECKS.length);
    for (const c of hh.checks) expect(c.state, c.check).toBe('na');
    expect(hh.state).toBe('na');
    expect(hh.problems).toBe(0);
  });

  it('SSL mode: na until set through the console, ok, failing when changed at Cloudflare, Fix sets it back', async () => {
    const d = await zoned();
    expect(check(await checkNow(d.id), 'cf_ssl').state).toBe('na');
    const set = await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'strict' });
    expect(set.statusCode, set.body).toBe(200);
    expect(check(await checkNow(d.id), 'cf_ssl')).toMatchObject({
      state: 'ok',
      observed: 'strict',
      expected: 'strict',
    });
    // Changed at the dashboard, behind the console's back.
    d.zone().settings.ssl.value = 'flexible';
    const failing = await checkNow(d.id);
    expect(check(failing, 'cf_ssl')).toMatchObject({ state: 'failing', observed: 'flexible', expected: 'strict' });
    expect(failing.state).toBe('failing');
    const since = check(failing, 'cf_ssl').since;
    // "Since" holds across runs while the state holds.
    expect(check(await checkNow(d.id), 'cf_ssl').since).toBe(since);
    // The list filters by it, and by the failing check.
    expect((await listed('health=failing')).items.map((x) => x._id)).toContain(d.id);
    const byCheck = await listed('failingCheck=cf_ssl');
    expect(byCheck.items.map((x) => x._id)).toEqual([d.id]);
    expect(byCheck.items[0]).toMatchObject({ healthState: 'failing' });
    // Fix: the existing single-domain action with the expected value, audited; then the check is ok.
    const fix = await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/ssl`, { value: 'strict' });
    expect(fix.statusCode).toBe(200);
    expect(check(await checkNow(d.id), 'cf_ssl').state).toBe('ok');
    expect((await listed('failingCheck=cf_ssl')).items).toEqual([]);
    // TLS 1.3 the same way: as last set through the console.
    expect((await call('PUT', `/api/domains/${d.id}/cloud-flare/settings/tls_1_3`, { value: 'on' })).statusCode).toBe(
      200,
    );
    d.zone().settings.tls_1_3.value = 'off';
    expect(check(await checkNow(d.id), 'cf_tls13')).toMatchObject({
      state: 'failing',
      observed: 'off',
      expected: 'on',
    });
    const history = (await call('GET', `/api/domains/${d.id}/health`)).json().data as DomainHealth;
    const ssl = history.history.filter((e) => e.check === 'cf_ssl').map((e) => `${e.from}>${e.to}`);
    expect(ssl).toEqual(['failing>ok', 'ok>failing', 'na>ok', 'null>na']);
  });

  it('zone: pending is a warning, failing after a day, ok when active', async () => {
    const d = await zoned();
    d.zone().status = 'pending';
    expect(check(await checkNow(d.id), 'cf_zone').state).toBe('warning');
    d.zone().createdOn = new Date(Date.now() - 2 * 86_400_000).toISOString();
    expect(check(await checkNow(d.id), 'cf_zone').state).toBe('failing');
    d.zone().status = 'active';
    expect(check(await checkNow(d.id), 'cf_zone').state).toBe('ok');
  });

  it("WAF: a rule edited at Cloudflare is failing, others' rules are reported but not drift, Fix all through a fleet plan", async () => {
    const rule = await create('firewall-rules', {
      name: unique('Block admin'),
      action: 'block',
      expression: '(http.request.uri.path contains "/wp-admin")',
      defaultPriority: 10,
    });
    const doms = [await zoned(), await zoned()];
    for (const d of doms) {
      const put = await call('POST', `/api/domains/${d.id}/firewall-rules`, {
        cloudFirewallRules: [{ ruleId: rule._id, priority: 1 }],
      });
      expect(put.statusCode, put.body).toBe(200);
      const push = await call('POST', `/api/domains/${d.id}/cloud-flare/update-firewall-rules`);
      expect(push.statusCode, push.body).toBe(200);
      expect(check(await checkNow(d.id), 'cf_waf').state).toBe('ok');
    }
    // Someone else's rule alone is reported, not drift.
    const first = doms[0]!;
    const rs = [...first.zone().rulesets.values()].find((r) => r.phase === 'http_request_firewall_custom')!;
    rs.rules.push({ ...rs.rules[0]!, id: 'f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0', ref: 'other', description: 'by hand' });
    const withForeign = check(await checkNow(first.id), 'cf_waf');
    expect(withForeign.state).toBe('ok');
    expect(withForeign.observed).toContain('1 rule not made by the console');
    // The console's rule edited by hand: failing on both.
    for (const d of doms) {
      const set = [...d.zone().rulesets.values()].find((r) => r.phase === 'http_request_firewall_custom')!;
      set.rules[0]!.expression = '(http.request.uri.path contains "/edited")';
      const c = check(await checkNow(d.id), 'cf_waf');
      expect(c.state).toBe('failing');
      expect(c.observed).toContain('/edited');
      expect(c.expected).toContain('/wp-admin');
    }
    // Fix all: a fleet plan of the push over the domains failing the check, planned and run like any other.
    const created = await call('POST', '/api/fleet/plans', {
      selection: { filter: { failingCheck: 'cf_waf' } },
      action: { kind: 'waf_push' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const planned = await waitPlan(created.json().data._id, ['planned']);
    expect(planned.counts.total).toBe(2);
    const run = await call('POST', `/api/fleet/plans/${planned._id}/run`);
    expect(run.statusCode, run.body).toBe(200);
    const done = await waitPlan(planned._id, ['completed', 'failed']);
    expect(done.state).toBe('completed');
    expect(done.run.failed).toBe(0);
    const items = (await call('GET', `/api/fleet/plans/${planned._id}/items`)).json().data.items;
    for (const d of doms) {
      const c = check(await checkNow(d.id), 'cf_waf');
      expect(c.state, JSON.stringify({ c, items })).toBe('ok');
    }
  });

  it("name servers: failing when the registrar's are not the zone's, Fix sets them, ok", async () => {
    const apiUser = unique('acct').slice(0, 20);
    nc.addAccount({ apiUser, apiKey: KEY, balance: 200 });
    const reg = await create('domain-registrators', {
      name: unique('Namecheap'),
      type: 'namecheap',
      credentials: { endpointUrl: nc.url, apiUsername: apiUser, apiKey: KEY },
    });
    const soon = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const d = await zoned({ domainRegistratorId: reg._id, domainRegistratorExpirationDate: soon });
    nc.addDomain(apiUser, d.name, { expires: soon });
    const before = await checkNow(d.id);
    expect(check(before, 'registrar_ns').state).toBe('failing');
    expect(check(before, 'registrar_ns').expected).toMatch(/\S/);
    expect(check(before, 'registrar_ns').observed).not.toBe(check(before, 'registrar_ns').expected);
    // Expiry within 30 days: a warning.
    expect(check(before, 'registrar_expiry').state).toBe('warning');
    const fix = await call('POST', `/api/domains/${d.id}/registrar/name-servers`);
    expect(fix.statusCode, fix.body).toBe(200);
    expect(check(await checkNow(d.id), 'registrar_ns').state).toBe('ok');
    const past = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await call('PATCH', `/api/domains/${d.id}`, { domainRegistratorExpirationDate: past });
    expect(check(await checkNow(d.id), 'registrar_expiry').state).toBe('failing');
  });

  it('site over HTTPS through a proxy of the region: ok, 500 failing, certificate near expiry warning then failing', async () => {
    const region = await create('regions', { name: unique('EU') });
    await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: proxy.port,
      proxyType: 'http',
      isHttps: false,
      regionId: region._id,
    });
    const name = `${unique('web')}.com`;
    sites.set(name, { status: 200 });
    const d = await create('domains', { domainName: name, status: 'active', parserProxyRegionId: region._id });
    let c = check(await checkNow(d._id), 'site_https');
    expect(c.state, c.reason ?? '').toBe('ok');
    expect(c.observed).toMatch(/^HTTP 200 in \d+ ms; certificate by Test CA, (89|90) days left$/);
    sites.set(name, { status: 500 });
    c = check(await checkNow(d._id), 'site_https');
    expect(c).toMatchObject({ state: 'failing', reason: 'The site answered 500' });
    sites.set(name, { status: 200 });
    certs.set(name, generateSelfSignedCert('Test CA', { validDays: 10, dnsNames: [name] }));
    c = check(await checkNow(d._id), 'site_https');
    expect(c.state).toBe('warning');
    expect(c.observed).toContain('days left');
    certs.set(name, generateSelfSignedCert('Test CA', { validDays: 2, dnsNames: [name] }));
    expect(check(await checkNow(d._id), 'site_https').state).toBe('failing');
  });

  it('server: na without one, unknown before its first test, warning under 10% free', async () => {
    const s = await create('servers', { IPAddress: '127.0.0.1', email: 'x@example.com', domainsLimitQty: 10 });
    const d = await create('domains', { domainName: `${unique('srv')}.com`, status: 'active', serverId: s._id });
    expect(check(await checkNow(d._id), 'server').state).toBe('unknown');
    await t.c.database.exec(
      `update servers set status = 'online', free_space_bytes = 5, total_space_bytes = 100 where id = '${s._id}'`,
    );
    expect(check(await checkNow(d._id), 'server').state).toBe('warning');
    await t.c.database.exec(`update servers set free_space_bytes = 50 where id = '${s._id}'`);
    expect(check(await checkNow(d._id), 'server').state).toBe('ok');
    await t.c.database.exec(`update servers set status = 'offline' where id = '${s._id}'`);
    expect(check(await checkNow(d._id), 'server').state).toBe('failing');
  });
});

describe('more checks against the simulators', () => {
  it('apex and www records: ok at the server, warning without www, failing elsewhere, na without a server', async () => {
    const server = await create('servers', { IPAddress: '198.51.100.9', email: 'dns@example.com', domainsLimitQty: 5 });
    const d = await zoned({ serverId: server._id });
    const apexId = cf.addDnsRecord(d.zoneId, {
      type: 'A',
      name: d.name,
      content: '198.51.100.9',
      ttl: 1,
      proxied: true,
    });
    let c = check(await checkNow(d.id), 'cf_dns');
    expect(c).toMatchObject({ state: 'warning', reason: 'There is no www record' });
    cf.addDnsRecord(d.zoneId, { type: 'CNAME', name: `www.${d.name}`, content: d.name, ttl: 1, proxied: true });
    c = check(await checkNow(d.id), 'cf_dns');
    expect(c.state, c.observed ?? '').toBe('ok');
    expect(c.expected).toBe(`${d.name}: A 198.51.100.9; www.${d.name}: A 198.51.100.9 (or CNAME ${d.name})`);
    // Pointed elsewhere at the dashboard.
    d.zone().dnsRecords.get(apexId)!.content = '203.0.113.5';
    c = check(await checkNow(d.id), 'cf_dns');
    expect(c).toMatchObject({ state: 'failing', reason: 'The apex does not point at the server' });
    expect(c.observed).toContain('A 203.0.113.5');
    const noServer = await zoned();
    expect(check(await checkNow(noServer.id), 'cf_dns').state).toBe('na');
  });

  it('Yandex host: na without an account, failing unverified, warning on CRITICAL, failing on FATAL, ok', async () => {
    const token = unique('ya-token');
    ya.addUser(token);
    const account = await create('yandex-webmaster/accounts', { name: unique('Yandex'), apiToken: token });
    const name = `${unique('ya')}.com`;
    const none = await create('domains', { domainName: `${unique('nya')}.com`, status: 'active' });
    expect(check(await checkNow(none._id), 'yandex_host').state).toBe('na');
    const d = await create('domains', { domainName: name, status: 'active', yandexWebmasterAccountId: account._id });
    expect(check(await checkNow(d._id), 'yandex_host')).toMatchObject({
      state: 'failing',
      observed: 'not added to the account',
    });
    const host = ya.addHost(token, `https://${name}`);
    expect(check(await checkNow(d._id), 'yandex_host')).toMatchObject({ state: 'failing', observed: 'not verified' });
    host.verification.state = 'VERIFIED';
    host.summary.site_problems = { FATAL: 0, CRITICAL: 2 };
    expect(check(await checkNow(d._id), 'yandex_host')).toMatchObject({
      state: 'warning',
      observed: 'verified; 0 FATAL, 2 CRITICAL',
    });
    host.summary.site_problems = { FATAL: 1, CRITICAL: 0 };
    expect(check(await checkNow(d._id), 'yandex_host').state).toBe('failing');
    host.summary.site_problems = { FATAL: 0, CRITICAL: 0 };
    expect(check(await checkNow(d._id), 'yandex_host').state).toBe('ok');
  });

  it('site on the panel: na without a panel, failing when missing, ok once created', async () => {
    const noPanel = await create('servers', { IPAddress: '127.0.0.1', email: 'np@example.com', domainsLimitQty: 5 });
    const a = await create('domains', { domainName: `${unique('np')}.com`, status: 'active', serverId: noPanel._id });
    expect(check(await checkNow(a._id), 'site_panel').state).toBe('na');
    const s = await create('servers', {
      IPAddress: '127.0.0.1',
      email: 'da@example.com',
      domainsLimitQty: 5,
      directAdminUri: da.url,
      directAdminUsername: 'admin|web',
      directAdminPassword: DA_PASSWORD,
    });
    const name = `${unique('panel')}.com`;
    const d = await create('domains', { domainName: name, status: 'active', serverId: s._id });
    expect(check(await checkNow(d._id), 'site_panel')).toMatchObject({
      state: 'failing',
      observed: 'missing on DirectAdmin',
    });
    da.addDomain('web', name);
    expect(check(await checkNow(d._id), 'site_panel')).toMatchObject({
      state: 'ok',
      observed: 'exists on DirectAdmin',
    });
  });
});

describe('content directory', () => {
  it('na without SSH access, failing when missing or empty, ok with files', async () => {
    const bare = await create('servers', { IPAddress: '127.0.0.1', email: 'nk@example.com', domainsLimitQty: 5 });
    const a = await create('domains', { domainName: `${unique('nk')}.com`, status: 'active', serverId: bare._id });
    expect(check(await checkNow(a._id), 'site_content').state).toBe('na');
    const s = await create('servers', {
      IPAddress: '127.0.0.1',
      email: 'ssh@example.com',
      sshPort: ssh.port,
      domainsPath: '/www',
      domainsLimitQty: 5,
    });
    const key = await call('POST', `/api/servers/${s._id}/rsa-key`, { rsaKey: sshKey.privateKey });
    expect(key.statusCode, key.body).toBe(200);
    const name = `${unique('content')}.com`;
    const d = await create('domains', { domainName: name, status: 'active', serverId: s._id });
    expect(check(await checkNow(d._id), 'site_content')).toMatchObject({
      state: 'failing',
      observed: `${name} does not exist`,
    });
    const dir = path.join(ssh.rootDir, 'www', name);
    fs.mkdirSync(dir, { recursive: true });
    expect(check(await checkNow(d._id), 'site_content')).toMatchObject({
      state: 'failing',
      observed: `${name} is empty`,
    });
    fs.writeFileSync(path.join(dir, 'index.html'), '<h1>hi</h1>');
    expect(check(await checkNow(d._id), 'site_content')).toMatchObject({ state: 'ok', observed: `${name}: 1 entry` });
  });
});

describe('running and showing', () => {
  it('the periodic run checks the longest-unchecked first and reports its cycle; the summary counts it', async () => {
    const fresh = await create('domains', { domainName: `${unique('new')}.com`, status: 'active' });
    const r = await t.c.services.health.cycle(async () => undefined);
    expect(r.full).toBeGreaterThan(0);
    expect(r.message).toMatch(
      /^Whole fleet \(\d+ domains\) checked every 24 hours at the current budgets \(the budgets alone allow every \d+ (second|minute)s?\); HTTP and DNS every 30 minutes$/,
    );
    const hh = (await call('GET', `/api/domains/${fresh._id}/health`)).json().data as DomainHealth;
    expect(hh.state).toBe('na');
    const sum = await call('GET', '/api/health/summary');
    expect(sum.statusCode, sum.body).toBe(200);
    const s = sum.json().data;
    expect(s.cycle.message).toBe(r.message);
    expect(s.domains.unchecked).toBe(0);
    expect(s.checks).toHaveLength(HEALTH_CHECKS.length);
  });

  it('check now over a fleet selection is a job', async () => {
    const d = await create('domains', { domainName: `${unique('sel')}.com`, status: 'active' });
    const res = await call('POST', '/api/health/check', { selection: { ids: [d._id] } });
    expect(res.statusCode, res.body).toBe(202);
    const jobId = res.json().data.jobId as string;
    const until = Date.now() + 30_000;
    for (;;) {
      const j = (await call('GET', `/api/jobs/${jobId}`)).json().data;
      if (j.state === 'completed') break;
      if (j.state === 'failed' || Date.now() > until) throw new Error(`job ${j.state}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(((await call('GET', `/api/domains/${d._id}/health`)).json().data as DomainHealth).checks).toHaveLength(
      HEALTH_CHECKS.length,
    );
  });

  it('counts Check now as an expensive action (its own per-user rate limit)', () => {
    expect(isExpensiveRoute('POST', '/api/domains/:id/health/check')).toBe(true);
    expect(isExpensiveRoute('POST', '/api/health/check')).toBe(true);
    expect(isExpensiveRoute('GET', '/api/domains/:id/health')).toBe(false);
  });

  it('refuses bad filters and unknown domains with a clear message', async () => {
    const bad = await call('GET', '/api/domains?failingCheck=nope');
    expect(bad.statusCode).toBe(400);
    // Messages name fields as the forms do (never the key).
    expect(bad.json().message).toContain('Failing check must be a health check');
    const missing = await call('POST', '/api/domains/00000000-0000-4000-8000-000000000000/health/check');
    expect(missing.statusCode).toBe(404);
  });
});

async function waitPlan(id: string, states: string[]): Promise<FleetPlan> {
  const until = Date.now() + 60_000;
  for (;;) {
    const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data as FleetPlan;
    if (states.includes(p.state)) return p;
    if (Date.now() > until) throw new Error(`plan ${id} stayed ${p.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

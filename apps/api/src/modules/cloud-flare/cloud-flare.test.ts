import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DNS_RULE_MESSAGES,
  CLOUD_FLARE_MESSAGES,
  CLOUD_ZONE_EXISTS_CODE,
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  FLEETDESK_RULE_REF_PREFIX,
} from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { CLOUD_FLARE_TEXT } from './cloud-flare.service.ts';

let sim: CloudflareSim;
let proxy: ForwardProxy;
let t: TestApp;
let h: string;
let seq = 0;

const PROXY_PASSWORD = 'pr0xy-pa55-cf';

beforeAll(async () => {
  sim = await startCloudflareSim();
  proxy = await startForwardProxy({ kind: 'http', username: 'cfops', password: PROXY_PASSWORD });
  t = await createTestApp({ CLOUDFLARE_API_URL: sim.url, CLOUDFLARE_TIMEOUT_SECONDS: '5' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([sim?.close(), proxy?.close()]);
});
beforeEach(async () => {
  await t.reset();
  sim.clearFailures();
  h = await t.tokenFor(['cnv']);
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, auth = h) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const cf = (method: Method, domainId: string, action: string, payload?: object, auth = h) =>
  call(method, `/api/domains/${domainId}/cloud-flare/${action}`, payload, auth);
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const domainOf = async (id: string) => {
  const res = await call('GET', `/api/domains/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { cloudZoneId: string | null; cloudRulesetId: string | null };
};
const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** A simulator account and the cloud that holds its credentials (a token, or an email and global key). */
async function cloudWithAccount(opts: { scheme?: 'token' | 'key'; proxyRegionId?: string } = {}) {
  const email = `${unique('ops')}@example.com`;
  const secret = `${unique('secret')}-0123456789abcdef`;
  const creds = opts.scheme === 'key' ? { email, globalAPIKey: secret } : { email, token: secret };
  const { accountId } = sim.addAccount(creds);
  const cloud = await create('clouds', { ...creds, proxyRegionId: opts.proxyRegionId ?? null });
  return { cloud, accountId, secret, email };
}

async function domainFor(cloudId: string | null, name = `${unique('site')}.com`) {
  const d = await create('domains', { domainName: name, status: 'active', cloudId });
  return { id: d._id, name };
}

/** A domain whose zone exists at Cloudflare and is linked. */
async function domainWithZone(opts: { scheme?: 'token' | 'key'; proxyRegionId?: string } = {}) {
  const acc = await cloudWithAccount(opts);
  const d = await domainFor(acc.cloud._id);
  const res = await cf('POST', d.id, 'create-zone');
  expect(res.statusCode, res.body).toBe(200);
  const zoneId = res.json().data.cloudZoneId as string;
  return { ...acc, domain: d, zoneId, zone: sim.state.zones.get(zoneId)! };
}

const auditOf = async (domainId: string) => {
  const res = await call('GET', `/api/audit-log?entity=domains&entityId=${domainId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.items as { action: string; details: Record<string, unknown> | null }[];
};

describe('refusals', () => {
  const ZONE_CALLS: [Method, string, object?][] = [
    ['DELETE', 'delete-zone'],
    ['PUT', 'unlink-zone'],
    ['GET', 'zone-info'],
    ['POST', 'update-firewall-rules'],
    ['GET', 'settings/ssl'],
    ['PUT', 'settings/ssl', { value: 'full' }],
    ['GET', 'settings/tls_1_3'],
    ['PUT', 'settings/tls_1_3', { value: 'on' }],
    ['GET', 'dns_records'],
    ['POST', 'dns_records', { posts: [] }],
    ['GET', 'redirect-rules'],
    ['POST', 'redirect-rules', { rules: [] }],
    ['POST', 'purge-cache'],
  ];

  it('refuses every call for a domain without a cloud', async () => {
    const d = await domainFor(null);
    const all: [Method, string, object?][] = [
      ['POST', 'create-zone'],
      ['PUT', 'link-zone', { cloudZoneId: 'a'.repeat(32) }],
      ...ZONE_CALLS,
    ];
    for (const [method, action, body] of all) {
      const res = await cf(method, d.id, action, body);
      expect(res.statusCode, `${method} ${action}`).toBe(400);
      expect(res.json()).toMatchObject({ message: CLOUD_FLARE_MESSAGES.noCloud, code: 'no_cloud' });
    }
  });

  it('refuses the calls that need a zone for a domain without one', async () => {
    const { cloud } = await cloudWithAccount();
    const d = await domainFor(cloud._id);
    for (const [method, action, body] of ZONE_CALLS) {
      const res = await cf(method, d.id, action, body);
      expect(res.statusCode, `${method} ${action}`).toBe(400);
      expect(res.json()).toMatchObject({ message: CLOUD_FLARE_MESSAGES.noZone, code: 'no_cloud_zone' });
    }
    expect(sim.state.requests.filter((r) => r.path.includes('/zones/'))).toEqual([]);
  });

  it('needs the domains rule, a sign-in and an existing domain', async () => {
    const { cloud } = await cloudWithAccount();
    const d = await domainFor(cloud._id);
    const other = await t.tokenFor(['cnv:clouds']);
    expect((await cf('POST', d.id, 'create-zone', undefined, other)).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: `/api/domains/${d.id}/cloud-flare/zone-info` })).statusCode).toBe(401);
    const missing = await cf('GET', '00000000-0000-4000-8000-000000000000', 'zone-info');
    expect(missing.statusCode).toBe(404);
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    expect((await cf('POST', d.id, 'create-zone', undefined, domainsOnly)).statusCode).toBe(200);
  });
});

describe('zones', () => {
  it('creates a zone (token), stores its id, answers its name servers, and shows it in zone-info', async () => {
    const { cloud, accountId } = await cloudWithAccount();
    const d = await domainFor(cloud._id);
    const res = await cf('POST', d.id, 'create-zone');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    const account = sim.state.accounts.get(accountId)!;
    expect(data).toMatchObject({ name: d.name, status: 'pending', nameServers: [...account.nameServers] });
    const zone = sim.state.zones.get(data.cloudZoneId)!;
    expect(zone).toMatchObject({ name: d.name, accountId });
    expect((await domainOf(d.id)).cloudZoneId).toBe(zone.id);

    const info = await cf('GET', d.id, 'zone-info');
    expect(info.statusCode).toBe(200);
    expect(info.json()).toEqual({
      data: { result: { id: zone.id, name: d.name, name_servers: [...account.nameServers], status: 'pending' } },
    });
    sim.setZoneStatus(zone.id, 'active');
    expect((await cf('GET', d.id, 'zone-info')).json().data.result.status).toBe('active');

    // A second create is refused: the domain already has a zone.
    const again = await cf('POST', d.id, 'create-zone');
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(CLOUD_FLARE_TEXT.zoneAlreadySet(zone.id));
  });

  it('creates a zone with an email and global API key', async () => {
    const { domain, zone } = await domainWithZone({ scheme: 'key' });
    expect(zone.name).toBe(domain.name);
    const last = sim.state.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/zones')).at(-1);
    expect(last?.auth).toBe('key');
  });

  it('offers to link a zone that already exists in the account, and passes on a name taken elsewhere', async () => {
    const { cloud, accountId } = await cloudWithAccount();
    const d = await domainFor(cloud._id);
    const existing = sim.addZone(accountId, d.name);
    const res = await cf('POST', d.id, 'create-zone');
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({
      code: CLOUD_ZONE_EXISTS_CODE,
      message: CLOUD_FLARE_TEXT.zoneExists(d.name, existing.zoneId),
      fields: { cloudZoneId: existing.zoneId },
    });
    expect((await domainOf(d.id)).cloudZoneId).toBeNull();

    const elsewhere = await cloudWithAccount();
    const d2 = await domainFor(elsewhere.cloud._id, `${unique('taken')}.org`);
    sim.addZone(accountId, d2.name);
    const res2 = await cf('POST', d2.id, 'create-zone');
    expect(res2.statusCode).toBe(502);
    expect(res2.json().message).toBe(`Cloudflare: 1061 ${d2.name} already exists`);
  });

  it('reports a Cloudflare failure of zone-info in errorMessage, not as an error', async () => {
    const { domain } = await domainWithZone();
    sim.fail({ kind: 'bad_credentials' });
    const res = await cf('GET', domain.id, 'zone-info');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ result: null });
    expect(res.json().errorMessage).toMatch(/^Cloudflare: authentication failed \(10000 Authentication error\)/);

    // Credentials that are wrong from the start say so too.
    const bad = await create('clouds', { email: `${unique('bad')}@example.com`, token: 'not-a-known-token-123456' });
    const d = await domainFor(bad._id);
    await t.c.services.domains.setCloudZone(
      d.id,
      { cloudZoneId: 'f'.repeat(32) },
      {
        userId: null,
        username: 'test',
        rules: ['cnv'],
        requestId: null,
      },
    );
    const res2 = await cf('GET', d.id, 'zone-info');
    expect(res2.statusCode).toBe(200);
    expect(res2.json().errorMessage).toMatch(/authentication failed/);
  });

  it('deletes the zone at Cloudflare and clears both ids', async () => {
    const { domain, zoneId } = await domainWithZone();
    const res = await cf('DELETE', domain.id, 'delete-zone');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ cloudZoneId: null, cloudRulesetId: null });
    expect(sim.state.zones.has(zoneId)).toBe(false);
    expect(await domainOf(domain.id)).toMatchObject({ cloudZoneId: null, cloudRulesetId: null });
  });

  it('unlinks without touching the zone, and links it again after checking it', async () => {
    const { domain, zoneId } = await domainWithZone();
    const un = await cf('PUT', domain.id, 'unlink-zone');
    expect(un.statusCode, un.body).toBe(200);
    expect(un.json().data).toEqual({ cloudZoneId: null, cloudRulesetId: null });
    expect(sim.state.zones.has(zoneId)).toBe(true);

    const link = await cf('PUT', domain.id, 'link-zone', { cloudZoneId: zoneId.toUpperCase() });
    expect(link.statusCode, link.body).toBe(200);
    expect(link.json().data).toEqual({ cloudZoneId: zoneId, cloudRulesetId: null });
    expect((await domainOf(domain.id)).cloudZoneId).toBe(zoneId);
  });

  it('refuses a link that fails a check, and says which', async () => {
    const { cloud, accountId, email } = await cloudWithAccount();
    const d = await domainFor(cloud._id);

    const required = await cf('PUT', d.id, 'link-zone', {});
    expect(required.statusCode).toBe(400);
    expect(required.json().fields.cloudZoneId).toBe(CLOUD_FLARE_MESSAGES.zoneIdRequired);
    const format = await cf('PUT', d.id, 'link-zone', { cloudZoneId: 'not-a-zone' });
    expect(format.statusCode).toBe(400);
    expect(format.json().fields.cloudZoneId).toBe(CLOUD_FLARE_MESSAGES.zoneIdFormat);

    // No such zone at all.
    const none = 'e'.repeat(32);
    const missing = await cf('PUT', d.id, 'link-zone', { cloudZoneId: none });
    expect(missing.statusCode, missing.body).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'zone_link_refused',
      message: CLOUD_FLARE_TEXT.zoneNotInAccount(none, email),
      fields: { cloudZoneId: CLOUD_FLARE_TEXT.zoneNotInAccount(none, email) },
    });

    // A zone of the same name in another account.
    const other = await cloudWithAccount();
    const foreign = sim.addZone(other.accountId, d.name);
    const notHere = await cf('PUT', d.id, 'link-zone', { cloudZoneId: foreign.zoneId });
    expect(notHere.statusCode).toBe(400);
    expect(notHere.json().message).toBe(CLOUD_FLARE_TEXT.zoneNotInAccount(foreign.zoneId, email));

    // A zone of the account, but for another name.
    const wrongName = sim.addZone(accountId, `${unique('other')}.net`);
    const mismatch = await cf('PUT', d.id, 'link-zone', { cloudZoneId: wrongName.zoneId });
    expect(mismatch.statusCode).toBe(400);
    const zoneName = sim.state.zones.get(wrongName.zoneId)!.name;
    expect(mismatch.json().message).toBe(CLOUD_FLARE_TEXT.zoneNameMismatch(wrongName.zoneId, zoneName, d.name));

    expect((await domainOf(d.id)).cloudZoneId).toBeNull();
    const entries = await auditOf(d.id);
    expect(entries.filter((e) => e.action === 'cloudflare_link_zone').map((e) => e.details?.outcome)).toEqual([
      'failed',
      'failed',
      'failed',
    ]);
  });
});

describe('settings', () => {
  it('reads and writes SSL and TLS 1.3', async () => {
    const { domain, zone } = await domainWithZone();
    const ssl = await cf('GET', domain.id, 'settings/ssl');
    expect(ssl.statusCode, ssl.body).toBe(200);
    expect(ssl.json().data.result).toMatchObject({ id: 'ssl', value: 'off' });

    const put = await cf('PUT', domain.id, 'settings/ssl', { value: 'strict' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data.result.value).toBe('strict');
    expect(zone.settings.ssl.value).toBe('strict');
    expect((await cf('GET', domain.id, 'settings/ssl')).json().data.result.value).toBe('strict');

    const tls = await cf('PUT', domain.id, 'settings/tls_1_3', { value: 'on' });
    expect(tls.statusCode, tls.body).toBe(200);
    expect(tls.json().data.result).toMatchObject({ id: 'tls_1_3', value: 'on' });
    expect((await cf('GET', domain.id, 'settings/tls_1_3')).json().data.result.value).toBe('on');

    expect((await cf('PUT', domain.id, 'settings/ssl', { value: 'origin_pull' })).statusCode).toBe(400);
    expect((await cf('PUT', domain.id, 'settings/tls_1_3', { value: 'zrt' })).statusCode).toBe(400);

    const entries = await auditOf(domain.id);
    const sslEntry = entries.find((e) => e.action === 'cloudflare_set_ssl')!;
    expect(sslEntry.details).toMatchObject({
      outcome: 'ok',
      sent: { zoneId: zone.id, setting: 'ssl', value: 'strict' },
      answer: { id: 'ssl', value: 'strict' },
    });
  });

  it('passes a Cloudflare failure on with its message', async () => {
    const { domain } = await domainWithZone();
    sim.fail({ kind: '5xx', status: 500, count: 3 });
    const res = await cf('PUT', domain.id, 'settings/ssl', { value: 'full' });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(/^Cloudflare: /);
  });
});

describe('firewall rules', () => {
  it('writes the domain rules by priority and keeps the rules the console did not create', async () => {
    const { domain, zone } = await domainWithZone();
    const mk = (name: string, action: string, expression: string) =>
      create('firewall-rules', { name, action, expression, defaultPriority: 1 });
    const late = await mk('Block bad bot', 'block', '(http.user_agent contains "badbot")');
    const early = await mk('Challenge admin', 'managed_challenge', '(http.request.uri.path contains "/admin")');
    const skip = await mk('Allow office', 'skip', '(ip.src eq 203.0.113.9)');

    // A rule someone made in Cloudflare's dashboard.
    const now = new Date().toISOString();
    const foreign = {
      id: 'c0ffee00c0ffee00c0ffee00c0ffee00',
      ref: 'c0ffee00c0ffee00c0ffee00c0ffee00',
      version: '1',
      lastUpdated: now,
      action: 'block',
      expression: '(ip.src eq 198.51.100.66)',
      description: 'Dashboard: block scraper',
      enabled: true,
    };
    zone.rulesets.set('http_request_firewall_custom', {
      id: 'aa11aa11aa11aa11aa11aa11aa11aa11',
      name: 'default',
      description: '',
      phase: 'http_request_firewall_custom',
      version: 1,
      lastUpdated: now,
      rules: [foreign],
    });

    const save = await call('POST', `/api/domains/${domain.id}/firewall-rules`, {
      cloudFirewallRules: [
        { ruleId: late._id, priority: 20 },
        { ruleId: early._id, priority: 5 },
        { ruleId: skip._id, priority: 1 },
      ],
    });
    expect(save.statusCode, save.body).toBe(200);

    const res = await cf('POST', domain.id, 'update-firewall-rules');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.rules.map((r: { ruleName: string }) => r.ruleName)).toEqual([
      'Allow office',
      'Challenge admin',
      'Block bad bot',
    ]);
    expect(data.preservedRules).toBe(1);
    expect(data.cloudRulesetId).toBe('aa11aa11aa11aa11aa11aa11aa11aa11');
    expect((await domainOf(domain.id)).cloudRulesetId).toBe('aa11aa11aa11aa11aa11aa11aa11aa11');

    let rules = zone.rulesets.get('http_request_firewall_custom')!.rules;
    expect(rules.map((r) => r.description)).toEqual([
      'Dashboard: block scraper',
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Allow office`,
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Challenge admin`,
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Block bad bot`,
    ]);
    expect(rules[0]).toMatchObject({ id: foreign.id, expression: foreign.expression, version: '1' });
    expect(rules[1]).toMatchObject({
      ref: `${FLEETDESK_RULE_REF_PREFIX}${skip._id}`,
      action: 'skip',
      actionParameters: { ruleset: 'current' },
    });
    const adminRuleId = rules[2]!.id;

    // Someone adds another rule in the dashboard after ours; then the domain drops a rule and pushes again.
    const after = { ...foreign, id: 'beef0000beef0000beef0000beef0000', ref: 'beef0000beef0000beef0000beef0000' };
    rules.push({ ...after, description: 'Dashboard: later rule' });
    await call('POST', `/api/domains/${domain.id}/firewall-rules`, {
      cloudFirewallRules: [
        { ruleId: early._id, priority: 5 },
        { ruleId: late._id, priority: 1 },
      ],
    });
    const again = await cf('POST', domain.id, 'update-firewall-rules');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.preservedRules).toBe(2);
    rules = zone.rulesets.get('http_request_firewall_custom')!.rules;
    expect(rules.map((r) => r.description)).toEqual([
      'Dashboard: block scraper',
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Block bad bot`,
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Challenge admin`,
      'Dashboard: later rule',
    ]);
    // The console's rule kept its Cloudflare identity.
    expect(rules[2]!.id).toBe(adminRuleId);
  });

  it('creates the entry point when the zone has none, and refuses rules without an expression', async () => {
    const { domain, zone } = await domainWithZone();
    const r = await create('firewall-rules', {
      name: 'Block all',
      action: 'block',
      expression: '',
      defaultPriority: 1,
    });
    await call('POST', `/api/domains/${domain.id}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: r._id, priority: 1 }],
    });
    const refused = await cf('POST', domain.id, 'update-firewall-rules');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(CLOUD_FLARE_TEXT.emptyExpression(['Block all']));

    await call('PUT', `/api/firewall-rules/${r._id}`, { expression: '(ip.src eq 192.0.2.1)' });
    const res = await cf('POST', domain.id, 'update-firewall-rules');
    expect(res.statusCode, res.body).toBe(200);
    const rs = zone.rulesets.get('http_request_firewall_custom')!;
    expect(res.json().data).toMatchObject({ cloudRulesetId: rs.id, preservedRules: 0 });
    expect(rs.rules).toHaveLength(1);
  });
});

describe('DNS records', () => {
  it('lists every page of records', async () => {
    const { domain, zone } = await domainWithZone();
    for (let i = 0; i < 130; i++)
      sim.addDnsRecord(zone.id, { type: 'A', name: `h${i}`, content: `192.0.2.${i % 250}`, ttl: 1 });
    const res = await cf('GET', domain.id, 'dns_records');
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json().data.result as { name: string; proxied: boolean; ttl: number }[];
    expect(list).toHaveLength(130);
    expect(list[0]).toMatchObject({ proxied: false, ttl: 1 });
    const pages = sim.state.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/dns_records'));
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });

  it('applies deletes, patches and posts in one batch', async () => {
    const { domain, zone } = await domainWithZone();
    const keep = sim.addDnsRecord(zone.id, { type: 'A', name: '@', content: '192.0.2.1', ttl: 1, proxied: true });
    const gone = sim.addDnsRecord(zone.id, { type: 'TXT', name: '@', content: 'old', ttl: 3600 });
    const res = await cf('POST', domain.id, 'dns_records', {
      deletes: [{ id: gone }],
      patches: [{ id: keep, type: 'A', name: domain.name, content: '192.0.2.2', proxied: '0', ttl: '300' }],
      posts: [{ type: 'cname', name: 'www', content: domain.name, proxied: '1', ttl: 1 }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.batches).toBe(1);
    expect(data.message).toBe('DNS records saved: 1 added, 1 changed, 1 deleted');
    expect(data.result.posts[0]).toMatchObject({ type: 'CNAME', name: `www.${domain.name}`, proxied: true, ttl: 1 });
    expect(zone.dnsRecords.get(keep)).toMatchObject({ content: '192.0.2.2', proxied: false, ttl: 300 });
    expect(zone.dnsRecords.has(gone)).toBe(false);
    expect(zone.dnsRecords.size).toBe(2);
  });

  it('validates the rows: type, name, content and ttl are required', async () => {
    const { domain } = await domainWithZone();
    const res = await cf('POST', domain.id, 'dns_records', {
      posts: [{ type: '', name: '', content: '', proxied: '1', ttl: '' }],
      patches: [{ id: 'x', type: 'A', name: 'a', content: '192.0.2.1', proxied: true, ttl: 'abc' }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toMatchObject({
      'posts.0.type': 'Type is required',
      'posts.0.name': 'Name is required',
      'posts.0.content': 'Content is required',
      'posts.0.ttl': 'TTL is required',
      'patches.0.ttl': 'TTL must be a whole number (1 means Auto)',
    });
  });

  it('refuses a control character in content with a field error, before Cloudflare is called (issue 42)', async () => {
    const { domain, zone } = await domainWithZone();
    const res = await cf('POST', domain.id, 'dns_records', {
      posts: [{ type: 'TXT', name: '@', content: '"v=1"\nevil.example. 300 IN A 127.0.0.1', proxied: false, ttl: 1 }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toEqual({ 'posts.0.content': DNS_RULE_MESSAGES.control });
    expect(zone.dnsRecords.size).toBe(0);
  });

  it('fails a batch as a whole and leaves the records untouched', async () => {
    const { domain, zone } = await domainWithZone();
    const a = sim.addDnsRecord(zone.id, { type: 'A', name: 'app', content: '192.0.2.10', ttl: 1 });
    const b = sim.addDnsRecord(zone.id, { type: 'A', name: 'api', content: '192.0.2.11', ttl: 1 });
    const before = JSON.stringify([...zone.dnsRecords.values()]);
    const res = await cf('POST', domain.id, 'dns_records', {
      deletes: [{ id: b }],
      patches: [{ id: a, type: 'A', name: 'app', content: '192.0.2.99', proxied: false, ttl: 1 }],
      // A duplicate of the record the patch just changed: the whole batch fails.
      posts: [{ type: 'A', name: 'app', content: '192.0.2.99', proxied: false, ttl: 1 }],
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(/^Cloudflare: 81057 /);
    expect(JSON.stringify([...zone.dnsRecords.values()])).toBe(before);
    const entry = (await auditOf(domain.id)).find((e) => e.action === 'cloudflare_change_dns_records')!;
    expect(entry.details).toMatchObject({ outcome: 'failed', error: res.json().message });
  });

  it('splits more than 200 changes into batches and says so', async () => {
    const { domain, zone } = await domainWithZone();
    const posts = Array.from({ length: 250 }, (_, i) => ({
      type: 'A',
      name: `n${i}`,
      content: `198.51.100.${i % 250}`,
      proxied: false,
      ttl: 1,
    }));
    const res = await cf('POST', domain.id, 'dns_records', { posts });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.batches).toBe(2);
    expect(res.json().data.message).toMatch(/250 added, 0 changed, 0 deleted in 2 batches/);
    expect(zone.dnsRecords.size).toBe(250);
    const batchCalls = sim.state.requests.filter((r) => r.path.endsWith('/dns_records/batch'));
    expect(batchCalls.at(-1)?.status).toBe(200);
    // The audit keeps the size of a long list, not all of it.
    const entry = (await auditOf(domain.id)).find((e) => e.action === 'cloudflare_change_dns_records')!;
    expect((entry.details?.sent as { posts: { count: number } }).posts.count).toBe(250);
  });
});

describe('redirect rules', () => {
  it('writes static and dynamic redirects and reads them back', async () => {
    const { domain, zone } = await domainWithZone();
    const res = await cf('POST', domain.id, 'redirect-rules', {
      rules: [
        { ruleExpression: '(http.request.uri.path eq "/old")', targetUrlValue: 'https://example.org/new' },
        {
          ruleExpression: '(http.host eq "m.example.org")',
          targetUrlExpression: 'concat("https://example.org", http.request.uri.path)',
          statusCode: 308,
          preserveQueryString: true,
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const rs = zone.rulesets.get('http_request_dynamic_redirect')!;
    expect(rs.rules).toHaveLength(2);
    expect(rs.rules[0]).toMatchObject({
      action: 'redirect',
      actionParameters: {
        from_value: {
          target_url: { value: 'https://example.org/new' },
          status_code: 301,
          preserve_query_string: false,
        },
      },
    });
    const get = await cf('GET', domain.id, 'redirect-rules');
    expect(get.statusCode).toBe(200);
    const rules = get.json().data.rules;
    expect(rules).toMatchObject([
      {
        ruleExpression: '(http.request.uri.path eq "/old")',
        targetUrlValue: 'https://example.org/new',
        statusCode: 301,
      },
      {
        targetUrlExpression: 'concat("https://example.org", http.request.uri.path)',
        statusCode: 308,
        preserveQueryString: true,
      },
    ]);
    expect(res.json().data.rules).toEqual(rules);

    // Sending them back with their ids updates in place; dropping one deletes it.
    const firstId = rules[0].id;
    const keep = await cf('POST', domain.id, 'redirect-rules', { rules: [{ ...rules[0], statusCode: 302 }] });
    expect(keep.statusCode, keep.body).toBe(200);
    expect(zone.rulesets.get('http_request_dynamic_redirect')!.rules).toMatchObject([{ id: firstId }]);
  });

  it('answers an empty list for a zone without redirects, and validates rows', async () => {
    const { domain } = await domainWithZone();
    const get = await cf('GET', domain.id, 'redirect-rules');
    expect(get.statusCode, get.body).toBe(200);
    expect(get.json().data).toEqual({ rules: [] });
    const bad = await cf('POST', domain.id, 'redirect-rules', {
      rules: [
        { ruleExpression: '', statusCode: 305 },
        { ruleExpression: 'true', targetUrlValue: 'https://a.example', targetUrlExpression: 'x' },
        { ruleExpression: 'true', targetUrlValue: 'not a url' },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toMatchObject({
      'rules.0.ruleExpression': 'Rule expression is required',
      'rules.0.statusCode': 'Status code must be one of 301, 302, 303, 307, 308',
      'rules.1.targetUrlExpression': 'Give either a static target URL or a dynamic expression, not both',
      'rules.2.targetUrlValue': 'Target URL must be an absolute http or https URL',
    });
  });
});

describe('cache', () => {
  it('purges everything', async () => {
    const { domain, zoneId } = await domainWithZone();
    const res = await cf('POST', domain.id, 'purge-cache');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.id).toBe(zoneId);
    expect(sim.purgeLog.at(-1)).toMatchObject({ zoneId, body: { purge_everything: true } });
  });
});

describe('proxy routing', () => {
  it("goes through the cloud's proxy region, and refuses a region without a usable proxy", async () => {
    const region = await create('regions', { name: unique('Europe') });
    await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: proxy.port,
      proxyType: 'http',
      isHttps: false,
      username: 'cfops',
      password: PROXY_PASSWORD,
      regionId: region._id,
    });
    const before = proxy.requests;
    const { domain } = await domainWithZone({ scheme: 'key', proxyRegionId: region._id });
    const info = await cf('GET', domain.id, 'zone-info');
    expect(info.json().errorMessage).toBeUndefined();
    // Each action opens its own tunnel (requests within one action may share it): create-zone and zone-info.
    expect(proxy.requests - before).toBeGreaterThanOrEqual(2);

    const empty = await create('regions', { name: unique('Nowhere') });
    const lonely = await cloudWithAccount({ proxyRegionId: empty._id });
    const d = await domainFor(lonely.cloud._id);
    const res = await cf('POST', d.id, 'create-zone');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_usable_proxy', message: CLOUD_FLARE_TEXT.noUsableProxy });
  });

  it('moves on to the next proxy of the region when the first is dead', async () => {
    const region = await create('regions', { name: unique('Asia') });
    const dead = await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: 1,
      proxyType: 'http',
      isHttps: false,
      regionId: region._id,
    });
    await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: proxy.port,
      proxyType: 'http',
      isHttps: false,
      username: 'cfops',
      password: PROXY_PASSWORD,
      regionId: region._id,
    });
    const before = proxy.requests;
    const { domain } = await domainWithZone({ proxyRegionId: region._id });
    expect((await cf('POST', domain.id, 'purge-cache')).statusCode).toBe(200);
    expect(proxy.requests).toBeGreaterThan(before);

    // With only the dead proxy left, the call fails rather than going direct.
    await call('DELETE', `/api/proxies/${dead._id}`);
    const onlyDead = await create('regions', { name: unique('Dead') });
    await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: 1,
      proxyType: 'http',
      isHttps: false,
      regionId: onlyDead._id,
    });
    await call('PATCH', `/api/clouds/${((await domainOf(domain.id)) as unknown as { cloudId: string }).cloudId}`, {
      proxyRegionId: onlyDead._id,
    });
    const info = await cf('GET', domain.id, 'zone-info');
    expect(info.statusCode).toBe(200);
    expect(info.json().errorMessage).toMatch(/^Cloudflare: could not connect \(.*tried 1 route\)$/);
  });
});

describe('proxy marks (issue 26)', () => {
  it('tries a region whose every proxy is marked failed, and a call that works through one clears its mark', async () => {
    const region = await create('regions', { name: unique('Marked') });
    const p = await create('proxies', {
      IPAddress: '127.0.0.1',
      httpPort: proxy.port,
      proxyType: 'http',
      isHttps: false,
      username: 'cfops',
      password: PROXY_PASSWORD,
      regionId: region._id,
    });
    const { domain } = await domainWithZone({ proxyRegionId: region._id });
    // One process could not reach it twice in a row: marked failed.
    const failure = { ok: false, latencyMs: null, error: 'connect ETIMEDOUT', checkedAt: new Date() };
    await t.c.repos.proxies.recordCheck(p._id, failure, 'worker-a:1');
    await t.c.repos.proxies.recordCheck(p._id, failure, 'worker-a:1');
    expect((await t.c.repos.proxies.findRow(p._id))?.checkStatus).toBe('error');

    const before = proxy.requests;
    const info = await cf('GET', domain.id, 'zone-info');
    expect(info.statusCode).toBe(200);
    expect(info.json().errorMessage).toBeUndefined();
    expect(proxy.requests).toBeGreaterThan(before);
    const row = await t.c.repos.proxies.findRow(p._id);
    expect(row).toMatchObject({ checkStatus: 'ok', checkFailures: 0, checkFailedBy: [], checkError: null });
  });
});

describe('audit', () => {
  it('records every action with what was sent and the answer, never a credential', async () => {
    const { domain, secret, zoneId } = await domainWithZone();
    await cf('PUT', domain.id, 'settings/tls_1_3', { value: 'on' });
    await cf('POST', domain.id, 'purge-cache');
    await cf('POST', domain.id, 'dns_records', {
      posts: [{ type: 'A', name: 'x', content: '192.0.2.5', proxied: true, ttl: 1 }],
    });
    await cf('POST', domain.id, 'redirect-rules', {
      rules: [{ ruleExpression: 'true', targetUrlValue: 'https://example.net/' }],
    });
    await cf('POST', domain.id, 'update-firewall-rules');
    await cf('PUT', domain.id, 'unlink-zone');
    await cf('PUT', domain.id, 'link-zone', { cloudZoneId: zoneId });
    await cf('DELETE', domain.id, 'delete-zone');
    const entries = await auditOf(domain.id);
    const actions = entries.map((e) => e.action).filter((a) => a.startsWith('cloudflare_'));
    expect(new Set(actions)).toEqual(
      new Set([
        'cloudflare_create_zone',
        'cloudflare_set_tls_1_3',
        'cloudflare_purge_cache',
        'cloudflare_change_dns_records',
        'cloudflare_set_redirect_rules',
        'cloudflare_update_firewall_rules',
        'cloudflare_unlink_zone',
        'cloudflare_link_zone',
        'cloudflare_delete_zone',
      ]),
    );
    const create = entries.find((e) => e.action === 'cloudflare_create_zone')!;
    expect(create.details).toMatchObject({
      domainName: domain.name,
      outcome: 'ok',
      sent: { name: domain.name, type: 'full' },
      answer: { id: zoneId, name: domain.name },
    });
    const all = JSON.stringify(entries);
    expect(all).not.toContain(secret);
    expect(t.logs.join('')).not.toContain(secret);
  });
});

describe('hardening: DNS changes are all or nothing (decision 014)', () => {
  const shape = (zone: { dnsRecords: Map<string, { type: string; name: string; content: string; ttl: number }> }) =>
    [...zone.dnsRecords.values()].map((r) => `${r.type} ${r.name} ${r.content} ${r.ttl}`).sort();

  it('undoes the parts already applied when a later part fails, and audits each record', async () => {
    const { domain, zone } = await domainWithZone();
    const app = sim.addDnsRecord(zone.id, { type: 'A', name: 'app', content: '192.0.2.10', ttl: 300 });
    const old = sim.addDnsRecord(zone.id, { type: 'TXT', name: 'old', content: 'keep me', ttl: 3600 });
    sim.addDnsRecord(zone.id, { type: 'A', name: 'dup', content: '192.0.2.50', ttl: 1 });
    const before = shape(zone);
    const posts = Array.from({ length: 249 }, (_, i) => ({
      type: 'TXT',
      name: `n${i}`,
      content: `v${i}`,
      proxied: false,
      ttl: 1,
    }));
    // The last post duplicates an existing record: the second part of the split change fails.
    posts.push({ type: 'A', name: 'dup', content: '192.0.2.50', proxied: false, ttl: 1 });
    const res = await cf('POST', domain.id, 'dns_records', {
      deletes: [{ id: old }],
      patches: [{ id: app, type: 'A', name: 'app', content: '192.0.2.99', proxied: false, ttl: 1 }],
      posts,
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(
      /^Cloudflare: 81057 .*\(in part 2 of 2\)\. Nothing was changed: part 1 \(200 records\) had been applied and were undone$/,
    );
    expect(shape(zone)).toEqual(before);
    expect(zone.dnsRecords.get(app)).toMatchObject({ content: '192.0.2.10', ttl: 300 });

    const entry = (await auditOf(domain.id)).find((e) => e.action === 'cloudflare_change_dns_records')!;
    expect(entry.details).toMatchObject({ outcome: 'failed', undone: true, split: { part: 2, parts: 2, limit: 200 } });
    const records = entry.details?.records as {
      count: number;
      first: { action: string; name?: string; outcome: string }[];
    };
    expect(records.count).toBe(252);
    expect(records.first[0]).toMatchObject({
      action: 'delete',
      id: old,
      name: `old.${domain.name}`,
      outcome: 'applied, then undone',
    });
    expect(records.first[1]).toMatchObject({ action: 'change', id: app, outcome: 'applied, then undone' });
    expect(records.first[199]).toMatchObject({ action: 'add', name: 'n197', outcome: 'applied, then undone' });
    expect(records.first.filter((r) => r.outcome === 'applied, then undone')).toHaveLength(200);
  });

  it('sends nothing for an empty change', async () => {
    const { domain } = await domainWithZone();
    const mark = sim.state.requests.length;
    const res = await cf('POST', domain.id, 'dns_records', { deletes: [], patches: [], posts: [] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      result: { deletes: [], patches: [], posts: [] },
      batches: 0,
      message: CLOUD_FLARE_TEXT.dnsNothingToChange,
    });
    expect(sim.state.requests.slice(mark)).toEqual([]);
  });

  it("reads the batch limit from the zone's plan: a Pro zone takes 250 records in one batch", async () => {
    const { domain, zone } = await domainWithZone();
    sim.setZonePlan(zone.id, 'pro');
    const posts = Array.from({ length: 250 }, (_, i) => ({
      type: 'TXT',
      name: `p${i}`,
      content: 'v',
      proxied: false,
      ttl: 1,
    }));
    const res = await cf('POST', domain.id, 'dns_records', { posts });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.batches).toBe(1);
    expect(zone.dnsRecords.size).toBe(250);
  });
});

describe('hardening: rules pushes (decisions 014 and 015)', () => {
  const WAF = 'http_request_firewall_custom';
  const rule = (id: string, description: string, extra: Record<string, unknown> = {}) => ({
    id,
    ref: id,
    version: '1',
    lastUpdated: new Date().toISOString(),
    action: 'block',
    expression: `(ip.src eq 198.51.100.${id.charCodeAt(0) % 200})`,
    description,
    enabled: true,
    ...extra,
  });
  const withRules = (zone: { rulesets: Map<string, unknown> }, rules: unknown[], version = 1) =>
    zone.rulesets.set(WAF, {
      id: 'aa22aa22aa22aa22aa22aa22aa22aa22',
      name: 'default',
      description: '',
      phase: WAF,
      version,
      lastUpdated: new Date().toISOString(),
      rules,
    });
  const oneRule = async (domainId: string, name: string) => {
    const r = await create('firewall-rules', {
      name,
      action: 'block',
      expression: '(ip.src eq 192.0.2.7)',
      defaultPriority: 1,
    });
    const save = await call('POST', `/api/domains/${domainId}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: r._id, priority: 1 }],
    });
    expect(save.statusCode, save.body).toBe(200);
  };

  it('foreign rules keep every field (exposed_credential_check, ratelimit)', async () => {
    const { domain, zone } = await domainWithZone();
    const extra = {
      action: 'managed_challenge',
      exposedCredentialCheck: { username_expression: 'a', password_expression: 'b' },
      ratelimit: { characteristics: ['ip.src'], period: 60, requests_per_period: 10 },
    };
    const foreign = rule('d00dd00dd00dd00dd00dd00dd00dd00d', 'Dashboard: leaked credentials', extra);
    withRules(zone, [foreign]);
    await oneRule(domain.id, 'Block one');
    const res = await cf('POST', domain.id, 'update-firewall-rules');
    expect(res.statusCode, res.body).toBe(200);
    const rules = zone.rulesets.get(WAF)!.rules;
    expect(rules).toHaveLength(2);
    expect(rules[0]).toMatchObject({
      id: foreign.id,
      version: '1',
      exposedCredentialCheck: extra.exposedCredentialCheck,
      ratelimit: extra.ratelimit,
    });
  });

  it('keeps a rule added at the dashboard between the read and the write', async () => {
    const { domain, zone } = await domainWithZone();
    withRules(zone, [rule('a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0', 'Dashboard: first')]);
    await oneRule(domain.id, 'Block two');
    let added = false;
    const stop = sim.afterRequest((entry) => {
      if (added || entry.method !== 'GET' || !entry.path.endsWith(`${zone.id}/rulesets/phases/${WAF}/entrypoint`))
        return;
      added = true;
      const rs = zone.rulesets.get(WAF)!;
      rs.rules.push(rule('b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', 'Dashboard: added meanwhile'));
      rs.version += 1;
    });
    try {
      const res = await cf('POST', domain.id, 'update-firewall-rules');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.preservedRules).toBe(2);
    } finally {
      stop();
    }
    expect(zone.rulesets.get(WAF)!.rules.map((r) => r.description)).toEqual([
      'Dashboard: first',
      'Dashboard: added meanwhile',
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Block two`,
    ]);
  });

  it('serialises concurrent pushes to one zone: each reads, re-reads and writes before the next starts', async () => {
    const { domain, zone } = await domainWithZone();
    withRules(zone, [rule('c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0', 'Dashboard: only')]);
    await oneRule(domain.id, 'Block three');
    const mark = sim.state.requests.length;
    const results = await Promise.all(Array.from({ length: 4 }, () => cf('POST', domain.id, 'update-firewall-rules')));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const calls = sim.state.requests
      .slice(mark)
      .filter((r) => r.path.endsWith(`${zone.id}/rulesets/phases/${WAF}/entrypoint`))
      .map((r) => r.method)
      .join(' ');
    expect(calls).toBe(Array.from({ length: 4 }, () => 'GET GET PUT').join(' '));
    const rules = zone.rulesets.get(WAF)!.rules;
    expect(rules.map((r) => r.description)).toEqual([
      'Dashboard: only',
      `${FLEETDESK_RULE_DESCRIPTION_PREFIX}Block three`,
    ]);
  });

  it('redirect rules the editor cannot show keep their place in the order', async () => {
    const { domain, zone } = await domainWithZone();
    const now = new Date().toISOString();
    const redirect = (id: string, extra: Record<string, unknown>) => ({
      id,
      ref: id,
      version: '1',
      lastUpdated: now,
      action: 'redirect',
      expression: `(http.host eq "${id.slice(0, 4)}.example.org")`,
      description: id.slice(0, 4),
      enabled: true,
      ...extra,
    });
    const shown = (id: string) =>
      redirect(id, { actionParameters: { from_value: { target_url: { value: 'https://example.org/' } } } });
    zone.rulesets.set('http_request_dynamic_redirect', {
      id: 'bb33bb33bb33bb33bb33bb33bb33bb33',
      name: 'default',
      description: '',
      phase: 'http_request_dynamic_redirect',
      version: 1,
      lastUpdated: now,
      rules: [
        shown('aaaa0000aaaa0000aaaa0000aaaa0000'),
        redirect('bulk0000bulk0000bulk0000bulk0000'.replace(/[^0-9a-f]/g, 'b'), {
          actionParameters: { from_list: { name: 'redirects', key: 'http.request.full_uri' } },
        }),
        shown('cccc0000cccc0000cccc0000cccc0000'),
      ],
    });
    const get = await cf('GET', domain.id, 'redirect-rules');
    const rows = get.json().data.rules as { id: string }[];
    expect(rows.map((r) => r.id)).toEqual(['aaaa0000aaaa0000aaaa0000aaaa0000', 'cccc0000cccc0000cccc0000cccc0000']);
    const res = await cf('POST', domain.id, 'redirect-rules', {
      rules: [...rows, { ruleExpression: '(http.host eq "new.example.org")', targetUrlValue: 'https://example.org/n' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const order = zone.rulesets.get('http_request_dynamic_redirect')!.rules.map((r) => r.description);
    expect(order).toEqual(['aaaa', 'bbbb', 'cccc', '']);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { DNS_RULE_MESSAGES, FLEET_MESSAGES, type FleetItem, type FleetPlan } from '@fleetdesk/contract';
import { sql } from 'drizzle-orm';
import { systemActor } from '../../http/context.ts';
import { useFleetApp } from '../../test/fixtures.ts';

// Fleet operations end to end: the real job engine, the Cloudflare simulator, the single-domain services.
const { t, sim, call, create, unique, waitPlan } = useFleetApp();
beforeEach(() => sim.clearFailures());

async function account() {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  const { accountId } = sim.addAccount({ email, token });
  const cloud = await create('clouds', { email, token });
  return { cloudId: cloud._id, accountId, email };
}
/** A domain of the cloud, with a zone at Cloudflare (linked) unless `zone` is false. */
async function domain(cloudId: string | null, opts: { zone?: boolean; brandId?: string } = {}) {
  const name = `${unique('site')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', cloudId, brandId: opts.brandId ?? null });
  let zoneId: string | null = null;
  if (cloudId && opts.zone !== false) {
    const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
    expect(res.statusCode, res.body).toBe(200);
    zoneId = res.json().data.cloudZoneId;
  }
  return { id: d._id, name, zoneId };
}
const zone = (id: string | null) => sim.state.zones.get(id!)!;

async function plan(selection: object, action: object): Promise<FleetPlan> {
  const res = await call('POST', '/api/fleet/plans', { selection, action });
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed', 'cancelled']);
}
async function items(id: string, query = ''): Promise<FleetItem[]> {
  const res = await call('GET', `/api/fleet/plans/${id}/items${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.items;
}
async function run(id: string): Promise<FleetPlan> {
  const res = await call('POST', `/api/fleet/plans/${id}/run`);
  expect(res.statusCode, res.body).toBe(200);
  return waitPlan(id, ['completed', 'completed_with_failures', 'failed', 'cancelled']);
}
const byDomain = (list: FleetItem[]) => new Map(list.map((i) => [i.domainId, i]));

describe('plan and run', () => {
  it('SSL: plans changes, matches and refusals, downloads the plan, runs it and audits each domain', async () => {
    const a = await account();
    const [d1, d2, d3] = [await domain(a.cloudId), await domain(a.cloudId), await domain(a.cloudId)];
    zone(d3.zoneId).settings.ssl.value = 'strict';
    const noZone = await domain(a.cloudId, { zone: false });
    const noCloud = await domain(null);
    const ids = [d1, d2, d3, noZone, noCloud].map((d) => d.id);
    const p = await plan({ ids }, { kind: 'ssl', value: 'strict' });
    expect(p.counts).toMatchObject({ total: 5, change: 2, same: 1, refused: 2, pending: 0 });
    expect(p.description).toBe('SSL mode → Full strict');
    const got = byDomain(await items(p._id));
    expect(got.get(noZone.id)).toMatchObject({ outcome: 'refused', reason: FLEET_MESSAGES.noZone });
    expect(got.get(noCloud.id)).toMatchObject({ outcome: 'refused', reason: FLEET_MESSAGES.noCloud });
    expect(got.get(d3.id)).toMatchObject({ outcome: 'same' });
    expect(got.get(d1.id)).toMatchObject({ outcome: 'change', after: 'Full strict', status: 'pending' });
    // Searchable and paged.
    const found = await items(p._id, `?search=${d2.name}`);
    expect(found.map((i) => i.domainId)).toEqual([d2.id]);
    expect((await items(p._id, '?outcome=refused')).length).toBe(2);

    const csv = await call('GET', `/api/fleet/plans/${p._id}/csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('Domain,Cloud,Outcome,Now,After,Reason,Run,Error');
    expect(csv.body).toContain(`${noZone.name},`);

    const done = await run(p._id);
    expect(done.state).toBe('completed');
    expect(done.run).toMatchObject({ total: 2, done: 2, failed: 0, pending: 0 });
    expect(done.accounts).toEqual([expect.objectContaining({ cloudId: a.cloudId, done: 2 })]);
    expect(zone(d1.zoneId).settings.ssl.value).toBe('strict');
    expect(zone(d2.zoneId).settings.ssl.value).toBe('strict');
    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${d1.id}`);
    const entry = audit.json().data.items.find((e: { action: string }) => e.action === 'cloudflare_set_ssl');
    expect(entry).toBeTruthy();
    expect(JSON.stringify(entry)).toContain(`fleet plan #${done.planNo}`);
    // A finished plan cannot run again.
    expect((await call('POST', `/api/fleet/plans/${p._id}/run`)).statusCode).toBe(409);
    // Its job is named by the plan (issue 47: one number for each thing), and leads to it.
    const jobs = await call('GET', '/api/jobs?kind=fleet.run');
    const job = jobs.json().data.items.find((j: { link: { id: string } | null }) => j.link?.id === p._id);
    expect(job).toMatchObject({ name: `Fleet plan #${done.planNo}`, link: { path: `/fleet/${p._id}` } });
    // The run over time (issue 47): each minute from its start, the two changes under the account that made them.
    const tl = await call('GET', `/api/fleet/plans/${p._id}/timeline`);
    expect(tl.statusCode, tl.body).toBe(200);
    const timeline = tl.json().data;
    expect(timeline.accounts).toEqual([a.email]);
    expect(timeline.minutes.length).toBeGreaterThanOrEqual(1);
    const sum = (k: string) => timeline.minutes.reduce((n: number, m: Record<string, number>) => n + m[k]!, 0);
    expect([sum('changed'), sum('same'), sum('failed'), sum('skipped')]).toEqual([2, 0, 0, 0]);
    expect(
      timeline.minutes.reduce(
        (n: number, m: { accounts: Record<string, number> }) => n + (m.accounts[a.email] ?? 0),
        0,
      ),
    ).toBe(2);
    // Its requests to Cloudflare per minute, as the client counted them: the plan's 3 reads, and per change a read
    // and a write, all against the account's budget per minute.
    const requests = timeline.minutes.reduce(
      (n: number, m: { requests: Record<string, number> }) => n + (m.requests[a.email] ?? 0),
      0,
    );
    expect(requests).toBeGreaterThanOrEqual(4);
    expect(requests).toBeLessThanOrEqual(sim.usage().get(a.accountId)!.requests);
    expect(timeline.budgetPerMinute).toBeGreaterThan(0);
    expect(timeline.backgroundPerMinute).toBeLessThan(timeline.budgetPerMinute);
  });

  it('selects by the list filter, not by ids', async () => {
    const a = await account();
    const brand = await create('brands', { name: unique('brand') });
    const inBrand = [await domain(a.cloudId, { brandId: brand._id }), await domain(a.cloudId, { brandId: brand._id })];
    await domain(a.cloudId);
    const p = await plan({ filter: { brandId: brand._id, hasZone: true } }, { kind: 'tls13', value: 'on' });
    expect(p.counts.total).toBe(2);
    expect((await items(p._id)).map((i) => i.domainId).sort()).toEqual(inBrand.map((d) => d.id).sort());
    const done = await run(p._id);
    expect(done.run.done).toBe(2);
    for (const d of inBrand) expect(zone(d.zoneId).settings.tls_1_3.value).toBe('on');
  });

  it('DNS: adds a record, sets the apex A record, deletes records by type and name', async () => {
    const a = await account();
    const [d1, d2] = [await domain(a.cloudId), await domain(a.cloudId)];
    sim.addDnsRecord(d1.zoneId!, { type: 'A', name: d1.name, content: '192.0.2.1', ttl: 1, proxied: true });
    sim.addDnsRecord(d2.zoneId!, { type: 'A', name: d2.name, content: '192.0.2.9', ttl: 1, proxied: false });
    const records = (zoneId: string | null) => [...zone(zoneId).dnsRecords.values()];

    const add = await plan(
      { ids: [d1.id, d2.id] },
      { kind: 'dns_add', record: { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 1, proxied: false } },
    );
    expect(add.counts.change).toBe(2);
    expect((await run(add._id)).run.done).toBe(2);
    expect(records(d2.zoneId).some((r) => r.type === 'TXT' && r.name === d2.name)).toBe(true);
    // Planned again, it already matches.
    const again = await plan(
      { ids: [d1.id, d2.id] },
      { kind: 'dns_add', record: { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 1, proxied: false } },
    );
    expect(again.counts).toMatchObject({ same: 2, change: 0 });

    const set = await plan({ ids: [d1.id, d2.id] }, { kind: 'dns_set', type: 'A', name: '@', content: '198.51.100.7' });
    expect(set.counts.change).toBe(2);
    expect((await run(set._id)).run.done).toBe(2);
    for (const d of [d1, d2]) {
      const apex = records(d.zoneId).filter((r) => r.type === 'A' && r.name === d.name);
      expect(apex.map((r) => r.content)).toEqual(['198.51.100.7']);
    }
    // The record's other fields are kept.
    expect(records(d2.zoneId).find((r) => r.type === 'A')?.proxied).toBe(false);

    const del = await plan({ ids: [d1.id, d2.id] }, { kind: 'dns_delete', type: 'TXT', name: '{domain}' });
    expect(del.counts.change).toBe(2);
    expect((await run(del._id)).run.done).toBe(2);
    expect(records(d1.zoneId).some((r) => r.type === 'TXT')).toBe(false);

    const missing = await plan(
      { ids: [d1.id] },
      { kind: 'dns_set', type: 'AAAA', name: 'www', content: '2001:db8::1' },
    );
    expect((await items(missing._id))[0]).toMatchObject({
      outcome: 'refused',
      reason: FLEET_MESSAGES.noRecords('AAAA', `www.${d1.name}`),
    });
  });

  it('redirects from a template with {domain}, purge, and WAF push (with and without setting templates)', async () => {
    const a = await account();
    const [d1, d2] = [await domain(a.cloudId), await domain(a.cloudId)];
    const r = await plan(
      { ids: [d1.id, d2.id] },
      {
        kind: 'redirects',
        rules: [
          { ruleExpression: 'http.host eq "{domain}"', targetUrlValue: 'https://www.{domain}/', statusCode: 301 },
        ],
      },
    );
    expect(r.counts.change).toBe(2);
    expect((await run(r._id)).run.done).toBe(2);
    const rules = await call('GET', `/api/domains/${d2.id}/cloud-flare/redirect-rules`);
    expect(rules.json().data.rules[0]).toMatchObject({
      ruleExpression: `http.host eq "${d2.name}"`,
      targetUrlValue: `https://www.${d2.name}/`,
    });

    const purge = await plan({ ids: [d1.id, d2.id] }, { kind: 'purge_cache' });
    const before = sim.purgeLog.length;
    expect((await run(purge._id)).run.done).toBe(2);
    expect(sim.purgeLog.length - before).toBe(2);

    const rule = await create('firewall-rules', {
      name: unique('block'),
      action: 'block',
      expression: '(ip.src eq 192.0.2.66)',
      defaultPriority: 1,
    });
    const noRules = await plan({ ids: [d1.id] }, { kind: 'waf_push' });
    expect((await items(noRules._id))[0]).toMatchObject({ outcome: 'refused', reason: FLEET_MESSAGES.noRules });
    const setPush = await plan(
      { ids: [d1.id, d2.id] },
      { kind: 'waf_set_push', cloudFirewallRules: [{ ruleId: rule._id, priority: 5 }] },
    );
    expect(setPush.counts.change).toBe(2);
    expect((await run(setPush._id)).run.done).toBe(2);
    const saved = await call('GET', `/api/domains/${d2.id}/firewall-rules`);
    expect(saved.json().data.items).toEqual([expect.objectContaining({ ruleId: rule._id, priority: 5 })]);
    const push = await plan({ ids: [d1.id, d2.id] }, { kind: 'waf_push' });
    expect(push.counts).toMatchObject({ same: 2, change: 0 });
  });

  it('a DNS add skips a zone where a clashing record appeared since the plan, rather than sending what Cloudflare refuses', async () => {
    const a = await account();
    const d = await domain(a.cloudId);
    const add = await plan(
      { ids: [d.id] },
      { kind: 'dns_add', record: { type: 'A', name: 'www', content: '192.0.2.80', ttl: 1, proxied: false } },
    );
    expect(add.counts.change).toBe(1);
    // Someone adds a CNAME at the same name at Cloudflare between the plan and its run.
    sim.addDnsRecord(d.zoneId!, { type: 'CNAME', name: `www.${d.name}`, content: d.name, ttl: 1, proxied: false });
    const ran = await run(add._id);
    expect(ran.run, JSON.stringify(await items(add._id))).toMatchObject({ done: 0, failed: 0, skipped: 1 });
    expect((await items(add._id))[0]!.error).toBe(FLEET_MESSAGES.changedSincePlan('none', DNS_RULE_MESSAGES.hostClash));
  });

  it('a WAF push skips a zone whose rules changed since the plan, rather than pushing over them', async () => {
    const a = await account();
    const d = await domain(a.cloudId);
    const rule = await create('firewall-rules', {
      name: unique('block'),
      action: 'block',
      expression: '(ip.src eq 192.0.2.67)',
      defaultPriority: 1,
    });
    const saved = await call('POST', `/api/domains/${d.id}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: rule._id, priority: 1 }],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const push = await plan({ ids: [d.id] }, { kind: 'waf_push' });
    expect(push.counts.change).toBe(1);
    // Someone changes the zone's rules at Cloudflare between the plan and its run.
    const rs = zone(d.zoneId).rulesets.get('http_request_firewall_custom');
    const version = rs?.version ?? 0;
    zone(d.zoneId).rulesets.set('http_request_firewall_custom', {
      id: rs?.id ?? 'rs-by-hand',
      name: 'zone',
      description: '',
      phase: 'http_request_firewall_custom',
      version: version + 1,
      lastUpdated: new Date().toISOString(),
      rules: [
        ...(rs?.rules ?? []),
        {
          id: 'b'.repeat(32),
          ref: 'by-hand',
          version: '1',
          lastUpdated: new Date().toISOString(),
          action: 'block',
          expression: '(ip.src eq 192.0.2.99)',
          description: 'added at Cloudflare',
          enabled: true,
        },
      ],
    });
    const ran = await run(push._id);
    expect(ran.run, JSON.stringify(await items(push._id))).toMatchObject({ done: 0, skipped: 1 });
    expect((await items(push._id))[0]!.error).toMatch(/changed since the plan/i);
  });

  it('creates zones for domains without one, and sets server, brand and status', async () => {
    const a = await account();
    const bare = [await domain(a.cloudId, { zone: false }), await domain(a.cloudId, { zone: false })];
    const withZone = await domain(a.cloudId);
    const z = await plan({ ids: [...bare.map((d) => d.id), withZone.id] }, { kind: 'create_zone' });
    expect(z.counts).toMatchObject({ change: 2, same: 1 });
    expect((await run(z._id)).run.done).toBe(2);
    for (const d of bare) {
      const res = await call('GET', `/api/domains/${d.id}`);
      expect(res.json().data.cloudZoneId).toMatch(/^[0-9a-f]{32}$/);
    }

    const server = await create('servers', { IPAddress: '203.0.113.10' });
    const brand = await create('brands', { name: unique('brand') });
    const ids = bare.map((d) => d.id);
    for (const action of [
      { kind: 'set_server', serverId: server._id },
      { kind: 'set_brand', brandId: brand._id },
      { kind: 'set_status', status: 'inactive' },
    ]) {
      const p = await plan({ ids }, action);
      expect(p.counts.change, action.kind).toBe(2);
      expect((await run(p._id)).run.done, action.kind).toBe(2);
    }
    const res = await call('GET', `/api/domains/${bare[0]!.id}`);
    expect(res.json().data).toMatchObject({ serverId: server._id, brandId: brand._id, status: 'inactive' });
    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${bare[0]!.id}`);
    expect(audit.json().data.items.filter((e: { action: string }) => e.action === 'update').length).toBe(3);
  });
});

describe('plans catch what cannot work (the shared DNS rules)', () => {
  it('a proxied TXT record: every domain under Cannot change with the reason, and the run changes nothing', async () => {
    const a = await account();
    const ds = [];
    for (let i = 0; i < 5; i++) ds.push(await domain(a.cloudId));
    const p = await plan(
      { ids: ds.map((d) => d.id) },
      { kind: 'dns_add', record: { type: 'TXT', name: '_tour', content: 'hello', ttl: 1, proxied: true } },
    );
    expect(p.counts).toMatchObject({ total: 5, change: 0, refused: 5 });
    for (const it of await items(p._id))
      expect(it).toMatchObject({ outcome: 'refused', reason: DNS_RULE_MESSAGES.notProxiable('TXT') });
    const requestsBefore = sim.state.requests.length;
    const done = await run(p._id);
    expect(done.state).toBe('completed');
    expect(done.run.total).toBe(0);
    expect(sim.state.requests.length).toBe(requestsBefore);
    for (const d of ds) expect([...zone(d.zoneId).dnsRecords.values()].some((r) => r.type === 'TXT')).toBe(false);
  });

  it('content that does not fit the type, a missing priority, a CNAME beside an A, a TTL out of bounds', async () => {
    const a = await account();
    const d = await domain(a.cloudId);
    sim.addDnsRecord(d.zoneId!, { type: 'A', name: `www.${d.name}`, content: '192.0.2.1', ttl: 1, proxied: true });
    const reasonOf = async (action: object) => (await items((await plan({ ids: [d.id] }, action))._id))[0]!.reason;
    const rec = (r: object) => ({ kind: 'dns_add', record: { ttl: 1, proxied: false, ...r } });
    expect(await reasonOf(rec({ type: 'A', name: 'x', content: 'not-an-ip' }))).toBe(DNS_RULE_MESSAGES.ipv4);
    expect(await reasonOf(rec({ type: 'AAAA', name: 'x', content: '192.0.2.1' }))).toBe(DNS_RULE_MESSAGES.ipv6);
    expect(await reasonOf(rec({ type: 'CNAME', name: 'x', content: 'not a host' }))).toBe(
      DNS_RULE_MESSAGES.host('CNAME'),
    );
    expect(await reasonOf(rec({ type: 'MX', name: '@', content: 'mail.{domain}' }))).toBe(
      DNS_RULE_MESSAGES.priority('MX'),
    );
    expect(await reasonOf(rec({ type: 'CNAME', name: 'www', content: 'target.example.net' }))).toBe(
      DNS_RULE_MESSAGES.hostClash,
    );
    expect(await reasonOf(rec({ type: 'TXT', name: 'host.example.org.', content: 'v' }))).toBe(
      DNS_RULE_MESSAGES.outside(d.name),
    );
    expect(await reasonOf({ kind: 'dns_set', type: 'A', name: 'www', content: 'example.com' })).toBe(
      DNS_RULE_MESSAGES.ipv4,
    );
    // The single-domain API refuses the same record with the same words, before Cloudflare is asked.
    const res = await call('POST', `/api/domains/${d.id}/cloud-flare/dns_records`, {
      posts: [{ type: 'TXT', name: '_x', content: 'v', ttl: 1, proxied: true }],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().fields).toEqual({ 'posts.0.proxied': DNS_RULE_MESSAGES.notProxiable('TXT') });
  });
});

describe('runs', () => {
  it('a run where every domain fails ends failed, in the same words on the plan and its job', async () => {
    const a = await account();
    const ds = [await domain(a.cloudId), await domain(a.cloudId)];
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'flexible' });
    sim.fail({ kind: 'bad_credentials', count: 2 });
    const done = await run(p._id);
    expect(done.state).toBe('failed');
    expect(done.stateText).toBe('Failed: 2 of 2 failed');
    const job = (await call('GET', `/api/jobs/${done.jobId}`)).json().data;
    expect(job).toMatchObject({ state: 'failed', stateText: 'Failed: 2 of 2 failed' });
    expect(job.summary).toBe('0 of 2 domains changed, 2 failed: see the plan');
    const list = (await call('GET', `/api/fleet/plans`)).json().data.items;
    expect(list.find((x: { _id: string }) => x._id === p._id)).toMatchObject({ stateText: 'Failed: 2 of 2 failed' });
  });

  it('a refusal from Cloudflare mid-run fails that domain only; retry runs the failed ones alone', async () => {
    const a = await account();
    const ds = [await domain(a.cloudId), await domain(a.cloudId), await domain(a.cloudId)];
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'flexible' });
    // The run's first call is refused (bad credentials, a 4xx that is never retried).
    sim.fail({ kind: 'bad_credentials', count: 1 });
    const done = await run(p._id);
    // Never a plain "completed" over a failure: the state carries the count, in the words every screen shows.
    expect(done.state).toBe('completed_with_failures');
    expect(done.stateText).toBe('Completed with failures: 1 of 3 failed');
    expect(done.runText).toBe('2 of 3 domains changed · 1 failed');
    expect(done.run).toMatchObject({ done: 2, failed: 1 });
    const job = (await call('GET', `/api/jobs/${done.jobId}`)).json().data;
    expect(job).toMatchObject({
      state: 'completed_with_failures',
      stateText: 'Completed with failures: 1 of 3 failed',
      summary: '2 of 3 domains changed, 1 failed: see the plan',
      link: { kind: 'plan', id: p._id },
    });
    const failed = (await items(p._id, '?status=failed'))[0]!;
    expect(failed.error).toMatch(/^Cloudflare: authentication failed/);
    expect(zone(ds.find((d) => d.id === failed.domainId)!.zoneId).settings.ssl.value).not.toBe('flexible');

    const requestsBefore = sim.state.requests.length;
    const retry = await call('POST', `/api/fleet/plans/${p._id}/retry-failed`);
    expect(retry.statusCode, retry.body).toBe(200);
    const after = await waitPlan(p._id, ['completed', 'failed']);
    expect(after.run).toMatchObject({ done: 3, failed: 0 });
    // Only the failed domain was worked on again: one read and one write.
    expect(sim.state.requests.length - requestsBefore).toBe(2);
    for (const d of ds) expect(zone(d.zoneId).settings.ssl.value).toBe('flexible');
    const none = await call('POST', `/api/fleet/plans/${p._id}/retry-failed`);
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toBe(FLEET_MESSAGES.noFailed);
  });

  it('pauses and resumes a run without redoing done domains', async () => {
    const a = await account();
    const ds: { id: string; zoneId: string | null }[] = [];
    for (let i = 0; i < 6; i++) ds.push(await domain(a.cloudId));
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'full' });
    sim.fail({ kind: 'slow', delayMs: 250, count: 1000 });
    expect((await call('POST', `/api/fleet/plans/${p._id}/run`)).statusCode).toBe(200);
    await waitUntil(async () => (await waitPlan(p._id, ['running'])).run.done >= 1);
    const paused = await call('POST', `/api/fleet/plans/${p._id}/pause`);
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json().data.state).toBe('paused');
    await new Promise((r) => setTimeout(r, 1500));
    const still = await waitPlan(p._id, ['paused']);
    expect(still.run.done).toBeLessThan(6);
    const doneAtPause = still.run.done;
    await new Promise((r) => setTimeout(r, 1000));
    expect((await waitPlan(p._id, ['paused'])).run.done).toBe(doneAtPause);
    sim.clearFailures();
    expect((await call('POST', `/api/fleet/plans/${p._id}/pause`)).statusCode).toBe(409);
    const resumed = await call('POST', `/api/fleet/plans/${p._id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    const end = await waitPlan(p._id, ['completed', 'failed']);
    expect(end.run).toMatchObject({ total: 6, done: 6, failed: 0, skipped: 0 });
    for (const d of ds) expect(zone(d.zoneId).settings.ssl.value).toBe('full');
  });

  it('cancel stops the run and leaves the rest as they were', async () => {
    const a = await account();
    const ds: { id: string; zoneId: string | null }[] = [];
    for (let i = 0; i < 6; i++) ds.push(await domain(a.cloudId));
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'tls13', value: 'on' });
    sim.fail({ kind: 'slow', delayMs: 250, count: 1000 });
    expect((await call('POST', `/api/fleet/plans/${p._id}/run`)).statusCode).toBe(200);
    await waitUntil(async () => (await waitPlan(p._id, ['running'])).run.done >= 1);
    const res = await call('POST', `/api/fleet/plans/${p._id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.state).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 1500));
    const end = await waitPlan(p._id, ['cancelled']);
    expect(end.run.cancelled).toBeGreaterThan(0);
    const changed = ds.filter((d) => zone(d.zoneId).settings.tls_1_3.value === 'on').length;
    expect(changed).toBe(end.run.done);
    expect(changed).toBeLessThan(6);
    expect((await call('POST', `/api/fleet/plans/${p._id}/cancel`)).statusCode).toBe(409);
  });

  it('Resume on the Jobs screen never turns a failure into a skip: a domain keeps its failure until an attempt decides', async () => {
    const a = await account();
    const ds = [await domain(a.cloudId), await domain(a.cloudId)];
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'flexible' });
    sim.fail({ kind: 'bad_credentials', count: 2 });
    const failed = await run(p._id);
    expect(failed.stateText).toBe('Failed: 2 of 2 failed');
    // The first domain moved meanwhile (as a failed fix may leave it): tried again, it is "changed since the plan".
    zone(ds[0]!.zoneId).settings.ssl.value = 'full';
    const resumed = await call('POST', `/api/jobs/${failed.jobId}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(202);
    const end = await waitPlan(p._id, ['completed', 'completed_with_failures', 'failed']);
    expect(end.state).toBe('completed_with_failures');
    expect(end.stateText).toBe('Completed with failures: 1 of 2 failed');
    expect(end.run).toMatchObject({ done: 1, failed: 1, skipped: 0 });
    const got = byDomain(await items(p._id));
    expect(got.get(ds[0]!.id)).toMatchObject({ status: 'failed' });
    expect(got.get(ds[0]!.id)?.error).toMatch(/^Cloudflare: authentication failed/);
    expect(got.get(ds[1]!.id)).toMatchObject({ status: 'done', error: null });
    const job = (await call('GET', `/api/jobs/${failed.jobId}`)).json().data;
    expect(job).toMatchObject({
      state: 'completed_with_failures',
      stateText: 'Completed with failures: 1 of 2 failed',
    });
  });

  it('Cancel on a run whose worker died: "Cancelling…" at once, nothing new starts, both end "Cancelled", nothing left running', async () => {
    const a = await account();
    const ds: { id: string; zoneId: string | null }[] = [];
    for (let i = 0; i < 4; i++) ds.push(await domain(a.cloudId));
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'flexible' });
    expect(p.counts.change).toBe(4);
    // A run whose worker was killed mid-way: one domain changed, one in flight, two to do, its heartbeat 2 s old.
    const repos = t.c.repos;
    await repos.fleet.transition(p._id, ['planned'], { state: 'running', startedAt: new Date() });
    const job = await repos.jobs.insert({
      kind: 'fleet.run',
      area: 'cnv:domains',
      payload: { planId: p._id },
      state: 'running',
      createdBy: 'test',
    });
    await repos.jobs.update(job.id, { bossId: crypto.randomUUID(), worker: 'gone:1', startedAt: new Date() });
    await repos.plans.updatePlan(p._id, { jobId: job.id });
    await repos.fleet.updateItem(p._id, 1, { status: 'done', finishedAt: new Date() });
    await repos.fleet.updateItem(p._id, 2, { status: 'running' });
    const setHeartbeat = (secondsAgo: number) =>
      t.c.database.db.execute(
        sql`UPDATE jobs SET heartbeat_at = now() - make_interval(secs => ${secondsAgo}) WHERE id = ${job.id}`,
      );
    await setHeartbeat(2);

    const res = await call('POST', `/api/jobs/${job.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ state: 'running', stateText: 'Cancelling…' });
    // The plan says so at once, and its domains not started never will be.
    expect(await waitPlan(p._id, ['cancelled'], 1)).toMatchObject({ stateText: 'Cancelled' });
    expect((await items(p._id)).map((i) => i.status)).toEqual(['done', 'running', 'cancelled', 'cancelled']);

    // The takeover sweep finds the silent worker's job: it ends cancelled, its last step with it.
    await setHeartbeat(60);
    await t.c.jobEngine.takeBackSilent();
    const ended = (await call('GET', `/api/jobs/${job.id}`)).json().data;
    expect(ended).toMatchObject({ state: 'cancelled', stateText: 'Cancelled' });
    expect(ended.summary).toBe('1 of 4 domains changed, 3 not reached');
    const end = await waitPlan(p._id, ['cancelled']);
    expect(end.run).toMatchObject({ done: 1, cancelled: 3, pending: 0 });
    expect((await items(p._id)).filter((i) => i.status === 'running')).toEqual([]);
  });

  it('a run job cancelled on the Jobs screen ends its plan in the same word, and Resume there carries it on', async () => {
    const a = await account();
    const ds: { id: string; zoneId: string | null }[] = [];
    for (let i = 0; i < 4; i++) ds.push(await domain(a.cloudId));
    const p = await plan({ ids: ds.map((d) => d.id) }, { kind: 'ssl', value: 'flexible' });
    sim.fail({ kind: 'slow', delayMs: 250, count: 1000 });
    const started = await call('POST', `/api/fleet/plans/${p._id}/run`);
    const jobId = started.json().data.jobId as string;
    await waitUntil(async () => (await waitPlan(p._id, ['running'])).run.done >= 1);
    expect((await call('POST', `/api/jobs/${jobId}/cancel`)).statusCode).toBe(200);
    const stopped = await waitPlan(p._id, ['cancelled']);
    expect(stopped.run.done).toBeLessThan(4);
    await waitUntil(async () => (await call('GET', `/api/jobs/${jobId}`)).json().data.state === 'cancelled');
    expect((await items(p._id)).filter((i) => i.status === 'running')).toEqual([]);
    sim.clearFailures();
    // Resume from the Jobs screen: the same job carries on, and the plan runs again.
    const resumed = await call('POST', `/api/jobs/${jobId}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(202);
    const done = await waitPlan(p._id, ['completed']);
    expect(done.run.done).toBe(4);
    expect(done.jobId).toBe(jobId);
    expect((await call('GET', `/api/jobs/${jobId}`)).json().data).toMatchObject({
      state: 'completed',
      summary: '4 of 4 domains changed',
    });
  });

  it('a domain changed between plan and run is re-checked, not overwritten', async () => {
    const a = await account();
    const [d1, d2, d3] = [await domain(a.cloudId), await domain(a.cloudId), await domain(a.cloudId)];
    const p = await plan({ ids: [d1.id, d2.id, d3.id] }, { kind: 'ssl', value: 'strict' });
    // Someone changes d1 at the dashboard, and d2 to what the plan wanted.
    zone(d1.zoneId).settings.ssl.value = 'flexible';
    zone(d2.zoneId).settings.ssl.value = 'strict';
    const done = await run(p._id);
    expect(done.run).toMatchObject({ done: 1, same: 1, skipped: 1 });
    expect(done.state).toBe('completed');
    expect(done.runText).toBe('1 of 3 domains changed · 1 already matched · 1 skipped');
    const got = byDomain(await items(p._id));
    expect(got.get(d1.id)).toMatchObject({ status: 'skipped' });
    expect(got.get(d1.id)?.error).toMatch(/^Changed since the plan \(was .+, now flexible\)/);
    expect(got.get(d2.id)).toMatchObject({ status: 'same', error: 'Already as planned' });
    expect(zone(d1.zoneId).settings.ssl.value).toBe('flexible');
    expect(zone(d3.zoneId).settings.ssl.value).toBe('strict');
  });
});

describe('refusals', () => {
  it('validates the selection and the action, and answers 404 for an unknown plan', async () => {
    const bad = [
      [{ selection: { ids: [] }, action: { kind: 'purge_cache' } }, 400],
      [{ selection: { ids: ['nope'] }, action: { kind: 'purge_cache' } }, 400],
      [{ selection: { ids: ['00000000-0000-4000-8000-000000000000'] }, action: { kind: 'explode' } }, 400],
      [{ selection: { ids: ['00000000-0000-4000-8000-000000000000'] }, action: { kind: 'ssl', value: 'max' } }, 400],
      [{ selection: { filter: { status: 'sleepy' } }, action: { kind: 'purge_cache' } }, 400],
      [{ selection: { ids: ['00000000-0000-4000-8000-000000000000'] }, action: { kind: 'purge_cache' } }, 400],
    ] as const;
    for (const [body, status] of bad) {
      const res = await call('POST', '/api/fleet/plans', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().message).toBeTruthy();
    }
    const ghost = await call('POST', '/api/fleet/plans', {
      selection: { filter: {} },
      action: { kind: 'set_server', serverId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(ghost.statusCode).toBe(400);
    expect(ghost.json().fields).toHaveProperty(['action.serverId']);
    const missing = await call('GET', '/api/fleet/plans/00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect((await call('GET', '/api/fleet/plans/00000000-0000-4000-8000-000000000000/timeline')).statusCode).toBe(404);
    expect((await call('GET', '/api/fleet/plans/not-an-id/timeline')).statusCode).toBe(400);
    expect(missing.json().message).toBe(FLEET_MESSAGES.notFound);
  });

  it('a plan whose items cannot be written is not made at all (never a plan "planning" with no items and no job)', async () => {
    const fleetPlans = async () => (await t.c.repos.plans.listPlans('fleet', 1)).itemsCount;
    const before = await fleetPlans();
    const item = { domainName: 'x.com', cloudId: null, cloudEmail: null, desired: undefined, refusal: null };
    await expect(
      t.c.services.fleet.createWithItems(
        { kind: 'purge_cache' },
        {},
        [{ ...item, domainId: 'not-a-uuid' }],
        systemActor(),
      ),
    ).rejects.toThrow();
    expect(await fleetPlans()).toBe(before);
  });

  it('needs the domains rule', async () => {
    const other = await t.tokenFor(['cnv:servers']);
    const res = await call('GET', '/api/fleet/plans', undefined, other);
    expect(res.statusCode).toBe(403);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { describe, expect, it } from 'vitest';
import {
  FLEET_MESSAGES,
  FLEET_STATE_EXPORT_PAGE,
  FLEET_STATE_MESSAGES,
  type FleetItem,
  type FleetPlan,
  type FleetStateExport,
} from '@fleetdesk/contract';
import { useFleetApp } from '../../test/fixtures.ts';
import { dnsStateDiff, wantedRecords } from './fleet.state.ts';

// The fleet as code (issue 45): the state export and a desired-state file planned and run as a fleet plan, end to
// end through the job engine and the Cloudflare simulator.
const { t, sim, call, create, unique } = useFleetApp({ FLEET_ACCOUNT_CONCURRENCY: '2' });

async function account() {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  sim.addAccount({ email, token });
  return (await create('clouds', { email, token }))._id;
}
async function domain(cloudId: string | null, brandId: string | null = null, zone = true) {
  const name = `${unique('state')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', cloudId, brandId });
  let zoneId = '';
  if (cloudId && zone) {
    const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
    expect(res.statusCode, res.body).toBe(200);
    zoneId = res.json().data.cloudZoneId;
  }
  return { id: d._id, name, zoneId };
}
const zone = (id: string) => sim.state.zones.get(id)!;
const records = (id: string) => [...zone(id).dnsRecords.values()];

async function waitPlan(id: string, states: string[]): Promise<FleetPlan> {
  const until = Date.now() + 60_000;
  for (;;) {
    const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data as FleetPlan;
    if (states.includes(p.state)) return p;
    if (Date.now() > until) throw new Error(`plan ${id} stayed ${p.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function planFile(file: object): Promise<FleetPlan> {
  const res = await call('POST', '/api/fleet/state/plans', file);
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed']);
}
const itemsOf = async (id: string) =>
  new Map(
    ((await call('GET', `/api/fleet/plans/${id}/items`)).json().data.items as FleetItem[]).map((i) => [
      i.domainName,
      i,
    ]),
  );
async function run(id: string, body?: object) {
  return call('POST', `/api/fleet/plans/${id}/run`, body);
}

describe('dnsStateDiff', () => {
  const rec = (id: string, type: string, name: string, content: string, extra: object = {}) => ({
    id,
    type,
    name,
    content,
    ttl: 1,
    proxied: false,
    ...extra,
  });
  const now = [
    rec('1', 'A', 'ex.com', '192.0.2.1'),
    rec('2', 'A', 'ex.com', '192.0.2.2'),
    rec('3', 'TXT', 'ex.com', 'v=spf1 -all'),
    rec('4', 'CNAME', 'www.ex.com', 'ex.com', { proxied: true }),
    rec('5', 'NS', 'ex.com', 'ns1.elsewhere.net'),
  ];
  it('manages the pairs the file lists: keeps, reuses a record for a new content, adds, removes', () => {
    const want = wantedRecords(
      [
        { type: 'A', name: '@', content: '192.0.2.1' },
        { type: 'A', name: '@', content: '192.0.2.9' },
        { type: 'A', name: '@', content: '192.0.2.10' },
        { type: 'CNAME', name: 'www', content: 'ex.com' },
      ],
      'ex.com',
    );
    const d = dnsStateDiff(want, now, 'ex.com', false);
    expect(d.patches).toEqual([
      expect.objectContaining({ id: '2', content: '192.0.2.9' }),
      expect.objectContaining({ id: '4', proxied: false }),
    ]);
    expect(d.posts).toEqual([expect.objectContaining({ type: 'A', name: 'ex.com', content: '192.0.2.10' })]);
    // The TXT pair is not the file's: left alone without purge.
    expect(d.deletes).toEqual([]);
    expect(d.changes.map((c) => `${c.op} ${c.subject}`).sort()).toEqual([
      'add A ex.com',
      'change A ex.com',
      'change CNAME www.ex.com',
    ]);
  });
  it('with purge, removes the pairs the file does not list, but for the apex NS', () => {
    const d = dnsStateDiff(
      wantedRecords([{ type: 'A', name: '@', content: '192.0.2.1' }], 'ex.com'),
      now,
      'ex.com',
      true,
    );
    expect(d.deletes.map((x) => x.id).sort()).toEqual(['2', '3', '4']);
    expect(d.changes.every((c) => c.op === 'remove')).toBe(true);
  });
});

describe('the state export and a state plan', () => {
  it('exports, plans the edited file (changes, matches, refusals), refuses past maxChanges, runs, and plans again to nothing', async () => {
    const cloudId = await account();
    const brand = await create('brands', { name: unique('brand') });
    const [a, b] = [await domain(cloudId, brand._id), await domain(cloudId, brand._id)];
    const noZone = await domain(cloudId, brand._id, false);
    sim.addDnsRecord(a.zoneId, { type: 'A', name: a.name, content: '192.0.2.1', ttl: 1, proxied: true });
    sim.addDnsRecord(a.zoneId, { type: 'TXT', name: `_old.${a.name}`, content: 'stale', ttl: 3600, proxied: false });
    sim.addDnsRecord(b.zoneId, {
      type: 'MX',
      name: b.name,
      content: `mx.${b.name}`,
      ttl: 1,
      proxied: false,
      priority: 10,
    });
    const rule = await create('firewall-rules', {
      name: unique('Block bots'),
      action: 'block',
      expression: '(ip.src eq 192.0.2.66)',
      defaultPriority: 1,
    });

    // The export: the brand's domains, one without a zone said why.
    const res = await call('GET', `/api/fleet/state?brandId=${brand._id}`);
    expect(res.statusCode, res.body).toBe(200);
    const exp = res.json().data as FleetStateExport;
    expect(exp).toMatchObject({ version: 1, page: 1, hasMore: false });
    expect(exp.skipped).toEqual([{ domain: noZone.name, reason: FLEET_MESSAGES.noZone }]);
    const ea = exp.domains.find((d) => d.domain === a.name)!;
    expect(ea).toMatchObject({ purge: false, ssl: zone(a.zoneId).settings.ssl.value, firewall: [], redirects: [] });
    expect(ea.dns).toEqual(
      expect.arrayContaining([
        { type: 'A', name: '@', content: '192.0.2.1', proxied: true },
        { type: 'TXT', name: '_old', content: 'stale', ttl: 3600 },
      ]),
    );
    const eb = exp.domains.find((d) => d.domain === b.name)!;
    expect(eb.dns).toContainEqual({ type: 'MX', name: '@', content: `mx.${b.name}`, priority: 10 });

    // Planned as exported, nothing changes.
    const same = await planFile({ version: 1, domains: exp.domains });
    expect(same.counts).toMatchObject({ total: 2, change: 0, same: 2 });
    expect(same.actionKind).toBe('state');

    // Edited: a's apex moves and its stale TXT goes (purge), b gets TLS 1.3, a template and a redirect; plus a name
    // the console does not hold and a template that does not exist.
    const file = {
      version: 1,
      domains: [
        { ...ea, purge: true, ssl: 'strict', dns: [{ type: 'A', name: '@', content: '198.51.100.7', proxied: true }] },
        {
          ...eb,
          tls13: zone(b.zoneId).settings.tls_1_3.value === 'on' ? 'off' : 'on',
          firewall: [{ rule: rule.name as string, priority: 5 }],
          redirects: [{ ruleExpression: `http.host eq "${b.name}"`, targetUrlValue: `https://www.${b.name}/` }],
        },
        { domain: 'not-in-the-console.example', ssl: 'full' },
        { domain: noZone.name, firewall: [{ rule: 'No such template', priority: 1 }] },
      ],
    };
    const p = await planFile(file);
    expect(p.counts).toMatchObject({ total: 4, change: 2, refused: 2 });
    const items = await itemsOf(p._id);
    expect(items.get('not-in-the-console.example')).toMatchObject({
      outcome: 'refused',
      domainId: null,
      reason: FLEET_STATE_MESSAGES.notInConsole,
    });
    expect(items.get(noZone.name)).toMatchObject({
      outcome: 'refused',
      reason: FLEET_STATE_MESSAGES.unknownRule('No such template'),
    });
    const ia = items.get(a.name)!;
    expect(ia.changes!.map((c) => `${c.op} ${c.subject}`).sort()).toEqual(
      [`change A ${a.name}`, `remove TXT _old.${a.name}`, 'change SSL mode'].sort(),
    );
    expect(ia.after).toContain('198.51.100.7');
    const ib = items.get(b.name)!;
    expect(ib.changes!.map((c) => c.area).sort()).toEqual(['firewall', 'redirects', 'tls13']);

    // The safety threshold: two changes, one allowed, nothing runs.
    const refused = await run(p._id, { maxChanges: 1 });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'fleet_max_changes',
      message: FLEET_STATE_MESSAGES.maxChanges(2, 1),
    });
    expect((await call('GET', `/api/fleet/plans/${p._id}`)).json().data.state).toBe('planned');
    expect((await run(p._id, { maxChanges: 'lots' })).statusCode).toBe(400);

    expect((await run(p._id, { maxChanges: 2 })).statusCode).toBe(200);
    const done = await waitPlan(p._id, ['completed', 'completed_with_failures', 'failed']);
    expect(done.state, JSON.stringify(await itemsOf(p._id))).toBe('completed');
    expect(records(a.zoneId).map((r) => `${r.type} ${r.name} ${r.content}`)).toEqual([`A ${a.name} 198.51.100.7`]);
    expect(zone(a.zoneId).settings.ssl.value).toBe('strict');
    expect(zone(b.zoneId).settings.tls_1_3.value).toBe((file.domains[1] as { tls13: string }).tls13);
    // The MX the file kept is untouched; the template is saved and pushed, the redirect set.
    expect(records(b.zoneId).some((r) => r.type === 'MX')).toBe(true);
    const fw = (await call('GET', `/api/domains/${b.id}/firewall-rules`)).json().data;
    expect(JSON.stringify(fw)).toContain(rule._id);
    const redirects = (await call('GET', `/api/domains/${b.id}/cloud-flare/redirect-rules`)).json().data.rules;
    expect(redirects).toEqual([expect.objectContaining({ targetUrlValue: `https://www.${b.name}/`, statusCode: 301 })]);

    // Planned again (the two names the console can change), nothing is left to do.
    const again = await planFile({ version: 1, domains: file.domains.slice(0, 2) });
    expect(again.counts).toMatchObject({ total: 2, change: 0, same: 2 });
  });

  it('refuses a bad file with the field, a generic plan of the kind, and a caller without the domains area', async () => {
    const bad = await call('POST', '/api/fleet/state/plans', {
      version: 1,
      domains: [{ domain: 'x.example', dns: [{ type: 'A', name: '@' }] }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ 'domains.0.dns.0.content': 'content is required' });
    const twice = await call('POST', '/api/fleet/state/plans', {
      version: 1,
      domains: [{ domain: 'x.example' }, { domain: 'X.example.' }],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().fields).toEqual({ 'domains.1.domain': FLEET_STATE_MESSAGES.duplicate('x.example') });
    const unknownKey = await call('POST', '/api/fleet/state/plans', {
      version: 1,
      domains: [{ domain: 'x.example', sll: 'full' }],
    });
    expect(unknownKey.statusCode).toBe(400);
    const generic = await call('POST', '/api/fleet/plans', {
      selection: { ids: ['00000000-0000-4000-8000-000000000001'] },
      action: { kind: 'state', domains: 1, purge: 0 },
    });
    expect(generic.statusCode).toBe(400);
    expect(generic.body).toContain(FLEET_STATE_MESSAGES.planElsewhere);
    const reader = await t.tokenFor(['cnv:brands']);
    expect((await call('GET', '/api/fleet/state', undefined, reader)).statusCode).toBe(403);
    expect((await call('POST', '/api/fleet/state/plans', { version: 1, domains: [] }, reader)).statusCode).toBe(403);
  });

  it('pages the export', async () => {
    const brand = await create('brands', { name: unique('brand') });
    for (let i = 0; i < FLEET_STATE_EXPORT_PAGE + 1; i++) await domain(null, brand._id);
    const one = (await call('GET', `/api/fleet/state?brandId=${brand._id}`)).json().data as FleetStateExport;
    expect(one.skipped.length).toBe(FLEET_STATE_EXPORT_PAGE);
    expect(one.hasMore).toBe(true);
    const two = (await call('GET', `/api/fleet/state?brandId=${brand._id}&page=2`)).json().data as FleetStateExport;
    expect(two).toMatchObject({ page: 2, hasMore: false });
    expect(two.skipped).toEqual([expect.objectContaining({ reason: FLEET_MESSAGES.noCloud })]);
  });
});

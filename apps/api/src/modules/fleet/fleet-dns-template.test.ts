import { describe, expect, it } from 'vitest';
import { DNS_RULE_MESSAGES, FLEET_MESSAGES, type FleetItem, type FleetPlan } from '@fleetdesk/contract';
import { useFleetApp } from '../../test/fixtures.ts';

// "Apply DNS template" as a fleet action, end to end: the job engine, the Cloudflare simulator, the DNS editor's path.
const { sim, call, create, unique } = useFleetApp();

async function account() {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  sim.addAccount({ email, token });
  return (await create('clouds', { email, token }))._id;
}
async function domain(cloudId: string, serverId: string | null) {
  const name = `${unique('site')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', cloudId, serverId });
  const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
  expect(res.statusCode, res.body).toBe(200);
  return { id: d._id, name, zoneId: res.json().data.cloudZoneId as string };
}
const records = (zoneId: string) => [...sim.state.zones.get(zoneId)!.dnsRecords.values()];

async function waitPlan(id: string, states: string[]): Promise<FleetPlan> {
  const until = Date.now() + 60_000;
  for (;;) {
    const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data as FleetPlan;
    if (states.includes(p.state)) return p;
    if (Date.now() > until) throw new Error(`plan ${id} stayed ${p.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function plan(ids: string[], dnsTemplateId: string): Promise<FleetPlan> {
  const res = await call('POST', '/api/fleet/plans', {
    selection: { ids },
    action: { kind: 'dns_template', dnsTemplateId },
  });
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed']);
}
async function run(id: string): Promise<FleetPlan> {
  expect((await call('POST', `/api/fleet/plans/${id}/run`)).statusCode).toBe(200);
  return waitPlan(id, ['completed', 'completed_with_failures', 'failed', 'cancelled']);
}
const itemsOf = async (id: string) =>
  new Map(
    ((await call('GET', `/api/fleet/plans/${id}/items`)).json().data.items as FleetItem[]).map((i) => [i.domainId, i]),
  );

const STANDARD = [
  { type: 'A', name: '@', content: '{serverIp}', proxied: true },
  { type: 'CNAME', name: 'www', content: '{domain}', proxied: true },
  { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 3600 },
];

describe('fleet: apply a DNS template', () => {
  it('plans per domain, adds and updates through the DNS path, leaves equal records alone, and is idempotent', async () => {
    const cloudId = await account();
    const s1 = await create('servers', { IPAddress: '198.51.100.11' });
    const s2 = await create('servers', { IPAddress: '198.51.100.22' });
    const template = await create('dns-templates', { name: unique('Standard site'), records: STANDARD });
    const fresh = await domain(cloudId, s1._id);
    const partly = await domain(cloudId, s2._id);
    const noServer = await domain(cloudId, null);
    // partly: the apex A points elsewhere, the TXT is there already (as some answers quote it), a verification TXT
    // sits beside it and must stay.
    sim.addDnsRecord(partly.zoneId, { type: 'A', name: partly.name, content: '192.0.2.1', ttl: 1, proxied: true });
    sim.addDnsRecord(partly.zoneId, {
      type: 'TXT',
      name: partly.name,
      content: '"v=spf1 -all"',
      ttl: 3600,
      proxied: false,
    });
    sim.addDnsRecord(partly.zoneId, {
      type: 'TXT',
      name: partly.name,
      content: 'yandex-verification: 1',
      ttl: 1,
      proxied: false,
    });

    const p = await plan([fresh.id, partly.id, noServer.id], template._id);
    expect(p.description).toBe(`DNS template ${template.name} (3 records)`);
    expect(p.counts).toMatchObject({ total: 3, change: 2, refused: 1 });
    const planned = await itemsOf(p._id);
    expect(planned.get(noServer.id)).toMatchObject({ outcome: 'refused', reason: FLEET_MESSAGES.noServerIp });
    expect(planned.get(fresh.id)).toMatchObject({
      outcome: 'change',
      before: 'none',
      after: [
        `add A ${fresh.name} → 198.51.100.11`,
        `add CNAME www.${fresh.name} → ${fresh.name}`,
        `add TXT ${fresh.name} → v=spf1 -all`,
      ].join('; '),
    });
    expect(planned.get(partly.id)).toMatchObject({
      outcome: 'change',
      after: `update A ${partly.name} → 198.51.100.22; add CNAME www.${partly.name} → ${partly.name}; 1 already in place`,
    });

    // Editing the template after planning does not change what the plan runs.
    expect((await call('PUT', `/api/dns-templates/${template._id}`, { records: STANDARD.slice(2) })).statusCode).toBe(
      200,
    );

    const done = await run(p._id);
    expect(done.run).toMatchObject({ total: 2, done: 2, failed: 0, skipped: 0 });
    const view = (zoneId: string) =>
      records(zoneId)
        .map((r) => `${r.type} ${r.name} ${r.content} ${r.proxied ? 'proxied' : 'dns'}`)
        .sort();
    expect(view(fresh.zoneId)).toEqual(
      [
        `A ${fresh.name} 198.51.100.11 proxied`,
        `CNAME www.${fresh.name} ${fresh.name} proxied`,
        `TXT ${fresh.name} v=spf1 -all dns`,
      ].sort(),
    );
    expect(view(partly.zoneId)).toEqual(
      [
        `A ${partly.name} 198.51.100.22 proxied`,
        `CNAME www.${partly.name} ${partly.name} proxied`,
        `TXT ${partly.name} "v=spf1 -all" dns`,
        `TXT ${partly.name} yandex-verification: 1 dns`,
      ].sort(),
    );
    // Each domain's change is the DNS editor's, audited on the domain.
    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${fresh.id}`);
    expect(audit.json().data.items.some((e: { action: string }) => e.action === 'cloudflare_change_dns_records')).toBe(
      true,
    );

    // Planned again with the template as it was: everything is in place.
    await call('PUT', `/api/dns-templates/${template._id}`, { records: STANDARD });
    const again = await plan([fresh.id, partly.id], template._id);
    expect(again.counts).toMatchObject({ total: 2, same: 2, change: 0 });
  });

  it('refuses a domain whose zone clashes with the template, and a template that does not exist', async () => {
    const cloudId = await account();
    const server = await create('servers', { IPAddress: '198.51.100.33' });
    const template = await create('dns-templates', { name: unique('With www'), records: STANDARD });
    const d = await domain(cloudId, server._id);
    sim.addDnsRecord(d.zoneId, { type: 'A', name: `www.${d.name}`, content: '192.0.2.5', ttl: 1, proxied: false });
    const p = await plan([d.id], template._id);
    const item = (await itemsOf(p._id)).get(d.id);
    expect(item).toMatchObject({ outcome: 'refused' });
    expect(item?.reason).toBe(`CNAME www.${d.name} → ${d.name}: ${DNS_RULE_MESSAGES.hostClash}`);
    expect(records(d.zoneId)).toHaveLength(1);

    const missing = await call('POST', '/api/fleet/plans', {
      selection: { ids: [d.id] },
      action: { kind: 'dns_template', dnsTemplateId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toEqual({ 'action.dnsTemplateId': FLEET_MESSAGES.templateNotFound });
  });
});

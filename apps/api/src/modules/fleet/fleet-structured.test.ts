import { describe, expect, it } from 'vitest';
import { useFleetApp } from '../../test/fixtures.ts';

/**
 * Fleet DNS actions over records Cloudflare keeps as `data` (CAA, SRV), end to end against the Cloudflare
 * simulator, which checks every request against Cloudflare's OpenAPI document (`content` for these types is
 * refused there) and answers them with `data` and a content it computes (CAA's value quoted, SRV's priority apart).
 */
const {
  sim,
  create,
  unique,
  account,
  zonedDomain: domain,
  planFleet: plan,
  runPlan: run,
  itemsByDomain: itemsOf,
} = useFleetApp();

const ofType = (zoneId: string, type: string) =>
  [...sim.state.zones.get(zoneId)!.dnsRecords.values()]
    .filter((r) => r.type === type)
    .map((r) => ({ name: r.name, content: r.content, data: r.data }));

/** Requests the simulator refused with 400 since `from` (a body its OpenAPI check or its rules refused). */
const refusedSince = (from: number) => sim.state.requests.slice(from).filter((r) => r.status === 400);

describe('fleet: structured DNS records (CAA, SRV) against the Cloudflare simulator', () => {
  it('dns_add of a CAA record: a zone holding it (as Cloudflare writes it) is left alone, the other gets it as data', async () => {
    const cloudId = await account();
    const has = await domain(cloudId);
    const lacks = await domain(cloudId);
    sim.addDnsRecord(has.zoneId, {
      type: 'CAA',
      name: has.name,
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      ttl: 1,
    });
    expect(ofType(has.zoneId, 'CAA').map((r) => r.content)).toEqual(['0 issue "letsencrypt.org"']);
    // Written without the quotes, as an operator types it.
    const action = {
      kind: 'dns_add',
      record: { type: 'CAA', name: '@', content: '0 issue letsencrypt.org', ttl: 1, proxied: false },
    };
    const p = await plan([has.id, lacks.id], action);
    expect(p.state).toBe('planned');
    expect(p.counts).toMatchObject({ total: 2, change: 1, same: 1, refused: 0 });
    const items = await itemsOf(p._id);
    expect(items.get(has.id)).toMatchObject({ outcome: 'same' });
    expect(items.get(lacks.id)).toMatchObject({ outcome: 'change', before: 'none' });

    const from = sim.state.requests.length;
    const done = await run(p._id);
    expect(done.state).toBe('completed');
    expect(done.run).toMatchObject({ done: 1, failed: 0 });
    expect(refusedSince(from)).toEqual([]);
    const caa = {
      name: '',
      content: '0 issue "letsencrypt.org"',
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
    };
    expect(ofType(lacks.zoneId, 'CAA')).toEqual([{ ...caa, name: lacks.name }]);
    expect(ofType(has.zoneId, 'CAA')).toEqual([{ ...caa, name: has.name }]);

    // Planned again, both hold it.
    const again = await plan([has.id, lacks.id], action);
    expect(again.counts).toMatchObject({ total: 2, change: 0, same: 2 });
  });

  it('dns_template with CAA and SRV records: added as data, and planned again it changes nothing', async () => {
    const cloudId = await account();
    const d = await domain(cloudId);
    const template = await create('dns-templates', {
      name: unique('Structured'),
      records: [
        { type: 'CAA', name: '@', content: '0 issue letsencrypt.org', ttl: 1, proxied: false },
        { type: 'CAA', name: '@', content: '0 iodef "mailto:security@{domain}"', ttl: 1, proxied: false },
        { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.{domain}', ttl: 1, proxied: false, priority: 10 },
        { type: 'SRV', name: '_xmpp._tcp', content: '20 5 5269 xmpp.{domain}', ttl: 1, proxied: false },
      ],
    });
    const action = { kind: 'dns_template', dnsTemplateId: template._id };
    const p = await plan([d.id], action);
    expect(p.state).toBe('planned');
    expect(p.counts).toMatchObject({ total: 1, change: 1, refused: 0 });

    const from = sim.state.requests.length;
    const done = await run(p._id);
    expect(done.state).toBe('completed');
    expect(done.run).toMatchObject({ done: 1, failed: 0 });
    expect(refusedSince(from)).toEqual([]);
    expect(ofType(d.zoneId, 'CAA')).toEqual([
      {
        name: d.name,
        content: '0 issue "letsencrypt.org"',
        data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      },
      {
        name: d.name,
        content: `0 iodef "mailto:security@${d.name}"`,
        data: { flags: 0, tag: 'iodef', value: `mailto:security@${d.name}` },
      },
    ]);
    expect(ofType(d.zoneId, 'SRV')).toEqual([
      {
        name: `_sip._tcp.${d.name}`,
        content: `5 5060 sip.${d.name}`,
        data: { priority: 10, weight: 5, port: 5060, target: `sip.${d.name}` },
      },
      {
        name: `_xmpp._tcp.${d.name}`,
        content: `5 5269 xmpp.${d.name}`,
        data: { priority: 20, weight: 5, port: 5269, target: `xmpp.${d.name}` },
      },
    ]);

    // The zone's answer (content rebuilt from data) reads as the template's records: nothing to add or update.
    const again = await plan([d.id], action);
    expect(again.counts).toMatchObject({ total: 1, change: 0, same: 1 });
    expect((await itemsOf(again._id)).get(d.id)).toMatchObject({ outcome: 'same' });
  });
});

import { describe, expect, it } from 'vitest';
import type { ZoneFilePreview } from '@fleetdesk/contract';
import { namedCheckzone } from '../../test/bind-tools.ts';
import { cloudOnSim, unique, useAdminCalls, useCloudflareSimApp } from '../../test/fixtures.ts';

/**
 * Records Cloudflare takes as `data` (CAA, SRV, URI, TLSA, …) read from a zone file reach Cloudflare as data:
 * the simulator checks every request against Cloudflare's OpenAPI, which marks their content read-only.
 */
const { t, sim } = useCloudflareSimApp();
const { create, token } = useAdminCalls(t);
const call = (method: 'GET' | 'POST', url: string, payload?: object | string, headers: Record<string, string> = {}) =>
  t.inject({ method, url, headers: { authorization: token(), ...headers }, payload });
const zf = (id: string, rest = '') => `/api/domains/${id}/cloud-flare/zone-file${rest}`;

describe('zone file import of structured records', () => {
  it('sends CAA, SRV, URI, TLSA, SSHFP, DS and HTTPS as data, and reads them back', async () => {
    const { cloud } = await cloudOnSim(sim, create);
    const name = `${unique('data')}.com`;
    const d = await call('POST', '/api/domains', { domainName: name, status: 'active', cloudId: cloud._id });
    expect(d.statusCode, d.body).toBe(201);
    const id = d.json().data._id as string;
    const z = await call('POST', `/api/domains/${id}/cloud-flare/create-zone`);
    expect(z.statusCode, z.body).toBe(200);
    const zoneId = z.json().data.cloudZoneId as string;

    const text = [
      `$ORIGIN ${name}.`,
      `@\t3600\tIN\tCAA\t0 issue "letsencrypt.org"`,
      `_sip._tcp\t3600\tIN\tSRV\t10 5 5060 sip.${name}.`,
      `_ftp._tcp\t3600\tIN\tURI\t10 1 "ftp://ftp.${name}/"`,
      `_443._tcp\t3600\tIN\tTLSA\t3 1 1 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B566`,
      `ssh\t3600\tIN\tSSHFP\t4 2 123456789abcdef67890123456789abcdef67890123456789abcdef123456789`,
      `sub\t3600\tIN\tDS\t2371 13 2 1F987CC6583E92DF0890718C42A2CDA4B0F94D5A4ACB1DE7AC2A84FB5D26B1E6`,
      `h\t3600\tIN\tHTTPS\t1 . alpn=h2`,
      '',
    ].join('\n');
    const p = await call('POST', zf(id, '/preview'), text, { 'content-type': 'text/plain' });
    expect(p.statusCode, p.body).toBe(200);
    const preview = p.json().data as ZoneFilePreview;
    expect(preview.counts).toMatchObject({ added: 7, problems: 0 });
    const changes = { deletes: [] as unknown[], patches: [] as unknown[], posts: [] as unknown[] };
    for (const c of Object.values(preview.changes)) changes.posts.push(...(c.posts ?? []));
    const applied = await call('POST', zf(id, '/apply'), { fileName: 'zone.txt', changes });
    expect(applied.statusCode, applied.body).toBe(200);

    const stored = [...sim.state.zones.get(zoneId)!.dnsRecords.values()];
    const byType = (type: string) => stored.find((r) => r.type === type);
    expect(byType('CAA')).toMatchObject({ data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } });
    expect(byType('SRV')).toMatchObject({
      data: { priority: 10, weight: 5, port: 5060, target: `sip.${name}` },
    });
    expect(byType('URI')).toMatchObject({ priority: 10, data: { weight: 1, target: `ftp://ftp.${name}/` } });
    expect(byType('TLSA')?.data).toMatchObject({ usage: 3, selector: 1, matching_type: 1 });
    expect(byType('SSHFP')?.data).toMatchObject({ algorithm: 4, type: 2 });
    expect(byType('DS')?.data).toMatchObject({ key_tag: 2371, algorithm: 13, digest_type: 2 });
    expect(byType('HTTPS')?.data).toEqual({ priority: 1, target: '.', value: 'alpn=h2' });

    // The editor reads them back with their content and SRV's priority.
    const list = await call('GET', `/api/domains/${id}/cloud-flare/dns_records`);
    expect(list.statusCode, list.body).toBe(200);
    const records = list.json().data.result as { type: string; content: string; priority?: number }[];
    expect(records.find((r) => r.type === 'CAA')?.content).toBe('0 issue "letsencrypt.org"');
    expect(records.find((r) => r.type === 'SRV')).toMatchObject({ priority: 10, content: `5 5060 sip.${name}` });
    // Nothing left to do the second time.
    const again = await call('POST', zf(id, '/preview'), text, { 'content-type': 'text/plain' });
    expect((again.json().data as ZoneFilePreview).counts).toMatchObject({ added: 0, unchanged: 7 });

    // Exported (content rebuilt from Cloudflare's data), the file is one BIND takes, and reads back unchanged.
    const exported = await call('GET', zf(id));
    expect(exported.statusCode, exported.body).toBe(200);
    const verdict = namedCheckzone(name, exported.body);
    if (verdict) expect(verdict.ok, verdict.out).toBe(true);
    expect(exported.body).toContain(`${name}.\t3600\tIN\tCAA\t0 issue "letsencrypt.org"`);
    expect(exported.body).toContain(`_sip._tcp.${name}.\t3600\tIN\tSRV\t10 5 5060 sip.${name}.`);
    const reread = await call('POST', zf(id, '/preview'), exported.body, { 'content-type': 'text/plain' });
    expect((reread.json().data as ZoneFilePreview).counts).toMatchObject({ added: 0, changed: 0, unchanged: 7 });
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '../index.ts';

const TOKEN = 'tok_strict_0123456789abcdefghijklmnopqrs';
let sim: CloudflareSim;
let zoneId: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  sim = await startCloudflareSim();
  const { accountId } = sim.addAccount({ email: 'strict@example.com', token: TOKEN });
  zoneId = sim.addZone(accountId, 'strict.example').zoneId;
});

afterAll(async () => {
  await sim.close();
});

const chainOf = (body: any): string =>
  body.errors.flatMap((e: any) => [e, ...(e.error_chain ?? [])].map((x: any) => `${x.code} ${x.message}`)).join('\n');

describe('cloudflare simulator: requests checked against the official OpenAPI document', () => {
  it('refuses a CAA record sent as content (read-only for CAA) and takes it as data', async () => {
    const before = sim.state.zones.get(zoneId)!.dnsRecords.size;
    const asContent = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'CAA',
      name: '@',
      content: '0 issue "letsencrypt.org"',
      ttl: 1,
    });
    expect(asContent.status).toBe(400);
    expect(asContent.body.success).toBe(false);
    expect(asContent.body.errors[0].code).toBe(1004);
    expect(chainOf(asContent.body)).toMatch(/9101 data is required for CAA records/);
    // With data beside it, content alone is what the document refuses.
    const both = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'CAA',
      name: '@',
      content: '0 issue "letsencrypt.org"',
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      ttl: 1,
    });
    expect(both.status).toBe(400);
    expect(chainOf(both.body)).toMatch(/9207 \/content: is read-only and cannot be sent/);
    expect(sim.state.zones.get(zoneId)!.dnsRecords.size).toBe(before);

    const asData = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'CAA',
      name: '@',
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      ttl: 1,
    });
    expect(asData.status).toBe(200);
    expect(asData.body.result).toMatchObject({
      type: 'CAA',
      content: '0 issue "letsencrypt.org"',
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
    });
  });

  it.each([
    [
      'SRV',
      { type: 'SRV', name: '_sip._tcp', content: '10 5 5060 sip.strict.example', ttl: 1 },
      { priority: 10, weight: 5, port: 5060, target: 'sip.strict.example' },
    ],
    [
      'URI',
      { type: 'URI', name: '_ftp._tcp', content: '1 "ftp://a.example/"', priority: 10, ttl: 1 },
      { weight: 1, target: 'ftp://a.example/' },
    ],
    [
      'TLSA',
      { type: 'TLSA', name: '_443._tcp', content: '3 1 1 abcdef', ttl: 1 },
      { usage: 3, selector: 1, matching_type: 1, certificate: 'abcdef' },
    ],
    [
      'HTTPS',
      { type: 'HTTPS', name: 'h', content: '1 . alpn="h2"', ttl: 1 },
      { priority: 1, target: '.', value: 'alpn="h2"' },
    ],
  ])('refuses %s with content instead of data', async (_type, body, data) => {
    const r = await call('POST', `/zones/${zoneId}/dns_records`, body);
    expect(r.status).toBe(400);
    expect(chainOf(r.body)).toMatch(/data(\.\w+)? is required/);
    const both = await call('POST', `/zones/${zoneId}/dns_records`, { ...body, data });
    expect(both.status).toBe(400);
    expect(chainOf(both.body)).toMatch(/\/content: is read-only/);
    const { content: _content, ...withoutContent } = body;
    const ok = await call('POST', `/zones/${zoneId}/dns_records`, { ...withoutContent, data });
    expect(ok.status).toBe(200);
    expect(ok.body.result.content).toBe(body.content.replace(/^10 /, body.type === 'SRV' ? '' : '10 '));
  });

  it('checks data fields against their schema (CAA flags at most 255)', async () => {
    const r = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'CAA',
      name: 'x',
      data: { flags: 256, tag: 'issue', value: 'ca.example' },
    });
    expect(r.status).toBe(400);
    expect(chainOf(r.body)).toMatch(/9207 \/data\/flags: must be <= 255/);
  });

  it('refuses read-only fields of any record (created_on) and an undeclared query parameter', async () => {
    const ro = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'A',
      name: 'ro',
      content: '192.0.2.1',
      created_on: '2024-01-01T00:00:00Z',
    });
    expect(ro.status).toBe(400);
    expect(chainOf(ro.body)).toMatch(/\/created_on: is read-only/);
    const q = await call('GET', `/zones/${zoneId}/dns_records?nonsense=1`);
    expect(q.status).toBe(400);
    expect(chainOf(q.body)).toMatch(/query parameter nonsense is not in the schema/);
    const zones = await call('GET', '/zones?status=bogus');
    expect(zones.status).toBe(400);
    expect(zones.body.errors[0].code).toBeGreaterThanOrEqual(1000);
  });

  it('refuses bodies of other calls with code 9207 and a message (rulesets, zone settings)', async () => {
    const rules = await call('PUT', `/zones/${zoneId}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      rules: [{ expression: 'true', action: 'block', last_updated: '2024-01-01T00:00:00Z' }],
    });
    // The rulesets handler knew this one already (20021); the document refuses it too.
    expect(rules.status).toBe(400);
    const setting = await call('PATCH', `/zones/${zoneId}/settings/ssl`, { value: 'strict', editable: false });
    expect(setting.status).toBe(400);
    expect(setting.body.errors[0].code).toBe(9207);
    expect(setting.body.errors[0].message).toMatch(/^Request does not match the API schema: .*editable: is read-only/);
  });

  it('a patch is checked against the stored record type (data for CAA, content refused)', async () => {
    const id = sim.addDnsRecord(zoneId, {
      type: 'CAA',
      name: 'p',
      data: { flags: 0, tag: 'issue', value: 'a.example' },
    });
    const bad = await call('PATCH', `/zones/${zoneId}/dns_records/${id}`, { content: '0 issue "b.example"' });
    expect(bad.status).toBe(400);
    const good = await call('PATCH', `/zones/${zoneId}/dns_records/${id}`, {
      data: { flags: 0, tag: 'issue', value: 'b.example' },
    });
    expect(good.status).toBe(200);
    expect(good.body.result.content).toBe('0 issue "b.example"');
  });

  it("keeps Cloudflare's own, more specific code where the simulator knows it (TTL 9021)", async () => {
    const r = await call('POST', `/zones/${zoneId}/dns_records`, {
      type: 'A',
      name: 't',
      content: '192.0.2.9',
      ttl: 5,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].error_chain[0].code).toBe(9021);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DNS_RULE_MESSAGES, DNS_TEMPLATE_MESSAGES, dnsRecordProblems, renderDnsTemplate } from '@fleetdesk/contract';
import { refusalOf } from '@fleetdesk/simulators/cloudflare/openapi/request-check.ts';
import { toRecordBody } from '../../integrations/cloudflare/record-body.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, auth: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const PATH = '/api/dns-templates';
const RECORDS = [
  { type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: true },
  { type: 'CNAME', name: 'www', content: '{domain}', ttl: 1, proxied: true },
  { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 1, proxied: false },
];

describe('/api/dns-templates', () => {
  it('creates (201), reads, lists with search, updates the records, deletes; 404 after', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    const created = await call('POST', PATH, h, { name: 'Standard site', records: RECORDS });
    expect(created.statusCode, created.body).toBe(201);
    const tpl = created.json().data;
    expect(tpl).toEqual({
      _id: expect.any(String),
      dnsTemplateNo: 1,
      name: 'Standard site',
      records: RECORDS,
      isInUse: false,
    });
    expect((await call('GET', `${PATH}/${tpl._id}`, h)).json().data).toEqual(tpl);
    expect((await call('GET', `${PATH}?search=standard`, h)).json().data).toEqual({ items: [tpl], itemsCount: 1 });
    expect((await call('GET', `${PATH}?search=nothing`, h)).json().data.itemsCount).toBe(0);

    const mx = { type: 'mx', name: '@', content: 'mail.{domain}', priority: 10 };
    const put = await call('PUT', `${PATH}/${tpl._id}`, h, { records: [...RECORDS, mx] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data.name).toBe('Standard site');
    expect(put.json().data.records[3]).toEqual({
      type: 'MX',
      name: '@',
      content: 'mail.{domain}',
      ttl: 1,
      proxied: false,
      priority: 10,
    });

    expect((await call('DELETE', `${PATH}/${tpl._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `${PATH}/${tpl._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('DNS template not found');
    expect((await call('DELETE', `${PATH}/${tpl._id}`, h)).statusCode).toBe(404);
  });

  it('saves CAA and SRV records (the priority apart or leading, as a zone file writes it) and renders them as Cloudflare takes them', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    const STRUCTURED = [
      { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"', ttl: 1, proxied: false },
      { type: 'CAA', name: '@', content: '0 iodef mailto:security@{domain}', ttl: 3600, proxied: false },
      { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.{domain}', ttl: 1, proxied: false, priority: 10 },
      { type: 'SRV', name: '_xmpp._tcp', content: '20 5 5269 xmpp.{domain}', ttl: 1, proxied: false },
    ];
    const created = await call('POST', PATH, h, { name: 'Structured', records: STRUCTURED });
    expect(created.statusCode, created.body).toBe(201);
    const saved = (await call('GET', `${PATH}/${created.json().data._id}`, h)).json().data;
    expect(saved.records).toEqual(STRUCTURED);

    const rendered = renderDnsTemplate(saved.records, { domain: 'shop.example.org', serverIp: '198.51.100.7' });
    expect(rendered.map((r) => [r.type, r.name, r.content, r.priority])).toEqual([
      ['CAA', 'shop.example.org', '0 issue "letsencrypt.org"', undefined],
      ['CAA', 'shop.example.org', '0 iodef mailto:security@shop.example.org', undefined],
      ['SRV', '_sip._tcp.shop.example.org', '5 5060 sip.shop.example.org', 10],
      ['SRV', '_xmpp._tcp.shop.example.org', '20 5 5269 xmpp.shop.example.org', undefined],
    ]);
    for (const r of rendered) expect(dnsRecordProblems(r, 'shop.example.org'), r.content).toEqual([]);
    // As the client sends them: data, SRV's priority inside it. Judged by Cloudflare's OpenAPI document (the
    // simulator's request check), which refuses `content` for these types.
    const posts = rendered.map((r) => toRecordBody(r));
    expect(posts.map((p) => (p as { data?: unknown }).data)).toEqual([
      { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      { flags: 0, tag: 'iodef', value: 'mailto:security@shop.example.org' },
      { priority: 10, weight: 5, port: 5060, target: 'sip.shop.example.org' },
      { priority: 20, weight: 5, port: 5269, target: 'xmpp.shop.example.org' },
    ]);
    const batch = {
      method: 'POST',
      path: `/zones/${'0'.repeat(32)}/dns_records/batch`,
      query: new URLSearchParams(),
      auth: 'token' as const,
    };
    expect(refusalOf({ ...batch, body: { posts } }, () => undefined)).toBeUndefined();
    // The check does judge: the same records as content are refused.
    expect(refusalOf({ ...batch, body: { posts: rendered } }, () => undefined)).toBeDefined();
  });

  it('answers 400 with per-field errors: name, records, unknown placeholders, the DNS rules', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    const empty = await call('POST', PATH, h, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toEqual({ name: 'Name is required', records: DNS_TEMPLATE_MESSAGES.recordsMin });

    const bad = await call('POST', PATH, h, {
      name: 'Bad',
      records: [
        { type: 'A', name: '@', content: '{serverIP}' },
        { type: 'A', name: 'www', content: '{domain}' },
        { type: 'TXT', name: '@', content: 'x', proxied: true },
        { type: 'TXT', name: 'inj', content: '"v=1"\nevil.{domain}. 300 IN A 127.0.0.1' },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ message: 'Some fields are invalid', code: 'validation_error' });
    expect(bad.json().fields).toEqual({
      'records.0.content': DNS_TEMPLATE_MESSAGES.placeholder('serverIP'),
      'records.1.content': DNS_RULE_MESSAGES.ipv4,
      'records.2.proxied': DNS_RULE_MESSAGES.notProxiable('TXT'),
      'records.3.content': DNS_RULE_MESSAGES.control,
    });
  });

  it('refuses a second template of the same name (any case) with 409 on the name', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    expect((await call('POST', PATH, h, { name: 'Standard', records: RECORDS })).statusCode).toBe(201);
    const dup = await call('POST', PATH, h, { name: 'STANDARD', records: RECORDS });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().fields).toEqual({ name: 'A DNS template with this name already exists' });
  });

  it('is guarded by cnv:domains', async () => {
    const other = await t.tokenFor(['cnv:brands']);
    expect((await call('GET', PATH, other)).statusCode).toBe(403);
    expect((await call('POST', PATH, other, { name: 'x', records: RECORDS })).statusCode).toBe(403);
  });

  it('records create, update and delete in the audit log', async () => {
    const h = await t.tokenFor(['cnv:domains']);
    const id = (await call('POST', PATH, h, { name: 'Audited', records: RECORDS })).json().data._id;
    await call('PATCH', `${PATH}/${id}`, h, { name: 'Audited too' });
    await call('DELETE', `${PATH}/${id}`, h);
    const log = (
      await call('GET', `/api/audit-log?entity=dns-templates&entityId=${id}`, await t.tokenFor(['cnv']))
    ).json().data;
    expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(log.items[1].diff).toEqual({ name: { before: 'Audited', after: 'Audited too' } });
  });
});

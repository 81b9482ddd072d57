import { describe, expect, it } from 'vitest';
import { DNS_RULE_MESSAGES } from './dns-rules.ts';
import {
  DNS_TEMPLATE_MESSAGES,
  DNS_TEMPLATE_RECORDS_MAX,
  DnsTemplateInputSchema,
  type DnsTemplateRecord,
  renderDnsTemplate,
  unknownPlaceholders,
} from './dns-templates.ts';

const STANDARD: DnsTemplateRecord[] = [
  { type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: true },
  { type: 'CNAME', name: 'www', content: '{domain}', ttl: 1, proxied: true },
  { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 3600, proxied: false },
  { type: 'MX', name: '@', content: 'mail.{domain}', ttl: 1, proxied: false, priority: 10 },
];

/** The field errors zod reports, as the API's `fields` would hold them. */
function fieldsOf(input: unknown): Record<string, string> {
  const r = DnsTemplateInputSchema.safeParse(input);
  if (r.success) return {};
  const out: Record<string, string> = {};
  for (const i of r.error.issues) out[i.path.join('.')] ??= i.message;
  return out;
}

describe('renderDnsTemplate', () => {
  it('replaces the placeholders and makes names full: @ is the domain, www is www.<domain>', () => {
    expect(renderDnsTemplate(STANDARD, { domain: 'Shop.Example.ORG.', serverIp: ' 198.51.100.7 ' })).toEqual([
      { type: 'A', name: 'shop.example.org', content: '198.51.100.7', ttl: 1, proxied: true },
      { type: 'CNAME', name: 'www.shop.example.org', content: 'shop.example.org', ttl: 1, proxied: true },
      { type: 'TXT', name: 'shop.example.org', content: 'v=spf1 -all', ttl: 3600, proxied: false },
      { type: 'MX', name: 'shop.example.org', content: 'mail.shop.example.org', ttl: 1, proxied: false, priority: 10 },
    ]);
  });

  it('gives the same records for another domain without keeping anything of the first', () => {
    const a = renderDnsTemplate(STANDARD, { domain: 'a.test', serverIp: '192.0.2.1' });
    const b = renderDnsTemplate(STANDARD, { domain: 'b.test', serverIp: '192.0.2.2' });
    expect(a[1]).toEqual({ type: 'CNAME', name: 'www.a.test', content: 'a.test', ttl: 1, proxied: true });
    expect(b[1]).toEqual({ type: 'CNAME', name: 'www.b.test', content: 'b.test', ttl: 1, proxied: true });
    expect(JSON.stringify(b)).not.toContain('a.test');
  });

  it('takes {domain} in a name and several placeholders in one content', () => {
    const [r] = renderDnsTemplate(
      [{ type: 'TXT', name: 'x.{domain}', content: '{domain} at {serverIp}; {domain}', ttl: 1, proxied: false }],
      { domain: 'site.test', serverIp: '192.0.2.9' },
    );
    expect(r).toEqual({
      type: 'TXT',
      name: 'x.site.test',
      content: 'site.test at 192.0.2.9; site.test',
      ttl: 1,
      proxied: false,
    });
  });
});

describe('DnsTemplateInputSchema', () => {
  it('takes the standard template, with defaults for ttl and proxied and the type in upper case', () => {
    const r = DnsTemplateInputSchema.parse({
      name: '  Standard site ',
      records: [{ type: 'a', name: '@', content: '{serverIp}' }, ...STANDARD.slice(1)],
    });
    expect(r.name).toBe('Standard site');
    expect(r.records[0]).toEqual({ type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: false });
    expect(r.records).toHaveLength(4);
  });

  it('refuses a missing name, no records and too many records', () => {
    expect(fieldsOf({ records: STANDARD })).toEqual({ name: 'Name is required' });
    expect(fieldsOf({ name: 'x', records: [] })).toEqual({ records: DNS_TEMPLATE_MESSAGES.recordsMin });
    const many = Array.from({ length: DNS_TEMPLATE_RECORDS_MAX + 1 }, (_, i) => ({
      type: 'TXT',
      name: `r${i}`,
      content: 'x',
    }));
    expect(fieldsOf({ name: 'x', records: many })).toEqual({ records: DNS_TEMPLATE_MESSAGES.recordsMax });
  });

  it('refuses an unknown placeholder on the field that holds it', () => {
    expect(
      fieldsOf({
        name: 'x',
        records: [
          { type: 'A', name: '@', content: '{serverIp}' },
          { type: 'CNAME', name: '{sub}', content: '{domain}' },
          { type: 'TXT', name: '@', content: 'key={apiKey}' },
        ],
      }),
    ).toEqual({
      'records.1.name': DNS_TEMPLATE_MESSAGES.placeholder('sub'),
      'records.2.content': DNS_TEMPLATE_MESSAGES.placeholder('apiKey'),
    });
  });

  it('checks each record with the DNS rules after the example values stand in', () => {
    expect(
      fieldsOf({
        name: 'x',
        records: [
          { type: 'A', name: '@', content: '{domain}' },
          { type: 'TXT', name: '@', content: 'v=spf1 -all', proxied: true },
          { type: 'CNAME', name: '@', content: '{domain}' },
          { type: 'MX', name: '@', content: 'mail.{domain}' },
          { type: 'TXT', name: 'bad name!', content: 'x', ttl: 30 },
          { type: 'BOGUS', name: '@', content: 'x' },
        ],
      }),
    ).toEqual({
      'records.0.content': DNS_RULE_MESSAGES.ipv4,
      'records.1.proxied': DNS_RULE_MESSAGES.notProxiable('TXT'),
      'records.2.content': DNS_RULE_MESSAGES.selfTarget('CNAME'),
      'records.3.priority': DNS_RULE_MESSAGES.priority('MX'),
      'records.4.name': DNS_RULE_MESSAGES.name,
      'records.4.ttl': DNS_TEMPLATE_MESSAGES.ttl,
      'records.5.type': DNS_TEMPLATE_MESSAGES.typeUnknown,
    });
  });

  it('refuses a record twice and a CNAME beside an A of the same name', () => {
    expect(
      fieldsOf({
        name: 'x',
        records: [
          { type: 'A', name: 'www', content: '{serverIp}' },
          { type: 'CNAME', name: 'www', content: '{domain}' },
          { type: 'A', name: 'www', content: '{serverIp}' },
        ],
      }),
    ).toEqual({
      'records.1.name': DNS_RULE_MESSAGES.hostClash,
      'records.2.name': DNS_RULE_MESSAGES.exists,
    });
  });

  it('lists unknown placeholders once each', () => {
    expect(unknownPlaceholders('{a}{domain}{b}{a}{serverIp}{}')).toEqual(['a', 'b', '']);
  });
});

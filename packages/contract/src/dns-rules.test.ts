import { describe, expect, it } from 'vitest';
import { DNS_RECORD_TYPES } from './cloud-flare.ts';
import { DNS_DATA_TYPES } from './dns-record-data.ts';
import { DNS_RULE_MESSAGES, dnsConflict, dnsFullName, dnsRecordProblems } from './dns-rules.ts';

/** A content Cloudflare takes for each type, so that only the rule under test can fail. */
const GOOD: Record<string, string> = {
  A: '203.0.113.10',
  AAAA: '2001:db8::10',
  CNAME: 'target.example.net',
  MX: 'mail.example.net',
  NS: 'ns1.example.net',
  PTR: 'host.example.net',
  TXT: 'v=spf1 -all',
};
const priorityOf = (type: string) => (['MX', 'URI', 'SRV'].includes(type) ? { priority: 10 } : {});

describe('the shared DNS rules, for every record type', () => {
  for (const type of DNS_RECORD_TYPES) {
    it(`${type}: proxied only when Cloudflare can proxy it; the record as such is fine`, () => {
      const r = {
        type,
        name: 'www',
        content: GOOD[type] ?? DNS_DATA_TYPES[type]?.example ?? 'x',
        ttl: 1,
        ...priorityOf(type),
      };
      expect(dnsRecordProblems({ ...r, proxied: false }, 'example.com')).toEqual([]);
      const proxied = dnsRecordProblems({ ...r, proxied: true }, 'example.com');
      if (['A', 'AAAA', 'CNAME'].includes(type)) expect(proxied).toEqual([]);
      else expect(proxied).toEqual([{ field: 'proxied', message: DNS_RULE_MESSAGES.notProxiable(type) }]);
    });
  }

  it('content must fit the type', () => {
    const content = (type: string, c: string) =>
      dnsRecordProblems({ type, name: 'x', content: c, ...priorityOf(type) }).map((p) => p.message);
    expect(content('A', '2001:db8::1')).toEqual([DNS_RULE_MESSAGES.ipv4]);
    expect(content('A', '256.1.1.1')).toEqual([DNS_RULE_MESSAGES.ipv4]);
    expect(content('AAAA', '203.0.113.1')).toEqual([DNS_RULE_MESSAGES.ipv6]);
    expect(content('AAAA', '2001:db8::zz')).toEqual([DNS_RULE_MESSAGES.ipv6]);
    for (const t of ['CNAME', 'MX', 'NS', 'PTR']) expect(content(t, 'not a host')).toEqual([DNS_RULE_MESSAGES.host(t)]);
    expect(content('CNAME', 'x')).toEqual([DNS_RULE_MESSAGES.selfTarget('CNAME')]);
    expect(content('TXT', 'a'.repeat(2049))).toEqual([DNS_RULE_MESSAGES.txtLong]);
  });

  it('refuses control characters in content (a zone file would hold an injected line)', () => {
    const content = (type: string, c: string) =>
      dnsRecordProblems({ type, name: 'x', content: c, ...priorityOf(type) }).map((p) => p.message);
    expect(content('TXT', '"v=1"\nevil.example. 300 IN A 127.0.0.1')).toEqual([DNS_RULE_MESSAGES.control]);
    expect(content('TXT', 'trailing\n')).toEqual([DNS_RULE_MESSAGES.control]);
    for (const c of ['\t', '\r', '\u0000', '\u007f', '\u0085'])
      expect(content('TXT', `a${c}b`)).toEqual([DNS_RULE_MESSAGES.control]);
    expect(content('CAA', '0 issue "ca.example"\n')).toEqual([DNS_RULE_MESSAGES.control]);
    expect(content('TXT', 'café — ✓ "quoted" \\ ok')).toEqual([]);
  });

  it('TTL bounds, priority, names outside the zone', () => {
    const base = { type: 'A', name: 'www', content: '203.0.113.1' };
    expect(dnsRecordProblems({ ...base, ttl: 30 })).toEqual([{ field: 'ttl', message: DNS_RULE_MESSAGES.ttl }]);
    expect(dnsRecordProblems({ ...base, ttl: 86_401 })).toHaveLength(1);
    expect(dnsRecordProblems({ ...base, ttl: 60 })).toEqual([]);
    expect(dnsRecordProblems({ type: 'MX', name: '@', content: 'mail.example.com' })).toEqual([
      { field: 'priority', message: DNS_RULE_MESSAGES.priority('MX') },
    ]);
    // SRV: the priority apart, or leading the content as a zone file writes it; missing from both, it is asked for.
    const srv = { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.com' };
    expect(dnsRecordProblems({ ...srv, priority: 10 }, 'example.com')).toEqual([]);
    expect(dnsRecordProblems({ ...srv, content: `10 ${srv.content}` }, 'example.com')).toEqual([]);
    expect(dnsRecordProblems(srv, 'example.com')).toEqual([
      { field: 'priority', message: DNS_RULE_MESSAGES.priority('SRV') },
    ]);
    expect(dnsRecordProblems({ ...base, name: 'www.other.org.' }, 'example.com')).toEqual([
      { field: 'name', message: DNS_RULE_MESSAGES.outside('example.com') },
    ]);
    expect(dnsRecordProblems({ ...base, name: 'bad name' }, 'example.com')[0]?.field).toBe('name');
    expect(dnsFullName('@', 'example.com')).toBe('example.com');
    expect(dnsFullName('www', 'example.com')).toBe('www.example.com');
    expect(dnsFullName('www.example.com.', 'example.com')).toBe('www.example.com');
  });

  it('duplicates and name clashes Cloudflare would refuse', () => {
    const zone = [
      { id: '1', type: 'A', name: 'www.example.com', content: '203.0.113.1' },
      { id: '2', type: 'NS', name: 'sub.example.com', content: 'ns1.example.net' },
    ];
    expect(dnsConflict({ type: 'A', name: 'www.example.com', content: '203.0.113.1' }, zone)).toBe(
      DNS_RULE_MESSAGES.exists,
    );
    expect(dnsConflict({ type: 'A', name: 'www.example.com', content: '203.0.113.2' }, zone)).toBeNull();
    expect(dnsConflict({ type: 'CNAME', name: 'www.example.com', content: 'x.example.net' }, zone)).toBe(
      DNS_RULE_MESSAGES.hostClash,
    );
    expect(dnsConflict({ type: 'TXT', name: 'sub.example.com', content: 'v' }, zone)).toBe(DNS_RULE_MESSAGES.nsClash);
    expect(dnsConflict({ type: 'CNAME', name: 'www.example.com', content: 'x.example.net' }, zone, '1')).toBeNull();
  });
});

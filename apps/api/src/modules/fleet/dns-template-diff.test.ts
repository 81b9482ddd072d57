import { describe, expect, it } from 'vitest';
import { DNS_RULE_MESSAGES, renderDnsTemplate, type DnsRecord } from '@fleetdesk/contract';
import { contentKey, dnsTemplateDiff, dnsTemplateDiffText } from './dns-template-diff.ts';

const Z = 'site.test';
const drafts = renderDnsTemplate(
  [
    { type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: true },
    { type: 'CNAME', name: 'www', content: '{domain}', ttl: 1, proxied: true },
    { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 3600, proxied: false },
  ],
  { domain: Z, serverIp: '192.0.2.7' },
);
let n = 0;
const rec = (type: string, name: string, content: string, over: Partial<DnsRecord> = {}): DnsRecord => ({
  id: `r${++n}`,
  type,
  name,
  content,
  proxied: false,
  ttl: 1,
  ...over,
});

describe('dnsTemplateDiff', () => {
  it('adds everything to an empty zone, in the template order', () => {
    const d = dnsTemplateDiff(drafts, Z, []);
    expect(d.refusal).toBeNull();
    expect(d.patches).toEqual([]);
    expect(d.posts.map((p) => `${p.type} ${p.name} ${p.content} ${p.proxied} ${p.ttl}`)).toEqual([
      `A ${Z} 192.0.2.7 true 1`,
      `CNAME www.${Z} ${Z} true 1`,
      `TXT ${Z} v=spf1 -all false 3600`,
    ]);
    expect(dnsTemplateDiffText(d, [])).toEqual({
      before: 'none',
      after: `add A ${Z} → 192.0.2.7; add CNAME www.${Z} → ${Z}; add TXT ${Z} → v=spf1 -all`,
    });
  });

  it('keeps equal records, patches proxy or TTL only, replaces the A, adds TXT beside another TXT', () => {
    const zone = [
      rec('A', Z, '198.51.100.1', { proxied: true }),
      rec('CNAME', `www.${Z}`, `${Z.toUpperCase()}.`, { proxied: false }),
      rec('TXT', Z, 'google-site-verification=x'),
    ];
    const d = dnsTemplateDiff(drafts, Z, zone);
    expect(d.refusal).toBeNull();
    expect(d.patches).toEqual([
      { id: zone[0]!.id, type: 'A', name: Z, content: '192.0.2.7', proxied: true, ttl: 1 },
      { id: zone[1]!.id, type: 'CNAME', name: `www.${Z}`, content: Z, proxied: true, ttl: 1 },
    ]);
    expect(d.posts).toEqual([{ type: 'TXT', name: Z, content: 'v=spf1 -all', proxied: false, ttl: 3600 }]);
    expect(d.seen).toHaveLength(3);
    expect(dnsTemplateDiffText(d, zone).after).toBe(
      `update A ${Z} → 192.0.2.7; update CNAME www.${Z} → ${Z} (proxied); add TXT ${Z} → v=spf1 -all`,
    );
  });

  it('has nothing to do when the zone already holds the template', () => {
    const zone = [
      rec('A', Z, '192.0.2.7', { proxied: true }),
      rec('CNAME', `www.${Z}`, Z, { proxied: true }),
      rec('TXT', Z, '"v=spf1 -all"', { ttl: 3600 }),
    ];
    const d = dnsTemplateDiff(drafts, Z, zone);
    expect([d.posts, d.patches, d.kept.length]).toEqual([[], [], 3]);
    expect(dnsTemplateDiffText(d, zone).after).toBe('3 already in place');
  });

  it('refuses what Cloudflare would refuse, and changes nothing then', () => {
    const d = dnsTemplateDiff(drafts, Z, [rec('A', `www.${Z}`, '192.0.2.99')]);
    expect(d.refusal).toBe(`CNAME www.${Z} → ${Z}: ${DNS_RULE_MESSAGES.hostClash}`);
  });

  it('compares contents as Cloudflare does', () => {
    expect(contentKey('CNAME', 'Host.Example.')).toBe('host.example');
    expect(contentKey('TXT', '"a b"')).toBe('a b');
    expect(contentKey('TXT', 'A B')).toBe('A B');
  });
});

import { describe, expect, it } from 'vitest';
import {
  DNS_DATA_TYPES,
  dnsContentFromData,
  dnsContentFromFieldTexts,
  dnsDataFieldTexts,
  dnsDataFromContent,
} from './dns-record-data.ts';
import { dnsRecordProblems } from './dns-rules.ts';

describe('structured DNS records: content text ↔ Cloudflare data', () => {
  const cases: [string, string, number | undefined, Record<string, unknown>][] = [
    ['CAA', '0 issue "letsencrypt.org"', undefined, { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
    [
      'CAA',
      '128 iodef "mailto:a\\"b@example.com"',
      undefined,
      { flags: 128, tag: 'iodef', value: 'mailto:a"b@example.com' },
    ],
    ['SRV', '5 5060 sip.example.com', 10, { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }],
    ['URI', '1 "https://example.com/"', 10, { weight: 1, target: 'https://example.com/' }],
    [
      'HTTPS',
      '1 . alpn="h3,h2" ipv4hint=192.0.2.1',
      undefined,
      { priority: 1, target: '.', value: 'alpn="h3,h2" ipv4hint=192.0.2.1' },
    ],
    ['SVCB', '0 svc.example.com', undefined, { priority: 0, target: 'svc.example.com', value: '' }],
    ['TLSA', '3 1 1 ABCDEF', undefined, { usage: 3, selector: 1, matching_type: 1, certificate: 'ABCDEF' }],
    ['SMIMEA', '3 0 1 ABCDEF', undefined, { usage: 3, selector: 0, matching_type: 1, certificate: 'ABCDEF' }],
    ['SSHFP', '4 2 ABCDEF', undefined, { algorithm: 4, type: 2, fingerprint: 'ABCDEF' }],
    [
      'NAPTR',
      '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
      undefined,
      {
        order: 100,
        preference: 10,
        flags: 'U',
        service: 'E2U+sip',
        regex: '!^.*$!sip:info@example.com!',
        replacement: '.',
      },
    ],
    ['DS', '2371 13 2 1F987CC6', undefined, { key_tag: 2371, algorithm: 13, digest_type: 2, digest: '1F987CC6' }],
    ['DNSKEY', '257 3 13 mdsswUyr', undefined, { flags: 257, protocol: 3, algorithm: 13, public_key: 'mdsswUyr' }],
    ['CERT', '1 0 0 MIIB', undefined, { type: 1, key_tag: 0, algorithm: 0, certificate: 'MIIB' }],
    [
      'LOC',
      '37 46 46 N 122 23 35 W 0m 100m 0m 0m',
      undefined,
      {
        lat_degrees: 37,
        lat_minutes: 46,
        lat_seconds: 46,
        lat_direction: 'N',
        long_degrees: 122,
        long_minutes: 23,
        long_seconds: 35,
        long_direction: 'W',
        altitude: 0,
        size: 100,
        precision_horz: 0,
        precision_vert: 0,
      },
    ],
  ];

  it.each(cases)('%s %s → data and back', (type, content, priority, data) => {
    const r = dnsDataFromContent(type, content, priority);
    expect(r).toEqual(priority !== undefined && type === 'URI' ? { ok: true, data, priority } : { ok: true, data });
    expect(dnsContentFromData(type, data)).toBe(content);
    expect(dnsContentFromFieldTexts(type, dnsDataFieldTexts(type, content))).toBe(content);
  });

  it('reads a zone file SRV (priority first) and a LOC with minutes, seconds and sizes left out', () => {
    expect(dnsDataFromContent('SRV', '10 5 5060 sip.example.com')).toEqual({
      ok: true,
      data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
    });
    const loc = dnsDataFromContent('LOC', '52 N 4 E 10m');
    expect(loc.ok && loc.data).toMatchObject({
      lat_degrees: 52,
      lat_minutes: 0,
      long_direction: 'E',
      altitude: 10,
      size: 1,
    });
  });

  it.each([
    ['CAA', '256 issue "x"'],
    ['CAA', '0 issue'],
    ['SRV', '5 70000 sip.example.com'],
    ['TLSA', '3 1 one ABC'],
    ['LOC', '91 0 0 N 0 0 0 E 0m'],
    ['DS', '2371 13 2'],
  ])('refuses %s %s, with the expected shape in the message', (type, content) => {
    const r = dnsDataFromContent(type, content, 10);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain(`Content of a ${type} record must be ${DNS_DATA_TYPES[type]!.format}`);
    expect(dnsRecordProblems({ type, name: 'x', content, priority: 10 })).toContainEqual({
      field: 'content',
      message: !r.ok ? r.message : '',
    });
  });

  it('an SRV without a priority anywhere cannot be sent', () => {
    expect(dnsDataFromContent('SRV', '5 5060 sip.example.com').ok).toBe(false);
  });
});

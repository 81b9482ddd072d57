import { describe, expect, it } from 'vitest';
import type { DnsRecord } from '@fleetdesk/contract';
import { namedCheckzone } from '../../test/bind-tools.ts';
import { diffZoneFile, parseZoneFile, renderZoneFile } from './zone-file.ts';

// Issues 42 and 43: each case here was a defect of the zone-file reader or writer.
const parse = (text: string, zone = 'example.com') => parseZoneFile([Buffer.from(text)], zone);
const rec = (id: string, type: string, name: string, content: string, extra: Partial<DnsRecord> = {}): DnsRecord => ({
  id,
  type,
  name,
  content,
  proxied: false,
  ttl: 3600,
  ...extra,
});
/** Every file these tests write is also one BIND takes (named-checkzone), injections included. */
const render = (records: DnsRecord[]) => {
  const text = renderZoneFile({
    zoneName: 'example.com',
    nameServers: ['lara.ns.cloudflare.com'],
    records,
    serial: 1716200000,
    exportedAt: new Date('2024-05-20T10:00:00Z'),
  });
  const verdict = namedCheckzone('example.com', text);
  if (verdict) expect(verdict.ok, verdict.out).toBe(true);
  return text;
};
const recordLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith(';'));

describe('writing: one record is always one line', () => {
  it('escapes a newline in TXT content instead of writing it raw (no record injected)', async () => {
    const evil = '"v=1"\nevil.example.com. 300 IN A 127.0.0.1\n$INCLUDE /etc/passwd';
    const text = render([rec('1', 'TXT', 'example.com', evil)]);
    const lines = recordLines(text);
    expect(lines.filter((l) => /\tTXT\t/.test(l))).toHaveLength(1);
    expect(text).not.toMatch(/^evil/m);
    expect(text).not.toMatch(/^\$INCLUDE/m);
    expect(text).toContain('\\010');
    const back = await parse(text);
    expect(back.records.filter((r) => r.type === 'A')).toEqual([]);
    // The importer never makes a raw newline out of \010: the record is refused, with its line.
    expect(back.records.filter((r) => r.content.includes('\n'))).toEqual([]);
    expect(back.problems.map((p) => p.reason).join(' ')).toMatch(/control character/);
  });

  it('escapes bytes outside printable ASCII, quotes and backslashes as BIND does', () => {
    const text = render([rec('1', 'TXT', 't.example.com', 'a"b\\c\tdé')]);
    expect(text).toContain('"a\\"b\\\\c\\009d\\195\\169"');
  });

  it("writes an SRV record's target absolute, whether or not Cloudflare's content holds the priority", () => {
    const text = render([
      rec('1', 'SRV', '_sip._tcp.example.com', '10 5 5060 sip.example.com'),
      rec('2', 'SRV', '_xmpp._tcp.example.com', '5 5269 xmpp.example.com', { priority: 20 }),
    ]);
    expect(text).toContain('_sip._tcp.example.com.\t3600\tIN\tSRV\t10 5 5060 sip.example.com.');
    expect(text).toContain('_xmpp._tcp.example.com.\t3600\tIN\tSRV\t20 5 5269 xmpp.example.com.');
  });

  it('writes HTTPS, SVCB and NAPTR target names absolute, "." as it is', () => {
    const text = render([
      rec('1', 'HTTPS', 'example.com', '1 . alpn="h3,h2"'),
      rec('2', 'SVCB', '_dns.example.com', '1 dns.example.net alpn="dot"'),
      rec('3', 'NAPTR', 'example.com', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com'),
    ]);
    expect(text).toContain('\tHTTPS\t1 . alpn="h3,h2"');
    expect(text).toContain('\tSVCB\t1 dns.example.net. alpn="dot"');
    expect(text).toContain('\tNAPTR\t100 10 "S" "SIP+D2U" "" _sip._udp.example.com.');
  });

  it('cuts TXT strings at 255 bytes, not 255 UTF-16 characters', () => {
    const text = render([rec('1', 'TXT', 'ru.example.com', 'я'.repeat(200))]);
    const line = recordLines(text).find((l) => l.includes('\tTXT\t'))!;
    const strings = line
      .split('\t')
      .pop()!
      .match(/"(?:[^"\\]|\\.)*"/g)!;
    const bytes = (s: string) =>
      s
        .slice(1, -1)
        .replace(/\\\d{3}/g, 'x')
        .replace(/\\./g, 'x').length;
    expect(strings.length).toBe(2);
    for (const s of strings) expect(bytes(s)).toBeLessThanOrEqual(255);
  });
});

describe('reading as BIND reads', () => {
  it('gives a record without its own TTL the last explicit TTL when the file has no $TTL', async () => {
    const z = await parse('a 700 IN A 192.0.2.1\nb IN A 192.0.2.2\n');
    expect(z.records.map((r) => [r.name, r.ttl])).toEqual([
      ['a.example.com', 700],
      ['b.example.com', 700],
    ]);
  });

  it('reads the class before the TTL', async () => {
    const z = await parse('host IN 700 A 192.0.2.1\n');
    expect(z.problems).toEqual([]);
    expect(z.records).toMatchObject([{ name: 'host.example.com', ttl: 700, content: '192.0.2.1' }]);
  });

  it('reads \\DDD as a byte of UTF-8', async () => {
    const z = await parse('t 300 IN TXT "caf\\195\\169"\n');
    expect(z.records.map((r) => r.content)).toEqual(['café']);
  });

  it('keeps the strings of a TXT record apart, and joins a split SPF or DKIM value', async () => {
    const z = await parse(
      't 300 IN TXT hello world\nspf 300 IN TXT "v=spf1 include:a.example " "-all"\nq 300 IN TXT "a \\"b\\"" c\n',
    );
    expect(z.records.map((r) => r.content)).toEqual([
      '"hello" "world"',
      'v=spf1 include:a.example -all',
      '"a \\"b\\"" "c"',
    ]);
  });

  it('reads an escaped dot in an owner name as part of the label, which Cloudflare cannot hold', async () => {
    const z = await parse('a\\.dot 300 IN A 192.0.2.1\n\\065bc 300 IN A 192.0.2.2\n');
    expect(z.records.map((r) => r.name)).toEqual(['abc.example.com']);
    expect(z.problems).toEqual([{ line: 1, text: 'a\\.dot 300 IN A 192.0.2.1', reason: expect.stringMatching(/dot/) }]);
    expect(z.records.some((r) => r.name.includes('\\'))).toBe(false);
  });

  it('refuses a TXT record with more strings than the bound, and a record longer than the bound', async () => {
    const many = `t 300 IN TXT ${'"a" '.repeat(200)}\nok 300 IN A 192.0.2.1\n`;
    const z = await parse(many);
    expect(z.records.map((r) => r.name)).toEqual(['ok.example.com']);
    expect(z.problems[0]).toMatchObject({ line: 1, reason: expect.stringMatching(/strings/) });
    const long = `t 300 IN TXT ( ${'"abcdefgh" '.repeat(20000)} )\nok 300 IN A 192.0.2.1\n`;
    const y = await parse(long);
    expect(y.records.map((r) => r.name)).toEqual(['ok.example.com']);
    expect(y.problems[0]).toMatchObject({ line: 1, reason: expect.stringMatching(/longer/) });
  });

  it('round-trips Unicode, quotes, backslashes and kept strings through export and import', async () => {
    const records = [
      rec('1', 'TXT', 'u.example.com', 'привет, мир — café ✓'),
      rec('2', 'TXT', 'q.example.com', 'say "hi" \\ there; (x)'),
      rec('3', 'TXT', 'k.example.com', '"hello" "world"'),
      rec('4', 'TXT', 'dkim._domainkey.example.com', `v=DKIM1; k=rsa; p=${'A'.repeat(600)}`),
      rec('5', 'SRV', '_sip._tcp.example.com', '10 5 5060 sip.example.com'),
    ];
    const back = await parse(render(records));
    expect(back.problems).toEqual([]);
    const d = diffZoneFile('example.com', records, back);
    expect(d.counts).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: records.length });
  });
});

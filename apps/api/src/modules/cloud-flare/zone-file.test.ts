import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { DnsRecord } from '@fleetdesk/contract';
import { ValidationError } from '../../http/errors.ts';
import { namedCheckzone } from '../../test/bind-tools.ts';
import { diffZoneFile, parseZoneFile, renderZoneFile } from './zone-file.ts';

const parse = (text: string, zone = 'example.com') => parseZoneFile([Buffer.from(text)], zone);
const brief = (r: {
  type: string;
  name: string;
  content: string;
  ttl: number;
  priority?: number;
  proxied: boolean | null;
}) =>
  `${r.name} ${r.ttl} ${r.type}${r.priority !== undefined ? ` ${r.priority}` : ''} ${r.content}${r.proxied === null ? '' : r.proxied ? ' [proxied]' : ' [dns only]'}`;

/** A zone as an operator of BIND writes it: every construct RFC 1035 §5 allows, the way real files use them. */
const BIND_CLASSIC = `; example.com, hand-kept
$ORIGIN example.com.
$TTL 1h
@       IN  SOA ns1.example.com. hostmaster.example.com. (
                2024052001 ; serial
                7200       ; refresh
                3600       ; retry
                1209600    ; expire
                300 )      ; minimum
        IN  NS  ns1
        IN  NS  ns2.example.net.
@       300 IN  A     192.0.2.1
        IN  AAAA  2001:DB8::1          ; same owner, blank name
www         CNAME @
mail    IN  MX    10 mx1
@       IN  MX    20 mx2.example.net.
mx1     IN  A     192.0.2.25
@       IN  TXT   "v=spf1 mx include:_spf.example.net ; -all"
long    IN  TXT   ( "first part "
                    "second part" )
_sip._tcp   IN SRV 10 60 5060 sipserver
@       IN  CAA   0 issue "letsencrypt.org"
sub.example.com. 60 IN A 192.0.2.50
$ORIGIN dev.example.com.
api     IN  A     192.0.2.60
*       IN  CNAME api
`;

/** Cloudflare's own export (its header, cf_tags comments, TTL 1 for Auto, absolute names). */
const CLOUDFLARE_EXPORT = `;;
;; Domain:     example.com.
;; Exported:   2024-05-20 10:00:00
;;
;; This file is intended for use for informational and archival
;; purposes ONLY and MUST be edited before use on a production
;; DNS server.
;;
;; SOA Record
example.com	3600	IN	SOA	lara.ns.cloudflare.com. dns.cloudflare.com. 2047371213 10000 2400 604800 3600

;; NS Records
example.com.	86400	IN	NS	lara.ns.cloudflare.com.
example.com.	86400	IN	NS	greg.ns.cloudflare.com.

;; A Records
example.com.	1	IN	A	192.0.2.1 ; cf_tags=cf-proxied:true
direct.example.com.	3600	IN	A	192.0.2.2 ; cf_tags=cf-proxied:false

;; CNAME Records
www.example.com.	1	IN	CNAME	example.com. ; cf_tags=cf-proxied:true
`;

describe('reading zone files', () => {
  it('reads $ORIGIN, $TTL, relative names, @, blank owners, parentheses and comments', async () => {
    const z = await parse(BIND_CLASSIC);
    expect(z.problems).toEqual([]);
    expect(z.records.map(brief)).toEqual([
      'example.com 300 A 192.0.2.1',
      'example.com 3600 AAAA 2001:db8::1',
      'www.example.com 3600 CNAME example.com',
      'mail.example.com 3600 MX 10 mx1.example.com',
      'example.com 3600 MX 20 mx2.example.net',
      'mx1.example.com 3600 A 192.0.2.25',
      'example.com 3600 TXT v=spf1 mx include:_spf.example.net ; -all',
      // Two strings that are not one value cut up stay two (as BIND reads them).
      'long.example.com 3600 TXT "first part " "second part"',
      '_sip._tcp.example.com 3600 SRV 10 60 5060 sipserver.example.com',
      'example.com 3600 CAA 0 issue "letsencrypt.org"',
      'sub.example.com 60 A 192.0.2.50',
      'api.dev.example.com 3600 A 192.0.2.60',
      '*.dev.example.com 3600 CNAME api.dev.example.com',
    ]);
    expect(z.records[0]!.line).toBe(12);
    expect(z.records[7]!.line).toBe(19);
    // SOA and the apex NS are Cloudflare's: reported with their lines, never records.
    expect(z.reported.map((r) => r.line)).toEqual([4, 10, 11]);
  });

  it("reads Cloudflare's own export, proxied status from cf_tags", async () => {
    const z = await parse(CLOUDFLARE_EXPORT);
    expect(z.problems).toEqual([]);
    expect(z.reported).toHaveLength(3);
    expect(z.records.map(brief)).toEqual([
      'example.com 1 A 192.0.2.1 [proxied]',
      'direct.example.com 3600 A 192.0.2.2 [dns only]',
      'www.example.com 1 CNAME example.com [proxied]',
    ]);
  });

  it('names each line it cannot import, and why', async () => {
    const z = await parse(`$TTL 300
ok      IN A 192.0.2.1
bad4    IN A 999.1.1.1
bad6    IN AAAA not-an-address
noname  300 IN A
what    IN HINFO "PC" "Linux"
$INCLUDE other.zone
outside.example.org. IN A 192.0.2.9
mx      IN MX mail.example.com.
quote   IN TXT "never closed
open    IN TXT ( "a"
`);
    expect(z.records.map(brief)).toEqual(['ok.example.com 300 A 192.0.2.1']);
    expect(z.problems.map((p) => [p.line, p.reason])).toEqual([
      [3, '"999.1.1.1" is not an IPv4 address'],
      [4, '"not-an-address" is not an IPv6 address'],
      [5, 'Cannot read the record: a type and its data are expected'],
      [6, "Type HINFO is not one Cloudflare's DNS editor takes"],
      [7, '$INCLUDE is not supported: give the records themselves'],
      [8, 'outside.example.org is outside the zone example.com'],
      [9, 'MX takes a preference (0-65535) and a host'],
      [10, 'A quoted string is not closed on its line'],
      [11, 'A "(" is never closed'],
    ]);
    expect(z.problemCount).toBe(9);
  });

  it('raises or lowers a TTL Cloudflare does not take, and says so', async () => {
    const z = await parse('a 10 IN A 192.0.2.1\nb 1w IN A 192.0.2.2\n');
    expect(z.records.map((r) => [r.ttl, r.note])).toEqual([
      [60, 'TTL 10 raised to 60, the least Cloudflare takes'],
      [86400, 'TTL 604800 lowered to 86400, the most Cloudflare takes'],
    ]);
  });

  it('refuses an empty file and one over the size limit', async () => {
    await expect(parse('')).rejects.toBeInstanceOf(ValidationError);
    await expect(parseZoneFile([Buffer.alloc(2000, 'a')], 'example.com', { maxBytes: 1000 })).rejects.toThrow(
      /larger than/,
    );
  });

  it('reads a 5,000-record file as a stream, in small chunks', async () => {
    function* lines() {
      yield '$ORIGIN big.example.\n$TTL 300\n';
      for (let i = 0; i < 5000; i++) yield `host-${i} IN A 10.${(i >> 8) & 255}.${i & 255}.1 ; n${i}\n`;
    }
    // Chunks of 64 bytes cut lines (and UTF-8) anywhere.
    const text = [...lines()].join('');
    const stream = Readable.from(
      (function* () {
        for (let i = 0; i < text.length; i += 64) yield Buffer.from(text.slice(i, i + 64));
      })(),
    );
    const z = await parseZoneFile(stream, 'big.example');
    expect(z.problems).toEqual([]);
    expect(z.records).toHaveLength(5000);
    expect(z.records[4999]).toMatchObject({ name: 'host-4999.big.example', content: '10.19.135.1', line: 5002 });
  });
});

const rec = (id: string, type: string, name: string, content: string, extra: Partial<DnsRecord> = {}): DnsRecord => ({
  id,
  type,
  name,
  content,
  proxied: false,
  ttl: 3600,
  ...extra,
});

describe('the difference against the zone', () => {
  it('sorts each record into added, changed, removed or unchanged', async () => {
    const current = [
      rec('1', 'A', 'example.com', '192.0.2.1', { proxied: true, ttl: 1 }),
      rec('2', 'A', 'direct.example.com', '192.0.2.99'),
      rec('3', 'CNAME', 'www.example.com', 'example.com', { proxied: true, ttl: 1 }),
      rec('4', 'TXT', 'old.example.com', 'gone'),
      rec('5', 'NS', 'example.com', 'lara.ns.cloudflare.com'),
    ];
    const d = diffZoneFile('example.com', current, await parse(CLOUDFLARE_EXPORT));
    expect(d.counts).toEqual({ added: 0, changed: 1, removed: 1, unchanged: 2, problems: 0, reported: 3 });
    const changed = d.rows.find((r) => r.kind === 'changed')!;
    expect(changed).toMatchObject({ current: { id: '2' }, fields: ['content'] });
    expect(d.changes[changed.key]).toEqual({
      patches: [{ id: '2', type: 'A', name: 'direct.example.com', content: '192.0.2.2', ttl: 3600, proxied: false }],
    });
    const removed = d.rows.find((r) => r.kind === 'removed')!;
    expect(d.changes[removed.key]).toEqual({ deletes: [{ id: '4' }] });
  });

  it('keeps an existing record proxied when the file does not say', async () => {
    const current = [rec('1', 'A', 'example.com', '192.0.2.1', { proxied: true })];
    const d = diffZoneFile('example.com', current, await parse('@ 3600 IN A 192.0.2.1\nnew 3600 IN A 192.0.2.3\n'));
    expect(d.counts).toMatchObject({ unchanged: 1, added: 1 });
    const added = d.rows.find((r) => r.kind === 'added')!;
    expect(d.changes[added.key]!.posts![0]).toMatchObject({ name: 'new.example.com', proxied: false });
  });
});

describe('writing zone files', () => {
  it('writes what it reads back the same', async () => {
    const records = [
      rec('1', 'A', 'example.com', '192.0.2.1', { proxied: true, ttl: 1 }),
      rec('2', 'AAAA', 'example.com', '2001:db8::1'),
      rec('3', 'CNAME', 'www.example.com', 'example.com', { proxied: true, ttl: 1 }),
      rec('4', 'MX', 'example.com', 'mail.example.com', { priority: 10 }),
      rec('5', 'TXT', 'example.com', 'v=spf1 "quoted" \\ -all; x'),
      rec('6', 'TXT', 'long.example.com', 'x'.repeat(600)),
      rec('7', 'SRV', '_sip._tcp.example.com', '60 5060 sip.example.com', { priority: 10 }),
      rec('8', 'CAA', 'example.com', '0 issue "letsencrypt.org"'),
      rec('9', 'NS', 'dev.example.com', 'ns1.other.net'),
    ];
    const text = renderZoneFile({
      zoneName: 'example.com',
      nameServers: ['lara.ns.cloudflare.com', 'greg.ns.cloudflare.com'],
      records,
      serial: 1716200000,
      exportedAt: new Date('2024-05-20T10:00:00Z'),
    });
    const verdict = namedCheckzone('example.com', text);
    if (verdict) expect(verdict.ok, verdict.out).toBe(true);
    expect(text).toContain('example.com.\t3600\tIN\tSOA\tlara.ns.cloudflare.com. dns.cloudflare.com. 1716200000');
    expect(text).toContain('example.com.\t1\tIN\tA\t192.0.2.1 ; cf_tags=cf-proxied:true');
    const back = await parse(text);
    expect(back.problems).toEqual([]);
    expect(back.reported).toHaveLength(3);
    const d = diffZoneFile('example.com', records, back);
    expect(d.counts).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: records.length });
  });
});

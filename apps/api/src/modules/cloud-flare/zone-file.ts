import { PROXIABLE_DNS_TYPES, type DnsRecord, type ZoneFileDiffRow, type ZoneFilePreview } from '@fleetdesk/contract';
import { ipv6Text, type ParsedZoneFile } from './zone-file-read.ts';
import { canonicalTxt, escapeData, escapeName, escapeString, txtStringsForFile } from './zone-file-text.ts';

export { parseZoneFile, type ParsedZoneFile } from './zone-file-read.ts';

/**
 * BIND zone files (decisions 043 and 061): written the way Cloudflare's own export writes them, with BIND's
 * escapes so that one record is always one line; read by zone-file-read.ts (off the request thread, through
 * zone-file-reader.ts) as BIND reads them.
 */

/** Cloudflare's SOA timers (what its name servers answer for every zone). */
const CF_SOA = { rname: 'dns.cloudflare.com.', refresh: 10000, retry: 2400, expire: 604800, minimum: 1800 };
const NAME_TYPES = new Set(['CNAME', 'NS', 'PTR']);

const absolute = (name: string) => escapeName(name.endsWith('.') ? name : `${name}.`);
const bare = (name: string) => name.replace(/\.$/, '').toLowerCase();

// ---------------------------------------------------------------- export

/** A TXT value as BIND character strings: Cloudflare's strings kept, each cut at 255 bytes, escaped as BIND does. */
const quoteTxt = (content: string) =>
  txtStringsForFile(content)
    .map((s) => `"${escapeString(s)}"`)
    .join(' ');

function dataOf(r: Pick<DnsRecord, 'type' | 'content' | 'priority'>): string {
  const type = r.type.toUpperCase();
  if (NAME_TYPES.has(type)) return absolute(r.content.trim());
  if (type === 'MX') return `${r.priority ?? 0} ${absolute(r.content.trim())}`;
  if (type === 'TXT') return quoteTxt(r.content);
  if (type === 'SRV') {
    // Cloudflare's content is "weight port target" beside its priority, or all four: the target always absolute.
    const parts = r.content.trim().split(/\s+/);
    if (parts.length === 3) parts.unshift(String(r.priority ?? 0));
    if (parts.length === 4) parts[3] = absolute(parts[3]!);
    return escapeData(parts.join(' '));
  }
  // A target name in HTTPS/SVCB (second field) and NAPTR (last field) is absolute too; "." means none.
  const named = type === 'HTTPS' || type === 'SVCB' ? 1 : type === 'NAPTR' ? 5 : -1;
  if (named >= 0) {
    const parts = r.content.trim().split(/\s+/);
    const t = parts[named];
    if (t && t !== '.' && !t.startsWith('"') && !t.endsWith('.')) parts[named] = `${t}.`;
    return escapeData(parts.join(' '));
  }
  if (type === 'URI' && r.priority !== undefined) return escapeData(`${r.priority} ${r.content}`);
  return escapeData(r.content);
}

export type ZoneFileSource = {
  zoneName: string;
  nameServers: string[];
  records: DnsRecord[];
  /** The SOA serial (Cloudflare's own is not readable through the API the console uses: the export time). */
  serial: number;
  exportedAt: Date;
};

/** The zone as a BIND file: SOA and NS as Cloudflare serves them, then every record by type, proxied in cf_tags. */
export function renderZoneFile(src: ZoneFileSource): string {
  const zone = absolute(src.zoneName.toLowerCase());
  const out: string[] = [
    ';;',
    `;; Domain:     ${zone}`,
    `;; Exported:   ${src.exportedAt.toISOString().replace('T', ' ').slice(0, 19)}`,
    ';;',
    ';; Exported by Fleetdesk from Cloudflare. The SOA and NS records are the ones Cloudflare serves;',
    ';; "cf_tags=cf-proxied:true" marks a record proxied through Cloudflare, as Cloudflare\'s own export does.',
    ';;',
    '',
    ';; SOA Record',
    [
      zone,
      3600,
      'IN',
      'SOA',
      `${absolute(src.nameServers[0] ?? `ns.${src.zoneName}`)} ${CF_SOA.rname} ${src.serial} ${CF_SOA.refresh} ${CF_SOA.retry} ${CF_SOA.expire} ${CF_SOA.minimum}`,
    ].join('\t'),
    '',
    ';; NS Records',
    ...src.nameServers.map((ns) => [zone, 86400, 'IN', 'NS', absolute(ns)].join('\t')),
  ];
  const byType = new Map<string, DnsRecord[]>();
  for (const r of src.records) {
    const t = r.type.toUpperCase();
    const list = byType.get(t);
    if (list) list.push(r);
    else byType.set(t, [r]);
  }
  for (const type of [...byType.keys()].sort()) {
    out.push('', `;; ${type} Records`);
    const list = byType.get(type)!.sort((a, b) => a.name.localeCompare(b.name) || a.content.localeCompare(b.content));
    for (const r of list) {
      const tag = PROXIABLE_DNS_TYPES.includes(type) ? ` ; cf_tags=cf-proxied:${r.proxied ? 'true' : 'false'}` : '';
      out.push(`${[absolute(r.name.toLowerCase()), r.ttl, 'IN', type, dataOf(r)].join('\t')}${tag}`);
    }
  }
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------- difference

/** A zone's record in the file's terms, so that the two compare (names in full, TXT unquoted). */
function normalCurrent(r: DnsRecord) {
  const type = r.type.toUpperCase();
  let content = r.content;
  let priority = r.priority;
  if (NAME_TYPES.has(type) || type === 'MX') content = bare(content);
  else if (type === 'TXT') content = canonicalTxt(content);
  else if (type === 'SRV') {
    const f = content.trim().split(/\s+/);
    // Content of all four fields: the priority is its first (the file's reading keeps it apart).
    if (f.length === 4 && /^\d+$/.test(f[0]!)) priority ??= Number(f.shift());
    content = f.length === 3 ? `${f[0]} ${f[1]} ${bare(f[2]!)}` : f.join(' ');
  } else if (type === 'AAAA') content = ipv6Text(content);
  return { ...r, type, name: bare(r.name), content, ...(priority !== undefined ? { priority } : {}) };
}

/**
 * The difference of a zone file against the zone: a record with the same type, name and data is the same
 * record (changed when its TTL, proxied or priority differ); the others of one name and type pair up in order
 * as changed content; what is left is added (file) or removed (zone). The zone's apex NS are Cloudflare's.
 */
export function diffZoneFile(zoneName: string, current: DnsRecord[], parsed: ParsedZoneFile): ZoneFilePreview {
  const zone = bare(zoneName);
  const rows: ZoneFileDiffRow[] = [];
  const changes: ZoneFilePreview['changes'] = {};
  const cur = current.map(normalCurrent).filter((r) => !(r.type === 'SOA' || (r.type === 'NS' && r.name === zone)));
  const identity = (r: { type: string; name: string; content: string; priority?: number }) =>
    `${r.type}|${r.name}|${r.content}|${r.priority ?? ''}`;
  const pool = new Map<string, (typeof cur)[number][]>();
  for (const r of cur) {
    const k = identity(r);
    const list = pool.get(k);
    if (list) list.push(r);
    else pool.set(k, [r]);
  }
  const take = (k: string) => {
    const list = pool.get(k);
    const r = list?.shift();
    if (list && !list.length) pool.delete(k);
    return r;
  };
  const used = new Set<string>();
  const leftovers: ParsedZoneFile['records'] = [];
  let n = 0;
  const patchOf = (f: ParsedZoneFile['records'][number], c: (typeof cur)[number], proxied: boolean) => ({
    id: c.id,
    type: f.type,
    name: f.name,
    content: f.content,
    ttl: f.ttl,
    proxied,
    ...(f.priority !== undefined ? { priority: f.priority } : {}),
  });
  const fileOf = ({ note: _note, ...f }: ParsedZoneFile['records'][number]) => f;
  const currentOf = (c: (typeof cur)[number]) => ({
    id: c.id,
    type: c.type,
    name: c.name,
    content: c.content,
    ttl: c.ttl,
    proxied: c.proxied,
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
  });

  const compare = (f: ParsedZoneFile['records'][number], c: (typeof cur)[number]) => {
    used.add(c.id);
    const proxied = f.proxied ?? c.proxied;
    const fields: string[] = [];
    if (f.content !== c.content) fields.push('content');
    if (f.ttl !== c.ttl) fields.push('ttl');
    if (proxied !== c.proxied) fields.push('proxied');
    if ((f.priority ?? null) !== (c.priority ?? null)) fields.push('priority');
    const key = `r${++n}`;
    rows.push({
      key,
      kind: fields.length ? 'changed' : 'unchanged',
      file: fileOf(f),
      current: currentOf(c),
      fields,
      note: f.note,
    });
    if (fields.length) changes[key] = { patches: [patchOf(f, c, proxied)] };
  };

  for (const f of parsed.records) {
    const c = take(identity(f));
    if (c) compare(f, c);
    else leftovers.push(f);
  }
  // Left over of one name and type: paired in order as changed content.
  const byNameType = new Map<string, (typeof cur)[number][]>();
  for (const r of cur) {
    if (used.has(r.id)) continue;
    const k = `${r.type}|${r.name}`;
    const list = byNameType.get(k);
    if (list) list.push(r);
    else byNameType.set(k, [r]);
  }
  for (const f of leftovers) {
    const c = byNameType.get(`${f.type}|${f.name}`)?.shift();
    if (c) {
      compare(f, c);
      continue;
    }
    const key = `r${++n}`;
    rows.push({ key, kind: 'added', file: fileOf(f), current: null, fields: [], note: f.note });
    changes[key] = {
      posts: [
        {
          type: f.type,
          name: f.name,
          content: f.content,
          ttl: f.ttl,
          proxied: f.proxied ?? false,
          ...(f.priority !== undefined ? { priority: f.priority } : {}),
        },
      ],
    };
  }
  for (const c of cur) {
    if (used.has(c.id)) continue;
    const key = `r${++n}`;
    rows.push({ key, kind: 'removed', file: null, current: currentOf(c), fields: [], note: null });
    changes[key] = { deletes: [{ id: c.id }] };
  }
  const count = (k: ZoneFileDiffRow['kind']) => rows.filter((r) => r.kind === k).length;
  return {
    zoneName: zone,
    counts: {
      added: count('added'),
      changed: count('changed'),
      removed: count('removed'),
      unchanged: count('unchanged'),
      problems: parsed.problemCount,
      reported: parsed.reported.length,
    },
    rows,
    problems: parsed.problems,
    reported: parsed.reported,
    changes,
  };
}

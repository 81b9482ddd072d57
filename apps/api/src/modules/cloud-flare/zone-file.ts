import { isIPv4, isIPv6 } from 'node:net';
import { parseZone } from 'dnsz';
import {
  DNS_RECORD_TYPES,
  DNS_TTL_AUTO,
  DNS_TTL_MAX,
  PROXIABLE_DNS_TYPES,
  ZONE_FILE_MAX_BYTES,
  ZONE_FILE_MAX_RECORDS,
  ZONE_FILE_PROBLEMS_MAX,
  ZONE_FILE_TEXT,
  type DnsRecord,
  type ZoneFileDiffRow,
  type ZoneFilePreview,
  type ZoneFileProblem,
  type ZoneFileRecord,
} from '@fleetdesk/contract';
import { ValidationError } from '../../http/errors.ts';

/**
 * BIND zone files (decision 043): written the way Cloudflare's own export writes them, read with dnsz (a kept
 * zone-file parser) one entry at a time. Our part is only what dnsz leaves to its caller: grouping the lines of
 * a multi-line entry (parentheses), line numbers, blank owners, and checking each record against what the
 * console can edit.
 */

/** Cloudflare's SOA timers (what its name servers answer for every zone). */
const CF_SOA = { rname: 'dns.cloudflare.com.', refresh: 10000, retry: 2400, expire: 604800, minimum: 1800 };
/** The least TTL Cloudflare takes besides 1 (Auto). */
const TTL_MIN = 60;
const NAME_TYPES = new Set(['CNAME', 'NS', 'PTR']);
const KNOWN_TYPES = new Set<string>(DNS_RECORD_TYPES);
/** Longest single line kept in a problem's text. */
const LINE_TEXT_MAX = 200;

const absolute = (name: string) => (name.endsWith('.') ? name : `${name}.`);
const bare = (name: string) => name.replace(/\.$/, '').toLowerCase();

// ---------------------------------------------------------------- export

/** A TXT value as BIND character strings: quoted, escaped, cut at 255 characters. */
function quoteTxt(content: string): string {
  if (content.startsWith('"')) return content;
  const parts: string[] = [];
  for (let i = 0; i < content.length || i === 0; i += 255) parts.push(content.slice(i, i + 255));
  return parts.map((p) => `"${p.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(' ');
}

function dataOf(r: Pick<DnsRecord, 'type' | 'content' | 'priority'>): string {
  const type = r.type.toUpperCase();
  if (NAME_TYPES.has(type)) return absolute(r.content);
  if (type === 'MX') return `${r.priority ?? 0} ${absolute(r.content)}`;
  if (type === 'TXT') return quoteTxt(r.content);
  if (type === 'SRV') {
    const parts = r.content.trim().split(/\s+/);
    const target = parts.length === 3 ? [...parts.slice(0, 2), absolute(parts[2]!)] : parts;
    return r.priority === undefined ? target.join(' ') : `${r.priority} ${target.join(' ')}`;
  }
  if (type === 'URI' && r.priority !== undefined) return `${r.priority} ${r.content}`;
  return r.content;
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

// ---------------------------------------------------------------- reading

/** The lines of a byte stream, bounded in size, with their numbers. */
async function* linesOf(source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, maxBytes: number) {
  let bytes = 0;
  let rest = '';
  let no = 0;
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buf.length;
    if (bytes > maxBytes) throw new ValidationError(ZONE_FILE_TEXT.tooLarge, { file: ZONE_FILE_TEXT.tooLarge });
    rest += decoder.decode(buf, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      yield { no: ++no, text: rest.slice(0, nl).replace(/\r$/, '') };
      rest = rest.slice(nl + 1);
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest) yield { no: ++no, text: rest.replace(/\r$/, '') };
}

type Entry = { line: number; text: string; comments: string[]; blankOwner: boolean };
type EntryOrProblem = { entry: Entry } | { problem: ZoneFileProblem };

const clip = (s: string) => (s.length > LINE_TEXT_MAX ? `${s.slice(0, LINE_TEXT_MAX)}…` : s);

/**
 * Groups lines into entries: an entry goes on while a parenthesis is open (RFC 1035 §5.1). Quotes and
 * comments are skipped over so that a ";" or "(" inside a TXT value is data.
 */
async function* entriesOf(lines: AsyncIterable<{ no: number; text: string }>): AsyncGenerator<EntryOrProblem> {
  let cur: Entry | null = null;
  let depth = 0;
  let openedAt = 0;
  for await (const { no, text } of lines) {
    let inQuote = false;
    let code = '';
    let comment: string | null = null;
    let bad: string | null = null;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (inQuote) {
        code += c;
        if (c === '\\' && i + 1 < text.length) code += text[++i];
        else if (c === '"') inQuote = false;
        continue;
      }
      if (c === ';') {
        comment = text.slice(i + 1).trim();
        break;
      }
      if (c === '"') inQuote = true;
      else if (c === '(') {
        if (depth === 0) openedAt = no;
        depth++;
      } else if (c === ')') {
        depth--;
        if (depth < 0) {
          bad = 'A ")" closes a parenthesis that was never opened';
          break;
        }
      }
      code += c;
    }
    if (!bad && inQuote) bad = 'A quoted string is not closed on its line';
    if (bad) {
      yield { problem: { line: cur?.line ?? no, text: clip(text), reason: bad } };
      cur = null;
      depth = 0;
      continue;
    }
    if (!cur) {
      if (!code.trim()) continue;
      cur = { line: no, text: code, comments: [], blankOwner: /^[ \t]/.test(code) };
    } else cur.text += `\n${code}`;
    if (comment) cur.comments.push(comment);
    if (depth === 0) {
      yield { entry: cur };
      cur = null;
    }
  }
  if (cur) {
    yield {
      problem: { line: openedAt || cur.line, text: clip(cur.text.split('\n')[0]!), reason: 'A "(" is never closed' },
    };
  }
}

/** Splits record data into its fields; a quoted string is one field (quotes kept). */
function fieldsOf(data: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inQuote = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (inQuote) {
      cur += c;
      if (c === '\\' && i + 1 < data.length) cur += data[++i];
      else if (c === '"') inQuote = false;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '(' || c === ')') {
      if (cur) out.push(cur);
      cur = '';
    } else {
      if (c === '"') inQuote = true;
      cur += c;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The text of BIND character strings: quoted ones unquoted and unescaped, joined (a long TXT is several). */
function unquote(fields: string[]): string {
  return fields
    .map((f) => {
      if (!f.startsWith('"')) return f;
      const inner = f.slice(1, f.endsWith('"') && f.length > 1 ? -1 : undefined);
      return inner.replace(/\\(\d{3}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(Number(e)) : e));
    })
    .join('');
}

const u16 = (s: string | undefined) => {
  const n = Number(s);
  return s !== undefined && /^\d+$/.test(s) && n <= 65535 ? n : null;
};

/** What cf_tags says of proxied, or null when the comments do not say. */
function proxiedOf(comments: string[]): boolean | null {
  for (const c of comments) {
    for (const word of c.split(/\s+/)) {
      if (!word.startsWith('cf_tags=')) continue;
      for (const tag of word.slice('cf_tags='.length).split(',')) {
        const [k, v] = tag.split(':');
        if (k === 'cf-proxied') return v === 'true';
      }
    }
  }
  return null;
}

export type ParsedZoneFile = {
  records: (ZoneFileRecord & { note: string | null })[];
  problems: ZoneFileProblem[];
  problemCount: number;
  reported: ZoneFileProblem[];
};

/**
 * Reads a zone file for the zone `zoneName`, streamed line by line (the file is never held whole). Every line
 * that cannot be imported is kept with its number and why; SOA and NS at the apex are reported, not records.
 */
export async function parseZoneFile(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  zoneName: string,
  opts: { maxBytes?: number; maxRecords?: number } = {},
): Promise<ParsedZoneFile> {
  const zone = bare(zoneName);
  let origin = zone;
  let ttl: number | null = null;
  let lastOwner: string | null = null;
  const out: ParsedZoneFile = { records: [], problems: [], problemCount: 0, reported: [] };
  const problem = (p: ZoneFileProblem) => {
    out.problemCount++;
    if (out.problems.length < ZONE_FILE_PROBLEMS_MAX) out.problems.push(p);
  };
  let lines = 0;
  for await (const item of entriesOf(
    (async function* () {
      for await (const l of linesOf(source, opts.maxBytes ?? ZONE_FILE_MAX_BYTES)) {
        lines++;
        yield l;
      }
    })(),
  )) {
    if ('problem' in item) {
      problem(item.problem);
      continue;
    }
    const e = item.entry;
    const shown = clip(e.text.split('\n')[0]!.trim());
    const refuse = (reason: string) => problem({ line: e.line, text: shown, reason });
    const fields = fieldsOf(e.text);

    if (!e.blankOwner && fields[0]?.startsWith('$')) {
      const directive = fields[0].toUpperCase();
      if (directive === '$ORIGIN') {
        const name = fields[1];
        if (!name || fields.length > 2) refuse('$ORIGIN takes one domain name');
        else origin = name.endsWith('.') ? bare(name) : bare(`${name}.${origin}`);
      } else if (directive === '$TTL') {
        const parsed = fields[1] && fields.length === 2 ? parseZone(`$TTL ${fields[1]}\n`).ttl : undefined;
        if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < 0)
          refuse(`$TTL takes a time such as 3600 or 1h, not "${fields.slice(1).join(' ')}"`);
        else ttl = parsed;
      } else refuse(`${directive} is not supported: give the records themselves`);
      continue;
    }
    if (e.blankOwner && !lastOwner) {
      refuse('The record has no name, and no record before it gives one');
      continue;
    }

    // dnsz reads the entry in the file's context; a blank owner is made explicit (RFC 1035: the previous one).
    const text: string = e.blankOwner ? `${lastOwner}.${e.text}` : e.text;
    let parsed;
    try {
      parsed = parseZone(`$ORIGIN ${origin}.\n${ttl !== null ? `$TTL ${ttl}\n` : ''}${text}\n`, {
        defaultTTL: DNS_TTL_AUTO,
      }).records;
    } catch (err) {
      refuse(`Cannot read the record: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const rec: { name: string; ttl: number; class: string; type: string; content: string } | undefined = parsed[0];
    if (parsed.length !== 1 || !rec) {
      refuse('Cannot read a record here');
      continue;
    }
    const name: string = rec.name === '@' ? origin : bare(rec.name);
    lastOwner = name;
    const type = rec.type.toUpperCase();
    if (rec.class.toUpperCase() !== 'IN') {
      refuse(`Class ${rec.class} is not IN`);
      continue;
    }
    if (type === 'SOA' || (type === 'NS' && name === zone)) {
      out.reported.push({
        line: e.line,
        text: shown,
        reason:
          type === 'SOA'
            ? 'SOA is served by Cloudflare: reported, not applied'
            : 'NS at the apex are served by Cloudflare: reported, not applied',
      });
      continue;
    }
    if (!KNOWN_TYPES.has(type)) {
      refuse(
        ['IN', 'CH', 'HS', 'CS'].includes(type) || /^\d+$/.test(type)
          ? 'Cannot read the record: a type and its data are expected'
          : `Type ${type} is not one Cloudflare's DNS editor takes`,
      );
      continue;
    }
    if (name !== zone && !name.endsWith(`.${zone}`)) {
      refuse(`${name} is outside the zone ${zone}`);
      continue;
    }
    const data = fieldsOf(rec.content);
    const abs = (n: string | undefined) =>
      !n ? '' : n === '@' ? origin : n.endsWith('.') ? bare(n) : bare(`${n}.${origin}`);
    let content = '';
    let priority: number | undefined;
    let bad: string | null = null;
    if (type === 'A') {
      content = data[0] ?? '';
      if (data.length !== 1 || !isIPv4(content)) bad = `"${data.join(' ')}" is not an IPv4 address`;
    } else if (type === 'AAAA') {
      content = (data[0] ?? '').toLowerCase();
      if (data.length !== 1 || !isIPv6(content)) bad = `"${data.join(' ')}" is not an IPv6 address`;
    } else if (NAME_TYPES.has(type)) {
      content = abs(data[0]);
      if (data.length !== 1 || !content) bad = `${type} takes one domain name`;
    } else if (type === 'MX') {
      priority = u16(data[0]) ?? undefined;
      content = abs(data[1]);
      if (data.length !== 2 || priority === undefined || !content) bad = 'MX takes a preference (0-65535) and a host';
    } else if (type === 'SRV') {
      priority = u16(data[0]) ?? undefined;
      if (data.length !== 4 || priority === undefined || u16(data[1]) === null || u16(data[2]) === null)
        bad = 'SRV takes priority, weight, port and target';
      else content = `${data[1]} ${data[2]} ${abs(data[3])}`;
    } else if (type === 'URI') {
      priority = u16(data[0]) ?? undefined;
      if (data.length !== 3 || priority === undefined || u16(data[1]) === null)
        bad = 'URI takes priority, weight and target';
      else content = `${data[1]} ${data[2]}`;
    } else if (type === 'TXT') {
      content = unquote(data);
      if (!content) bad = 'TXT has no text';
    } else {
      content = data.join(' ');
      if (!content) bad = `${type} has no data`;
    }
    if (bad) {
      refuse(bad);
      continue;
    }
    const proxied = proxiedOf(e.comments);
    if (proxied && !PROXIABLE_DNS_TYPES.includes(type)) {
      refuse(`Only ${PROXIABLE_DNS_TYPES.join(', ')} records can be proxied`);
      continue;
    }
    let t = rec.ttl;
    let note: string | null = null;
    if (t !== DNS_TTL_AUTO && t < TTL_MIN) {
      note = `TTL ${t} raised to ${TTL_MIN}, the least Cloudflare takes`;
      t = TTL_MIN;
    } else if (t > DNS_TTL_MAX) {
      note = `TTL ${t} lowered to ${DNS_TTL_MAX}, the most Cloudflare takes`;
      t = DNS_TTL_MAX;
    }
    if (out.records.length >= (opts.maxRecords ?? ZONE_FILE_MAX_RECORDS))
      throw new ValidationError(ZONE_FILE_TEXT.tooMany, { file: ZONE_FILE_TEXT.tooMany });
    out.records.push({
      line: e.line,
      type,
      name,
      content,
      ttl: t,
      proxied,
      ...(priority !== undefined ? { priority } : {}),
      note,
    });
  }
  if (lines === 0) throw new ValidationError(ZONE_FILE_TEXT.empty, { file: ZONE_FILE_TEXT.empty });
  return out;
}

// ---------------------------------------------------------------- difference

/** A zone's record in the file's terms, so that the two compare (names in full, TXT unquoted). */
function normalCurrent(r: DnsRecord) {
  const type = r.type.toUpperCase();
  let content = r.content;
  if (NAME_TYPES.has(type) || type === 'MX') content = bare(content);
  else if (type === 'TXT' && content.startsWith('"')) content = unquote(fieldsOf(content));
  else if (type === 'SRV') {
    const f = content.trim().split(/\s+/);
    content = f.length === 3 ? `${f[0]} ${f[1]} ${bare(f[2]!)}` : f.join(' ');
  } else if (type === 'AAAA') content = content.toLowerCase();
  return { ...r, type, name: bare(r.name), content };
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

import { isIPv4, isIPv6 } from 'node:net';
import {
  DNS_RECORD_TYPES,
  DNS_TTL_AUTO,
  DNS_TTL_MAX,
  PROXIABLE_DNS_TYPES,
  ZONE_FILE_MAX_BYTES,
  ZONE_FILE_MAX_ENTRY_BYTES,
  ZONE_FILE_MAX_RECORDS,
  ZONE_FILE_MAX_STRINGS,
  ZONE_FILE_PROBLEMS_MAX,
  ZONE_FILE_TEXT,
  dnsRecordProblems,
  type ZoneFileProblem,
  type ZoneFileRecord,
} from '@fleetdesk/contract';
import { ValidationError } from '../../http/errors.ts';
import { decodeToken, textOf, txtContentOf } from './zone-file-text.ts';

/**
 * Reads BIND zone files as BIND does (RFC 1035 §5.1, decision 061): entries over parentheses, `\DDD` as a byte,
 * the class before or after the TTL, a missing TTL from $TTL or else the last one given, TXT strings kept.
 * Linear in the file, with bounds on one entry's size and on its strings, so no file makes it slow.
 */

/** The least TTL Cloudflare takes besides 1 (Auto). */
const TTL_MIN = 60;
const NAME_TYPES = new Set(['CNAME', 'NS', 'PTR']);
const KNOWN_TYPES = new Set<string>(DNS_RECORD_TYPES);
const CLASS_RE = /^(IN|CH|HS|CS|CLASS\d+)$/i;
/** Longest single line kept in a problem's text. */
const LINE_TEXT_MAX = 200;
/** Fields besides the strings: owner, TTL, class, type. */
const HEADER_FIELDS = 4;

const bare = (name: string) => name.replace(/\.$/, '').toLowerCase();
const clip = (s: string) => (s.length > LINE_TEXT_MAX ? `${s.slice(0, LINE_TEXT_MAX)}…` : s);

/** A TTL as BIND writes it: seconds, or units (1h30m, 1w). Null if it is not one. */
export function ttlOf(s: string): number | null {
  if (/^\d+$/.test(s)) return Number(s) <= 2 ** 31 - 1 ? Number(s) : null;
  if (!/^(\d+[wdhms])+$/i.test(s)) return null;
  const unit: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };
  let n = 0;
  for (const m of s.toLowerCase().matchAll(/(\d+)([wdhms])/g)) n += Number(m[1]) * unit[m[2]!]!;
  return n <= 2 ** 31 - 1 ? n : null;
}

/** A domain name of the file in full (no final dot, lower case), or why it cannot be a Cloudflare name. */
export function nameOf(raw: string, origin: string): { name: string } | { error: string } {
  if (raw === '@') return { name: origin };
  const labels: string[] = [];
  let cur = '';
  let absolute = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\') {
      const len = /^\\\d{3}/.test(raw.slice(i, i + 4)) ? 4 : 2;
      cur += raw.slice(i, i + len);
      i += len - 1;
    } else if (c === '.') {
      labels.push(cur);
      cur = '';
      if (i === raw.length - 1) absolute = true;
    } else cur += c;
  }
  if (!absolute) labels.push(cur);
  const out: string[] = [];
  for (const l of labels) {
    const bytes = decodeToken(l);
    const text = bytes && textOf(bytes);
    if (text === null || text === undefined || (!text && !(absolute && labels.length === 1 && !l)))
      return { error: `"${clip(raw)}" is not a domain name` };
    if (text.includes('.'))
      return {
        error: `The name "${clip(raw)}" has a dot inside a label (written "\\."), which Cloudflare cannot hold`,
      };
    out.push(text.toLowerCase());
  }
  const name = out.filter(Boolean).join('.');
  return { name: absolute ? name : origin ? `${name}.${origin}` : name };
}

/** IPv6 in its compressed lower-case form (as Cloudflare and BIND write it). */
export function ipv6Text(s: string): string {
  try {
    return new URL(`http://[${s}]/`).hostname.slice(1, -1);
  } catch {
    return s.toLowerCase();
  }
}

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
    let from = 0;
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      yield { no: ++no, text: rest.slice(from, nl).replace(/\r$/, '') };
      from = nl + 1;
      nl = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
  }
  rest += decoder.decode();
  if (rest) yield { no: ++no, text: rest.replace(/\r$/, '') };
}

type Entry = {
  line: number;
  first: string;
  tokens: string[];
  comments: string[];
  blankOwner: boolean;
  size: number;
  over: string | null;
};
type EntryOrProblem = { entry: Entry } | { problem: ZoneFileProblem };

/**
 * Groups lines into entries, cut into fields: an entry goes on while a parenthesis is open (RFC 1035 §5.1);
 * a quoted string is one field (quotes kept), a ";" or "(" inside it is data. An entry larger than the bound,
 * or with more fields than the bound, keeps no fields: only where it ends is followed.
 */
function* entriesOf(lines: Iterable<{ no: number; text: string }>): Generator<EntryOrProblem> {
  let cur: Entry | null = null;
  let depth = 0;
  let openedAt = 0;
  const maxFields = ZONE_FILE_MAX_STRINGS + HEADER_FIELDS;
  for (const { no, text } of lines) {
    let inQuote = false;
    let start = -1;
    let bad: string | null = null;
    let comment: string | null = null;
    const fields: string[] = [];
    // Fields past the bound are not kept (the entry is refused): only its quotes and parentheses are followed.
    const room = cur?.over ? 0 : maxFields + 1 - (cur?.tokens.length ?? 0);
    const end = (i: number) => {
      if (start >= 0 && fields.length < room) fields.push(text.slice(start, i));
      start = -1;
    };
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (inQuote) {
        if (c === '\\') i++;
        else if (c === '"') {
          inQuote = false;
          end(i + 1);
        }
        continue;
      }
      if (c === ';') {
        comment = text.slice(i + 1).trim();
        break;
      }
      if (c === ' ' || c === '\t') end(i);
      else if (c === '(' || c === ')') {
        end(i);
        if (c === '(') {
          if (depth === 0) openedAt = no;
          depth++;
        } else if (--depth < 0) {
          bad = 'A ")" closes a parenthesis that was never opened';
          break;
        }
      } else if (c === '"') {
        end(i);
        start = i;
        inQuote = true;
      } else {
        if (start < 0) start = i;
        if (c === '\\') i++;
      }
    }
    if (!bad) end(text.length);
    if (!bad && inQuote) bad = 'A quoted string is not closed on its line';
    if (bad) {
      yield { problem: { line: cur?.line ?? no, text: clip(text), reason: bad } };
      cur = null;
      depth = 0;
      continue;
    }
    if (!cur) {
      if (!fields.length && depth === 0) continue;
      cur = { line: no, first: text, tokens: [], comments: [], blankOwner: /^[ \t]/.test(text), size: 0, over: null };
    }
    cur.size += text.length + 1;
    if (!cur.over && cur.size > ZONE_FILE_MAX_ENTRY_BYTES)
      cur.over = `The record is longer than ${ZONE_FILE_MAX_ENTRY_BYTES / 1024} KB`;
    if (!cur.over && cur.tokens.length + fields.length > maxFields)
      cur.over = `The record has more than ${ZONE_FILE_MAX_STRINGS} strings`;
    if (cur.over) cur.tokens = [];
    else cur.tokens.push(...fields);
    if (comment && cur.comments.length < 8) cur.comments.push(comment);
    if (depth === 0) {
      yield { entry: cur };
      cur = null;
    }
  }
  if (cur) {
    yield { problem: { line: openedAt || cur.line, text: clip(cur.first.trim()), reason: 'A "(" is never closed' } };
  }
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

/** The whole input as lines (an async source is read first; the reading itself is synchronous). */
async function collectLines(source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, maxBytes: number) {
  const out: { no: number; text: string }[] = [];
  for await (const l of linesOf(source, maxBytes)) out.push(l);
  return out;
}

/**
 * Reads a zone file for the zone `zoneName`. Every line that cannot be imported is kept with its number and why;
 * SOA and NS at the apex are reported, not records.
 */
export async function parseZoneFile(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  zoneName: string,
  opts: { maxBytes?: number; maxRecords?: number } = {},
): Promise<ParsedZoneFile> {
  const lines = await collectLines(source, opts.maxBytes ?? ZONE_FILE_MAX_BYTES);
  if (lines.length === 0) throw new ValidationError(ZONE_FILE_TEXT.empty, { file: ZONE_FILE_TEXT.empty });
  return readEntries(lines, zoneName, opts.maxRecords ?? ZONE_FILE_MAX_RECORDS);
}

function readEntries(lines: { no: number; text: string }[], zoneName: string, maxRecords: number): ParsedZoneFile {
  const zone = bare(zoneName);
  let origin = zone;
  let defaultTtl: number | null = null;
  let lastTtl: number | null = null;
  let lastOwner: string | null = null;
  const out: ParsedZoneFile = { records: [], problems: [], problemCount: 0, reported: [] };
  const problem = (p: ZoneFileProblem) => {
    out.problemCount++;
    if (out.problems.length < ZONE_FILE_PROBLEMS_MAX) out.problems.push(p);
  };
  for (const item of entriesOf(lines)) {
    if ('problem' in item) {
      problem(item.problem);
      continue;
    }
    const e = item.entry;
    const shown = clip(e.first.trim());
    const refuse = (reason: string) => problem({ line: e.line, text: shown, reason });
    if (e.over) {
      refuse(e.over);
      continue;
    }
    const t = e.tokens;

    if (!e.blankOwner && t[0]?.startsWith('$')) {
      const directive = t[0].toUpperCase();
      if (directive === '$ORIGIN') {
        const n = t.length === 2 ? nameOf(t[1]!, origin) : null;
        if (!n) refuse('$ORIGIN takes one domain name');
        else if ('error' in n) refuse(n.error);
        else origin = n.name;
      } else if (directive === '$TTL') {
        const v = t.length === 2 ? ttlOf(t[1]!) : null;
        if (v === null) refuse(`$TTL takes a time such as 3600 or 1h, not "${t.slice(1).join(' ')}"`);
        else defaultTtl = v;
      } else refuse(`${directive} is not supported: give the records themselves`);
      continue;
    }

    let i = 0;
    let name: string;
    if (e.blankOwner) {
      if (!lastOwner) {
        refuse('The record has no name, and no record before it gives one');
        continue;
      }
      name = lastOwner;
    } else {
      const n = nameOf(t[i++]!, origin);
      if ('error' in n) {
        refuse(n.error);
        continue;
      }
      name = n.name;
    }
    lastOwner = name;
    // RFC 1035 §5.1: TTL and class in either order, each optional.
    let ttl: number | null = null;
    let cls: string | null = null;
    for (let k = 0; k < 2 && i < t.length; k++) {
      const v: number | null = ttl === null ? ttlOf(t[i]!) : null;
      if (v !== null) ttl = v;
      else if (cls === null && CLASS_RE.test(t[i]!)) cls = t[i]!.toUpperCase();
      else break;
      i++;
    }
    if (ttl !== null) lastTtl = ttl;
    const type = t[i++]?.toUpperCase();
    const data = t.slice(i);
    if (!type || !data.length) {
      refuse('Cannot read the record: a type and its data are expected');
      continue;
    }
    if (cls && cls !== 'IN') {
      refuse(`Class ${cls} is not IN`);
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
      refuse(`Type ${type} is not one Cloudflare's DNS editor takes`);
      continue;
    }
    if (name !== zone && !name.endsWith(`.${zone}`)) {
      refuse(`${name} is outside the zone ${zone}`);
      continue;
    }
    const target = (raw: string | undefined) => {
      if (!raw) return '';
      const n = nameOf(raw, origin);
      return 'error' in n ? '' : n.name;
    };
    let content = '';
    let priority: number | undefined;
    let bad: string | null = null;
    if (type === 'A') {
      content = data[0] ?? '';
      if (data.length !== 1 || !isIPv4(content)) bad = `"${data.join(' ')}" is not an IPv4 address`;
    } else if (type === 'AAAA') {
      content = data[0] ?? '';
      if (data.length !== 1 || !isIPv6(content)) bad = `"${data.join(' ')}" is not an IPv6 address`;
      else content = ipv6Text(content);
    } else if (NAME_TYPES.has(type)) {
      content = target(data[0]);
      if (data.length !== 1 || !content) bad = `${type} takes one domain name`;
    } else if (type === 'MX') {
      priority = u16(data[0]) ?? undefined;
      content = target(data[1]);
      if (data.length !== 2 || priority === undefined || !content) bad = 'MX takes a preference (0-65535) and a host';
    } else if (type === 'SRV') {
      priority = u16(data[0]) ?? undefined;
      const host = target(data[3]);
      if (data.length !== 4 || priority === undefined || u16(data[1]) === null || u16(data[2]) === null || !host)
        bad = 'SRV takes priority, weight, port and target';
      else content = `${data[1]} ${data[2]} ${host}`;
    } else if (type === 'URI') {
      priority = u16(data[0]) ?? undefined;
      if (data.length !== 3 || priority === undefined || u16(data[1]) === null)
        bad = 'URI takes priority, weight and target';
      else content = `${data[1]} ${data[2]}`;
    } else if (type === 'TXT') {
      const strings = data.map(decodeToken);
      const text = strings.every((s) => s !== null) ? txtContentOf(strings as Uint8Array[]) : undefined;
      if (text === undefined) bad = 'TXT has an escape that is not \\DDD (000-255) or \\ and a character';
      else if (text === null) bad = 'TXT holds bytes that are not UTF-8 text';
      else if (!text) bad = 'TXT has no text';
      else content = text;
    } else content = data.join(' ');
    if (bad) {
      refuse(bad);
      continue;
    }
    const proxied = proxiedOf(e.comments);
    if (proxied && !PROXIABLE_DNS_TYPES.includes(type)) {
      refuse(`Only ${PROXIABLE_DNS_TYPES.join(', ')} records can be proxied`);
      continue;
    }
    // What the DNS editor would refuse (a control character, a name Cloudflare cannot hold, …) is this line's problem.
    const rule = dnsRecordProblems({ type, name, content, ...(priority !== undefined ? { priority } : {}) }, zone)[0];
    if (rule) {
      refuse(rule.message);
      continue;
    }
    let recTtl = ttl ?? defaultTtl ?? lastTtl ?? DNS_TTL_AUTO;
    let note: string | null = null;
    if (recTtl !== DNS_TTL_AUTO && recTtl < TTL_MIN) {
      note = `TTL ${recTtl} raised to ${TTL_MIN}, the least Cloudflare takes`;
      recTtl = TTL_MIN;
    } else if (recTtl > DNS_TTL_MAX) {
      note = `TTL ${recTtl} lowered to ${DNS_TTL_MAX}, the most Cloudflare takes`;
      recTtl = DNS_TTL_MAX;
    }
    if (out.records.length >= maxRecords)
      throw new ValidationError(ZONE_FILE_TEXT.tooMany, { file: ZONE_FILE_TEXT.tooMany });
    out.records.push({
      line: e.line,
      type,
      name,
      content,
      ttl: recTtl,
      proxied,
      ...(priority !== undefined ? { priority } : {}),
      note,
    });
  }
  return out;
}

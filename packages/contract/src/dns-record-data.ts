/**
 * Records Cloudflare takes as structured `data` (its OpenAPI marks `content` read-only for these types and requires
 * `data`; decision 062). The console keeps one `content` text per record, written the way Cloudflare computes it
 * (and a zone file holds it), and builds `data` from it when a record is sent; the DNS editor shows the fields.
 * Field names, ranges and descriptions are those of Cloudflare's `dns-records_<TYPE>Record` schemas.
 */

export type DnsDataField = {
  key: string;
  label: string;
  kind: 'integer' | 'number' | 'text' | 'choice';
  min?: number;
  max?: number;
  options?: readonly string[];
  /** Cloudflare's description of the field. */
  hint: string;
  /** May be left empty (HTTPS/SVCB parameters). */
  optional?: boolean;
  /** Written in double quotes in the content text. */
  quoted?: boolean;
};

export type DnsDataType = {
  fields: readonly DnsDataField[];
  /** The content text's shape and an example, for messages. */
  format: string;
  example: string;
  /** The record's own `priority` (top level, outside `data`) comes first in a zone file. */
  priority?: 'top' | 'data';
};

const u8 = { kind: 'integer', min: 0, max: 255 } as const;
const u16 = { kind: 'integer', min: 0, max: 65_535 } as const;
const text = { kind: 'text' } as const;

export const DNS_DATA_TYPES: Record<string, DnsDataType> = {
  CAA: {
    format: 'flags tag "value"',
    example: '0 issue "letsencrypt.org"',
    fields: [
      { key: 'flags', label: 'Flags', ...u8, hint: 'Flags for the CAA record.' },
      {
        key: 'tag',
        label: 'Tag',
        ...text,
        hint: 'Name of the property controlled by this record (e.g.: issue, issuewild, iodef).',
      },
      {
        key: 'value',
        label: 'Value',
        ...text,
        quoted: true,
        hint: "Value of the record. This field's semantics depend on the chosen tag.",
      },
    ],
  },
  CERT: {
    format: 'type key_tag algorithm certificate',
    example: '1 0 0 MIIB...',
    fields: [
      { key: 'type', label: 'Type', ...u16, hint: 'Type.' },
      { key: 'key_tag', label: 'Key Tag', ...u16, hint: 'Key Tag.' },
      { key: 'algorithm', label: 'Algorithm', ...u8, hint: 'Algorithm.' },
      { key: 'certificate', label: 'Certificate', ...text, hint: 'Certificate.' },
    ],
  },
  DNSKEY: {
    format: 'flags protocol algorithm public_key',
    example: '257 3 13 mdsswUyr3DPW...',
    fields: [
      { key: 'flags', label: 'Flags', ...u16, hint: 'Flags.' },
      { key: 'protocol', label: 'Protocol', ...u8, hint: 'Protocol.' },
      { key: 'algorithm', label: 'Algorithm', ...u8, hint: 'Algorithm.' },
      { key: 'public_key', label: 'Public Key', ...text, hint: 'Public Key.' },
    ],
  },
  DS: {
    format: 'key_tag algorithm digest_type digest',
    example: '2371 13 2 1F987CC6583E...',
    fields: [
      { key: 'key_tag', label: 'Key Tag', ...u16, hint: 'Key Tag.' },
      { key: 'algorithm', label: 'Algorithm', ...u8, hint: 'Algorithm.' },
      { key: 'digest_type', label: 'Digest Type', ...u8, hint: 'Digest Type.' },
      { key: 'digest', label: 'Digest', ...text, hint: 'Digest.' },
    ],
  },
  HTTPS: {
    format: 'priority target [value]',
    example: '1 . alpn="h3,h2"',
    fields: [
      { key: 'priority', label: 'Priority', ...u16, hint: 'priority.' },
      { key: 'target', label: 'Target', ...text, hint: 'target.' },
      { key: 'value', label: 'Value', ...text, optional: true, hint: 'value.' },
    ],
  },
  LOC: {
    format: 'd m s N|S d m s E|W altitude m size m precision_horz m precision_vert m',
    example: '37 46 46 N 122 23 35 W 0m 100m 0m 0m',
    fields: [
      { key: 'lat_degrees', label: 'Latitude degrees', kind: 'integer', min: 0, max: 90, hint: 'Degrees of latitude.' },
      { key: 'lat_minutes', label: 'Latitude minutes', kind: 'integer', min: 0, max: 59, hint: 'Minutes of latitude.' },
      {
        key: 'lat_seconds',
        label: 'Latitude seconds',
        kind: 'number',
        min: 0,
        max: 59.999,
        hint: 'Seconds of latitude.',
      },
      {
        key: 'lat_direction',
        label: 'Latitude direction',
        kind: 'choice',
        options: ['N', 'S'],
        hint: 'Latitude direction.',
      },
      {
        key: 'long_degrees',
        label: 'Longitude degrees',
        kind: 'integer',
        min: 0,
        max: 180,
        hint: 'Degrees of longitude.',
      },
      {
        key: 'long_minutes',
        label: 'Longitude minutes',
        kind: 'integer',
        min: 0,
        max: 59,
        hint: 'Minutes of longitude.',
      },
      {
        key: 'long_seconds',
        label: 'Longitude seconds',
        kind: 'number',
        min: 0,
        max: 59.999,
        hint: 'Seconds of longitude.',
      },
      {
        key: 'long_direction',
        label: 'Longitude direction',
        kind: 'choice',
        options: ['E', 'W'],
        hint: 'Longitude direction.',
      },
      {
        key: 'altitude',
        label: 'Altitude (m)',
        kind: 'number',
        min: -100_000,
        max: 42_849_672.95,
        hint: 'Altitude of location in meters.',
      },
      { key: 'size', label: 'Size (m)', kind: 'number', min: 0, max: 90_000_000, hint: 'Size of location in meters.' },
      {
        key: 'precision_horz',
        label: 'Horizontal precision (m)',
        kind: 'number',
        min: 0,
        max: 90_000_000,
        hint: 'Horizontal precision of location.',
      },
      {
        key: 'precision_vert',
        label: 'Vertical precision (m)',
        kind: 'number',
        min: 0,
        max: 90_000_000,
        hint: 'Vertical precision of location.',
      },
    ],
  },
  NAPTR: {
    format: 'order preference "flags" "service" "regex" replacement',
    example: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    fields: [
      { key: 'order', label: 'Order', ...u16, hint: 'Order.' },
      { key: 'preference', label: 'Preference', ...u16, hint: 'Preference.' },
      { key: 'flags', label: 'Flags', ...text, quoted: true, optional: true, hint: 'Flags.' },
      { key: 'service', label: 'Service', ...text, quoted: true, optional: true, hint: 'Service.' },
      { key: 'regex', label: 'Regex', ...text, quoted: true, optional: true, hint: 'Regex.' },
      { key: 'replacement', label: 'Replacement', ...text, hint: 'Replacement.' },
    ],
  },
  SMIMEA: {
    format: 'usage selector matching_type certificate',
    example: '3 0 1 8C1F...',
    fields: [
      { key: 'usage', label: 'Usage', ...u8, hint: 'Usage.' },
      { key: 'selector', label: 'Selector', ...u8, hint: 'Selector.' },
      { key: 'matching_type', label: 'Matching Type', ...u8, hint: 'Matching Type.' },
      { key: 'certificate', label: 'Certificate', ...text, hint: 'Certificate.' },
    ],
  },
  SRV: {
    format: 'weight port target with a priority, or priority weight port target',
    example: '5 8806 sip.example.com',
    priority: 'data',
    fields: [
      { key: 'weight', label: 'Weight', ...u16, hint: 'The record weight.' },
      { key: 'port', label: 'Port', ...u16, hint: 'The port of the service.' },
      { key: 'target', label: 'Target', ...text, hint: 'A valid hostname.' },
    ],
  },
  SSHFP: {
    format: 'algorithm type fingerprint',
    example: '4 2 123456789ABCDEF...',
    fields: [
      { key: 'algorithm', label: 'Algorithm', ...u8, hint: 'algorithm.' },
      { key: 'type', label: 'Type', ...u8, hint: 'type.' },
      { key: 'fingerprint', label: 'Fingerprint', ...text, hint: 'fingerprint.' },
    ],
  },
  SVCB: {
    format: 'priority target [value]',
    example: '1 . alpn="h3,h2"',
    fields: [
      { key: 'priority', label: 'Priority', ...u16, hint: 'priority.' },
      { key: 'target', label: 'Target', ...text, hint: 'target.' },
      { key: 'value', label: 'Value', ...text, optional: true, hint: 'value.' },
    ],
  },
  TLSA: {
    format: 'usage selector matching_type certificate',
    example: '3 1 1 0C72AC70B745...',
    fields: [
      { key: 'usage', label: 'Usage', ...u8, hint: 'Usage.' },
      { key: 'selector', label: 'Selector', ...u8, hint: 'Selector.' },
      { key: 'matching_type', label: 'Matching Type', ...u8, hint: 'Matching Type.' },
      { key: 'certificate', label: 'Certificate', ...text, hint: 'certificate.' },
    ],
  },
  URI: {
    format: 'weight "target" (priority apart)',
    example: '1 "https://example.com/"',
    priority: 'top',
    fields: [
      { key: 'weight', label: 'Weight', ...u16, hint: 'The record weight.' },
      { key: 'target', label: 'Target', ...text, quoted: true, hint: 'The record content.' },
    ],
  },
};

export const isDnsDataType = (type: string): boolean => Object.hasOwn(DNS_DATA_TYPES, type.trim().toUpperCase());

export const dnsDataMessage = (type: string): string => {
  const t = DNS_DATA_TYPES[type.toUpperCase()];
  return t ? `Content of a ${type.toUpperCase()} record must be ${t.format}, such as ${t.example}` : '';
};

/** Splits on white space; double-quoted parts (with \" and \\ escapes) are one token, without their quotes. */
export function dnsTokens(content: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  const s = content.trim();
  while (i < s.length) {
    if (/\s/.test(s[i]!)) {
      i++;
      continue;
    }
    if (s[i] === '"') {
      let v = '';
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length) i++;
        v += s[i];
        i++;
      }
      if (s[i] !== '"') return null;
      i++;
      out.push(v);
    } else {
      let v = '';
      while (i < s.length && !/\s/.test(s[i]!)) v += s[i++];
      out.push(v);
    }
  }
  return out;
}

const quote = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

function fieldValue(f: DnsDataField, raw: string | undefined): number | string | undefined {
  if (raw === undefined) return f.optional ? '' : undefined;
  if (f.kind === 'text') return raw === '' && !f.optional && !f.quoted ? undefined : raw;
  if (f.kind === 'choice') {
    const v = raw.toUpperCase();
    return f.options?.includes(v) ? v : undefined;
  }
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) return undefined;
  if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return undefined;
  return n;
}

/** LOC: minutes and seconds may be left out (RFC 1876 §3), and metres carry an "m". */
function locTokens(tokens: string[]): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (const dir of [/^[NS]$/i, /^[EW]$/i]) {
    const part: string[] = [];
    while (i < tokens.length && !dir.test(tokens[i]!) && part.length < 3) part.push(tokens[i++]!);
    if (i >= tokens.length || !dir.test(tokens[i]!) || part.length === 0) return null;
    while (part.length < 3) part.push('0');
    out.push(...part, tokens[i++]!.toUpperCase());
  }
  // RFC 1876 defaults: size 1m, horizontal precision 10000m, vertical precision 10m.
  const metres = tokens.slice(i).map((t) => t.replace(/m$/i, ''));
  if (metres.length < 1 || metres.length > 4) return null;
  const defaults = ['0', '1', '10000', '10'];
  for (let k = 0; k < 4; k++) out.push(metres[k] ?? defaults[k]!);
  return out;
}

export type DnsDataResult =
  { ok: true; data: Record<string, number | string>; priority?: number } | { ok: false; message: string };

/**
 * Cloudflare's `data` for a record given as content text (and, for SRV and URI, its priority). SRV content may
 * also carry the priority first, as a zone file writes it.
 */
export function dnsDataFromContent(type: string, content: string, priority?: number): DnsDataResult {
  const t = type.trim().toUpperCase();
  const def = DNS_DATA_TYPES[t];
  if (!def) return { ok: false, message: `${t} records take content, not data` };
  const fail = { ok: false as const, message: dnsDataMessage(t) };
  let tokens = dnsTokens(content);
  if (!tokens) return fail;
  if (t === 'SRV' && tokens.length === 4) {
    const p = Number(tokens[0]);
    if (!Number.isInteger(p) || p < 0 || p > 65_535) return fail;
    priority = p;
    tokens = tokens.slice(1);
  }
  if (t === 'LOC') {
    tokens = locTokens(tokens);
    if (!tokens) return fail;
  }
  const last = def.fields[def.fields.length - 1]!;
  if (tokens.length > def.fields.length) {
    // The last field takes the rest: a key in several parts, HTTPS parameters.
    if (last.kind !== 'text' || last.quoted) return fail;
    tokens = [
      ...tokens.slice(0, def.fields.length - 1),
      tokens.slice(def.fields.length - 1).join(last.key === 'value' ? ' ' : ''),
    ];
  }
  const data: Record<string, number | string> = {};
  for (let k = 0; k < def.fields.length; k++) {
    const f = def.fields[k]!;
    const v = fieldValue(f, tokens[k]);
    if (v === undefined) return fail;
    data[f.key] = v;
  }
  if (def.priority === 'data') {
    if (priority === undefined) return fail;
    data.priority = priority;
  }
  return def.priority === 'top' && priority !== undefined ? { ok: true, data, priority } : { ok: true, data };
}

/**
 * The editor's view of a content text: one string per field of the type, '' where nothing was typed yet. Lenient
 * on purpose (a half-typed record still shows what it has); dnsDataFromContent decides whether it can be sent.
 */
export function dnsDataFieldTexts(type: string, content: string): string[] {
  const t = type.trim().toUpperCase();
  const def = DNS_DATA_TYPES[t];
  if (!def) return [];
  let tokens = dnsTokens(content) ?? content.trim().split(/\s+/).filter(Boolean);
  if (t === 'LOC') tokens = (locTokens(tokens) ?? tokens).map((x, i) => (i >= 8 ? x.replace(/m$/i, '') : x));
  const n = def.fields.length;
  if (tokens.length > n) tokens = [...tokens.slice(0, n - 1), tokens.slice(n - 1).join(' ')];
  return def.fields.map((_, i) => tokens[i] ?? '');
}

/** The content text from one string per field (quoted fields quoted, LOC's metres marked); the inverse of the above. */
export function dnsContentFromFieldTexts(type: string, texts: readonly string[]): string {
  const t = type.trim().toUpperCase();
  const def = DNS_DATA_TYPES[t];
  if (!def) return '';
  const parts: string[] = [];
  def.fields.forEach((f, i) => {
    const s = (texts[i] ?? '').trim();
    if (f.quoted) parts.push(quote(s));
    else if (s !== '') parts.push(t === 'LOC' && i >= 8 ? `${s}m` : s);
  });
  return parts.join(' ');
}

/** The content text for Cloudflare's `data` (what the console shows and a zone file holds). */
export function dnsContentFromData(type: string, data: Record<string, unknown>): string {
  const def = DNS_DATA_TYPES[type.trim().toUpperCase()];
  if (!def) return '';
  return dnsContentFromFieldTexts(
    type,
    def.fields.map((f) => (data[f.key] === undefined || data[f.key] === null ? '' : String(data[f.key]))),
  );
}

import { isIPv4, isIPv6 } from 'node:net';
import { CfError, cfErrors } from './envelope.ts';
import { ID_RE, newId, nowIso, type SimDnsRecord, type SimZone } from './sim-state.ts';

export const DNS_TYPES = [
  'A',
  'AAAA',
  'CAA',
  'CERT',
  'CNAME',
  'DNSKEY',
  'DS',
  'HTTPS',
  'LOC',
  'MX',
  'NAPTR',
  'NS',
  'OPENPGPKEY',
  'PTR',
  'SMIMEA',
  'SRV',
  'SSHFP',
  'SVCB',
  'TLSA',
  'TXT',
  'URI',
] as const;

const PROXIABLE = new Set(['A', 'AAAA', 'CNAME']);
const NEEDS_PRIORITY = new Set(['MX', 'URI', 'SRV']);
/**
 * Types whose value Cloudflare takes as a structured `data` object (their `content` is read-only; the request
 * check refuses it) and the order of the fields in the content Cloudflare computes; quoted fields marked ".
 */
const DATA_FIELDS: Record<string, string[]> = {
  CAA: ['flags', 'tag', '"value'],
  CERT: ['type', 'key_tag', 'algorithm', 'certificate'],
  DNSKEY: ['flags', 'protocol', 'algorithm', 'public_key'],
  DS: ['key_tag', 'algorithm', 'digest_type', 'digest'],
  HTTPS: ['priority', 'target', 'value'],
  LOC: [
    'lat_degrees',
    'lat_minutes',
    'lat_seconds',
    'lat_direction',
    'long_degrees',
    'long_minutes',
    'long_seconds',
    'long_direction',
    'altitude:m',
    'size:m',
    'precision_horz:m',
    'precision_vert:m',
  ],
  NAPTR: ['order', 'preference', '"flags', '"service', '"regex', 'replacement'],
  SMIMEA: ['usage', 'selector', 'matching_type', 'certificate'],
  SRV: ['weight', 'port', 'target'],
  SSHFP: ['algorithm', 'type', 'fingerprint'],
  SVCB: ['priority', 'target', 'value'],
  TLSA: ['usage', 'selector', 'matching_type', 'certificate'],
  URI: ['weight', '"target'],
};

/** The content Cloudflare shows for a record given as data; a field missing from data refuses the record. */
function contentOf(type: string, data: Record<string, unknown>, pointer: string): string {
  const parts: string[] = [];
  for (const spec of DATA_FIELDS[type] ?? []) {
    const quoted = spec.startsWith('"');
    const [key = '', unit = ''] = spec.replace(/^"/, '').split(':');
    const v = data[key];
    if (v === undefined || v === null || (typeof v === 'string' && v === '' && !quoted && key !== 'value')) {
      throw cfErrors.dnsValidation(9101, `data.${key} is required for ${type} records.`, `${pointer}/${key}`);
    }
    const text = String(v);
    if (quoted) parts.push(`"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
    else if (text !== '') parts.push(`${text}${unit}`);
  }
  return parts.join(' ');
}
const HOSTNAME_RE =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?$/i;
const RECORD_NAME_RE = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

export function recordJson(r: SimDnsRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: r.id,
    type: r.type,
    name: r.name,
    content: r.content,
    proxiable: PROXIABLE.has(r.type),
    proxied: r.proxied,
    ttl: r.ttl,
    settings: { ...r.settings },
    meta: {},
    tags: [...r.tags],
    created_on: r.createdOn,
    modified_on: r.modifiedOn,
  };
  if (r.priority !== undefined) out.priority = r.priority;
  // The 2024 schema types `comment` as a plain string, so an absent comment is left out rather than null.
  if (r.comment !== undefined) out.comment = r.comment;
  if (r.data !== undefined) out.data = r.data;
  return out;
}

/** Cloudflare accepts `@`, a relative name or the full name; it always stores the full name in lower case. */
function fullName(zone: SimZone, name: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, '');
  if (n === '@' || n === zone.name) return zone.name;
  if (n.endsWith(`.${zone.name}`)) return n;
  return `${n}.${zone.name}`;
}

export type RecordInput = Record<string, unknown>;

/**
 * Builds the record a create/put/patch would store, validating like Cloudflare does.
 * `base` is the current record for a patch (fields not sent are kept) and the identity (id, created_on) for a put.
 */
export function buildRecord(
  zone: SimZone,
  input: RecordInput,
  mode: 'create' | 'put' | 'patch',
  base: SimDnsRecord | undefined,
  pointer: string,
): SimDnsRecord {
  const at = (field: string) => `${pointer}/${field}`;
  const pick = <T>(field: string, fallback: T): unknown => (field in input ? input[field] : fallback);
  const keep = mode === 'patch' ? base : undefined;

  const type = pick('type', keep?.type);
  if (typeof type !== 'string' || !(DNS_TYPES as readonly string[]).includes(type.toUpperCase())) {
    throw cfErrors.dnsValidation(9020, 'Invalid DNS record type', at('type'));
  }
  const upperType = type.toUpperCase();

  const rawName = pick('name', keep?.name);
  if (typeof rawName !== 'string' || rawName.trim() === '') {
    throw cfErrors.dnsValidation(9000, 'DNS name is invalid.', at('name'));
  }
  const name = fullName(zone, rawName);
  if (name.length > 255 || !RECORD_NAME_RE.test(name)) {
    throw cfErrors.dnsValidation(9000, 'DNS name is invalid.', at('name'));
  }

  const rawTtl = pick('ttl', keep?.ttl ?? 1);
  if (typeof rawTtl === 'string') {
    throw new CfError(400, [
      { code: 9022, message: 'TTL must be a number, not a string.', source: { pointer: at('ttl') } },
    ]);
  }
  if (typeof rawTtl !== 'number' || !Number.isInteger(rawTtl) || (rawTtl !== 1 && (rawTtl < 60 || rawTtl > 86400))) {
    throw cfErrors.dnsValidation(9021, 'TTL must be between 60 and 86400 seconds, or 1 for Automatic.', at('ttl'));
  }

  const proxied = pick('proxied', keep?.proxied ?? false);
  if (typeof proxied !== 'boolean') {
    throw cfErrors.dnsValidation(9003, 'proxied must be a boolean.', at('proxied'));
  }
  if (proxied && !PROXIABLE.has(upperType)) {
    throw cfErrors.dnsValidation(9004, 'This record type cannot be proxied.', at('proxied'));
  }

  const isData = upperType in DATA_FIELDS;
  // A patch that changes the type starts over: the old record's data or content belongs to the old type.
  const sameType = keep?.type === upperType;
  const data = pick('data', isData && sameType ? keep?.data : undefined);
  let content = pick('content', !isData && sameType ? keep?.content : undefined);
  if (isData) {
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw cfErrors.dnsValidation(9101, `data is required for ${upperType} records.`, at('data'));
    content = contentOf(upperType, data as Record<string, unknown>, at('data'));
  }
  if (typeof content !== 'string' || content.trim() === '') {
    throw contentError(upperType, at('content'));
  }
  if (upperType === 'A' && !isIPv4(content)) throw contentError('A', at('content'));
  if (upperType === 'AAAA' && !isIPv6(content)) throw contentError('AAAA', at('content'));
  if (['CNAME', 'MX', 'NS', 'PTR'].includes(upperType)) {
    if (!HOSTNAME_RE.test(content) || content.toLowerCase().replace(/\.$/, '') === name) {
      throw contentError(upperType, at('content'));
    }
  }
  // Cloudflare refuses control characters in content (a line break would break its zone-file export).
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(content)) throw contentError(upperType, at('content'));
  if (upperType === 'TXT' && content.length > 2048) {
    throw cfErrors.dnsValidation(9104, 'Content for TXT record is too long.', at('content'));
  }

  // SRV keeps its priority inside data (its schema has no top-level priority).
  const priority =
    upperType === 'SRV'
      ? (data as Record<string, unknown>).priority
      : pick('priority', isData && upperType !== 'URI' ? undefined : keep?.priority);
  if (NEEDS_PRIORITY.has(upperType) || priority !== undefined) {
    if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > 65535) {
      throw cfErrors.dnsValidation(9100, `Priority must be set for ${upperType} records (0-65535).`, at('priority'));
    }
  }

  const comment = pick('comment', keep?.comment);
  if (comment !== undefined && comment !== null && (typeof comment !== 'string' || comment.length > 100)) {
    throw cfErrors.dnsValidation(9102, 'Comment must be a string of at most 100 characters.', at('comment'));
  }
  const tags = pick('tags', keep?.tags ?? []);
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
    throw cfErrors.dnsValidation(9103, 'Tags must be a list of strings.', at('tags'));
  }
  const settings = pick('settings', keep?.settings ?? {});
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw cfErrors.dnsValidation(9105, 'settings must be an object.', at('settings'));
  }

  const now = nowIso();
  const record: SimDnsRecord = {
    id: base?.id ?? newId(),
    type: upperType,
    name,
    content: upperType === 'AAAA' ? content.toLowerCase() : content,
    proxied,
    ttl: rawTtl,
    tags: tags as string[],
    settings: settings as Record<string, unknown>,
    createdOn: base?.createdOn ?? now,
    modifiedOn: now,
  };
  if (typeof priority === 'number' && upperType !== 'SRV') record.priority = priority;
  if (typeof comment === 'string') record.comment = comment;
  if (isData) record.data = data as Record<string, unknown>;
  return record;
}

function contentError(type: string, pointer: string): CfError {
  if (type === 'A') return cfErrors.dnsValidation(9005, 'Content for A record must be a valid IPv4 address.', pointer);
  if (type === 'AAAA') {
    return cfErrors.dnsValidation(9006, 'Content for AAAA record must be a valid IPv6 address.', pointer);
  }
  if (type === 'CNAME') return cfErrors.dnsValidation(9007, 'Content for CNAME record is invalid.', pointer);
  return cfErrors.dnsValidation(9009, `Content for ${type} record is invalid.`, pointer);
}

/** Duplicate and name-clash rules, checked against every other record of the zone. */
function checkConflicts(records: Map<string, SimDnsRecord>, r: SimDnsRecord, pointer: string): void {
  for (const other of records.values()) {
    if (other.id === r.id || other.name !== r.name) continue;
    if (other.type === r.type && other.content.toLowerCase() === r.content.toLowerCase()) {
      throw cfErrors.recordExists(pointer);
    }
    const hostTypes = ['A', 'AAAA', 'CNAME'];
    if (
      hostTypes.includes(r.type) &&
      hostTypes.includes(other.type) &&
      (r.type === 'CNAME' || other.type === 'CNAME')
    ) {
      throw cfErrors.hostClash(pointer);
    }
    if ((r.type === 'NS') !== (other.type === 'NS')) throw cfErrors.nsClash(pointer);
  }
}

function existing(records: Map<string, SimDnsRecord>, id: unknown, pointer: string): SimDnsRecord {
  if (typeof id !== 'string' || !ID_RE.test(id)) throw cfErrors.recordNotFound(pointer);
  const r = records.get(id);
  if (!r) throw cfErrors.recordNotFound(pointer);
  return r;
}

export function createRecord(zone: SimZone, input: RecordInput, pointer = ''): SimDnsRecord {
  const r = buildRecord(zone, input, 'create', undefined, pointer);
  checkConflicts(zone.dnsRecords, r, pointer);
  zone.dnsRecords.set(r.id, r);
  return r;
}

export function updateRecord(
  zone: SimZone,
  id: unknown,
  input: RecordInput,
  mode: 'put' | 'patch',
  pointer = '',
): SimDnsRecord {
  const current = existing(zone.dnsRecords, id, pointer);
  const r = buildRecord(zone, input, mode, current, pointer);
  checkConflicts(zone.dnsRecords, r, pointer);
  zone.dnsRecords.set(r.id, r);
  return r;
}

export function deleteRecord(zone: SimZone, id: unknown, pointer = ''): SimDnsRecord {
  const r = existing(zone.dnsRecords, id, pointer);
  zone.dnsRecords.delete(r.id);
  return r;
}

export interface BatchResult {
  deletes: SimDnsRecord[];
  patches: SimDnsRecord[];
  puts: SimDnsRecord[];
  posts: SimDnsRecord[];
}

/**
 * Cloudflare runs a batch in one transaction, in the order deletes → patches → puts → posts.
 * The simulator works on a copy of the zone's records and swaps it in only when every step passed.
 */
export function applyBatch(zone: SimZone, body: Record<string, unknown>, limit: number): BatchResult {
  const lists = {} as Record<keyof BatchResult, RecordInput[]>;
  let total = 0;
  for (const key of ['deletes', 'patches', 'puts', 'posts'] as const) {
    const v = body[key];
    if (v === undefined || v === null) {
      lists[key] = [];
      continue;
    }
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'object' || x === null || Array.isArray(x))) {
      throw cfErrors.dnsValidation(9106, `${key} must be a list of objects.`, `/${key}`);
    }
    lists[key] = v as RecordInput[];
    total += v.length;
  }
  if (total > limit) {
    throw cfErrors.dnsValidation(9107, `A batch may change at most ${limit} records; this one has ${total}.`, '');
  }

  const draft: SimZone = { ...zone, dnsRecords: new Map(zone.dnsRecords) };
  const result: BatchResult = { deletes: [], patches: [], puts: [], posts: [] };
  lists.deletes.forEach((d, i) => result.deletes.push(deleteRecord(draft, d.id, `/deletes/${i}`)));
  lists.patches.forEach((p, i) => {
    const { id, ...fields } = p;
    result.patches.push(updateRecord(draft, id, fields, 'patch', `/patches/${i}`));
  });
  lists.puts.forEach((p, i) => {
    const { id, ...fields } = p;
    result.puts.push(updateRecord(draft, id, fields, 'put', `/puts/${i}`));
  });
  lists.posts.forEach((p, i) => result.posts.push(createRecord(draft, p, `/posts/${i}`)));
  zone.dnsRecords = draft.dnsRecords;
  return result;
}

/** List filters the console uses: type, name (exact or name.exact/contains/startswith/endswith), content, proxied. */
export function filterRecords(zone: SimZone, q: URLSearchParams): SimDnsRecord[] {
  const tests: ((r: SimDnsRecord) => boolean)[] = [];
  const type = q.get('type');
  if (type) tests.push((r) => r.type === type.toUpperCase());
  const nameOps: [string, (a: string, b: string) => boolean][] = [
    ['name', (a, b) => a === b],
    ['name.exact', (a, b) => a === b],
    ['name.contains', (a, b) => a.includes(b)],
    ['name.startswith', (a, b) => a.startsWith(b)],
    ['name.endswith', (a, b) => a.endsWith(b)],
  ];
  for (const [key, op] of nameOps) {
    const v = q.get(key);
    if (v === null) continue;
    const wanted = key === 'name' || key === 'name.exact' ? fullName(zone, v) : v.toLowerCase();
    tests.push((r) => op(r.name, wanted));
  }
  const content = q.get('content') ?? q.get('content.exact');
  if (content !== null) tests.push((r) => r.content.toLowerCase() === content.toLowerCase());
  const proxied = q.get('proxied');
  if (proxied !== null) tests.push((r) => String(r.proxied) === proxied);
  const match = q.get('match') === 'any' ? 'any' : 'all';
  let list = [...zone.dnsRecords.values()];
  if (tests.length > 0) {
    list = list.filter((r) => (match === 'all' ? tests.every((t) => t(r)) : tests.some((t) => t(r))));
  }
  const order = q.get('order');
  if (order && ['type', 'name', 'content', 'ttl', 'proxied'].includes(order)) {
    const dir = q.get('direction') === 'desc' ? -1 : 1;
    list.sort((a, b) => {
      const x = a[order as keyof SimDnsRecord];
      const y = b[order as keyof SimDnsRecord];
      if (typeof x === 'number' && typeof y === 'number') return (x - y) * dir;
      return (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0) * dir;
    });
  }
  return list;
}

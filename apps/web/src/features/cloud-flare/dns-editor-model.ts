import {
  DNS_RECORD_DEFAULTS,
  DnsRecordPostSchema,
  dnsRecordProblems,
  isProxiableType,
  toProxied,
  type DnsChangesInput,
  type DnsRecord,
  type DnsRecordPost,
} from '@fleetdesk/contract';

/** One row of the DNS editor, as the inputs hold it (strings); `id` marks a record that exists at Cloudflare. */
export interface DnsRow {
  key: string;
  id?: string;
  type: string;
  name: string;
  content: string;
  /** The select's value: "1" means proxied (spec 2 §5). */
  proxied: '1' | '0';
  /** An integer as typed; 1 means Auto. */
  ttl: string;
  /** Only for the types that need one (MX, URI, SRV); '' when none. */
  priority: string;
}

export type DnsField = 'type' | 'name' | 'content' | 'proxied' | 'ttl' | 'priority';
export type RowErrors = Partial<Record<DnsField, string>>;

/** Types whose records carry a priority that Cloudflare requires (SRV's goes into its data). */
export const PRIORITY_TYPES: readonly string[] = ['MX', 'URI', 'SRV'];
export const PRIORITY_MESSAGE = 'Priority is required for this type (0–65535)';

export const isProxiable = isProxiableType;
export const needsPriority = (type: string) => PRIORITY_TYPES.includes(type.trim().toUpperCase());

export function rowOf(r: DnsRecord): DnsRow {
  return {
    key: r.id,
    id: r.id,
    type: r.type,
    name: r.name,
    content: r.content,
    proxied: r.proxied ? '1' : '0',
    ttl: String(r.ttl),
    priority: r.priority === undefined ? '' : String(r.priority),
  };
}

/** §9: type A, proxied, ttl 1 (Auto). */
export function newRow(key: string): DnsRow {
  return {
    key,
    type: DNS_RECORD_DEFAULTS.type,
    name: '',
    content: '',
    proxied: DNS_RECORD_DEFAULTS.proxied ? '1' : '0',
    ttl: String(DNS_RECORD_DEFAULTS.ttl),
    priority: '',
  };
}

/** A change of type may make the record unproxiable: it is then set to DNS only, as Cloudflare would insist. */
export function withField(row: DnsRow, field: DnsField, value: string): DnsRow {
  const next = { ...row, [field]: value } as DnsRow;
  if (field === 'type' && !isProxiable(value)) next.proxied = '0';
  return next;
}

const priorityOf = (row: DnsRow): number | undefined => {
  const t = row.priority.trim();
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return n <= 65_535 ? n : undefined;
};

/** The row as the API takes it: proxied only for "1", ttl parsed as an integer (§5). */
export function payloadOf(row: DnsRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: row.type,
    name: row.name,
    content: row.content,
    proxied: toProxied(row.proxied),
    ttl: row.ttl.trim() === '' ? '' : Number.parseInt(row.ttl.trim(), 10),
  };
  const priority = priorityOf(row);
  if (needsPriority(row.type) && priority !== undefined) out.priority = priority;
  return out;
}

/** The same rules the server applies (the contract's schema), plus a priority where the type needs one. */
export function validateRow(row: DnsRow): RowErrors {
  const errors: RowErrors = {};
  const parsed = DnsRecordPostSchema.safeParse(payloadOf(row));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as DnsField | undefined;
      if (field && !errors[field]) errors[field] = issue.message;
    }
  } else {
    // Cloudflare's own rules, shared with the API and fleet plans (content that fits the type, proxying).
    for (const p of dnsRecordProblems(parsed.data)) if (p.field !== 'priority') errors[p.field] ??= p.message;
  }
  if (needsPriority(row.type) && priorityOf(row) === undefined) errors.priority = PRIORITY_MESSAGE;
  return errors;
}

export interface FieldChange {
  field: DnsField;
  before: string;
  after: string;
}

export interface DnsChangeSummary {
  added: DnsRow[];
  changed: { row: DnsRow; changes: FieldChange[] }[];
  deleted: DnsRecord[];
}

const same = (field: DnsField, a: string, b: string) =>
  field === 'type' ? a.trim().toUpperCase() === b.trim().toUpperCase() : a.trim() === b.trim();

/**
 * §4: existing rows that were changed become patches (every field, so the record is what the row shows),
 * existing rows that were removed become deletes, and new rows become posts.
 */
export function diffRows(
  originals: DnsRecord[],
  rows: DnsRow[],
): { changes: Required<DnsChangesInput>; summary: DnsChangeSummary } {
  const byId = new Map(originals.map((r) => [r.id, r]));
  const kept = new Set(rows.filter((r) => r.id).map((r) => r.id));
  const summary: DnsChangeSummary = { added: [], changed: [], deleted: [] };
  const changes: Required<DnsChangesInput> = { deletes: [], patches: [], posts: [] };

  for (const row of rows) {
    const original = row.id ? byId.get(row.id) : undefined;
    if (!original) {
      summary.added.push(row);
      changes.posts.push(payloadOf(row) as DnsRecordPost);
      continue;
    }
    const before = rowOf(original);
    const fields: DnsField[] = ['type', 'name', 'content', 'proxied', 'ttl'];
    if (needsPriority(row.type)) fields.push('priority');
    const diff = fields
      .filter((f) => !same(f, before[f], row[f]))
      .map((f) => ({ field: f, before: before[f], after: row[f] }));
    if (!diff.length) continue;
    summary.changed.push({ row, changes: diff });
    changes.patches.push({ id: original.id, ...(payloadOf(row) as DnsRecordPost) });
  }
  for (const original of originals) {
    if (kept.has(original.id)) continue;
    summary.deleted.push(original);
    changes.deletes.push({ id: original.id });
  }
  return { changes, summary };
}

export const countOf = (s: DnsChangeSummary) => s.added.length + s.changed.length + s.deleted.length;

/** "2 added, 1 changed, 0 deleted" */
export const summaryLine = (s: DnsChangeSummary) =>
  `${s.added.length} added, ${s.changed.length} changed, ${s.deleted.length} deleted`;

export const FIELD_LABELS: Record<DnsField, string> = {
  type: 'type',
  name: 'name',
  content: 'content',
  proxied: 'proxied',
  ttl: 'TTL',
  priority: 'priority',
};

/** How a field's value reads in the summary. */
export function showValue(field: DnsField, value: string): string {
  if (field === 'proxied') return value === '1' ? 'Proxied' : 'DNS only';
  if (field === 'ttl') return value.trim() === '1' ? 'Auto' : value.trim();
  return value.trim() || '(empty)';
}

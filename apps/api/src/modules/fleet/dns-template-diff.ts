import {
  DNS_HOST_TYPES,
  PROXIABLE_DNS_TYPES,
  dnsConflict,
  dnsContentFromData,
  dnsDataFromContent,
  dnsRecordProblems,
  isDnsDataType,
  type DnsRecord,
  type DnsRecordDraft,
} from '@fleetdesk/contract';

/**
 * What applying a rendered DNS template to a zone takes (issue 27): each template record is kept when the zone
 * holds it already (same type, name, content, proxy and TTL), updated when the zone holds a record of the same
 * type and name that the template replaces, else added. Only A, AAAA and CNAME are replaced (a name points at
 * one place); TXT, MX and the others sit beside records of the same name (verification TXT, several MX), so
 * those are added unless an equal one exists. Pure, so the plan and the run decide alike.
 */
export type TemplatePatch = {
  id: string;
  type: string;
  name: string;
  content: string;
  proxied: boolean;
  ttl: number;
  priority?: number;
};
export type TemplatePost = Omit<TemplatePatch, 'id'>;
export type TemplateDiff = {
  posts: TemplatePost[];
  patches: TemplatePatch[];
  /** Records already as the template wants them. */
  kept: DnsRecordDraft[];
  /** Why the template cannot be applied to this zone (nothing is changed then). */
  refusal: string | null;
  /** The zone's records the template touches, as a stable text: what a run compares with its plan. */
  seen: string[];
  /** What the run does, in the template's order: "add A example.com → 203.0.113.10". */
  steps: string[];
};

const REPLACED_TYPES: readonly string[] = ['A', 'AAAA', 'CNAME'];

/** Content as compared: host names without case or a final dot, TXT without the quotes some answers add. */
export function contentKey(type: string, content: string): string {
  const c = content.trim();
  // Records Cloudflare keeps as data: their content as Cloudflare computes it (quotes, spacing).
  if (isDnsDataType(type)) {
    const parsed = dnsDataFromContent(type, c, type.toUpperCase() === 'SRV' ? 0 : undefined);
    if (parsed.ok) return dnsContentFromData(type, parsed.data);
  }
  if (DNS_HOST_TYPES.includes(type) || type === 'AAAA') return c.toLowerCase().replace(/\.$/, '');
  if (type === 'TXT' && c.length >= 2 && c.startsWith('"') && c.endsWith('"')) return c.slice(1, -1);
  return c;
}

const want = (d: DnsRecordDraft): TemplatePost => {
  const type = d.type.toUpperCase();
  const proxied = !!d.proxied && PROXIABLE_DNS_TYPES.includes(type);
  return {
    type,
    name: d.name.toLowerCase(),
    content: d.content,
    proxied,
    // Cloudflare keeps proxied records at Auto.
    ttl: proxied ? 1 : (d.ttl ?? 1),
    ...(d.priority === undefined ? {} : { priority: d.priority }),
  };
};

const settled = (w: TemplatePost, r: DnsRecord) =>
  (r.proxied ?? false) === w.proxied &&
  (w.proxied || r.ttl === w.ttl) &&
  (w.priority === undefined || r.priority === w.priority);

const recordText = (r: { type: string; name: string; content: string }) => `${r.type} ${r.name} → ${r.content}`;

export function dnsTemplateDiff(
  drafts: readonly DnsRecordDraft[],
  zone: string,
  records: readonly DnsRecord[],
): TemplateDiff {
  const out: TemplateDiff = { posts: [], patches: [], kept: [], refusal: null, seen: [], steps: [] };
  const touched = new Set<string>();
  // The zone as it will be, so that two template records cannot clash with each other either.
  const after: { id?: string; type: string; name: string; content: string }[] = records.map((r) => ({
    id: r.id,
    type: r.type.toUpperCase(),
    name: r.name.toLowerCase(),
    content: r.content,
  }));
  const problems: string[] = [];
  for (const d of drafts) {
    const w = want(d);
    const bad = dnsRecordProblems(w, zone);
    if (bad.length) {
      problems.push(`${recordText(w)}: ${bad.map((p) => p.message).join('; ')}`);
      continue;
    }
    const key = contentKey(w.type, w.content);
    const sameName = records.filter((r) => r.type.toUpperCase() === w.type && r.name.toLowerCase() === w.name);
    for (const r of sameName) touched.add(r.id);
    const equal = sameName.find((r) => contentKey(w.type, r.content) === key);
    if (equal) {
      if (settled(w, equal)) out.kept.push(w);
      else {
        out.patches.push({ ...w, id: equal.id });
        out.steps.push(`update ${recordText(w)} (${w.proxied ? 'proxied' : `TTL ${w.ttl}`})`);
      }
      continue;
    }
    const replaced = REPLACED_TYPES.includes(w.type) ? sameName[0] : undefined;
    if (replaced) {
      out.patches.push({ ...w, id: replaced.id });
      out.steps.push(`update ${recordText(w)}`);
      const i = after.findIndex((a) => a.id === replaced.id);
      if (i >= 0) after[i] = { id: replaced.id, type: w.type, name: w.name, content: w.content };
      continue;
    }
    const clash = dnsConflict(w, after);
    if (clash) {
      problems.push(`${recordText(w)}: ${clash}`);
      continue;
    }
    out.posts.push(w);
    out.steps.push(`add ${recordText(w)}`);
    after.push({ type: w.type, name: w.name, content: w.content });
  }
  if (problems.length) out.refusal = problems.join('; ');
  out.seen = records
    .filter((r) => touched.has(r.id) || drafts.some((d) => d.name.toLowerCase() === r.name.toLowerCase()))
    .map((r) => `${r.id}=${r.type} ${r.name.toLowerCase()} ${r.content} ${r.proxied ? 'proxied' : 'dns'} ${r.ttl}`)
    .sort();
  return out;
}

/** The diff in words for the plan's columns: what the zone holds of it now, and what the run will do. */
export function dnsTemplateDiffText(
  diff: TemplateDiff,
  records: readonly DnsRecord[],
): { before: string; after: string } {
  const now = records.filter((r) => diff.seen.some((s) => s.startsWith(`${r.id}=`)));
  const before = now.length ? now.map(recordText).join('; ') : 'none';
  const parts = [...diff.steps];
  if (diff.kept.length) parts.push(`${diff.kept.length} already in place`);
  return { before: clip(before), after: clip(parts.join('; ') || 'nothing to change') };
}

const clip = (s: string, max = 2000) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

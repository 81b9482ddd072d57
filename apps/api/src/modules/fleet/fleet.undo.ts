import type { DnsChangesResult, DnsRecord, DomainFieldRevertible, RedirectRule } from '@fleetdesk/contract';
import type { WafUndo } from '../cloud-flare/cloud-flare.waf.ts';

/**
 * What a fleet step changed, as it can be put back (issue 44, decision 076): the value before and the value the step
 * wrote, per setting, console field, set of DNS records (the (type, name) pairs it touched), redirect list or firewall
 * template set. Recorded on the step's row when it changes its domain; a revert plan's row carries them
 * (fleet.revert.ts).
 */
export type FirewallPick = { ruleId: string; priority: number; rule: string };
export type UndoStep =
  | { area: 'ssl' | 'tls13'; before: string; after: string }
  | {
      area: 'server' | 'brand' | 'status' | 'registrar';
      before: string | null;
      after: string | null;
      beforeText: string;
      afterText: string;
    }
  /** Another field of the domain form (parser, redirect, restriction, expiration), from an audited `update`. */
  | { area: 'field'; key: FieldKey; before: FieldValue; after: FieldValue }
  | { area: 'dns'; pairs: string[]; before: DnsRecord[]; after: DnsRecord[] }
  | { area: 'redirects'; before: RedirectRule[]; after: RedirectRule[] }
  | { area: 'firewall'; before: FirewallPick[]; after: FirewallPick[] }
  /** The console's block of the zone's custom rules, around a push (the domain's saved templates are not touched). */
  | WafUndo
  /** A domain an import created, with the fields as the import left them: removed if they still are. */
  | { area: 'created'; expect: Record<string, string | boolean | null> }
  /** A content change's files, kept in a snapshot (decision 078): put back by Restore. */
  | { area: 'content'; snapshotId: string }
  /** A domain a revert removed (an import's), with its fields and zone: put back under its own id. */
  | { area: 'removed'; name: string; fields: Record<string, string | boolean | null> }
  /** The Cloudflare zone an import linked to a domain. */
  | { area: 'zone_link'; before: string | null; after: string | null };

type FieldValue = string | boolean | null;
/** The fields a 'field' step puts back: the domain form's own values, no reference to another record. */
export type FieldKey = Exclude<DomainFieldRevertible, 'status' | 'serverId' | 'brandId' | 'domainRegistratorId'>;
export const fieldText = (v: unknown) =>
  v === true ? 'on' : v === false ? 'off' : v === null || v === undefined || v === '' ? 'none' : String(v);

/** The domain's saved firewall templates as a step records them. */
export const firewallPick = (rs: { ruleId: string; priority: number; ruleName: string }[]): FirewallPick[] =>
  rs.map((r) => ({ ruleId: r.ruleId, priority: r.priority, rule: r.ruleName }));
/** A set of firewall templates as compared (order aside), and in words. */
export const firewallKey = (rs: { ruleId: string; priority: number }[]) =>
  rs.map((r) => `${r.ruleId}:${r.priority}`).sort();
export const firewallText = (rs: { rule: string; priority: number }[], none = 'no templates') =>
  rs.length ? rs.map((r) => `${r.rule} (${r.priority})`).join(', ') : none;

/** A DNS (type, name) pair as compared: "A www.example.com". */
export const pairKey = (type: string, name: string) => `${type.toUpperCase()} ${name.toLowerCase()}`;

type Batch = {
  deletes: { id: string }[];
  patches: { id: string; type: string; name: string }[];
  posts: { type: string; name: string }[];
};

/** The (type, name) pairs a DNS change touches: its posts', its patches' (old and new) and its deletes'. */
export function pairsOfChange(zone: DnsRecord[], batch: Batch): string[] {
  const byId = new Map(zone.map((r) => [r.id, r]));
  const out = new Set<string>();
  for (const p of batch.posts) out.add(pairKey(p.type, p.name));
  for (const p of batch.patches) {
    out.add(pairKey(p.type, p.name));
    const was = byId.get(p.id);
    if (was) out.add(pairKey(was.type, was.name));
  }
  for (const d of batch.deletes) {
    const was = byId.get(d.id);
    if (was) out.add(pairKey(was.type, was.name));
  }
  return [...out].sort();
}

export const only = (rs: DnsRecord[], pairs: Set<string>) => rs.filter((r) => pairs.has(pairKey(r.type, r.name)));
/** A record with only the fields a step keeps. */
export const plainRecord = (r: DnsRecord): DnsRecord => ({
  id: r.id,
  type: r.type,
  name: r.name,
  content: r.content,
  proxied: r.proxied,
  ttl: r.ttl,
  ...(r.priority !== undefined ? { priority: r.priority } : {}),
});

/** A DNS change's undo: the touched pairs' records before (read just before it) and after (from its answer). */
export function dnsUndo(zone: DnsRecord[], batch: Batch, res: DnsChangesResult): UndoStep {
  const pairs = pairsOfChange(zone, batch);
  const scope = new Set(pairs);
  const before = only(zone, scope).map(plainRecord);
  const replaced = new Set([...batch.deletes.map((d) => d.id), ...res.result.patches.map((p) => p.id)]);
  const after = only(
    [...before.filter((r) => !replaced.has(r.id)), ...res.result.patches, ...res.result.posts],
    scope,
  ).map(plainRecord);
  return { area: 'dns', pairs, before, after };
}

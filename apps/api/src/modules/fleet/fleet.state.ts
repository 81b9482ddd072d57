import {
  DEFAULT_REDIRECT_STATUS_CODE,
  dnsRecordProblems,
  plural,
  type DnsRecord,
  type Domain,
  type FleetStateChange,
  type RedirectRule,
  type StateDnsRecord,
  type StateDomain,
  type StateRedirectRule,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { contentKey } from './dns-template-diff.ts';
import {
  ZONE_SETTINGS,
  change,
  changeDns,
  missingZone,
  readSetting,
  recordName,
  refused,
  ruleKey,
  same,
  sameJson,
  settingLabel,
  writeSetting,
  type FleetDeps,
  type PlanResult,
  type RunResult,
} from './fleet.actions.ts';
import { firewallKey, firewallPick, firewallText, pairKey, type UndoStep } from './fleet.undo.ts';

/**
 * The fleet action `state` (issue 45, decision 073): a domain made to match its entry of a desired-state file.
 * Planning reads the parts the entry manages and lists each difference (FleetStateChange); running reads again,
 * and per part: already as wanted, nothing; changed since the plan, skipped (not overwritten blindly); else done
 * through the single-domain actions (the DNS editor's batch, SSL, TLS 1.3, firewall templates and push, redirects).
 */

/** The entry as kept on the plan's item: the firewall templates resolved to their ids when the plan was made. */
export type DesiredState = Omit<StateDomain, 'firewall'> & {
  firewall?: { ruleId: string; rule: string; priority: number }[];
};

type Part = 'dns' | 'ssl' | 'tls13' | 'firewall' | 'redirects';
/** What planning read of each part it manages, compared again at run time. */
export type StateSeen = Partial<Record<Part, unknown>>;

type Want = { type: string; name: string; content: string; ttl: number; proxied: boolean; priority?: number };
type DnsDiff = {
  posts: Want[];
  patches: (Want & { id: string })[];
  deletes: { id: string }[];
  changes: FleetStateChange[];
  /** The zone's records in the managed scope, as a stable text. */
  seen: string[];
};

/** Lines of a plan's Now / After columns (here the full list is in `changes`); more are counted, not listed. */
const TEXT_LINES = 40;
export const lines = (xs: string[]) =>
  xs.length > TEXT_LINES
    ? [...xs.slice(0, TEXT_LINES), `… and ${xs.length - TEXT_LINES} more`].join('\n')
    : xs.join('\n');

/** A record's value in words: "10 mail.example.com (proxied) ttl 300". */
export const recText = (r: { content: string; ttl: number; proxied: boolean; priority?: number }) =>
  `${r.priority !== undefined ? `${r.priority} ` : ''}${r.content}${r.proxied ? ' (proxied)' : ''}${r.ttl !== 1 ? ` ttl ${r.ttl}` : ''}`;
const recKey = (r: DnsRecord) => [r.id, r.type, r.name, r.content, r.ttl, r.proxied, r.priority ?? ''].join('|');

/** The file's records of a domain as the zone would hold them. */
export function wantedRecords(records: StateDnsRecord[], domain: string): Want[] {
  return records.map((r) => ({
    type: r.type.toUpperCase(),
    name: recordName(r.name, domain),
    content: r.content.trim(),
    ttl: r.ttl ?? 1,
    proxied: r.proxied ?? false,
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
  }));
}

/** Problems Cloudflare would refuse the file's records for, as one sentence per record; none when all is well. */
export function recordProblems(records: StateDnsRecord[], domain: string): string[] {
  return records.flatMap((r) => {
    const p = dnsRecordProblems({ ...r, proxied: r.proxied ?? false, ttl: r.ttl ?? 1 }, domain);
    return p.length ? [`${r.type} ${r.name}: ${p.map((x) => x.message).join('; ')}`] : [];
  });
}

/**
 * The zone's records against the file's, per (type, name) pair the file lists (octoDNS's rule): equal content is
 * kept (its TTL, proxy and priority set when they differ), a record of the pair left over takes a missing content,
 * the rest is added, and what is left of the pair is removed. With purge, pairs the file does not list are removed
 * too, but for the apex NS records (the zone's delegation is not the file's to drop). Pure: plan and run decide alike.
 */
export function dnsStateDiff(
  want: Want[],
  now: DnsRecord[],
  domain: string,
  purge: boolean,
  /** Pairs managed besides the wanted ones: their records are removed (a revert of records added to a new name). */
  scope: Iterable<string> = [],
): DnsDiff {
  const out: DnsDiff = { posts: [], patches: [], deletes: [], changes: [], seen: [] };
  const pairs = new Map<string, Want[]>([...scope].map((k) => [k, []]));
  for (const w of want) {
    const k = pairKey(w.type, w.name);
    pairs.set(k, [...(pairs.get(k) ?? []), w]);
  }
  const note = (op: FleetStateChange['op'], r: Want | DnsRecord, before: string | null, after: string | null) =>
    out.changes.push({ area: 'dns', op, subject: `${r.type} ${r.name}`, before, after });
  const patch = (w: Want, c: DnsRecord) => {
    out.patches.push({ ...w, id: c.id });
    note('change', w, recText(c), recText(w));
  };
  const remove = (c: DnsRecord) => {
    out.deletes.push({ id: c.id });
    note('remove', c, recText(c), null);
  };
  const inScope = (r: DnsRecord) =>
    pairs.has(pairKey(r.type, r.name)) || (purge && !(r.type === 'NS' && r.name.toLowerCase() === domain));
  out.seen = now.filter(inScope).map(recKey).sort();
  const differs = (c: DnsRecord, w: Want) =>
    c.ttl !== w.ttl || c.proxied !== w.proxied || (w.priority !== undefined && c.priority !== w.priority);
  for (const [k, wants] of pairs) {
    const left = now.filter((r) => pairKey(r.type, r.name) === k);
    const missing: Want[] = [];
    for (const w of wants) {
      const i = left.findIndex((c) => contentKey(w.type, c.content) === contentKey(w.type, w.content));
      if (i < 0) {
        missing.push(w);
        continue;
      }
      const [c] = left.splice(i, 1);
      if (c && differs(c, w)) patch(w, c);
    }
    for (const w of missing) {
      const c = left.shift();
      if (c) patch(w, c);
      else {
        out.posts.push(w);
        note('add', w, null, recText(w));
      }
    }
    left.forEach(remove);
  }
  if (purge) for (const c of now) if (!pairs.has(pairKey(c.type, c.name)) && inScope(c)) remove(c);
  return out;
}

/** A file's redirect as the API's rule (the editor's defaults filled in). */
export const redirectOfState = (r: StateRedirectRule): RedirectRule => ({
  description: r.description ?? '',
  enabled: r.enabled ?? true,
  ruleExpression: r.ruleExpression,
  ...(r.targetUrlValue !== undefined ? { targetUrlValue: r.targetUrlValue } : {}),
  ...(r.targetUrlExpression !== undefined ? { targetUrlExpression: r.targetUrlExpression } : {}),
  statusCode: r.statusCode ?? DEFAULT_REDIRECT_STATUS_CODE,
  preserveQueryString: r.preserveQueryString ?? false,
});
/** A zone's redirect as the file writes it: defaults left out. */
export const stateOfRedirect = (r: RedirectRule): StateRedirectRule => ({
  ...(r.description ? { description: r.description } : {}),
  ...(r.enabled === false ? { enabled: false } : {}),
  ruleExpression: r.ruleExpression,
  ...(r.targetUrlValue !== undefined ? { targetUrlValue: r.targetUrlValue } : {}),
  ...(r.targetUrlExpression !== undefined ? { targetUrlExpression: r.targetUrlExpression } : {}),
  ...(r.statusCode !== DEFAULT_REDIRECT_STATUS_CODE ? { statusCode: r.statusCode } : {}),
  ...(r.preserveQueryString ? { preserveQueryString: true } : {}),
});
const redirectText = (r: RedirectRule) =>
  `${r.ruleExpression} → ${r.targetUrlValue ?? r.targetUrlExpression} (${r.statusCode})${r.enabled === false ? ' disabled' : ''}`;

/** A zone's record as the file writes it: the name relative to the domain, defaults left out. */
export function stateOfRecord(r: DnsRecord, domain: string): StateDnsRecord {
  const n = r.name.toLowerCase();
  const name = n === domain ? '@' : n.endsWith(`.${domain}`) ? n.slice(0, -domain.length - 1) : n;
  return {
    type: r.type as StateDnsRecord['type'],
    name,
    content: r.content,
    ...(r.ttl !== 1 ? { ttl: r.ttl } : {}),
    ...(r.proxied ? { proxied: true } : {}),
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
  };
}

export function createFleetStateActions(deps: FleetDeps) {
  const { cloudFlare: cf, domains } = deps;

  /** Reads each managed part and lists the differences; `apply` is what would make them so. */
  async function read(want: DesiredState, d: Domain, actor: Actor) {
    const changes: FleetStateChange[] = [];
    const seen: StateSeen = {};
    const apply: Partial<Record<Part, () => Promise<UndoStep>>> = {};
    const name = d.domainName;
    if (want.dns !== undefined) {
      const now = (await cf.listDnsRecords(d._id, actor)).result;
      const diff = dnsStateDiff(wantedRecords(want.dns, name), now, name, want.purge === true);
      seen.dns = diff.seen;
      changes.push(...diff.changes);
      if (diff.changes.length)
        apply.dns = () =>
          changeDns(cf, d, now, { deletes: diff.deletes, patches: diff.patches, posts: diff.posts } as never, actor);
    }
    // The zone settings a file sets are read, compared and set alike.
    for (const part of ['ssl', 'tls13'] as const) {
      const wanted = want[part];
      if (wanted === undefined) continue;
      const v = await readSetting(cf, d, part, actor);
      seen[part] = v;
      if (v !== wanted) {
        const [before, after] = [settingLabel(part, v), settingLabel(part, wanted)];
        changes.push({ area: part, op: 'change', subject: ZONE_SETTINGS[part].subject, before, after });
        apply[part] = () => writeSetting(cf, d, part, wanted, v, actor);
      }
    }
    if (want.firewall !== undefined) {
      const saved = firewallPick(await domains.getFirewallRules(d._id));
      const st = await cf.firewallRulesState(d._id, actor);
      const savedKey = firewallKey(saved);
      seen.firewall = savedKey;
      const sameSet = sameJson(savedKey, firewallKey(want.firewall));
      if (!sameSet || !st.matches) {
        const before = firewallText(saved, 'none');
        changes.push({
          area: 'firewall',
          op: 'change',
          subject: 'Firewall templates',
          before: sameSet ? `${before}; ${plural(st.inZone, 'console rule')} in the zone, not as saved` : before,
          after: `${firewallText(want.firewall, 'none')}, pushed`,
        });
        const rules = want.firewall.map((r) => ({ ruleId: r.ruleId, priority: r.priority }));
        apply.firewall = async () => {
          await domains.saveFirewallRules(d._id, { cloudFirewallRules: rules }, actor);
          await cf.updateFirewallRules(d._id, actor);
          return { area: 'firewall', before: saved, after: firewallPick(await domains.getFirewallRules(d._id)) };
        };
      }
    }
    if (want.redirects !== undefined) {
      const now = (await cf.getRedirectRules(d._id, actor)).rules as RedirectRule[];
      const wanted = want.redirects.map(redirectOfState);
      const nowKeys = now.map(ruleKey);
      seen.redirects = nowKeys;
      const n = Math.max(now.length, wanted.length);
      for (let i = 0; i < n; i++) {
        const a = now[i];
        const b = wanted[i];
        if (a && b && ruleKey(a) === ruleKey(b)) continue;
        changes.push({
          area: 'redirects',
          op: a && b ? 'change' : b ? 'add' : 'remove',
          subject: `Redirect #${i + 1}`,
          before: a ? redirectText(a) : null,
          after: b ? redirectText(b) : null,
        });
      }
      if (!sameJson(nowKeys, wanted.map(ruleKey)))
        apply.redirects = async () => {
          await cf.setRedirectRules(d._id, { rules: wanted }, actor);
          return { area: 'redirects', before: now, after: wanted };
        };
    }
    return { changes, seen, apply };
  }

  return {
    /** The domain as a file's entry (the export): every part the file can manage, read now. */
    async current(
      domainId: string,
      actor: Actor,
    ): Promise<{ entry: StateDomain } | { skipped: string; domain: string }> {
      const d = await domains.get(domainId);
      const missing = missingZone(d);
      if (missing) return { skipped: missing, domain: d.domainName };
      const name = d.domainName;
      const [records, ssl, tls13, firewall, redirects] = await Promise.all([
        cf.listDnsRecords(d._id, actor),
        readSetting(cf, d, 'ssl', actor),
        readSetting(cf, d, 'tls13', actor),
        domains.getFirewallRules(d._id),
        cf.getRedirectRules(d._id, actor),
      ]);
      const sortKey = (r: StateDnsRecord) => `${r.name === '@' ? '' : r.name}\u0000${r.type}\u0000${r.content}`;
      return {
        entry: {
          domain: name,
          purge: false,
          ssl: ssl as StateDomain['ssl'],
          tls13: tls13 as StateDomain['tls13'],
          firewall: [...firewall]
            .sort((a, b) => a.priority - b.priority)
            .map((r) => ({ rule: r.ruleName, priority: r.priority })),
          redirects: (redirects.rules as RedirectRule[]).map(stateOfRedirect),
          dns: records.result
            .map((r) => stateOfRecord(r, name))
            .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0)),
        },
      };
    },

    /** What making the domain match its entry would change now. */
    async plan(
      want: DesiredState,
      domainId: string,
      actor: Actor,
    ): Promise<PlanResult & { changes: FleetStateChange[] }> {
      const d = await domains.get(domainId);
      const needsZone = want.dns || want.ssl || want.tls13 || want.firewall || want.redirects;
      const missing = needsZone ? missingZone(d) : null;
      if (missing) return { ...refused(missing), changes: [] };
      const problems = recordProblems(want.dns ?? [], d.domainName);
      if (problems.length) return { ...refused(problems.join(' · ')), changes: [] };
      const { changes, seen } = await read(want, d, actor);
      if (!changes.length) return { ...same('As in the file', seen), changes };
      const before = lines(changes.map((c) => `${c.subject}: ${c.before ?? 'none'}`));
      const after = lines(changes.map((c) => `${c.subject}: ${c.after ?? 'removed'}`));
      return { ...change(before, after, seen), changes };
    },

    /** Reads again and changes each part still as planned; a part changed since the plan is left as it is. */
    async run(want: DesiredState, domainId: string, seen: unknown, actor: Actor): Promise<RunResult> {
      const d = await domains.get(domainId);
      const { apply, seen: now } = await read(want, d, actor);
      const was = (seen ?? {}) as StateSeen;
      const parts = Object.keys(apply) as Part[];
      if (!parts.length) return { status: 'same', reason: 'Already as planned' };
      const moved = parts.filter((p) => !sameJson(now[p], was[p]));
      const undo: UndoStep[] = [];
      for (const p of parts) if (!moved.includes(p)) undo.push(await apply[p]!());
      if (moved.length)
        return {
          status: 'skipped',
          ...(undo.length ? { undo } : {}),
          reason: `Changed since the plan: ${moved.join(', ')}; not overwritten — plan again to change it${
            moved.length < parts.length ? ` (${parts.filter((p) => !moved.includes(p)).join(', ')} done)` : ''
          }`,
        };
      return { status: 'done', undo };
    },
  };
}
export type FleetStateActions = ReturnType<typeof createFleetStateActions>;

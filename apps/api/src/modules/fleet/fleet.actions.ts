import {
  FLEET_DOMAIN_PLACEHOLDER,
  dnsConflict,
  dnsRecordProblems,
  FLEET_MESSAGES,
  plural,
  SSL_MODE_LABELS,
  renderDnsTemplate,
  TLS_1_3_LABELS,
  type DnsChanges,
  type DnsRecord,
  type Domain,
  type FleetAction,
  type FleetItemOutcome,
  type RedirectRule,
  type RedirectRulesResult,
  type SslMode,
  type Tls13Mode,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { ContentSnapshotsService } from '../content-snapshots/content-snapshots.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { HealthService } from '../health/health.service.ts';
import { contentKey, dnsTemplateDiff, dnsTemplateDiffText } from './dns-template-diff.ts';
import { dnsUndo, firewallKey, firewallPick, plainRecord, type UndoStep } from './fleet.undo.ts';
import { createAccountPacer, createFleetGoogle, type FleetGooglePort } from './fleet.google.ts';

/**
 * Each fleet action, for one domain: what planning reads (through the same services, so the same throttled,
 * proxied client) and what running does (the single-domain action itself, audited as it is). A run re-reads
 * first and compares with what planning saw: a domain changed meanwhile is skipped, not overwritten blindly.
 */
export type FleetDeps = {
  cloudFlare: Pick<
    CloudFlareService,
    | 'getSetting'
    | 'setSsl'
    | 'setTls13'
    | 'firewallRulesState'
    | 'updateFirewallRules'
    | 'pushFirewallRules'
    | 'setOwnFirewallRules'
    | 'listDnsRecords'
    | 'changeDnsRecords'
    | 'getRedirectRules'
    | 'setRedirectRules'
    | 'purgeCache'
    | 'createZone'
  >;
  domains: Pick<
    DomainsService,
    | 'get'
    | 'getMany'
    | 'update'
    | 'remove'
    | 'setCloudZone'
    | 'getFirewallRules'
    | 'saveFirewallRules'
    | 'restoreRemoved'
    | 'idsByNames'
  >;
  /** A content change's snapshot, previewed and restored (a revert of its audit entry, decision 078). */
  contentSnapshots?: Pick<ContentSnapshotsService, 'preview' | 'restore'>;
  /** A health check read and fixed per domain ("Fix all"); wired after the health service exists. */
  health?: () => Pick<HealthService, 'readCheck' | 'recheck' | 'applyFix'>;
  /** Google Search Console (decision 081); absent, its actions are refused. */
  google?: FleetGooglePort;
  /** Least time between two steps of one Google account (default 1 s). */
  googleStepIntervalMs?: number;
};

export type PlanResult = {
  outcome: Exclude<FleetItemOutcome, 'pending'>;
  before: string | null;
  after: string | null;
  reason: string | null;
  seen: unknown;
};
/** changed_failing: a health fix made at the provider whose check still fails for another reason (`reason` says why). */
export type RunResult = {
  status: 'done' | 'changed_failing' | 'same' | 'skipped';
  reason?: string;
  /** What the step changed, as it can be put back (fleet.undo.ts); absent for a step nothing can undo. */
  undo?: UndoStep[];
};

/** Labels of the server or brand an action sets, resolved once per plan. */
export type TargetLabels = { server?: string | null; brand?: string | null };

export const same = (before: string | null, seen: unknown = before): PlanResult => ({
  outcome: 'same',
  before,
  after: before,
  reason: null,
  seen,
});
export const change = (before: string | null, after: string | null, seen: unknown = before): PlanResult => ({
  outcome: 'change',
  before,
  after,
  reason: null,
  seen,
});
export const refused = (reason: string, before: string | null = null): PlanResult => ({
  outcome: 'refused',
  before,
  after: null,
  reason,
  seen: null,
});
const done = (undo: UndoStep): RunResult => ({ status: 'done', undo: [undo] });

/**
 * A kind whose plan and run read alike: the domain now against the action (`same`), the plan's words and `seen`,
 * and the write that makes it so. A run that reads other than `seen` is skipped, each side said by `words` (default:
 * as it is); a `refusal` is the plan's, and skips a run that reads as planned.
 */
type Look = {
  same: boolean;
  before: string;
  after: string;
  seen: unknown;
  words?: (seen: unknown) => unknown;
  refusal?: string | null;
  write: () => Promise<UndoStep>;
};
const planOf = (l: Look) =>
  l.refusal ? refused(l.refusal, l.before) : l.same ? same(l.before, l.seen) : change(l.before, l.after, l.seen);

/** Why the domain's zone cannot be reached (no cloud, no zone); null when it can. */
export const missingZone = (d: Domain): string | null =>
  !d.cloudId ? FLEET_MESSAGES.noCloud : !d.cloudZoneId ? FLEET_MESSAGES.noZone : null;

/** The domain's references a step sets and a revert puts back: the field each is kept in, and how it reads. */
export const DOMAIN_REFS = {
  server: { key: 'serverId', subject: 'Server', text: (d) => d.server?.IPAddress ?? 'none' },
  brand: { key: 'brandId', subject: 'Brand', text: (d) => d.brand?.name ?? 'none' },
  status: { key: 'status', subject: 'Status', text: (d) => d.status },
  registrar: { key: 'domainRegistratorId', subject: 'Registrar', text: (d) => d.domainRegistrator?.name ?? 'none' },
} as const satisfies Record<string, { key: keyof Domain; subject: string; text: (d: Domain) => string }>;

type FleetCloudFlare = FleetDeps['cloudFlare'];
/** The zone settings the fleet sets (an action, a desired state, a revert): each read, labelled and set alike. */
export const ZONE_SETTINGS = {
  ssl: { key: 'ssl', subject: 'SSL mode', labels: SSL_MODE_LABELS as Record<string, string> },
  tls13: { key: 'tls_1_3', subject: 'TLS 1.3', labels: TLS_1_3_LABELS as Record<string, string> },
} as const;
type SettingArea = keyof typeof ZONE_SETTINGS;
export const settingLabel = (area: SettingArea, v: string) => ZONE_SETTINGS[area].labels[v] ?? v;
export const readSetting = async (cf: FleetCloudFlare, d: Domain, area: SettingArea, actor: Actor) =>
  String((await cf.getSetting(d, ZONE_SETTINGS[area].key, actor)).result.value);
/** Sets one zone setting; answers the undo of it. */
export async function writeSetting(
  cf: FleetCloudFlare,
  d: Domain,
  area: SettingArea,
  value: string,
  before: string,
  actor: Actor,
): Promise<UndoStep> {
  if (area === 'ssl') await cf.setSsl(d._id, value as SslMode, actor, { before });
  else await cf.setTls13(d._id, value as Tls13Mode, actor, { before });
  return { area, before, after: value };
}

/** One DNS batch (Cloudflare applies it all or nothing), against the zone as just read; answers its undo. */
export const changeDns = async (cf: FleetCloudFlare, d: Domain, zone: DnsRecord[], batch: DnsChanges, actor: Actor) =>
  dnsUndo(zone, batch, await cf.changeDnsRecords(d._id, batch, actor, { zoneBefore: zone }));

const fill = <T extends string | undefined>(v: T, domain: string) =>
  (v === undefined ? v : v.split(FLEET_DOMAIN_PLACEHOLDER).join(domain)) as T;
/** A record name of the action as the zone holds it: "@" is the apex, a relative name gets the domain. */
export function recordName(name: string, domain: string): string {
  const n = fill(name, domain).trim().toLowerCase().replace(/\.$/, '');
  if (n === '@' || n === domain) return domain;
  return n.endsWith(`.${domain}`) ? n : `${n}.${domain}`;
}

/** The redirect rules of a template, for one domain. */
export function redirectRulesFor(rules: RedirectRule[], domain: string): RedirectRule[] {
  return rules.map((r) => ({
    ...r,
    description: fill(r.description, domain),
    ruleExpression: fill(r.ruleExpression, domain),
    targetUrlValue: fill(r.targetUrlValue, domain),
    targetUrlExpression: fill(r.targetUrlExpression, domain),
  }));
}
type RuleView = RedirectRulesResult['rules'][number];
/** A redirect rule as compared (the editor's defaults filled in). */
export const ruleKey = (r: RuleView) =>
  JSON.stringify([
    r.description ?? '',
    r.enabled ?? true,
    r.ruleExpression,
    r.targetUrlValue ?? null,
    r.targetUrlExpression ?? null,
    r.statusCode,
    r.preserveQueryString,
  ]);
const rulesKey = (rules: RuleView[]) => rules.map(ruleKey);
export const rulesText = (rules: RuleView[]) =>
  rules.length === 0
    ? 'no redirect rules'
    : rules
        .map((r) => `${r.ruleExpression} → ${r.targetUrlValue ?? r.targetUrlExpression} (${r.statusCode})`)
        .join('; ');

const matching = (records: DnsRecord[], type: string, name: string) =>
  records.filter((r) => r.type === type && r.name.toLowerCase() === name);
/**
 * A DNS action's record for the domain: as given with the domain filled in (what Cloudflare's rules are checked
 * on), its full name, and whether a record has its content. CAA `0 issue "ca.example"` and `0 issue ca.example`
 * are one record: compared as Cloudflare stores it.
 */
const dnsTarget = (type: string, name: string, content: string, domain: string) => {
  const draft = { type, name: fill(name, domain), content: fill(content, domain) };
  const key = contentKey(type, draft.content);
  return {
    draft,
    name: recordName(name, domain),
    content: draft.content,
    sameContent: (r: { content: string }) => contentKey(type, r.content) === key,
  };
};
const contentSeen = (rs: DnsRecord[]) => rs.map((r) => `${r.id}=${r.content}`).sort();

/** Two values alike as JSON (a missing one as null): what planning saw against what a run reads. */
export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A refusal the operator can read (a missing cloud, Cloudflare's answer); anything else is a bug and is thrown. */
export const refusalOf = (err: unknown): string | null => (err instanceof AppError ? err.message : null);

export function createFleetActions(deps: FleetDeps) {
  const { cloudFlare: cf, domains } = deps;
  const health = () => {
    if (!deps.health) throw new Error('Health checks are not wired to the fleet actions');
    return deps.health();
  };

  const google = deps.google
    ? createFleetGoogle(deps.google, createAccountPacer(deps.googleStepIntervalMs ?? 1000))
    : null;

  const dnsNow = async (d: Domain, actor: Actor) => (await cf.listDnsRecords(d, actor)).result;

  const fieldLook = (a: FleetAction, d: Domain, actor: Actor, labels: TargetLabels): Look | null => {
    const set =
      a.kind === 'set_server'
        ? ({ area: 'server', want: a.serverId, wantText: labels.server ?? 'none' } as const)
        : a.kind === 'set_brand'
          ? ({ area: 'brand', want: a.brandId, wantText: labels.brand ?? 'none' } as const)
          : a.kind === 'set_status'
            ? ({ area: 'status', want: a.status, wantText: a.status } as const)
            : null;
    if (!set) return null;
    const { area, want, wantText } = set;
    const { key, text } = DOMAIN_REFS[area];
    const [now, nowText] = [d[key], text(d)];
    const write = async (): Promise<UndoStep> => {
      await domains.update(d._id, { [key]: want }, actor);
      return { area, before: now ?? null, after: want ?? null, beforeText: nowText, afterText: wantText };
    };
    return { same: now === want, before: nowText, after: wantText, seen: now, write };
  };

  /** The zone's kinds as a Look, or why the action cannot apply before anything is read. */
  const zoneLook = async (a: FleetAction, d: Domain, actor: Actor): Promise<Look | string | null> => {
    switch (a.kind) {
      case 'ssl':
      case 'tls13': {
        const { kind, value } = a;
        const v = await readSetting(cf, d, kind, actor);
        const write = () => writeSetting(cf, d, kind, value, v, actor);
        return { same: v === value, before: settingLabel(kind, v), after: settingLabel(kind, value), seen: v, write };
      }
      case 'redirects': {
        const rules = (await cf.getRedirectRules(d, actor)).rules as RedirectRule[];
        const want = redirectRulesFor(a.rules, d.domainName);
        const seen = rulesKey(rules);
        const write = async (): Promise<UndoStep> => {
          await cf.setRedirectRules(d._id, { rules: want }, actor);
          return { area: 'redirects', before: rules, after: want };
        };
        const words = (x: unknown) => plural((x as string[]).length, 'rule');
        const [before, after] = [rulesText(rules), rulesText(want)];
        return { same: sameJson(seen, rulesKey(want)), before, after, seen, words, write };
      }
      case 'dns_delete': {
        const zone = await dnsNow(d, actor);
        const now = matching(zone, a.type, recordName(a.name, d.domainName));
        const ids = now.map((r) => r.id).sort();
        const before = now.map((r) => `${r.type} ${r.name} ${r.content}`).join(', ') || 'none';
        const batch = { deletes: ids.map((id) => ({ id })), patches: [], posts: [] };
        const write = () => changeDns(cf, d, zone, batch, actor);
        const words = (x: unknown) => plural((x as string[]).length, 'record');
        return { same: !now.length, before, after: 'deleted', seen: ids, words, write };
      }
      case 'dns_template': {
        // The template rendered for the domain ({serverIp}: its server's address) and compared with its zone.
        const t = a.template;
        if (!t) return FLEET_MESSAGES.templateNotFound;
        const ip = d.server?.IPAddress ?? null;
        if (!ip && t.records.some((r) => `${r.name} ${r.content}`.includes('{serverIp}')))
          return FLEET_MESSAGES.noServerIp;
        const zone = await dnsNow(d, actor);
        const drafts = renderDnsTemplate(t.records, { domain: d.domainName, serverIp: ip ?? '' });
        const diff = dnsTemplateDiff(drafts, d.domainName, zone);
        const batch = { deletes: [], patches: diff.patches, posts: diff.posts };
        const write = () => changeDns(cf, d, zone, batch as never, actor);
        const words = (x: unknown) => plural((x as string[] | null)?.length ?? 0, 'record');
        const same = !diff.refusal && !diff.posts.length && !diff.patches.length;
        return { same, ...dnsTemplateDiffText(diff, zone), seen: diff.seen, words, refusal: diff.refusal, write };
      }
    }
    return null;
  };

  return {
    /** What the action would do to the domain now (as just read by the caller, or read here). */
    async plan(a: FleetAction, domain: string | Domain, actor: Actor, labels: TargetLabels = {}): Promise<PlanResult> {
      const d = typeof domain === 'string' ? await domains.get(domain) : domain;
      const field = fieldLook(a, d, actor, labels);
      if (field) return planOf(field);
      if (a.kind === 'health_fix') {
        // The value is this domain's own: what its check expects now (the zone's name servers, the SSL mode last
        // set through the console, the saved WAF rules, a verified host). `seen` is what the check observed.
        const r = await health().readCheck(d._id, a.check);
        if (r.state === 'na' || r.state === 'unknown')
          return refused(r.reason ?? FLEET_MESSAGES.healthNotFailing(r.state));
        if (r.state !== 'failing') return same(r.observed, r.observed);
        if ((a.check === 'cf_ssl' || a.check === 'cf_tls13') && !r.expected)
          return refused(FLEET_MESSAGES.healthNoExpected, r.observed);
        return change(r.observed ?? 'none', r.expected ?? 'ok', r.observed);
      }
      if (a.kind === 'google_verify' || a.kind === 'google_sitemap') {
        if (!google) return refused('Google Search Console is not available');
        const r = await google.read(a, d);
        if ('refused' in r) return refused(r.refused);
        if ('same' in r) return same(r.same);
        return change(r.before, r.after);
      }
      if (a.kind === 'create_zone') {
        if (!d.cloudId) return refused(FLEET_MESSAGES.noCloud);
        if (d.cloudZoneId) return { ...same(d.cloudZoneId), reason: FLEET_MESSAGES.hasZone(d.cloudZoneId) };
        return change('no zone', `zone for ${d.domainName}`, null);
      }
      const missing = missingZone(d);
      if (missing) return refused(missing);
      const look = await zoneLook(a, d, actor);
      if (typeof look === 'string') return refused(look);
      if (look) return planOf(look);
      const name = d.domainName;
      switch (a.kind) {
        case 'waf_push':
        case 'waf_set_push': {
          const st = await cf.firewallRulesState(d, actor);
          const before = `${plural(st.inZone, 'console rule')} in the zone`;
          if (a.kind === 'waf_push') {
            if (st.saved === 0 && st.inZone === 0) return refused(FLEET_MESSAGES.noRules, before);
            return st.matches
              ? same(before, st.version)
              : change(before, `${plural(st.saved, 'rule')} pushed`, st.version);
          }
          const saved = (await domains.getFirewallRules(d._id)).map((r) => `${r.ruleId}:${r.priority}`);
          const want = a.cloudFirewallRules;
          return sameJson([...saved].sort(), firewallKey(want)) && st.matches
            ? same(before, saved)
            : change(
                `${plural(saved.length, 'template')}; ${before}`,
                `${plural(want.length, 'template')} pushed`,
                saved,
              );
        }
        case 'dns_add': {
          const t = dnsTarget(a.record.type, a.record.name, a.record.content, name);
          // Cloudflare's own rules first: what it would refuse is listed under "Cannot change", not run.
          const problems = dnsRecordProblems({ ...a.record, ...t.draft }, name);
          if (problems.length) return refused(problems.map((p) => p.message).join('; '));
          const all = await dnsNow(d, actor);
          const now = matching(all, a.record.type, t.name);
          const before = now.length ? now.map((r) => r.content).join(', ') : 'none';
          if (now.some(t.sameContent)) return same(before);
          const clash = dnsConflict({ type: a.record.type, name: t.name, content: t.content }, all);
          if (clash) return refused(clash, before);
          return change(before, `${a.record.type} ${t.name} → ${t.content} added`);
        }
        case 'dns_set': {
          const t = dnsTarget(a.type, a.name, a.content, name);
          const problems = dnsRecordProblems(t.draft, name).filter((p) => p.field !== 'priority');
          if (problems.length) return refused(problems.map((p) => p.message).join('; '));
          const now = matching(await dnsNow(d, actor), a.type, t.name);
          if (!now.length) return refused(FLEET_MESSAGES.noRecords(a.type, t.name));
          const seen = contentSeen(now);
          const before = now.map((r) => r.content).join(', ');
          return now.every(t.sameContent) ? same(before, seen) : change(before, t.content, seen);
        }
        case 'purge_cache':
          return change('cached', 'purged', null);
      }
      throw new Error(`Unknown fleet action ${(a as { kind: string }).kind}`);
    },

    /**
     * Runs the action on the domain: reads again, skips when it already matches or when it changed since the
     * plan (`seen`), else calls the single-domain action.
     */
    async run(
      a: FleetAction,
      domainId: string,
      seen: unknown,
      actor: Actor,
      labels: TargetLabels = {},
    ): Promise<RunResult> {
      const d = await domains.get(domainId);
      const changed = (was: unknown, now: unknown): RunResult => ({
        status: 'skipped',
        reason: FLEET_MESSAGES.changedSincePlan(String(was ?? 'none'), String(now ?? 'none')),
      });
      const already: RunResult = { status: 'same', reason: 'Already as planned' };
      const look = fieldLook(a, d, actor, labels) ?? (await zoneLook(a, d, actor));
      if (typeof look === 'string') return { status: 'skipped', reason: look };
      if (look) {
        if (look.same) return already;
        const words = look.words ?? ((x: unknown) => x);
        if (!sameJson(look.seen, seen)) return changed(words(seen), words(look.seen));
        if (look.refusal) return { status: 'skipped', reason: look.refusal };
        return done(await look.write());
      }
      if (a.kind === 'health_fix') {
        // Read again (and stored): already ok is "same", no longer failing or changed since the plan is skipped.
        const r = await health().recheck(d._id, a.check);
        if (r.state === 'ok') return already;
        if (r.state !== 'failing')
          return { status: 'skipped', reason: r.reason ?? FLEET_MESSAGES.healthNotFailing(r.state) };
        if (r.observed !== seen) return changed(seen, r.observed);
        const fixed = await health().applyFix(d._id, r, actor);
        // A fix made but awaiting the provider's own check reads as that; one that changed nothing is "same".
        const undo = fixed.undo ? { undo: fixed.undo } : {};
        if (fixed.pending) return { status: fixed.changed === false ? 'same' : 'done', reason: fixed.pending, ...undo };
        // Changed at the provider, but the check fails for another reason: a change, said with why it still fails.
        if (fixed.stillFailing) return { status: 'changed_failing', reason: fixed.stillFailing, ...undo };
        return { status: 'done', ...undo };
      }
      if (a.kind === 'google_verify' || a.kind === 'google_sitemap') {
        if (!google) return { status: 'skipped', reason: 'Google Search Console is not available' };
        // Read again: verified or submitted meanwhile is "same", another account's property or a lost one skipped.
        const r = await google.read(a, d);
        if ('refused' in r) return { status: 'skipped', reason: r.refused };
        if ('same' in r) return already;
        if (r.before !== seen) return changed(seen, r.before);
        await google.apply(a, d, actor);
        return { status: 'done' };
      }
      const name = d.domainName;
      switch (a.kind) {
        case 'create_zone':
          if (d.cloudZoneId) return { status: 'skipped', reason: FLEET_MESSAGES.hasZone(d.cloudZoneId) };
          await cf.createZone(d._id, actor);
          return { status: 'done' };
        case 'waf_push': {
          const st = await cf.firewallRulesState(d, actor);
          if (st.matches) return already;
          // Rules changed at Cloudflare since planning (a new ruleset version) are not pushed over.
          const v = (x: unknown) => `the zone's WAF rules at version ${String(x ?? 'none')}`;
          if (!sameJson(st.version, seen)) return changed(v(seen), v(st.version));
          return done((await cf.pushFirewallRules(d._id, actor)).undo);
        }
        case 'waf_set_push': {
          const rules = await domains.getFirewallRules(d._id);
          const saved = rules.map((r) => `${r.ruleId}:${r.priority}`);
          if (!sameJson(saved, seen)) return changed((seen as string[] | null)?.length ?? 0, saved.length);
          await domains.saveFirewallRules(d._id, { cloudFirewallRules: a.cloudFirewallRules }, actor);
          await cf.updateFirewallRules(d._id, actor);
          const after = firewallPick(await domains.getFirewallRules(d._id));
          return done({ area: 'firewall', before: firewallPick(rules), after });
        }
        case 'dns_add': {
          const t = dnsTarget(a.record.type, a.record.name, a.record.content, name);
          const zone = await dnsNow(d, actor);
          const now = matching(zone, a.record.type, t.name);
          if (now.some(t.sameContent)) return already;
          // A record that clashes with this one appeared since planning (which refuses such a zone): not sent.
          const clash = dnsConflict({ type: a.record.type, name: t.name, content: t.content }, zone);
          if (clash) return changed(now.map((r) => r.content).join(', ') || 'none', clash);
          const posts = [{ ...a.record, name: t.name, content: t.content }];
          return done(await changeDns(cf, d, zone, { deletes: [], patches: [], posts }, actor));
        }
        case 'dns_set': {
          const t = dnsTarget(a.type, a.name, a.content, name);
          const zone = await dnsNow(d, actor);
          const now = matching(zone, a.type, t.name);
          if (now.length && now.every(t.sameContent)) return already;
          const key = contentSeen(now);
          if (!sameJson(key, seen)) return changed((seen as string[]).join(', '), key.join(', ') || 'none');
          const patches = now.filter((r) => !t.sameContent(r)).map((r) => ({ ...plainRecord(r), content: t.content }));
          return done(await changeDns(cf, d, zone, { deletes: [], patches, posts: [] } as never, actor));
        }
        case 'purge_cache':
          await cf.purgeCache(d._id, actor);
          return { status: 'done' };
      }
      throw new Error(`Unknown fleet action ${(a as { kind: string }).kind}`);
    },
  };
}
export type FleetActions = ReturnType<typeof createFleetActions>;

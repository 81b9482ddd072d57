import {
  DOMAIN_FIELDS_REVERTIBLE,
  FLEET_MESSAGES,
  FLEET_REVERT_MESSAGES,
  type DnsRecord,
  type Domain,
  type DomainInput,
  type RedirectRule,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError } from '../../http/errors.ts';
import { contentKey } from './dns-template-diff.ts';
import {
  DOMAIN_REFS,
  ZONE_SETTINGS,
  change,
  changeDns,
  missingZone,
  readSetting,
  refused,
  ruleKey,
  rulesText,
  same,
  sameJson,
  settingLabel,
  writeSetting,
  type FleetDeps,
  type PlanResult,
  type RunResult,
} from './fleet.actions.ts';
import { dnsStateDiff, lines, recText } from './fleet.state.ts';
import type { WafRule } from '../cloud-flare/cloud-flare.waf.ts';
import { fieldText, firewallKey, firewallPick, firewallText, only, type UndoStep } from './fleet.undo.ts';

/**
 * A revert (issue 44, decision 076): each row carries the `UndoStep`s its domain's step recorded. Planning reads
 * each part now: as the run wrote it → put back; already as before → same; anything else → changed since, left
 * alone (shown with both values) unless ticked. A revert records its own steps, so it can be reverted in turn.
 */
const recNorm = (r: DnsRecord) =>
  [
    r.type.toUpperCase(),
    r.name.toLowerCase(),
    contentKey(r.type.toUpperCase(), r.content),
    r.ttl,
    r.proxied,
    r.priority ?? '',
  ].join('|');
const recordsKey = (rs: DnsRecord[]) => rs.map(recNorm).sort();
const recordsText = (rs: DnsRecord[]) =>
  rs.length ? rs.map((r) => `${r.type} ${r.name} ${recText(r)}`).join(', ') : 'no records';
const wafKey = (r: WafRule) => `${r.ref}|${r.action}|${r.expression}|${r.enabled}`;
const wafText = (rs: WafRule[]) =>
  rs.length
    ? rs.map((r) => `${r.description || r.ref} (${r.action}${r.enabled ? '' : ', off'})`).join(', ')
    : 'no rules';
const noId = (rules: RedirectRule[]) => rules.map(({ id: _id, ...r }) => r);

/** One part as it stands now, against what the run wrote (`after`) and what was there before it. */
type Reading = {
  subject: string;
  now: unknown;
  nowText: string;
  wrote: unknown;
  wroteText: string;
  was: unknown;
  wasText: string;
};
const partLines = (rs: Reading[], text: 'nowText' | 'wasText') => lines(rs.map((r) => `${r.subject}: ${r[text]}`));
const stateOf = (r: Reading) => (sameJson(r.now, r.wrote) ? 'revert' : sameJson(r.now, r.was) ? 'same' : 'moved');
/** A part whose three values (now, as the run wrote it, as before) are compared by one key and shown by one text. */
const reading = <T>(
  subject: string,
  text: (x: T) => string,
  [now, wrote, was]: [T, T, T],
  key: (x: T) => unknown = (x) => x,
): Reading => ({
  subject,
  now: key(now),
  nowText: text(now),
  wrote: key(wrote),
  wroteText: text(wrote),
  was: key(was),
  wasText: text(was),
});

/** What a revert row's `seen` holds: each part as planning read it, and whether the row changed since the run. */
export type RevertSeen = { now: unknown[]; texts: string[]; changedSince?: boolean; what?: string };

const ZONE_AREAS = new Set(['ssl', 'tls13', 'dns', 'redirects', 'firewall', 'waf']);

/** A domain's own fields and zone link as a removal keeps them, to put the domain back (`removed`). */
const REMOVED_FIELDS = [
  'domainName',
  'status',
  'serverId',
  'brandId',
  'cloudId',
  'cloudZoneId',
  'parserEnabled',
  'isSinglePage',
  'parserURL',
  'parserProxyRegionId',
  'redirectDomainName',
  'isRestricted',
  'domainRegistratorId',
  'domainRegistratorExpirationDate',
  'yandexWebmasterAccountId',
] as const;
const removedFields = (d: Domain) =>
  Object.fromEntries(
    REMOVED_FIELDS.map((k) => [k, ((d as unknown as Record<string, unknown>)[k] ?? null) as string | boolean | null]),
  );

/** What a domain put back holds, as an import's `created` step expects it: removed again if still so. */
const createdExpect = (d: Domain): Record<string, string | boolean | null> => ({
  status: d.status,
  brandId: d.brandId ?? null,
  serverId: d.serverId ?? null,
  cloudId: d.cloudId ?? null,
  cloudZoneId: d.cloudZoneId ?? null,
  domainRegistratorId: d.domainRegistratorId ?? null,
  yandexWebmasterAccountId: d.yandexWebmasterAccountId ?? null,
});

export function createFleetRevertActions(deps: FleetDeps) {
  const { cloudFlare: cf, domains } = deps;
  const snapshots = () => {
    if (!deps.contentSnapshots) throw new Error('Content snapshots are not wired into the fleet');
    return deps.contentSnapshots;
  };
  const savedFirewall = async (d: Domain) => firewallPick(await domains.getFirewallRules(d._id));
  const redirectRules = async (d: Domain, actor: Actor) =>
    (await cf.getRedirectRules(d, actor)).rules as RedirectRule[];

  async function read(steps: UndoStep[], d: Domain, actor: Actor): Promise<{ reads: Reading[]; zone?: DnsRecord[] }> {
    let zone: DnsRecord[] | undefined;
    const readOne = async (s: UndoStep): Promise<Reading> => {
      switch (s.area) {
        case 'ssl':
        case 'tls13': {
          const v = await readSetting(cf, d, s.area, actor);
          return reading(ZONE_SETTINGS[s.area].subject, (x) => settingLabel(s.area, x), [v, s.after, s.before]);
        }
        case 'server':
        case 'brand':
        case 'status':
        case 'registrar': {
          const ref = DOMAIN_REFS[s.area];
          return {
            subject: ref.subject,
            now: d[ref.key] ?? null,
            nowText: ref.text(d),
            wrote: s.after,
            wroteText: s.afterText,
            was: s.before,
            wasText: s.beforeText,
          };
        }
        case 'field': {
          const now = (d as unknown as Record<string, unknown>)[s.key] ?? null;
          return reading(DOMAIN_FIELDS_REVERTIBLE[s.key], fieldText, [now, s.after, s.before]);
        }
        case 'dns': {
          zone ??= (await cf.listDnsRecords(d, actor)).result;
          const now = only(zone, new Set(s.pairs));
          return reading(`DNS ${s.pairs.join(', ')}`, recordsText, [now, s.after, s.before], recordsKey);
        }
        case 'redirects': {
          const now = await redirectRules(d, actor);
          return reading('Redirect rules', rulesText, [now, s.after, s.before], (rs) => rs.map(ruleKey));
        }
        case 'zone_link':
          return reading('Cloudflare zone', (x) => x ?? 'none', [d.cloudZoneId, s.after, s.before]);
        case 'content': {
          const pv = await snapshots().preview(s.snapshotId);
          if (!pv.restorable) throw new ConflictError(pv.reason ?? FLEET_REVERT_MESSAGES.notRecorded);
          const { restore, same: asBefore, changed } = pv.counts;
          const moved = pv.items.filter((i) => i.status === 'changed').map((i) => i.path);
          const movedList = `${moved.slice(0, 10).join(', ')}${moved.length > 10 ? ', …' : ''}`;
          return {
            subject: `Content files (${pv.files})`,
            now: changed ? `changed since: ${movedList}` : restore ? 'as written' : 'as before',
            nowText: changed
              ? `${changed} changed since (${movedList})`
              : restore
                ? `${restore} as the change left them${asBefore ? `, ${asBefore} as before` : ''}`
                : 'as before the change',
            wrote: 'as written',
            wroteText: 'as the change left them',
            was: 'as before',
            wasText: 'as before the change',
          };
        }
        case 'removed':
          // Present again under its own id: nothing to put back.
          return {
            subject: 'Domain',
            now: 'present',
            nowText: 'present',
            wrote: 'absent',
            wroteText: 'removed',
            was: 'present',
            wasText: 'present',
          };
        case 'created': {
          const row = d as unknown as Record<string, unknown>;
          const moved = Object.keys(s.expect).filter((k) => !sameJson(row[k], s.expect[k]));
          return {
            subject: 'Domain',
            now: moved.length ? moved : 'as created',
            nowText: moved.length ? `changed since the import (${moved.join(', ')})` : 'as the import created it',
            wrote: 'as created',
            wroteText: 'as the import created it',
            was: 'absent',
            wasText: 'removed',
          };
        }
        case 'waf': {
          const now = (await cf.firewallRulesState(d, actor)).ownWafRules;
          return reading('WAF rules in the zone', wafText, [now, s.after, s.before], (rs) => rs.map(wafKey));
        }
        case 'firewall':
          return reading('Firewall templates', firewallText, [await savedFirewall(d), s.after, s.before], firewallKey);
      }
    };
    const reads: Reading[] = [];
    for (const s of steps) reads.push(await readOne(s));
    return { reads, zone };
  }

  /** Puts one part back as it was before the run; answers the revert's own undo of it (none for a removal). */
  async function putBack(
    s: UndoStep,
    r: Reading,
    d: Domain,
    zone: DnsRecord[] | undefined,
    actor: Actor,
  ): Promise<UndoStep | null> {
    switch (s.area) {
      case 'ssl':
      case 'tls13':
        return writeSetting(cf, d, s.area, s.before, String(r.now), actor);
      case 'created': {
        const fields = removedFields(d);
        await domains.remove(d._id, actor);
        return { area: 'removed', name: d.domainName, fields };
      }
      case 'content': {
        // Ticked, the files changed since are restored too; else only those still as the change left them.
        const pv = await snapshots().preview(s.snapshotId);
        const force = r.now === 'as written' ? [] : pv.items.filter((i) => i.status === 'changed').map((i) => i.path);
        const res = await snapshots().restore(s.snapshotId, { force }, actor);
        if (res.failed.length)
          throw new Error(
            `Restore failed for ${res.failed
              .map((f) => `${f.path}: ${f.error}`)
              .join('; ')
              .slice(0, 500)}`,
          );
        return res.snapshotId ? { area: 'content', snapshotId: res.snapshotId } : null;
      }
      case 'removed':
        // Only planned while the domain is absent (read() is not reached for it): see plan() and run().
        return null;
      case 'zone_link':
        await domains.setCloudZone(d._id, { cloudZoneId: s.before, cloudRulesetId: null }, actor);
        return { area: 'zone_link', before: d.cloudZoneId, after: s.before };
      case 'server':
      case 'brand':
      case 'status':
      case 'registrar': {
        await domains.update(d._id, { [DOMAIN_REFS[s.area].key]: s.before }, actor);
        return {
          ...s,
          before: r.now as string | null,
          after: s.before,
          beforeText: r.nowText,
          afterText: s.beforeText,
        };
      }
      case 'field':
        await domains.update(d._id, { [s.key]: s.before }, actor);
        return { ...s, before: r.now as string | boolean | null, after: s.before };
      case 'dns': {
        zone ??= (await cf.listDnsRecords(d, actor)).result;
        const want = s.before.map((x) => ({
          type: x.type,
          name: x.name.toLowerCase(),
          content: x.content,
          ttl: x.ttl,
          proxied: x.proxied,
          ...(x.priority !== undefined ? { priority: x.priority } : {}),
        }));
        const diff = dnsStateDiff(want, zone, d.domainName, false, s.pairs);
        const batch = { deletes: diff.deletes, patches: diff.patches, posts: diff.posts };
        return changeDns(cf, d, zone, batch as never, actor);
      }
      case 'redirects': {
        const now = await redirectRules(d, actor);
        await cf.setRedirectRules(d._id, { rules: noId(s.before) }, actor);
        return { area: 'redirects', before: now, after: s.before };
      }
      case 'waf':
        return cf.setOwnFirewallRules(d._id, s.before, actor);
      case 'firewall': {
        const now = await savedFirewall(d);
        await domains.saveFirewallRules(
          d._id,
          { cloudFirewallRules: s.before.map((x) => ({ ruleId: x.ruleId, priority: x.priority })) },
          actor,
        );
        await cf.updateFirewallRules(d._id, actor);
        return { area: 'firewall', before: now, after: s.before };
      }
    }
  }

  const zoneMissing = (steps: UndoStep[], d: Domain) =>
    steps.some((s) => ZONE_AREAS.has(s.area)) ? missingZone(d) : null;
  /** The domain, or null for one an import created and someone removed since (already as before the import). */
  const domainOf = (steps: UndoStep[], domainId: string) =>
    domains.get(domainId).catch((err: unknown) => {
      if (err instanceof NotFoundError && steps.some((s) => s.area === 'created' || s.area === 'removed')) return null;
      throw err;
    });

  return {
    /** Each part now against what the run wrote: put back, already as before, or changed since (left alone). */
    async plan(steps: UndoStep[], domainId: string, actor: Actor): Promise<PlanResult> {
      const d = await domainOf(steps, domainId);
      const removed = steps.find((s) => s.area === 'removed');
      if (!d && removed) {
        const taken = (await domains.idsByNames([removed.name])).get(removed.name);
        if (taken)
          return {
            ...refused(FLEET_REVERT_MESSAGES.nameTaken(removed.name), 'Domain: removed'),
            after: `Domain: ${removed.name}`,
            seen: { now: ['taken'], texts: ['taken'], changedSince: true, what: 'name taken' } satisfies RevertSeen,
          };
        const seen: RevertSeen = { now: ['absent'], texts: ['removed'] };
        return change('Domain: removed', `Domain: ${removed.name}, put back as it was`, seen);
      }
      if (!d) return same('Domain: removed', null);
      const missing = zoneMissing(steps, d);
      if (missing) return refused(missing);
      const { reads } = await read(steps, d, actor);
      const seen: RevertSeen = { now: reads.map((r) => r.now), texts: reads.map((r) => r.nowText) };
      const nowLines = partLines(reads, 'nowText');
      const moved = reads.filter((r) => stateOf(r) === 'moved');
      if (moved.length) {
        const what = moved.map((r) => `${r.subject} is now ${r.nowText}; the run set ${r.wroteText}`).join('; ');
        return {
          ...refused(FLEET_REVERT_MESSAGES.changedSince(what), nowLines),
          after: partLines(reads, 'wasText'),
          seen: { ...seen, changedSince: true, what } satisfies RevertSeen,
        };
      }
      const back = reads.filter((r) => stateOf(r) === 'revert');
      if (!back.length) return same(nowLines, seen);
      return change(partLines(back, 'nowText'), partLines(back, 'wasText'), seen);
    },

    /**
     * Reads again; a part that moved since planning is not touched (the row is skipped). Else each part as the run
     * wrote it (and, for a ticked row, each part changed since) is put back, and what that changed is recorded.
     */
    async run(steps: UndoStep[], domainId: string, seen: unknown, forced: boolean, actor: Actor): Promise<RunResult> {
      const d = await domainOf(steps, domainId);
      const removed = steps.find((s) => s.area === 'removed');
      if (!d && removed) {
        if ((await domains.idsByNames([removed.name])).get(removed.name))
          return { status: 'skipped', reason: FLEET_REVERT_MESSAGES.nameTaken(removed.name) };
        const { cloudZoneId, ...fields } = removed.fields;
        const back = await domains.restoreRemoved(
          domainId,
          { ...(fields as unknown as DomainInput), cloudZoneId: (cloudZoneId as string | null) ?? null },
          actor,
        );
        return { status: 'done', undo: [{ area: 'created', expect: createdExpect(back) }] };
      }
      if (d && removed) return { status: 'same', reason: 'Already present' };
      if (!d) return { status: 'same', reason: 'Already removed' };
      const missing = zoneMissing(steps, d);
      if (missing) return { status: 'skipped', reason: missing };
      const { reads, zone } = await read(steps, d, actor);
      const planned = (seen as RevertSeen | null) ?? { now: [], texts: [] };
      const moved = reads.findIndex((r, i) => !sameJson(r.now, planned.now[i]));
      if (moved >= 0) {
        const r = reads[moved]!;
        return {
          status: 'skipped',
          reason: FLEET_MESSAGES.changedSincePlan(`${r.subject}: ${planned.texts[moved] ?? 'none'}`, r.nowText),
        };
      }
      const undo: UndoStep[] = [];
      for (const [i, s] of steps.entries()) {
        const r = reads[i]!;
        const st = stateOf(r);
        if (st !== 'revert' && !(forced && st === 'moved')) continue;
        const back = await putBack(s, r, d, zone, actor);
        if (back) undo.push(back);
        // A removed domain has nothing left to put back.
        if (s.area === 'created') return { status: 'done', undo };
      }
      if (!undo.length) return { status: 'same', reason: 'Already as before the run' };
      return { status: 'done', undo };
    },
  };
}
export type FleetRevertActions = ReturnType<typeof createFleetRevertActions>;

import {
  FLEET_STATE_EXPORT_PAGE,
  FLEET_STATE_MESSAGES,
  FLEET_STATE_VERSION,
  toAsciiDomain,
  type DomainFilter,
  type FleetPlan,
  type FleetStateExport,
  type FleetStateFile,
  type StateDomain,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CloudflareRouting } from '../cloud-flare/cloudflare-routing.ts';
import type { FirewallRulesRepository } from '../firewall-rules/firewall-rules.repository.ts';
import { refusalOf, type FleetDeps } from './fleet.actions.ts';
import type { FleetRepository } from './fleet.repository.ts';
import type { FleetService } from './fleet.service.ts';
import { createFleetStateActions, type DesiredState } from './fleet.state.ts';

/** Domains of one export page read at once; the account's budget paces their calls. */
const EXPORT_CONCURRENCY = 8;

/**
 * The fleet as code (issue 45): a desired-state file planned as a fleet plan of the kind `state`, and the export
 * that writes the console's current state as such a file.
 */
export function createFleetStateService(
  deps: FleetDeps & {
    repo: Pick<FleetRepository, 'domainsByNames'>;
    fleet: Pick<FleetService, 'createWithItems'>;
    firewallRules: Pick<FirewallRulesRepository, 'findByNames'>;
    routing: Pick<CloudflareRouting, 'background'>;
    idsForFilter: (filter: DomainFilter, limit: number) => Promise<string[]>;
    /** How long one export call may wait for a budget slot. */
    budgetWaitMs: number;
  },
) {
  const actions = createFleetStateActions(deps);

  return {
    /** Plans the file: one item per domain, each carrying its entry; unknown names and templates are refused rows. */
    async plan(file: FleetStateFile, actor: Actor): Promise<FleetPlan> {
      const nameOf = (d: StateDomain) => toAsciiDomain(d.domain) ?? d.domain.trim().toLowerCase();
      const names = file.domains.map(nameOf);
      const found = new Map((await deps.repo.domainsByNames(names)).map((d) => [d.domainName, d]));
      const ruleNames = file.domains.flatMap((d) => (d.firewall ?? []).map((r) => r.rule));
      const rules = new Map((await deps.firewallRules.findByNames(ruleNames)).map((r) => [r.name.toLowerCase(), r]));
      const items = file.domains.map((entry, i) => {
        const name = names[i]!;
        const d = found.get(name);
        const base = {
          domainId: d?.id ?? null,
          domainName: name,
          cloudId: d?.cloudId ?? null,
          cloudEmail: d?.cloudEmail ?? null,
        };
        if (!d) return { ...base, desired: null, refusal: FLEET_STATE_MESSAGES.notInConsole };
        const unknown = (entry.firewall ?? []).find((r) => !rules.has(r.rule.toLowerCase()));
        if (unknown) return { ...base, desired: null, refusal: FLEET_STATE_MESSAGES.unknownRule(unknown.rule) };
        const desired: DesiredState = {
          ...entry,
          domain: name,
          firewall: entry.firewall?.map((r) => {
            const rule = rules.get(r.rule.toLowerCase())!;
            return { ruleId: rule._id, rule: rule.name, priority: r.priority };
          }),
        };
        return { ...base, desired, refusal: null };
      });
      const purge = file.domains.filter((d) => d.purge === true).length;
      return deps.fleet.createWithItems(
        { kind: 'state', domains: file.domains.length, purge },
        { stateFile: { version: file.version, domains: file.domains.length } },
        items,
        actor,
      );
    },

    /** One page of the selected domains as a file's entries; a domain that cannot be read is said why. */
    async export(filter: DomainFilter, page: number, actor: Actor): Promise<FleetStateExport> {
      const from = (page - 1) * FLEET_STATE_EXPORT_PAGE;
      const ids = await deps.idsForFilter(filter, from + FLEET_STATE_EXPORT_PAGE + 1);
      const pageIds = ids.slice(from, from + FLEET_STATE_EXPORT_PAGE);
      const results = new Array<{ entry: StateDomain } | { skipped: string; domain: string }>(pageIds.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < pageIds.length; i = next++) {
          const id = pageIds[i]!;
          try {
            results[i] = await actions.current(id, actor);
          } catch (err) {
            const reason = refusalOf(err);
            if (reason === null) throw err;
            const d = await deps.domains.get(id).catch(() => null);
            results[i] = { skipped: reason, domain: d?.domainName ?? id };
          }
        }
      };
      // Fleet-wide reads: each call waits for its slot in the account's budget rather than failing at once.
      await deps.routing.background(deps.budgetWaitMs, () =>
        Promise.all(Array.from({ length: Math.min(EXPORT_CONCURRENCY, pageIds.length) }, worker)),
      );
      return {
        version: FLEET_STATE_VERSION,
        domains: results.flatMap((r) => ('entry' in r ? [r.entry] : [])),
        skipped: results.flatMap((r) => ('entry' in r ? [] : [{ domain: r.domain, reason: r.skipped }])),
        page,
        hasMore: ids.length > from + FLEET_STATE_EXPORT_PAGE,
      };
    },
  };
}
export type FleetStateService = ReturnType<typeof createFleetStateService>;

import {
  FLEET_PLAN_MAX,
  HEALTH_CHECKS,
  HEALTH_STATE_LABELS,
  isHealthFixable,
  HEALTH_STATES,
  healthCheckOf,
  type DomainFilter,
  type DomainHealth,
  type HealthCheckKey,
  type HealthState,
  type HealthSummary,
} from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import type { UndoStep } from '../fleet/fleet.undo.ts';
import { ALL_CHECKS, CHEAP_CHECKS, CLOUDFLARE_CALLS, type CheckResult, type HealthChecks } from './health.checks.ts';
import { assertMayFix, type HealthFixes } from './health.fix.ts';
import type { HealthRepository } from './health.repository.ts';

/** The health jobs' kinds (run by jobs/kinds/health.ts; the routes start them by name). */
export const HEALTH_CYCLE_JOB = 'health.cycle';
export const HEALTH_CHECK_JOB = 'health.check';

export type HealthOptions = {
  cheapMinutes: number;
  fullHours: number;
  /** Minutes between two runs of the periodic job. */
  cycleMinutes: number;
  maxDomainsPerRun: number;
  concurrency: number;
  /** Cloudflare requests per window of one account the health job may spend (its part of the fleet share). */
  cloudflareCallsPerWindow: number;
  cloudflareWindowSeconds: number;
};

type Progress = (done: number, total: number) => Promise<void>;

/** Hours in words: "24 hours", "1.5 hours", "30 minutes", "12 seconds". */
export function duration(hours: number): string {
  const n = (x: number, unit: string) => `${x} ${unit}${x === 1 ? '' : 's'}`;
  if (hours >= 10) return n(Math.round(hours), 'hour');
  if (hours >= 1) return n(Math.round(hours * 10) / 10, 'hour');
  if (hours * 60 >= 1) return n(Math.round(hours * 60), 'minute');
  return n(Math.max(1, Math.round(hours * 3600)), 'second');
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** Runs items with at most `n` at once, stopping early when `signal` aborts. */
async function pool<T>(items: T[], n: number, signal: AbortSignal | undefined, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

export function createHealthService(deps: {
  database: Database;
  repo: HealthRepository;
  checks: HealthChecks;
  fixes: HealthFixes;
  /** The ids of the list's filter (a fleet selection), in list order. */
  idsForFilter: (filter: Partial<DomainFilter>, limit: number) => Promise<string[]>;
  /** Runs the job's provider calls as background work (the fleet share of each Cloudflare budget, decision 034). */
  background: <T>(fn: () => Promise<T>) => Promise<T>;
  options: HealthOptions;
}) {
  const { database, repo, checks, options: o } = deps;

  /** One check of one domain as it stands now, not stored (what a fleet plan reads). */
  const readCheck = async (domainId: string, check: HealthCheckKey): Promise<CheckResult> => {
    const [r] = await checks.run(domainId, [check]);
    return r!;
  };
  /** One check run again and stored (the list, the tab and the dashboard follow). */
  const recheck = async (domainId: string, check: HealthCheckKey): Promise<CheckResult> => {
    const r = await readCheck(domainId, check);
    await database.db.transaction((tx) => repo.store(domainId, [r], new Date(), 'fix', tx));
    return r;
  };
  /**
   * The check's single-domain fix with the value it expects, then the check again (stored). A fix after which
   * the check is still failing (or cannot be read) throws, saying so: the step is not reported greener than the
   * facts. A warning left is not the fix's (a verified Yandex host with CRITICAL problems).
   */
  const applyFix = async (
    domainId: string,
    r: CheckResult,
    actor: Actor,
  ): Promise<CheckResult & { pending?: string; changed?: boolean; stillFailing?: string; undo?: UndoStep[] }> => {
    const applied = await deps.fixes.apply(domainId, r, actor);
    const undo = applied.undo ? { undo: applied.undo } : {};
    const after = await recheck(domainId, r.check);
    // Made, but the provider verifies later (the check reads what it read before the fix): that is what it reads,
    // not a failure that contradicts the change. A check that moved and fails for another reason is below.
    if (applied.pending && after.state !== 'ok' && after.observed === r.observed)
      return { ...after, pending: applied.pending, changed: applied.changed, ...undo };
    if (after.state === 'failing' || after.state === 'unknown') {
      const label = healthCheckOf(r.check)?.label ?? r.check;
      const why = after.reason ?? `${label} reads ${after.observed ?? 'nothing'}`;
      // Changed at the provider, and the check fails for another reason: a change (never "not changed"), with why
      // the check still fails.
      if (applied.changed && applied.made) {
        const made = applied.made.charAt(0).toUpperCase() + applied.made.slice(1);
        const still = after.state === 'failing' ? 'still fails' : 'cannot be read';
        return { ...after, changed: true, stillFailing: `Changed: ${made}; the check ${still}: ${why}`, ...undo };
      }
      throw new Error(
        `Fixed through the console, but ${label} is still ${HEALTH_STATE_LABELS[after.state].toLowerCase()}` +
          `${after.reason ? `: ${after.reason}` : ''}`,
      );
    }
    return { ...after, ...undo };
  };

  /** Runs the checks of one domain and stores them; false when the domain is gone. */
  const checkDomain = async (domainId: string, mode: 'cheap' | 'full') => {
    const keys: HealthCheckKey[] = mode === 'full' ? ALL_CHECKS : CHEAP_CHECKS;
    let results;
    try {
      results = await checks.run(domainId, keys);
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
    const at = new Date();
    return database.db.transaction((tx) => repo.store(domainId, results, at, mode, tx));
  };

  const get = async (domainId: string): Promise<DomainHealth> => {
    const [rows, history, exists] = await Promise.all([
      repo.checksOf(domainId),
      repo.historyOf(domainId, 50),
      repo.existing([domainId]),
    ]);
    if (!exists.length) throw new NotFoundError('Domain not found');
    const byKey = new Map(rows.map((r) => [r.checkKey, r]));
    const list = HEALTH_CHECKS.flatMap((c) => {
      const r = byKey.get(c.key);
      if (!r) return [];
      return [
        {
          check: c.key,
          plane: c.plane,
          label: c.label,
          state: r.state as HealthState,
          observed: r.observed,
          expected: r.expected,
          reason: r.reason,
          since: iso(r.since),
          lastRun: iso(r.lastRun),
          fix: c.fix,
        },
      ];
    });
    const states = list.map((c) => c.state);
    const order: HealthState[] = ['failing', 'warning', 'unknown', 'ok', 'na'];
    return {
      domainId,
      state: order.find((s) => states.includes(s)) ?? null,
      problems: states.filter((s) => s === 'failing' || s === 'warning' || s === 'unknown').length,
      checks: list,
      history: history.map((h) => ({
        check: h.checkKey,
        from: (h.fromState as HealthState | null) ?? null,
        to: h.toState as HealthState,
        observed: h.observed,
        at: iso(h.at),
      })),
    };
  };

  /**
   * How long the whole fleet takes at the current budgets: per Cloudflare account, its domains' calls over the
   * calls it may spend per hour; every domain also waits for its turn among the run's domain limit.
   */
  const estimate = async () => {
    const perCloud = await repo.domainsPerCloud();
    const total = perCloud.reduce((a, c) => a + Number(c.n), 0);
    const callsPerHour = (o.cloudflareCallsPerWindow * 3600) / o.cloudflareWindowSeconds;
    const runsPerHour = 60 / Math.max(o.cycleMinutes, 1 / 60);
    const byRuns = (n: number) => n / (o.maxDomainsPerRun * runsPerHour);
    const worst = Math.max(0, ...perCloud.filter((c) => c.cloudId).map((c) => Number(c.n)));
    // What the budgets and the run limit alone allow; the configured intervals are the floor.
    const bound = (calls: number) =>
      Math.max(byRuns(total), callsPerHour > 0 ? (worst * calls) / callsPerHour : Infinity);
    const full = bound(CLOUDFLARE_CALLS.full);
    const cheap = bound(CLOUDFLARE_CALLS.cheap);
    return {
      total,
      budgetFull: full,
      full: Math.max(o.fullHours, full),
      cheap: Math.max(o.cheapMinutes / 60, cheap),
    };
  };

  return {
    get,
    readCheck,
    recheck,
    applyFix,

    /**
     * Fix on the Health tab: the check read again and, when it is failing, its single-domain fix (audited), then
     * the check again. Returns the domain's health as the tab shows it.
     */
    async fix(domainId: string, check: HealthCheckKey, actor: Actor): Promise<DomainHealth> {
      if (!isHealthFixable(check))
        throw new ValidationError('This check has no fix in the console', { check: 'The check has no fix' });
      assertMayFix(check, actor);
      if (!(await repo.existing([domainId])).length) throw new NotFoundError('Domain not found');
      const r = await recheck(domainId, check);
      if (r.state === 'failing') {
        await deps.fixes.apply(domainId, r, actor);
        // Whatever it is now, the tab shows it (a fix that did not take shows the check still failing).
        await recheck(domainId, check);
      }
      return get(domainId);
    },

    /** "Check now" on one domain: every check at once, stored, and the result. */
    async checkNow(domainId: string, _actor: Actor): Promise<DomainHealth> {
      if (!(await repo.existing([domainId])).length) throw new NotFoundError('Domain not found');
      await checkDomain(domainId, 'full');
      return get(domainId);
    },

    /** The domains of a fleet selection (ids, or the list's filter), for the "Check now" fleet job. */
    async selectionIds(selection: { ids?: string[]; filter?: Partial<DomainFilter> }) {
      if (selection.ids) return repo.existing(selection.ids);
      return deps.idsForFilter(selection.filter ?? {}, FLEET_PLAN_MAX);
    },

    /** Every check of each domain, a few at once, in the background share of the budgets. */
    async checkMany(ids: string[], progress: Progress, signal?: AbortSignal) {
      let done = 0;
      let gone = 0;
      await deps.background(() =>
        pool(ids, o.concurrency, signal, async (id) => {
          if (!(await checkDomain(id, 'full'))) gone++;
          done++;
          await progress(done, ids.length);
        }),
      );
      return { domains: ids.length, checked: done - gone, gone };
    },

    /**
     * One run of the periodic job: the domains whose full checks are stale, longest-unchecked first, as many as
     * each Cloudflare account's share allows until the next run; then the stale cheap checks of others with
     * what is left. Reports how long a whole cycle takes at these budgets.
     */
    async cycle(progress: Progress, signal?: AbortSignal) {
      const now = Date.now();
      const runWindows = (o.cycleMinutes * 60) / o.cloudflareWindowSeconds;
      const perCloud = Math.max(1, Math.floor(o.cloudflareCallsPerWindow * runWindows));
      const spent = new Map<string, number>();
      const take = (cloudId: string | null, calls: number) => {
        if (!cloudId) return true;
        const s = spent.get(cloudId) ?? 0;
        if (s + calls > perCloud) return false;
        spent.set(cloudId, s + calls);
        return true;
      };
      const plan: { id: string; mode: 'cheap' | 'full' }[] = [];
      const chosen = new Set<string>();
      // More candidates than a run takes, so an account whose share is spent does not hide the others' domains.
      const candidates = o.maxDomainsPerRun * 5;
      const full = await repo.due('full', new Date(now - o.fullHours * 3_600_000), candidates);
      for (const d of full) {
        if (plan.length >= o.maxDomainsPerRun) break;
        if (take(d.cloudId, CLOUDFLARE_CALLS.full)) {
          plan.push({ id: d.id, mode: 'full' });
          chosen.add(d.id);
        }
      }
      if (plan.length < o.maxDomainsPerRun) {
        const cheap = await repo.due('cheap', new Date(now - o.cheapMinutes * 60_000), candidates);
        for (const d of cheap) {
          if (plan.length >= o.maxDomainsPerRun) break;
          if (chosen.has(d.id)) continue;
          if (take(d.cloudId, CLOUDFLARE_CALLS.cheap)) plan.push({ id: d.id, mode: 'cheap' });
        }
      }
      let done = 0;
      const counts = { full: 0, cheap: 0 };
      await deps.background(() =>
        pool(plan, o.concurrency, signal, async (item) => {
          if (await checkDomain(item.id, item.mode)) counts[item.mode]++;
          done++;
          await progress(done, plan.length);
        }),
      );
      const e = await estimate();
      const message = Number.isFinite(e.full)
        ? `Whole fleet (${e.total.toLocaleString('en-US')} domains) checked every ${duration(e.full)} at the current budgets ` +
          `(the budgets alone allow every ${duration(e.budgetFull)}); HTTP and DNS every ${duration(e.cheap)}`
        : 'No Cloudflare budget is left for the health checks';
      await repo.saveCycle({
        at: new Date(),
        fullCycleHours: Number.isFinite(e.full) ? e.full : null,
        cheapCycleHours: Number.isFinite(e.cheap) ? e.cheap : null,
        message,
      });
      return { full: counts.full, cheap: counts.cheap, fullCycleHours: e.full, cheapCycleHours: e.cheap, message };
    },

    async summary(): Promise<HealthSummary> {
      const s = await repo.summary();
      const domains: Record<string, number> = { unchecked: 0 };
      for (const st of HEALTH_STATES) domains[st] = 0;
      for (const r of s.byDomain) domains[r.state ?? 'unchecked'] = Number(r.n);
      const checks = HEALTH_CHECKS.map((c) => {
        const counts: Record<string, number> = {};
        for (const st of HEALTH_STATES) counts[st] = 0;
        for (const r of s.byCheck) if (r.check === c.key) counts[r.state] = Number(r.n);
        return { check: c.key, label: `${c.plane}: ${c.label}`, counts };
      });
      return {
        domains,
        checks,
        recentFailing: s.recent.map((r) => ({
          domainId: r.domain_id,
          domainName: r.domain_name,
          check: healthCheckOf(r.check)?.label ?? r.check,
          at: iso(r.at),
        })),
        cycle: s.cycle
          ? {
              at: iso(s.cycle.at),
              fullCycleHours: s.cycle.fullCycleHours,
              cheapCycleHours: s.cycle.cheapCycleHours,
              message: s.cycle.message,
            }
          : null,
      };
    },
  };
}
export type HealthService = ReturnType<typeof createHealthService>;

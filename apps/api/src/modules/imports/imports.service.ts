import {
  IMPORT_MAX_NAMES,
  IMPORT_SOURCE_LABELS,
  IMPORT_SOURCE_RULES,
  hasRule,
  IMPORT_TEXT,
  planTallyOf,
  stateText,
  toAsciiDomain,
  type ImportItem,
  type ImportItemsQuery,
  type ImportOutcome,
  type ImportPlan,
  type ImportPlanInput,
  type ImportSource,
  type ListResult,
} from '@fleetdesk/contract';
import { systemActor, type Actor } from '../../http/context.ts';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { CloudflareRouting } from '../cloud-flare/cloudflare-routing.ts';
import type { DirectAdminService } from '../direct-admin/direct-admin.service.ts';
import type { RegistrarService } from '../domain-registrators/registrar.service.ts';
import type { DomainRegistratorsService } from '../domain-registrators/domain-registrators.service.ts';
import { unicodeOf } from '../domains/domains.repository.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { IspManagerService } from '../ispmanager/ispmanager.service.ts';
import type { ServersService } from '../servers/servers.service.ts';
import type { PlanEngine, RunCtx, RunKind } from '../plans/plans.engine.ts';
import { createPlanVerbs } from '../plans/plans.verbs.ts';
import type { PlansRepository } from '../plans/plans.repository.ts';
import type { ExistingDomain, ImportItemRow, ImportPlanRow, ImportsRepository } from './imports.repository.ts';

export const IMPORT_PLAN_JOB = 'imports.plan';
export const IMPORT_RUN_JOB = 'imports.run';

/** What an import's run works on: the names to create or link (the skipped ones are not part of the run). */
const IMPORT_RUN: RunKind = {
  kind: 'imports',
  toDo: { statuses: ['pending'], outcomes: ['create', 'link'] },
  inRun: (outcome) => outcome !== 'skip',
  unit: 'domains',
  runOutcomes: ['create', 'link'],
  runJob: IMPORT_RUN_JOB,
};

type PhaseCtx = RunCtx & {
  /** The rules of whoever queued the job: the source's rule is checked against them before it is read. */
  rules: string[];
};
type Listed = { name: string; detail: Record<string, unknown> };
type Decision = { outcome: ImportOutcome; reason: string };

const iso = (d: Date | null) => d?.toISOString() ?? null;
const zoneOf = (detail: Record<string, unknown>) => String(detail.zoneId ?? '');

/**
 * Imports (decision 043): every name a source holds (a Cloudflare account's zones, a panel's sites, a registrar
 * account's domains) is planned as create, link or skip with the reason, then run as a job that re-decides each
 * name before writing (so a second run, or a run after changes, creates nothing twice). Every write goes through
 * the domains service (audited like a form save) and each imported name gets its own audit entry.
 */
export function createImportsService(deps: {
  repo: ImportsRepository;
  plans: PlansRepository;
  plansEngine: PlanEngine;
  audit: AuditService;
  routing: Pick<CloudflareRouting, 'background'>;
  domains: Pick<DomainsService, 'create' | 'update' | 'setCloudZone'>;
  cloudFlare: Pick<CloudFlareService, 'listCloudZones'>;
  directAdmin: Pick<DirectAdminService, 'listServerDomains'>;
  ispManager: Pick<IspManagerService, 'listServerSites'>;
  registrar: Pick<RegistrarService, 'accountDomains'>;
  registrators: Pick<DomainRegistratorsService, 'get'>;
  servers: Pick<ServersService, 'get'>;
  clouds: { email(id: string): Promise<string> };
  /** How long one background Cloudflare call may wait for its budget slot. */
  budgetWaitMs: number;
}) {
  const { repo, plans, plansEngine, audit } = deps;

  const mustFind = async (id: string) => {
    const p = await repo.findPlan(id);
    if (!p) throw new NotFoundError(IMPORT_TEXT.notFound);
    return p;
  };

  /**
   * Each source is read under the rule of the area its list belongs to (decision 064): a registrar account's
   * domains, names and expiry dates, are the Domain Registrators area's, as on that area's own screens.
   */
  const assertSourceRule = (source: ImportSource, rules: readonly string[]) => {
    if (!hasRule(rules, IMPORT_SOURCE_RULES[source]))
      throw new ForbiddenError(IMPORT_TEXT.needsRule(source), 'import_rule_missing');
  };

  /** The names by outcome, and the names to write counted by the rule every kind of plan shares (outcomes.ts). */
  const countsOf = async (planId: string) => {
    const counts = { total: 0, create: 0, link: 0, skip: 0 };
    const statuses: [string, number][] = [];
    for (const r of await plans.counts(planId)) {
      counts.total += r.n;
      if (r.outcome in counts) counts[r.outcome as ImportOutcome] += r.n;
      if (IMPORT_RUN.inRun(r.outcome)) statuses.push([r.status, r.n]);
    }
    const tally = planTallyOf('imports', statuses);
    const run = {
      total: tally.total,
      done: tally.changed,
      failed: tally.failed,
      skipped: tally.skipped,
      pending: (tally.pending ?? 0) + (tally.cancelled ?? 0),
    };
    return { counts, tally, run };
  };

  const toPlan = async (p: ImportPlanRow): Promise<ImportPlan> => {
    const { counts, tally, run } = await countsOf(p.id);
    return {
      _id: p.id,
      planNo: p.planNo,
      source: p.source,
      sourceId: p.sourceId,
      sourceLabel: p.sourceLabel,
      sourceUsers: p.sourceUsers ?? null,
      state: p.state,
      stateText: stateText(p.state, tally),
      error: p.error,
      counts,
      run,
      jobId: p.jobId,
      createdBy: p.createdBy,
      createdAt: p.createdAt.toISOString(),
      plannedAt: iso(p.plannedAt),
      startedAt: iso(p.startedAt),
      finishedAt: iso(p.finishedAt),
    };
  };

  const toItem = (r: ImportItemRow): ImportItem => ({
    seq: r.seq,
    name: r.name,
    nameUnicode: r.nameUnicode ?? r.name,
    outcome: r.outcome as ImportOutcome,
    reason: r.reason,
    detail: r.detail,
    domainId: r.domainId,
    status: r.status,
    error: r.error,
  });

  /** The label of the source, which also proves it exists (a 400 on the field otherwise). */
  const labelOf = async (source: ImportSource, sourceId: string): Promise<string> => {
    try {
      if (source === 'cloudflare') return await deps.clouds.email(sourceId);
      if (source === 'registrar') return (await deps.registrators.get(sourceId)).name;
      return (await deps.servers.get(sourceId)).IPAddress;
    } catch (err) {
      if (err instanceof NotFoundError) throw new ValidationError(err.message, { sourceId: err.message });
      throw err;
    }
  };

  /**
   * Everything the source holds, read once when planning, and the panel users whose sites were read (null for a
   * source without users).
   */
  const listSource = async (p: ImportPlanRow): Promise<{ listed: Listed[]; users?: string[] }> => {
    if (p.source === 'cloudflare') {
      const { zones } = await deps.routing.background(deps.budgetWaitMs, () =>
        deps.cloudFlare.listCloudZones(p.sourceId),
      );
      return { listed: zones.map((z) => ({ name: z.name, detail: { zoneId: z.id, zoneStatus: z.status } })) };
    }
    // The panels' own refusal speaks of "the domain's server": here it is the import's server.
    const panel = async <T>(list: () => Promise<T>, label: string): Promise<T> => {
      try {
        return await list();
      } catch (err) {
        if (err instanceof AppError && err.code === 'no_panel_credentials')
          throw new ValidationError(IMPORT_TEXT.notPanel(label), undefined, 'no_panel_credentials');
        throw err;
      }
    };
    if (p.source === 'directadmin') {
      const { users, domains } = await panel(() => deps.directAdmin.listServerDomains(p.sourceId), 'DirectAdmin');
      return { listed: domains.map((d) => ({ name: d.name, detail: { user: d.user } })), users };
    }
    if (p.source === 'ispmanager') {
      const sites = await panel(() => deps.ispManager.listServerSites(p.sourceId), 'ISPmanager');
      return { listed: sites.map((name) => ({ name, detail: {} })) };
    }
    const domains = await deps.registrar.accountDomains(p.sourceId);
    return { listed: domains.map((d) => ({ name: d.domainName, detail: { expirationDate: d.expirationDate } })) };
  };

  /** The rule of each source: what to do with a name, given the console's domain of it (if any) and `zonesElsewhere`. */
  const decide = (
    p: ImportPlanRow,
    detail: Record<string, unknown>,
    existing: ExistingDomain | undefined,
    linked: Map<string, string>,
  ): Decision => {
    if (p.source === 'cloudflare') {
      const zoneId = zoneOf(detail);
      const zoneElsewhere = linked.get(zoneId);
      if (existing?.cloudZoneId === zoneId && existing.cloudId === p.sourceId)
        return { outcome: 'skip', reason: IMPORT_TEXT.alreadyZone };
      if (zoneElsewhere && zoneElsewhere !== existing?.domainName)
        return { outcome: 'skip', reason: IMPORT_TEXT.zoneElsewhere(unicodeOf(zoneElsewhere)) };
      if (!existing) return { outcome: 'create', reason: IMPORT_TEXT.newZone(zoneId) };
      if (existing.cloudZoneId) return { outcome: 'skip', reason: IMPORT_TEXT.otherZone(existing.cloudZoneId) };
      if (existing.cloudId && existing.cloudId !== p.sourceId)
        return { outcome: 'skip', reason: IMPORT_TEXT.otherCloud(existing.cloudEmail ?? existing.cloudId) };
      return { outcome: 'link', reason: IMPORT_TEXT.linkZone(zoneId) };
    }
    if (p.source === 'registrar') {
      if (!existing) return { outcome: 'create', reason: IMPORT_TEXT.newRegistrar };
      if (existing.domainRegistratorId === p.sourceId) return { outcome: 'skip', reason: IMPORT_TEXT.alreadyRegistrar };
      if (existing.domainRegistratorId) return { outcome: 'skip', reason: IMPORT_TEXT.otherRegistrar };
      return { outcome: 'link', reason: IMPORT_TEXT.linkRegistrar };
    }
    if (!existing) return { outcome: 'create', reason: IMPORT_TEXT.newOnServer(p.sourceLabel) };
    if (existing.serverId === p.sourceId) return { outcome: 'skip', reason: IMPORT_TEXT.alreadyServer };
    if (existing.serverId) return { outcome: 'skip', reason: IMPORT_TEXT.otherServer(existing.serverIp ?? '') };
    return { outcome: 'link', reason: IMPORT_TEXT.linkServer(p.sourceLabel) };
  };

  /** The console's domains already linked to the zones of these names, by zone id (a Cloudflare source's only). */
  const zonesElsewhere = async (p: ImportPlanRow, rows: { detail: Record<string, unknown> }[]) =>
    p.source === 'cloudflare'
      ? repo.domainsByZoneIds(rows.map((r) => zoneOf(r.detail)).filter(Boolean))
      : new Map<string, string>();

  const verbs = createPlanVerbs(plansEngine, audit, {
    run: IMPORT_RUN,
    find: mustFind,
    show: toPlan,
    guard: (p, actor) => assertSourceRule(p.source, actor.rules),
    cancelFrom: ['planning', 'planned', 'running', 'paused'],
    audit: {
      entity: 'import_plans',
      noKey: 'importNo',
      actions: {
        run: 'run_import',
        pause: 'pause_import',
        resume: 'resume_import',
        retry: 'retry_import',
        cancel: 'cancel_import',
      },
    },
    refuse: {
      code: 'import',
      notPlanned: IMPORT_TEXT.notPlanned,
      notRunnable: IMPORT_TEXT.notRunnable,
      notRunning: IMPORT_TEXT.notRunning,
      notPaused: IMPORT_TEXT.notPaused,
      finished: IMPORT_TEXT.finished,
      noFailed: IMPORT_TEXT.noFailed,
    },
    jobExtra: (actor) => ({ rules: actor.rules }),
  });

  /** Writes one name as planned; the name is decided again first, so what is done already is not redone. */
  const runItem = async (p: ImportPlanRow, it: ImportItemRow, actor: Actor) => {
    const existing = (await repo.existingByNames([it.name])).get(it.name);
    const now = decide(p, it.detail, existing, await zonesElsewhere(p, [it]));
    if (now.outcome === 'skip') {
      const done = [IMPORT_TEXT.alreadyZone, IMPORT_TEXT.alreadyServer, IMPORT_TEXT.alreadyRegistrar] as string[];
      const error = done.includes(now.reason) ? IMPORT_TEXT.alreadyDone : now.reason;
      return { status: 'skipped', error, domainId: existing?.id ?? null };
    }
    // What the source sets on the domain (a zone's account only where the domain has none yet).
    const fields: Record<string, unknown> =
      p.source === 'cloudflare'
        ? existing?.cloudId
          ? {}
          : { cloudId: p.sourceId }
        : p.source === 'registrar'
          ? { domainRegistratorId: p.sourceId, domainRegistratorExpirationDate: it.detail.expirationDate ?? null }
          : { serverId: p.sourceId };
    let domainId = existing?.id ?? null;
    if (!existing) {
      const input = { domainName: it.name, status: 'active', ...fields };
      domainId = (await deps.domains.create(input as Parameters<DomainsService['create']>[0], actor))._id;
    } else if (Object.keys(fields).length)
      await deps.domains.update(existing.id, fields as Parameters<DomainsService['update']>[1], actor);
    if (p.source === 'cloudflare' && domainId)
      await deps.domains.setCloudZone(domainId, { cloudZoneId: String(it.detail.zoneId), cloudRulesetId: null }, actor);
    await audit.record(actor, {
      action: 'import_domain',
      entity: 'domains',
      entityId: domainId ?? undefined,
      details: { importNo: p.planNo, source: p.source, from: p.sourceLabel, domainName: it.name, outcome: now.outcome },
    });
    return { status: 'done', error: null, domainId };
  };

  return {
    toPlan,

    async create(input: ImportPlanInput, actor: Actor): Promise<ImportPlan> {
      const source = input.source;
      const sourceId = input.sourceId!;
      assertSourceRule(source, actor.rules);
      const label = await labelOf(source, sourceId);
      const plan = await repo.insertPlan({ source, sourceId, sourceLabel: label, createdBy: actor.username });
      await audit.record(actor, {
        action: 'create_import',
        entity: 'import_plans',
        entityId: plan.id,
        details: { importNo: plan.planNo, source, from: label },
      });
      await plansEngine.startJob(plan, IMPORT_PLAN_JOB, actor, { rules: actor.rules });
      return toPlan(await mustFind(plan.id));
    },

    async get(id: string): Promise<ImportPlan> {
      return toPlan(await mustFind(id));
    },

    async list(page: number): Promise<ListResult<ImportPlan>> {
      const res = await repo.listPlans(page);
      return { items: await Promise.all(res.items.map(toPlan)), itemsCount: res.itemsCount };
    },

    async items(id: string, q: ImportItemsQuery, actor: Actor): Promise<ListResult<ImportItem>> {
      assertSourceRule((await mustFind(id)).source, actor.rules);
      const res = await plans.itemsPage(id, q);
      return { items: res.items.map(toItem), itemsCount: res.itemsCount };
    },

    run: (id: string, actor: Actor): Promise<ImportPlan> =>
      verbs.run(id, actor, async (p) => {
        if (p.state === 'planned' && (await countsOf(p.id)).run.total === 0)
          throw new ConflictError(IMPORT_TEXT.nothingToDo, undefined, 'import_nothing');
      }),
    cancel: verbs.cancel,
    /** No name starts from now on; the one being written finishes, and Resume carries on from the next. */
    pause: verbs.pause,
    resume: verbs.resume,
    /** Writes again only the names that failed, each decided again first. */
    retryFailed: (id: string, actor: Actor) =>
      verbs.retryFailed(id, actor, async (p) => (await countsOf(p.id)).run.failed),

    jobResuming: verbs.jobResuming,
    jobCancelling: verbs.jobCancelling,
    /** The job ended cancelled, whichever way: the import reads as its job; a paused one keeps its names to write. */
    async jobStopped(id: string, which: 'plan' | 'run') {
      const p = await plansEngine.jobStopped(IMPORT_RUN, id, which);
      return p ? (await countsOf(id)).run : undefined;
    },

    /** The plan job: reads the whole source and decides every name. */
    async planPhase(planId: string, ctx: PhaseCtx) {
      const p = await repo.findPlan(planId);
      if (!p || p.state !== 'planning') return { skipped: p?.state ?? 'missing' };
      assertSourceRule(p.source, ctx.rules);
      await ctx.progress({ done: 0, total: 0, unit: 'names', message: `Reading ${IMPORT_SOURCE_LABELS[p.source]}` });
      const { listed, users } = await listSource(p);
      if (listed.length > IMPORT_MAX_NAMES) throw new ValidationError(IMPORT_TEXT.tooMany);
      const byName = new Map<string, { name: string; detail: Record<string, unknown>; bad: boolean }>();
      for (const l of listed) {
        const ascii = toAsciiDomain(l.name);
        const name = ascii ?? l.name.trim().toLowerCase();
        if (!byName.has(name)) byName.set(name, { name, detail: l.detail, bad: ascii === null });
      }
      const rows = [...byName.values()];
      const existing = await repo.existingByNames(rows.filter((r) => !r.bad).map((r) => r.name));
      const elsewhere = await zonesElsewhere(p, rows);
      // A server's free places go to the new names in the order the panel lists them; the rest is overflow.
      const cap =
        p.source === 'directadmin' || p.source === 'ispmanager' ? await repo.serverCapacity(p.sourceId) : null;
      let free = cap && cap.limit > 0 ? Math.max(0, cap.limit - cap.qty) : Number.POSITIVE_INFINITY;
      const items = rows.map((r) => {
        let d: Decision = r.bad
          ? { outcome: 'skip', reason: IMPORT_TEXT.badName }
          : decide(p, r.detail, existing.get(r.name), elsewhere);
        if (cap && d.outcome !== 'skip') {
          if (free > 0) free--;
          else d = { outcome: 'skip', reason: IMPORT_TEXT.overflow(cap.ip, cap.limit) };
        }
        return {
          name: r.name,
          nameUnicode: unicodeOf(r.name),
          outcome: d.outcome,
          reason: d.reason,
          detail: r.detail,
          domainId: existing.get(r.name)?.id ?? null,
          status: d.outcome === 'skip' ? 'skipped' : 'pending',
        };
      });
      await plans.replaceItems(p.id, items);
      await repo.transition(p.id, ['planning'], {
        state: 'planned',
        plannedAt: new Date(),
        detail: { sourceUsers: users ?? null },
      });
      // The last progress read "Reading …": the Jobs screen shows what was read instead.
      await ctx.progress({ done: items.length, total: items.length, unit: 'names', message: 'Planned' });
      return { names: items.length };
    },

    /** The run job: one name at a time, each decided again before it is written. */
    async runPhase(planId: string, ctx: PhaseCtx) {
      const p = await repo.findPlan(planId);
      if (!p || p.state !== 'running') return { skipped: p?.state ?? 'missing' };
      assertSourceRule(p.source, ctx.rules);
      const actor = systemActor(`import #${p.planNo}${p.createdBy ? ` (${p.createdBy})` : ''}`);
      const ran = await plansEngine.run(IMPORT_RUN, p.id, ctx, (it) => runItem(p, it, actor));
      if (ran.stopped) return { stopped: ran.stopped };
      return { ...(await countsOf(p.id)).run, tally: ran.tally };
    },

    jobEnded: verbs.jobEnded,
  };
}
export type ImportsService = ReturnType<typeof createImportsService>;

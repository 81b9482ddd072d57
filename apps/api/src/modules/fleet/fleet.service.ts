import {
  FLEET_ACTION_LABELS,
  FLEET_CSV_COLUMNS,
  FLEET_MESSAGES,
  FLEET_PLAN_MAX,
  FLEET_REVERT_MESSAGES,
  FLEET_STATE_MESSAGES,
  FleetActionSchema,
  auditRevertOf,
  DOMAIN_FIELDS_REVERTIBLE,
  describeFleetAction,
  hasAnyRule,
  stateText,
  planTallyOf,
  tallyText,
  type RunTally,
  type FleetAction,
  type FleetItem,
  type FleetItemsQuery,
  type FleetPlan,
  type FleetPlanInput,
  type FleetPlanSummary,
  type FleetTimeline,
  FLEET_TIMELINE_MINUTES,
  type FleetRevertInput,
  type FleetRunInput,
  type FleetStateChange,
  type ListResult,
  type DnsTemplateRecord,
  type Domain,
} from '@fleetdesk/contract';
import { isConnectionError, untilConnected } from '../../db/pg-errors.ts';
import { systemActor, type Actor } from '../../http/context.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudflareRouting } from '../cloud-flare/cloudflare-routing.ts';
import { CSV_BOM, csvLine } from '../domains/csv.ts';
import { assertMayFix } from '../health/health.fix.ts';
import {
  createFleetActions,
  refusalOf,
  refused,
  type FleetDeps,
  type PlanResult,
  type TargetLabels,
} from './fleet.actions.ts';
import { batchedWriter, readAhead, type PlannedRow } from './fleet.batching.ts';
import { allPages, byLane, messageOf, type PlanEngine, type RunCtx, type RunKind } from '../plans/plans.engine.ts';
import { createPlanVerbs } from '../plans/plans.verbs.ts';
import type { ImportItemRow, ImportsRepository } from '../imports/imports.repository.ts';
import {
  fleetItemOf,
  type FleetItemInput,
  type FleetItemRow,
  type FleetPlanRow,
  type FleetRepository,
} from './fleet.repository.ts';
import { createFleetRevertActions, type RevertSeen } from './fleet.revert.ts';
import { createFleetStateActions, type DesiredState } from './fleet.state.ts';
import type { FieldKey, UndoStep } from './fleet.undo.ts';

export const FLEET_PLAN_JOB = 'fleet.plan';
export const FLEET_RUN_JOB = 'fleet.run';
/** What a fleet run works on, for the plan engine: the domains planned as a change. */
const FLEET_RUN: RunKind = {
  kind: 'fleet',
  toDo: { outcomes: ['change'], statuses: ['pending'] },
  inRun: (outcome) => outcome === 'change',
  unit: 'domains',
  runOutcomes: ['change'],
  runJob: FLEET_RUN_JOB,
};

const EXPORT_BATCH = 2000;

export type FleetOptions = {
  /** Domains of one Cloudflare account worked on at once; the account's budget paces them. */
  accountConcurrency: number;
  /** How long one background call may wait for a budget slot before it fails. */
  budgetWaitMs: number;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The run's counts as the plan shows them, from the shared tally (outcomes.ts). */
const runOf = (t: RunTally) => ({
  total: t.total,
  done: t.changed,
  stillFailing: t.stillFailing ?? 0,
  same: t.same,
  failed: t.failed,
  skipped: t.skipped,
  cancelled: t.cancelled ?? 0,
  pending: t.pending ?? 0,
});
/** The health fixes that record what they changed (health.fix.ts); the others cannot be put back. */
const HEALTH_FIXES_WITH_UNDO = new Set(['cf_ssl', 'cf_tls13', 'cf_waf']);
const isRemoval = (undo: unknown) => Array.isArray(undo) && undo.some((s: UndoStep) => s.area === 'removed');
/** A revert's row of a domain as the console holds it now; refused with `gone` when it holds it no more. */
const heldRow = (
  d: { id: string; cloudId: string | null; cloudEmail: string | null } | undefined,
  domainName: string,
  desired: unknown,
  gone: string,
) => ({
  domainId: d?.id ?? null,
  domainName,
  cloudId: d?.cloudId ?? null,
  cloudEmail: d?.cloudEmail ?? null,
  desired,
  refusal: d ? null : gone,
});

/** Google's fleet actions are the Google Search Console area's: a domains-only user may not plan them. */
function assertMayGoogle(kind: string, actor: Actor) {
  if ((kind === 'google_verify' || kind === 'google_sitemap') && !hasAnyRule(actor.rules, 'cnv:google-search'))
    throw new ForbiddenError(FLEET_MESSAGES.googleActionRule);
}

export function createFleetService(
  deps: FleetDeps & {
    repo: FleetRepository;
    /** The plan engine: run, pause, resume, retry and cancel, as for every kind of plan. */
    plans: PlanEngine;
    audit: AuditService;
    routing: Pick<CloudflareRouting, 'background'>;
    /** The domains a filter selects, up to `limit` (the list's own filter; set once the filters exist). */
    idsForFilter?: (filter: unknown, limit: number) => Promise<string[]>;
    labels: {
      server(id: string): Promise<string>;
      brand(id: string): Promise<string>;
      registrar?(id: string): Promise<string>;
    };
    /** Cloudflare requests per account and minute (the run's budget chart), and the budget they are drawn against. */
    requests?: {
      keyOf(cloudId: string): Promise<string>;
      read(keys: string[], from: Date, to: Date): Promise<{ key: string; minute: Date; n: number }[]>;
      perMinute: number;
      backgroundShare: number;
    };
    /** An import and the names its run created or linked (an import's revert, issue 44). */
    imports?: Pick<ImportsRepository, 'findPlan' | 'doneItems'>;
    /** A DNS template's name and records, to keep in the plan ("apply DNS template"). */
    dnsTemplate?: (id: string) => Promise<{ name: string; records: DnsTemplateRecord[] } | undefined>;
    options: FleetOptions;
  },
) {
  const { repo, audit, plans } = deps;
  const actions = createFleetActions(deps);
  const stateActions = createFleetStateActions(deps);
  const revertActions = createFleetRevertActions(deps);

  const mustFind = async (id: string) => {
    const p = await repo.findPlan(id);
    if (!p) throw new NotFoundError(FLEET_MESSAGES.notFound);
    return p;
  };
  const actionOf = (p: FleetPlanRow): FleetAction => FleetActionSchema.parse(p.action);

  /** Counts by outcome and, for the changes, by step status (the one rule of outcomes.ts); per account too. */
  const countsOf = async (p: Pick<FleetPlanRow, 'id'>) => {
    const rows = await repo.counts(p.id);
    const counts = { total: 0, pending: 0, change: 0, same: 0, refused: 0 };
    for (const r of rows) {
      counts.total += r.n;
      if (r.outcome in counts) counts[r.outcome as keyof typeof counts] += r.n;
    }
    const changes = rows.filter((r) => r.outcome === 'change');
    const tallyOf = (rs: typeof rows) =>
      planTallyOf(
        'fleet',
        rs.map((r): [string, number] => [r.status, r.n]),
      );
    const tally = tallyOf(changes);
    const accounts: FleetPlan['accounts'] = byLane(changes, (r) => r.cloudId).map((rs) => ({
      cloudId: rs[0]!.cloudId,
      cloudEmail: rs[0]!.cloudEmail,
      ...runOf(tallyOf(rs)),
    }));
    return { counts, run: runOf(tally), tally, accounts };
  };

  /** Seconds left at the pace of the last minute of the run (or of planning). */
  const etaOf = async (p: FleetPlanRow, left: number): Promise<number | null> => {
    if (p.state !== 'running' && p.state !== 'planning') return null;
    if (left === 0) return 0;
    const since = new Date(Date.now() - 60_000);
    const start = p.state === 'running' ? p.startedAt : p.createdAt;
    const from = start && start > since ? start : since;
    const seconds = (Date.now() - from.getTime()) / 1000;
    const done = p.state === 'running' ? await repo.finishedSince(p.id, from) : null;
    if (done === null || done === 0 || seconds < 1) return null;
    return Math.ceil(left / (done / seconds));
  };

  /** Why the plan's run cannot be reverted (null when it can): its kind, its state, or nothing changed. */
  const revertBlocker = (p: FleetPlanRow, action: FleetAction, changed: number): string | null => {
    const byKind = FLEET_REVERT_MESSAGES.kind[action.kind];
    if (byKind) return byKind;
    if (!p.startedAt) return FLEET_REVERT_MESSAGES.notStarted(p.state);
    if (p.state === 'running') return FLEET_REVERT_MESSAGES.running;
    if (changed === 0) return FLEET_REVERT_MESSAGES.nothing;
    return null;
  };

  const toPlan = async (p: FleetPlanRow): Promise<FleetPlan> => {
    const action = p.action as FleetAction;
    const { counts, run, tally, accounts } = await countsOf(p);
    const blocker = revertBlocker(p, action, run.done);
    return {
      _id: p.id,
      planNo: p.planNo,
      action: p.action,
      actionKind: action.kind,
      actionLabel: FLEET_ACTION_LABELS[action.kind] ?? action.kind,
      description: describeFleetAction(action),
      state: p.state,
      stateText: stateText(p.state, tally),
      runText: p.startedAt ? tallyText(tally) : '',
      error: p.error,
      counts,
      run,
      accounts,
      etaSeconds: await etaOf(p, p.state === 'running' ? run.pending : 0),
      jobId: p.jobId,
      createdBy: p.createdBy,
      createdAt: p.createdAt.toISOString(),
      plannedAt: iso(p.plannedAt),
      startedAt: iso(p.startedAt),
      finishedAt: iso(p.finishedAt),
      revert: { possible: blocker === null, reason: blocker },
    };
  };

  const toItem = (r: FleetItemRow): FleetItem => ({
    seq: r.seq,
    domainId: r.domainId,
    domainName: r.domainName,
    cloudId: r.cloudId,
    cloudEmail: r.cloudEmail,
    outcome: r.outcome as FleetItem['outcome'],
    before: r.before,
    after: r.after,
    reason: r.reason,
    status: r.status as FleetItem['status'],
    error: r.error,
    changes: (r.changes as FleetStateChange[] | null) ?? null,
    changedSince: (r.seen as RevertSeen | null)?.changedSince === true,
    forced: r.forced,
  });

  /** The label of the record a field names, or that it is gone (a revert still puts its id back, shown as such). */
  const labelOf = (get?: (id: string) => Promise<string>) => async (id: unknown) => {
    if (id === null || id === undefined) return 'none';
    return get ? get(String(id)).catch(() => `${String(id)} (removed)`) : String(id);
  };
  /** The domain's status and references as an undo step names them, each with how its value reads. */
  const undoAreas = {
    status: ['status', String],
    serverId: ['server', labelOf(deps.labels.server)],
    brandId: ['brand', labelOf(deps.labels.brand)],
    domainRegistratorId: ['registrar', labelOf(deps.labels.registrar)],
  } as const;
  /** A domain form change's undo steps, from its audit entry's diff (the fields a revert puts back). */
  const fieldUndoOf = async (diff: Record<string, { before: unknown; after: unknown }>): Promise<UndoStep[]> => {
    const steps: UndoStep[] = [];
    const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
    for (const [key, { before, after }] of Object.entries(diff)) {
      if (!(key in DOMAIN_FIELDS_REVERTIBLE)) continue;
      if (key in undoAreas) {
        const [area, text] = undoAreas[key as keyof typeof undoAreas];
        steps.push({
          area,
          before: str(before),
          after: str(after),
          beforeText: await text(before),
          afterText: await text(after),
        });
      } else
        steps.push({
          area: 'field',
          key: key as FieldKey,
          before: (before ?? null) as string | boolean | null,
          after: (after ?? null) as string | boolean | null,
        });
    }
    return steps;
  };

  const labelsFor = async (a: FleetAction): Promise<TargetLabels> => {
    if (a.kind === 'set_server' && a.serverId) return { server: await deps.labels.server(a.serverId) };
    if (a.kind === 'set_brand' && a.brandId) return { brand: await deps.labels.brand(a.brandId) };
    return {};
  };

  const jobActorOf = (p: FleetPlanRow): Actor =>
    systemActor(`fleet plan #${p.planNo}${p.createdBy ? ` (${p.createdBy})` : ''}`);
  const verbs = createPlanVerbs(plans, audit, {
    run: FLEET_RUN,
    find: mustFind,
    show: toPlan,
    cancelFrom: ['planning', 'planned', 'running', 'paused'],
    audit: { entity: 'fleet_plans', noKey: 'planNo', actions: { retry: 'retry_failed' } },
    refuse: {
      code: 'fleet',
      notPlanned: FLEET_MESSAGES.notPlanned,
      notRunnable: FLEET_MESSAGES.notRunnable,
      notRunning: FLEET_MESSAGES.notRunning,
      notPaused: FLEET_MESSAGES.notPaused,
      finished: FLEET_MESSAGES.finished,
      noFailed: FLEET_MESSAGES.noFailed,
    },
  });
  /** The plan keeps the template as it is now, so that its run does what it showed. */
  const withTemplate = async (a: Extract<FleetAction, { kind: 'dns_template' }>): Promise<FleetAction> => {
    const t = await deps.dnsTemplate?.(a.dnsTemplateId);
    if (!t)
      throw new ValidationError(FLEET_MESSAGES.templateNotFound, {
        'action.dnsTemplateId': FLEET_MESSAGES.templateNotFound,
      });
    return { ...a, template: { name: t.name, records: t.records } };
  };

  const service = {
    toPlan,

    async create(input: FleetPlanInput, actor: Actor): Promise<FleetPlan> {
      const given: FleetAction = input.action;
      if (given.kind === 'health_fix') assertMayFix(given.check, actor);
      assertMayGoogle(given.kind, actor);
      const action: FleetAction = given.kind === 'dns_template' ? await withTemplate(given) : given;
      // A target that does not exist is the operator's mistake, answered before anything is read.
      await labelsFor(action).catch((err) => {
        if (!(err instanceof NotFoundError)) throw err;
        const field = action.kind === 'set_server' ? 'action.serverId' : 'action.brandId';
        throw new ValidationError(err.message, { [field]: err.message });
      });
      let ids: string[];
      const sel = input.selection as { ids?: string[]; filter?: unknown };
      if (sel.ids) ids = [...new Set(sel.ids)];
      else if (deps.idsForFilter) ids = await deps.idsForFilter(sel.filter, FLEET_PLAN_MAX + 1);
      else throw new ValidationError(FLEET_MESSAGES.empty);
      if (ids.length > FLEET_PLAN_MAX) throw new ValidationError(FLEET_MESSAGES.tooMany);
      const domainsFound = await repo.domainsByIds(ids);
      if (!domainsFound.length) throw new ValidationError(FLEET_MESSAGES.empty, { selection: FLEET_MESSAGES.empty });
      return service.createWithItems(
        action,
        input.selection as Record<string, unknown>,
        domainsFound.map(({ id, ...d }) => ({ ...d, domainId: id, refusal: null })),
        actor,
      );
    },

    /**
     * A plan of these items (the selected domains; a desired-state file's, each with its desired state; a revert's),
     * an item refused already when the console does not hold its domain. Planned by the same job as every plan.
     */
    async createWithItems(
      action: FleetAction,
      selection: Record<string, unknown>,
      items: (FleetItemInput & { refusal: string | null })[],
      actor: Actor,
    ): Promise<FleetPlan> {
      if (!items.length) throw new ValidationError(FLEET_MESSAGES.empty, { domains: FLEET_MESSAGES.empty });
      const plan = await repo.insertPlan(
        {
          action: action as Record<string, unknown>,
          selection,
          state: 'planning',
          total: items.length,
          createdBy: actor.username,
        },
        items.map(({ refusal, ...it }) =>
          refusal ? { ...it, outcome: 'refused', reason: refusal, desired: null } : it,
        ),
      );
      await audit.record(actor, {
        action: 'create_plan',
        entity: 'fleet_plans',
        entityId: plan.id,
        details: { planNo: plan.planNo, action, domains: items.length },
      });
      await plans.startJob(plan, FLEET_PLAN_JOB, actor);
      return toPlan(await mustFind(plan.id));
    },

    async get(id: string): Promise<FleetPlan> {
      return toPlan(await mustFind(id));
    },

    async list(page: number): Promise<ListResult<FleetPlanSummary>> {
      const res = await repo.listPlans(page);
      const items = await Promise.all(
        res.items.map(async (p) => {
          const { accounts: _accounts, ...rest } = await toPlan(p);
          return rest;
        }),
      );
      return { items, itemsCount: res.itemsCount };
    },

    /** The run over time: each minute from its start (at most the last day), what each account finished. */
    async timeline(id: string): Promise<FleetTimeline> {
      const p = await mustFind(id);
      const minuteText = (d: Date) => d.toISOString().replace('.000Z', 'Z');
      const base = { startedAt: iso(p.startedAt), finishedAt: iso(p.finishedAt) };
      if (!p.startedAt)
        return { ...base, accounts: [], budgetPerMinute: 0, backgroundPerMinute: 0, minutes: [], truncated: false };
      const end = p.finishedAt && !['running', 'paused'].includes(p.state) ? p.finishedAt : new Date();
      const minuteOf = (d: Date) => Math.floor(d.getTime() / 60_000) * 60_000;
      const last = minuteOf(end);
      // From the minute before the run started (nothing done yet), so that even a run of one minute draws a line.
      const first = Math.max(minuteOf(p.startedAt) - 60_000, last - (FLEET_TIMELINE_MINUTES - 1) * 60_000);
      const rows = await repo.finishedPerMinute(p.id, new Date(first));
      const accounts = new Set(rows.map((r) => r.account ?? 'no cloud'));
      const minutes = new Map<string, FleetTimeline['minutes'][number]>();
      for (let t = first; t <= last; t += 60_000) {
        const minute = minuteText(new Date(t));
        minutes.set(minute, { minute, changed: 0, same: 0, failed: 0, skipped: 0, accounts: {}, requests: {} });
      }
      for (const r of rows) {
        const m = minutes.get(r.minute);
        if (!m) continue;
        if (r.status === 'done' || r.status === 'changed_failing') m.changed += r.n;
        else if (r.status === 'same') m.same += r.n;
        else if (r.status === 'failed') m.failed += r.n;
        else if (r.status === 'skipped') m.skipped += r.n;
        const a = r.account ?? 'no cloud';
        m.accounts[a] = (m.accounts[a] ?? 0) + r.n;
      }
      // Requests per account and minute, as every process counted them (an account's other work included).
      const budget = deps.requests;
      const clouds = await repo.cloudsOf(p.id);
      if (budget && clouds.length) {
        const keyed = await Promise.all(
          clouds.map(async (c) => ({ email: c.email, key: await budget.keyOf(c.cloudId).catch(() => null) })),
        );
        const emailOf = new Map(keyed.filter((k) => k.key).map((k) => [k.key!, k.email]));
        for (const r of await budget.read([...emailOf.keys()], new Date(first), new Date(last + 60_000))) {
          const m = minutes.get(minuteText(new Date(r.minute)));
          const email = emailOf.get(r.key);
          if (m && email) m.requests[email] = (m.requests[email] ?? 0) + r.n;
        }
        for (const c of clouds) accounts.add(c.email);
      }
      return {
        ...base,
        accounts: [...accounts].sort(),
        budgetPerMinute: budget?.perMinute ?? 0,
        backgroundPerMinute: Math.floor((budget?.perMinute ?? 0) * (budget?.backgroundShare ?? 1)),
        minutes: [...minutes.values()],
        truncated: first > minuteOf(p.startedAt) - 60_000,
      };
    },

    async items(id: string, q: FleetItemsQuery): Promise<ListResult<FleetItem>> {
      await mustFind(id);
      const res = await repo.itemsPage(id, q);
      return { items: res.items.map(toItem), itemsCount: res.itemsCount };
    },

    /** The plan as CSV, batch by batch; the first chunk is the header row. */
    async *csv(id: string): AsyncGenerator<string> {
      await mustFind(id);
      yield CSV_BOM + csvLine(FLEET_CSV_COLUMNS);
      for (let after = 0; ;) {
        const rows = await repo.exportBatch(id, after, EXPORT_BATCH);
        if (!rows.length) return;
        yield rows
          .map((r) =>
            csvLine([
              r.domainName,
              r.cloudEmail,
              r.outcome,
              r.before,
              r.after,
              r.reason,
              r.outcome === 'change' ? r.status : '',
              r.error,
            ]),
          )
          .join('');
        after = rows[rows.length - 1]!.seq;
      }
    },

    /** Starts the run of a planned plan; `maxChanges` is `fleetdesk apply --max-changes`, refused before it runs. */
    run: (id: string, actor: Actor, input: FleetRunInput = {}): Promise<FleetPlan> =>
      verbs.run(id, actor, async (p) => {
        if (input.maxChanges === undefined || p.state !== 'planned') return;
        const { counts } = await countsOf(p);
        if (counts.change > input.maxChanges)
          throw new ConflictError(
            FLEET_STATE_MESSAGES.maxChanges(counts.change, input.maxChanges),
            undefined,
            'fleet_max_changes',
          );
      }),
    pause: verbs.pause,
    resume: verbs.resume,
    jobResuming: verbs.jobResuming,
    cancel: verbs.cancel,
    /** Runs again only the domains whose step failed. */
    retryFailed: (id: string, actor: Actor) =>
      verbs.retryFailed(id, actor, async (p) => (await countsOf(p)).run.failed),

    /**
     * "Revert this run": a new plan whose rows put back what each changed domain's step recorded. A row without a
     * record (a run before undo existed) is refused with why; the plan is read and shown before anything runs.
     */
    async revert(input: FleetRevertInput, actor: Actor): Promise<FleetPlan> {
      if ('auditId' in input) return service.revertAudit(input.auditId, actor);
      if ('importId' in input) return service.revertImport(input.importId, actor);
      const p = await mustFind(input.planId);
      const action = actionOf(p);
      const { run } = await countsOf(p);
      const blocker = revertBlocker(p, action, run.done);
      if (blocker) throw new ConflictError(blocker, undefined, 'fleet_not_revertible');
      const rows = await allPages((after, limit) => repo.changedItems(p.id, after, limit));
      const found = new Set(
        (await repo.domainsByIds(rows.flatMap((r) => (r.domainId ? [r.domainId] : [])))).map((d) => d.id),
      );
      const noUndo =
        action.kind === 'health_fix' && !HEALTH_FIXES_WITH_UNDO.has(action.check)
          ? FLEET_REVERT_MESSAGES.healthFixNoUndo
          : FLEET_REVERT_MESSAGES.notRecorded;
      return service.createWithItems(
        { kind: 'revert', planId: p.id, planNo: p.planNo, actionKind: action.kind },
        { revertOf: p.id },
        rows.map((r) => {
          // A domain the run removed is absent by design: its row puts it back under its own id.
          const present = !!r.domainId && (found.has(r.domainId) || isRemoval(r.undo));
          return {
            domainId: present ? r.domainId : null,
            domainName: r.domainName,
            cloudId: r.cloudId,
            cloudEmail: r.cloudEmail,
            desired: r.undo,
            refusal: !present ? FLEET_MESSAGES.domainGone : r.undo ? null : noUndo,
          };
        }),
        actor,
      );
    },

    /** A revert of one audited change (a DNS batch, a setting, redirects): a plan of one row, from the entry's undo. */
    async revertAudit(auditId: string, actor: Actor): Promise<FleetPlan> {
      const e = await audit.find(auditId);
      if (!e) throw new NotFoundError(FLEET_REVERT_MESSAGES.auditNotFound);
      const r = auditRevertOf(e);
      if (!r.possible)
        throw new ConflictError(r.reason ?? FLEET_REVERT_MESSAGES.notAChange, undefined, 'fleet_not_revertible');
      const [d] = await repo.domainsByIds(e.entityId ? [e.entityId] : []);
      const name = d?.domainName ?? String(e.details?.domainName ?? e.entityId ?? 'unknown');
      const steps = r.snapshotId
        ? ([{ area: 'content', snapshotId: r.snapshotId }] satisfies UndoStep[])
        : e.action === 'update'
          ? await fieldUndoOf(e.diff ?? {})
          : e.details?.undo;
      return service.createWithItems(
        { kind: 'revert', auditId: e._id, auditNo: e.auditNo, actionKind: e.action },
        { revertOfAudit: e._id },
        [heldRow(d, name, steps, FLEET_MESSAGES.domainGone)],
        actor,
      );
    },

    /**
     * An import's revert: the domains it created are removed if nothing changed or linked them since (their fields
     * still as the import left them), and what it linked (a zone, a registrar, a server) is unlinked.
     */
    async revertImport(importId: string, actor: Actor): Promise<FleetPlan> {
      const imp = await deps.imports?.findPlan(importId);
      if (!imp) throw new NotFoundError(FLEET_REVERT_MESSAGES.importNotFound);
      if (imp.state === 'running')
        throw new ConflictError(FLEET_REVERT_MESSAGES.importRunning, undefined, 'fleet_not_revertible');
      if (!imp.startedAt)
        throw new ConflictError(FLEET_REVERT_MESSAGES.importNotRun(imp.state), undefined, 'fleet_not_revertible');
      const rows = await allPages((after, limit) => deps.imports!.doneItems(imp.id, after, limit));
      if (!rows.length) throw new ConflictError(FLEET_REVERT_MESSAGES.importNothing, undefined, 'fleet_not_revertible');
      const ids = rows.flatMap((r) => (r.domainId ? [r.domainId] : []));
      const found = new Map((await repo.domainsByIds(ids)).map((d) => [d.id, d]));
      const stepsOf = (r: ImportItemRow): UndoStep[] => {
        const zoneId = imp.source === 'cloudflare' ? String(r.detail.zoneId ?? '') || null : null;
        const panel = imp.source !== 'cloudflare' && imp.source !== 'registrar';
        if (r.outcome === 'create')
          return [
            {
              area: 'created',
              expect: {
                status: 'active',
                brandId: null,
                serverId: panel ? imp.sourceId : null,
                cloudId: imp.source === 'cloudflare' ? imp.sourceId : null,
                cloudZoneId: zoneId,
                domainRegistratorId: imp.source === 'registrar' ? imp.sourceId : null,
                yandexWebmasterAccountId: null,
              },
            },
          ];
        if (imp.source === 'cloudflare') return [{ area: 'zone_link', before: null, after: zoneId }];
        const field = { before: null, after: imp.sourceId, beforeText: 'none', afterText: imp.sourceLabel };
        return [{ area: imp.source === 'registrar' ? 'registrar' : 'server', ...field }];
      };
      return service.createWithItems(
        { kind: 'revert', importId: imp.id, importNo: imp.planNo, actionKind: imp.source },
        { revertOfImport: imp.id },
        rows.map((r) =>
          heldRow(r.domainId ? found.get(r.domainId) : undefined, r.name, stepsOf(r), FLEET_REVERT_MESSAGES.importGone),
        ),
        actor,
      );
    },

    /** Ticks (or unticks) a revert's row that changed since its run: ticked, it is put back all the same. */
    async forceItem(id: string, seq: number, force: boolean, actor: Actor): Promise<FleetItem> {
      const p = await mustFind(id);
      if (p.action.kind !== 'revert')
        throw new ConflictError(FLEET_REVERT_MESSAGES.onlyChangedSince, undefined, 'fleet_not_changed_since');
      if (p.state !== 'planned') throw new ConflictError(FLEET_REVERT_MESSAGES.notPlanned, undefined, 'fleet_state');
      const it = await repo.findItem(id, seq);
      if (!it) throw new NotFoundError(FLEET_MESSAGES.itemNotFound);
      const seen = it.seen as RevertSeen | null;
      if (!seen?.changedSince)
        throw new ConflictError(FLEET_REVERT_MESSAGES.onlyChangedSince, undefined, 'fleet_not_changed_since');
      await repo.updateItem(
        id,
        seq,
        force
          ? { outcome: 'change', forced: true, reason: FLEET_REVERT_MESSAGES.forced(seen.what ?? '') }
          : { outcome: 'refused', forced: false, reason: FLEET_REVERT_MESSAGES.changedSince(seen.what ?? '') },
      );
      await audit.record(actor, {
        action: force ? 'force_revert_row' : 'unforce_revert_row',
        entity: 'fleet_plans',
        entityId: id,
        details: { planNo: p.planNo, domain: it.domainName, forced: force },
      });
      return toItem((await repo.findItem(id, seq))!);
    },

    /** The plan job: reads each domain's current state, the Cloudflare accounts side by side. */
    async planPhase(planId: string, ctx: RunCtx) {
      const p = await repo.findPlan(planId);
      if (!p || p.state !== 'planning') return { skipped: p?.state ?? 'missing' };
      const action = actionOf(p);
      const actor = jobActorOf(p);
      const labels = await labelsFor(action);
      const items = (await plans.loadAll(p.id, { outcomes: ['pending'] })).map(fleetItemOf);
      const { counts } = await countsOf(p);
      // Each group's domains are read a chunk ahead in one statement, and the results written many at once
      // (issue 48): a plan of 10,000 domains no longer costs 20,000 statements besides its provider reads.
      const readers = new WeakMap<FleetItemRow[], (i: number) => Promise<Domain | undefined>>();
      const chunk = Math.max(16, 2 * deps.options.accountConcurrency);
      const results = batchedWriter<PlannedRow>((rows) => repo.updatePlanned(p.id, rows), ctx.signal);
      const refusedBy = (err: unknown) => {
        if (isConnectionError(err)) throw err;
        return refused(refusalOf(err) ?? messageOf(err));
      };
      // A domain whose reading met a lost connection is read again once it is back, not refused for it.
      const planOne = async (it: FleetItemRow, i: number, group: FleetItemRow[]) => {
        // A desired state (the command-line client's file) and a revert are planned and written per domain: their
        // changes ride with each row; a row without a domain was refused when the plan was made.
        if (action.kind === 'state' || action.kind === 'revert') {
          const res = await (
            action.kind === 'state'
              ? stateActions.plan(it.desired as DesiredState, it.domainId!, actor)
              : revertActions.plan(it.desired as UndoStep[], it.domainId!, actor)
          ).catch(refusedBy);
          await repo.updateItem(p.id, it.seq, res);
          return;
        }
        let reader = readers.get(group);
        if (!reader) readers.set(group, (reader = readAhead(group, chunk, (ids) => deps.domains.getMany(ids))));
        const res: PlanResult = await reader(i)
          .then((d) => actions.plan(action, d ?? it.domainId!, actor, labels))
          .catch(refusedBy);
        results.add({ ...res, seq: it.seq });
      };
      try {
        await plans.walk(
          items.map((it) => ({ ...it, lane: it.cloudId })),
          ctx,
          {
            perLane: deps.options.accountConcurrency,
            around: (fn) => deps.routing.background(deps.options.budgetWaitMs, fn),
            from: counts.total - counts.pending,
            report: (done) => ({ done, total: counts.total, unit: 'domains read', message: '' }),
          },
          async (it, i, group) => {
            await untilConnected(() => planOne(it, i, group), { signal: ctx.signal });
            return true;
          },
        );
      } finally {
        await results.close();
      }
      await untilConnected(() => repo.transition(p.id, ['planning'], { state: 'planned', plannedAt: new Date() }));
      const { counts: end } = await countsOf(p);
      return { planned: end.total, change: end.change, same: end.same, refused: end.refused };
    },

    /** The run job: one step per domain to change, by the engine's run (claim, apply, record, end state). */
    async runPhase(planId: string, ctx: RunCtx) {
      const p = await repo.findPlan(planId);
      if (!p || p.state !== 'running') return { skipped: p?.state ?? 'missing' };
      const action = actionOf(p);
      const actor = jobActorOf(p);
      const labels = await labelsFor(action);
      const ran = await plans.run(
        FLEET_RUN,
        p.id,
        ctx,
        async (row) => {
          const it = fleetItemOf(row);
          const r =
            action.kind === 'state'
              ? await stateActions.run(it.desired as DesiredState, it.domainId!, it.seen, actor)
              : action.kind === 'revert'
                ? await revertActions.run(it.desired as UndoStep[], it.domainId!, it.seen, it.forced, actor)
                : await actions.run(action, it.domainId!, it.seen, actor, labels);
          return { status: r.status, error: r.reason ?? null, ...(r.undo?.length ? { undo: r.undo } : {}) };
        },
        {
          perLane: deps.options.accountConcurrency,
          around: (fn) => deps.routing.background(deps.options.budgetWaitMs, fn),
        },
      );
      const tally = ran.tally ?? (await untilConnected(() => countsOf(p))).tally;
      return { planId: p.id, planNo: p.planNo, tally };
    },

    jobCancelling: verbs.jobCancelling,

    /** The job ended cancelled, whichever way: the plan reads as its job, and the job's result counts what was done. */
    async jobStopped(planId: string, which: 'plan' | 'run') {
      const plan = await plans.jobStopped(FLEET_RUN, planId, which);
      if (!plan) return;
      const { tally } = await countsOf(plan);
      return { planId, planNo: plan.planNo, tally };
    },

    jobEnded: verbs.jobEnded,
  };
  return service;
}
export type FleetService = ReturnType<typeof createFleetService>;

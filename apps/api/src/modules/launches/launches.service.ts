import timers from 'node:timers/promises';
import type { IndexNowService } from '../indexnow/indexnow.service.ts';
import {
  LAUNCH_MESSAGES,
  LAUNCH_STAGES,
  LAUNCH_STAGE_FINISHED,
  LaunchSettingsSchema,
  domainNameLook,
  launchStageRuleMissing,
  plural,
  type Launch,
  type LaunchBlocker,
  type LaunchConfirmation,
  type LaunchRegistrationCheck,
  type RegisterDomainResult,
  type LaunchInputParsed,
  type LaunchListQuery,
  type LaunchPlan,
  type LaunchPlanStep,
  type LaunchSettings,
  type LaunchStage,
  type LaunchStageKey,
  type DnsTemplate,
  type DomainInput,
  type LaunchProfile,
  type ListResult,
} from '@fleetdesk/contract';
import { systemActor, type Actor } from '../../http/context.ts';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../../http/errors.ts';
import { messageOf } from '../plans/plans.engine.ts';
import { PermanentJobError, type JobContext, type JobEngine } from '../../lib/jobs.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { unicodeOf } from '../domains/domains.repository.ts';
import type { JobsRepository } from '../jobs/jobs.repository.ts';
import type { LaunchesRepository, LaunchRow } from './launches.repository.ts';
import {
  STAGES,
  done,
  ensureDomain,
  linkTo,
  type LaunchDeps,
  type LaunchWaitOptions,
  type PlanOutcome,
  type StageOutcome,
  type StagePlanContext,
  type StageRunContext,
} from './stages/index.ts';

export const LAUNCH_JOB = 'launches.run';
/**
 * A run's job: the launch, and the rules of whoever queued the run, which each stage is checked against; launchNo
 * names the job after its launch (jobOwner).
 */
export type LaunchJobPayload = { launchId: string; launchNo?: number; rules?: string[] };
/** A run (or a batch's job) queued before they carried rules gets the launch job's own area only. */
export const RULES_OF_OLD_RUNS = ['cnv:domains'];

/** A stage's label, by its key. */
export const stageLabel = (key: string) => LAUNCH_STAGES.find((s) => s.key === key)!.label;
/** A blocker as the plan's refusal and a batch's row say it. */
export const blockerText = (b: LaunchBlocker) => `${stageLabel(b.stage)}: ${b.message}`;
/** Stages finished of the stages shown. */
export const progressOf = (stages: Pick<LaunchStage, 'state'>[]) => ({
  done: stages.filter((s) => LAUNCH_STAGE_FINISHED.includes(s.state)).length,
  total: stages.length,
});
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const freshStage = (s: (typeof LAUNCH_STAGES)[number]): LaunchStage => ({
  key: s.key,
  label: s.label,
  state: 'pending',
  startedAt: null,
  finishedAt: null,
  detail: null,
  links: [],
  waitingFor: null,
  since: null,
  nextCheckAt: null,
  attempts: 0,
  error: null,
});

/** The stored stages, with any stage added since the launch was stored appended pending (stages keep their order). */
const withEveryStage = (stored: LaunchStage[]): LaunchStage[] => [
  ...stored,
  ...LAUNCH_STAGES.slice(stored.length).map(freshStage),
];

export function toLaunch(r: LaunchRow): Launch {
  // A launch that may still run shows the stages it will run; a finished one what it ran.
  const stages = r.state === 'completed' || r.state === 'cancelled' ? r.stages : withEveryStage(r.stages);
  return {
    _id: r.id,
    launchNo: r.launchNo,
    domainName: r.domainName,
    domainNameUnicode: r.domainNameUnicode,
    domainId: r.domainId,
    state: r.state,
    confirmed: r.confirmed,
    settingsConfirmed: r.settingsConfirmed,
    // Read on the launch's own page (`get`), where the registration's price is read too.
    confirmation: null,
    input: r.input,
    stages,
    jobId: r.jobId,
    error: r.error,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    progress: progressOf(stages),
  };
}

/** How many times a stage waits for a spent call budget before it fails with the provider's message. */
export const BUDGET_WAITS = 6;
/** The wait a 429 of our own budgets asks for (bounded), or null for any other error. */
const budgetWaitMs = (err: unknown): number | null =>
  err instanceof AppError && err.status === 429
    ? Math.min(Math.max(Number(err.headers?.['retry-after'] ?? 5), 1), 120) * 1000
    : null;

/** Waits `ms`, or less when the job is stopped: then it throws the signal's reason (the job engine reads it). */
export const sleep = (ms: number, signal: AbortSignal) =>
  timers.setTimeout(ms, undefined, { signal }).catch(() => signal.throwIfAborted());

/** How a launch ended, for whoever is told (alerts). */
export type LaunchFinished = {
  launchId: string;
  launchNo: number;
  domainName: string;
  domainId: string | null;
  state: 'completed' | 'failed';
  error: string | null;
};

/**
 * Launches (decision 044): a plan of the stages (what each will do, what blocks it) before anything changes, then
 * one durable job that runs the stages in order through the existing services. Each (re)run is a new job of the
 * launch: stages done, already done or skipped are not run again, so Retry, Confirm and a run over a
 * half-launched domain only finish what is missing.
 */
export function createLaunchesService(deps: {
  repo: LaunchesRepository;
  jobsRepo: Pick<JobsRepository, 'find'>;
  engine: () => JobEngine;
  audit: AuditService;
  stageDeps: LaunchDeps;
  wait: LaunchWaitOptions;
  /** Runs a stage as background work: its Cloudflare calls wait for the account's budget slot (decision 034). */
  background: <T>(fn: () => Promise<T>) => Promise<T>;
  profile: (id: string) => Promise<LaunchProfile>;
  dnsTemplate: (id: string) => Promise<DnsTemplate | undefined>;
  /** Told once when a launch ends live or failed (the alerts' "launch finished"); its failure never fails the launch. */
  finished?: (f: LaunchFinished) => Promise<unknown>;
  /** Tells IndexNow of the new site (its root and sitemap) when the launch is live (decision 075). */
  indexNow?: Pick<IndexNowService, 'afterChange'>;
}) {
  const { repo, audit } = deps;

  /**
   * The launch's settings in full: every field left empty takes the profile's (when one is named), a DNS template
   * gives the records when none are listed, TLS 1.3 left out is on. This is what the launch stores and runs.
   */
  async function resolve(s: LaunchSettings): Promise<LaunchSettings> {
    let out: LaunchSettings = { ...s };
    if (s.profileId) {
      const p = await deps.profile(s.profileId).catch((err: unknown) => {
        if (err instanceof NotFoundError)
          throw new ValidationError(LAUNCH_MESSAGES.profile, { profileId: LAUNCH_MESSAGES.profile });
        throw err;
      });
      const c = p.contentSource;
      out = {
        ...out,
        brandId: s.brandId ?? p.brandId,
        serverId: s.serverId ?? p.serverId,
        cloudId: s.cloudId ?? p.cloudId,
        registration:
          s.registration ??
          (p.domainRegistratorId
            ? {
                domainRegistratorId: p.domainRegistratorId,
                register: p.register,
                contactId: p.domainRegistratorContactId,
                years: 1,
              }
            : null),
        content:
          s.content.type !== 'none'
            ? s.content
            : c.kind === 'copy'
              ? { type: 'copy', fromDomainId: c.domainId }
              : c.kind === 'parse'
                ? { type: 'parse', url: c.url, regionId: c.regionId }
                : { type: 'none' },
        dnsTemplateId: s.dnsTemplateId ?? (s.dnsRecords.length ? null : p.dnsTemplateId),
        // The profile keeps its templates in order: the first is pushed first.
        firewallRules: s.firewallRules.length
          ? s.firewallRules
          : p.firewallRuleIds.map((ruleId, i) => ({ ruleId, priority: i + 1 })),
        sslMode: s.sslMode ?? p.sslMode,
        tls13: s.tls13 ?? p.tls13,
        yandexWebmasterAccountId: s.yandexWebmasterAccountId ?? p.yandexWebmasterAccountId,
        googleSearchAccountId: s.googleSearchAccountId ?? p.googleSearchAccountId,
      };
    }
    if (out.dnsTemplateId && !out.dnsRecords.length) {
      const t = await deps.dnsTemplate(out.dnsTemplateId);
      if (!t) throw new ValidationError(LAUNCH_MESSAGES.dnsTemplate, { dnsTemplateId: LAUNCH_MESSAGES.dnsTemplate });
      out.dnsRecords = t.records.map((r) => ({ ...r }));
    }
    return { ...out, tls13: out.tls13 ?? true };
  }

  const load = async (id: string) => {
    const r = await repo.find(id);
    if (!r) throw new NotFoundError(LAUNCH_MESSAGES.notFound);
    return r;
  };

  /** The launch's plan, with the settings it was planned with (what the launch stores and runs). */
  async function planned(input: LaunchInputParsed, actor: Actor) {
    const settings = await resolve(LaunchSettingsSchema.parse(input));
    const ctx: StagePlanContext = {
      launchId: '',
      domainName: input.domainName,
      domainId: null,
      input: settings,
      actor,
      deps: deps.stageDeps,
      confirmCostly: input.confirmCostly,
    };
    const steps: LaunchPlanStep[] = [];
    const blockers: LaunchBlocker[] = [];
    let registerAlone: LaunchPlan['registerAlone'] = null;
    // Stages are planned one after another: their reads go through the providers' budgets like any call.
    for (const [i, stage] of STAGES.entries()) {
      let p: PlanOutcome;
      // A stage in an area the person (or token) does not hold is not even planned: its plan reads that area.
      const missing = launchStageRuleMissing(stage.key, settings, actor.rules);
      try {
        p = missing ? { outcome: 'blocked', detail: LAUNCH_MESSAGES.needsRule(missing) } : await stage.plan(ctx);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // A provider's budget used up for now is no reason to refuse: the stage checks again when it runs.
        // Anything else (a provider that refuses, a reference that is gone) blocks the stage with its message.
        p =
          err instanceof RateLimitedError
            ? { outcome: 'run', detail: `Not checked now (${err.message}); the stage checks when it runs` }
            : { outcome: 'blocked', detail: err.message };
      }
      const { registerAlone: alone, ...step } = p;
      if (alone && settings.registration)
        registerAlone = {
          domainRegistratorId: settings.registration.domainRegistratorId,
          contactId: settings.registration.contactId ?? null,
          years: settings.registration.years,
        };
      steps.push({ key: stage.key, label: LAUNCH_STAGES[i]!.label, ...step });
      if (p.outcome === 'blocked') blockers.push({ stage: stage.key, message: p.detail });
    }
    const look = domainNameLook(input.domainName);
    const plan: LaunchPlan = {
      domainName: input.domainName,
      domainNameUnicode: look?.unicode ?? unicodeOf(input.domainName),
      nameWarning: look?.warning ?? null,
      steps,
      blockers,
      registerAlone,
    };
    return { plan, settings };
  }

  /** Queues a run of the launch (a new job) with the rules of who queued it; the launch's stages say what is left. */
  async function dispatch(r: LaunchRow, actor: Actor) {
    const payload: LaunchJobPayload = { launchId: r.id, launchNo: r.launchNo, rules: actor.rules };
    const job = await deps
      .engine()
      .enqueue(LAUNCH_JOB, payload, { createdBy: actor.username, domainName: r.domainName });
    return (await repo.update(r.id, { jobId: job.id }))!;
  }

  /** A run that would reach a stage in an area the actor does not hold is refused before it is queued. */
  function assertMayRun(r: LaunchRow, actor: Actor) {
    for (const s of r.stages) {
      if (LAUNCH_STAGE_FINISHED.includes(s.state)) continue;
      const missing = launchStageRuleMissing(s.key, r.input, actor.rules);
      if (missing) throw new ForbiddenError(`${s.label}: ${LAUNCH_MESSAGES.needsRule(missing)}`, 'launch_rule_missing');
    }
  }

  const activeStates = ['queued', 'running', 'waiting'] as const;

  /** What Confirm buys or changes while the launch waits: the registration with its price, or the settings. */
  async function confirmationOf(r: LaunchRow): Promise<LaunchConfirmation | null> {
    if (r.state !== 'needs_confirmation') return null;
    const s = r.stages.find((x) => x.state === 'needs_confirmation');
    if (s?.key === 'domain') return { stage: 'domain', text: s.detail ?? s.label, cost: null, priceError: null };
    const reg = r.input.registration;
    if (s?.key !== 'register' || !reg) return null;
    const p = await deps.stageDeps.registrar.registrationPrice(reg.domainRegistratorId, r.domainName, reg.years);
    const cost = p.cost ? `${p.cost.amount} ${p.cost.currency} at Namecheap's price` : p.priceError!;
    return {
      stage: 'register',
      text: `Register ${r.domainNameUnicode} for ${plural(reg.years, 'year')}: ${cost}. It costs money and cannot be undone.`,
      cost: p.cost,
      priceError: p.priceError,
    };
  }

  /** Availability at the registrar (domains.check) and, when available, the price of registering it. */
  async function registrationCheck(input: {
    domainName: string;
    domainRegistratorId: string;
    years: number;
  }): Promise<LaunchRegistrationCheck> {
    const { domainName, domainRegistratorId, years } = input;
    const u = unicodeOf(domainName);
    const reg = deps.stageDeps.registrar;
    const domainId = (await deps.stageDeps.domains.idsByNames([domainName])).get(domainName) ?? null;
    const a = await reg.availability(domainRegistratorId, domainName);
    const base = { domainName, domainNameUnicode: u, domainId, years };
    if (!a.available) {
      const reason = a.description || 'Namecheap answered that it cannot be registered (domains.check: not available)';
      return {
        ...base,
        available: false,
        reason,
        cost: null,
        priceError: null,
        text: `${u} is not available at Namecheap: ${reason}`,
      };
    }
    const p = await reg.registrationPrice(domainRegistratorId, domainName, years);
    return {
      ...base,
      available: true,
      reason: null,
      cost: p.cost,
      priceError: p.priceError,
      text:
        `${u} is available at Namecheap: registering it for ${plural(years, 'year')} costs ` +
        (p.cost ? `${p.cost.amount} ${p.cost.currency}` : `money (${p.priceError})`) +
        '. It cannot be undone.',
    };
  }

  return {
    plan: async (input: LaunchInputParsed, actor: Actor): Promise<LaunchPlan> => (await planned(input, actor)).plan,

    /** With dryRun the plan; else the launch, planned first (a blocker is a 409 naming it) and queued. */
    async create(input: LaunchInputParsed, actor: Actor): Promise<{ plan: LaunchPlan } | { launch: Launch }> {
      const { plan: p, settings } = await planned(input, actor);
      if (input.dryRun) return { plan: p };
      // A missing rule is a 403, before any other blocker (a 409 would say that something else must change).
      const ruleBlocker = p.blockers.find((b) => launchStageRuleMissing(b.stage, settings, actor.rules));
      if (ruleBlocker) throw new ForbiddenError(blockerText(ruleBlocker), 'launch_rule_missing');
      const b = p.blockers[0];
      if (b) throw new ConflictError(blockerText(b), { [b.stage]: b.message }, 'launch_blocked');
      const active = await repo.activeFor(input.domainName);
      if (active)
        throw new ConflictError(
          `Launch #${active.launchNo} of ${active.domainNameUnicode} is not finished; open it to go on`,
          { domainName: `Launch #${active.launchNo} is not finished` },
          'launch_active',
        );
      const row = await repo.insert({
        domainName: input.domainName,
        domainNameUnicode: unicodeOf(input.domainName),
        input: settings,
        state: 'queued',
        confirmed: input.confirmCostly,
        stages: LAUNCH_STAGES.map(freshStage),
        createdBy: actor.username,
      });
      await audit.record(actor, {
        action: 'launch',
        entity: 'launches',
        entityId: row.id,
        details: { domainName: input.domainName, confirmCostly: input.confirmCostly },
      });
      return { launch: toLaunch(await dispatch(row, actor)) };
    },

    async list(q: LaunchListQuery): Promise<ListResult<Launch>> {
      const r = await repo.list(q);
      return { items: r.items.map(toLaunch), itemsCount: r.itemsCount };
    },

    async get(id: string): Promise<Launch> {
      const r = await load(id);
      return { ...toLaunch(r), confirmation: await confirmationOf(r) };
    },

    registrationCheck,

    /**
     * A console domain that is not at our registrator, registered on its own (issue 40): never a launch's routine
     * step. The operator has seen the check (availability, price) and confirms the cost; the availability is asked
     * again here, and a name Namecheap will not register is refused with its reason. A domain with no registrator
     * takes this one for the registration (and loses it again when the registration fails).
     */
    async registerAlone(
      input: { domainName: string; domainRegistratorId: string; contactId: string; years: number },
      actor: Actor,
    ): Promise<RegisterDomainResult> {
      const { domainName, domainRegistratorId, contactId, years } = input;
      const u = unicodeOf(domainName);
      const dd = deps.stageDeps.domains;
      const domainId = (await dd.idsByNames([domainName])).get(domainName);
      if (!domainId) throw new ConflictError(LAUNCH_MESSAGES.notConsoleDomain(u), undefined, 'not_console_domain');
      const d = await dd.get(domainId);
      if (d.domainRegistratorId && d.domainRegistratorId !== domainRegistratorId)
        throw new ConflictError(LAUNCH_MESSAGES.otherRegistrator(u), undefined, 'other_registrator');
      const reg = deps.stageDeps.registrar;
      if ((await reg.inAccount(domainRegistratorId, domainName)).inAccount)
        throw new ConflictError(LAUNCH_MESSAGES.alreadyInAccount(u), undefined, 'already_registered');
      const check = await registrationCheck({ domainName, domainRegistratorId, years });
      if (!check.available) throw new ConflictError(check.text, { domainName: check.text }, 'not_available');
      await audit.record(actor, {
        action: 'register_alone',
        entity: 'domains',
        entityId: domainId,
        details: { domainName, years, cost: check.cost, priceError: check.priceError },
      });
      const setRegistrator = !d.domainRegistratorId;
      if (setRegistrator) await dd.update(domainId, { domainRegistratorId } as DomainInput, actor);
      try {
        return await reg.register(domainId, contactId, years, actor);
      } catch (err) {
        if (setRegistrator)
          await dd.update(domainId, { domainRegistratorId: null } as DomainInput, actor).catch(() => undefined);
        throw err;
      }
    },

    /** A failed stage alone (or, without a stage, every failed one): the run goes on from there. */
    async retry(id: string, stage: LaunchStageKey | null, actor: Actor): Promise<Launch> {
      const r = await load(id);
      if ((activeStates as readonly string[]).includes(r.state)) throw new ConflictError(LAUNCH_MESSAGES.running);
      if (r.state === 'completed') throw new ConflictError(LAUNCH_MESSAGES.finished);
      if (stage) {
        const s = withEveryStage(r.stages).find((x) => x.key === stage)!;
        if (s.state !== 'failed') throw new ConflictError(LAUNCH_MESSAGES.notFailed(s.label));
      }
      assertMayRun(r, actor);
      const stages = r.stages.map((s) =>
        s.state === 'failed' || s.state === 'running' || s.state === 'waiting'
          ? { ...s, state: 'pending' as const, error: null, waitingFor: null, nextCheckAt: null }
          : s,
      );
      const again = await repo.transition(id, ['failed', 'cancelled', 'needs_confirmation'], {
        state: 'queued',
        stages,
        error: null,
        finishedAt: null,
      });
      if (!again) throw new ConflictError(LAUNCH_MESSAGES.running);
      await audit.record(actor, { action: 'retry_launch', entity: 'launches', entityId: id, details: { stage } });
      return toLaunch(await dispatch(again, actor));
    },

    /**
     * The operator confirms what the launch waits for: the costly stage (registration), or the changes to an
     * existing console domain's settings; the run goes on from it. `stage`, when given, is the one the operator saw
     * waiting: another one waiting is refused rather than confirmed unseen.
     */
    async confirm(id: string, actor: Actor, stage?: 'domain' | 'register'): Promise<Launch> {
      const r = await load(id);
      const waiting = r.stages.find((s) => s.state === 'needs_confirmation');
      if (r.state !== 'needs_confirmation' || !waiting) throw new ConflictError(LAUNCH_MESSAGES.nothingToConfirm);
      if (stage && stage !== waiting.key)
        throw new ConflictError(LAUNCH_MESSAGES.otherConfirmation(stageLabel(stage), waiting.label));
      assertMayRun(r, actor);
      // The stop before the costly step was no attempt at it.
      const stages = r.stages.map((s) =>
        s.state === 'needs_confirmation'
          ? { ...s, state: 'pending' as const, attempts: Math.max(0, s.attempts - 1) }
          : s,
      );
      const again = await repo.transition(id, ['needs_confirmation'], {
        state: 'queued',
        ...(waiting.key === 'domain' ? { settingsConfirmed: true } : { confirmed: true }),
        stages,
      });
      if (!again) throw new ConflictError(LAUNCH_MESSAGES.nothingToConfirm);
      await audit.record(actor, {
        action: 'confirm_launch',
        entity: 'launches',
        entityId: id,
        details: { stage: waiting.key, detail: waiting.detail },
      });
      return toLaunch(await dispatch(again, actor));
    },

    /** Stops the launch: its job is cancelled (a stage in flight stops at its next check); done stages stay done. */
    async cancel(id: string, actor: Actor): Promise<Launch> {
      const r = await load(id);
      if (r.state === 'completed' || r.state === 'cancelled') throw new ConflictError(LAUNCH_MESSAGES.finished);
      const stopped = await repo.transition(id, [...activeStates, 'needs_confirmation', 'failed'], {
        state: 'cancelled',
        finishedAt: new Date(),
      });
      if (!stopped) throw new ConflictError(LAUNCH_MESSAGES.finished);
      if (r.jobId) {
        const job = await deps.jobsRepo.find(r.jobId);
        if (job && ['queued', 'running'].includes(job.state)) await deps.engine().cancel(job);
      }
      await audit.record(actor, { action: 'cancel_launch', entity: 'launches', entityId: id, details: {} });
      return toLaunch((await repo.find(id))!);
    },

    /** The job: runs each stage not finished yet, in order, as one job step each (a crash resumes there). */
    async runJob(ctx: JobContext<LaunchJobPayload>): Promise<Record<string, unknown>> {
      const id = ctx.payload.launchId;
      const runRules = ctx.payload.rules ?? RULES_OF_OLD_RUNS;
      const first = await repo.find(id);
      if (!first) throw new PermanentJobError(LAUNCH_MESSAGES.notFound);
      if (first.state === 'cancelled' || first.state === 'completed') return { launchId: id, state: first.state };
      const started = await repo.transition(id, ['queued', 'running', 'waiting'], {
        state: 'running',
        startedAt: first.startedAt ?? new Date(),
        jobId: ctx.jobId,
      });
      if (!started) return { launchId: id, state: first.state };
      // A launch stored before later stages existed (the Google ones, decision 081) gets them pending.
      const stages = withEveryStage(started.stages);
      let domainId = started.domainId;
      const actor = systemActor(`launch #${started.launchNo}${started.createdBy ? ` (${started.createdBy})` : ''}`);
      const told = async (state: LaunchFinished['state'], error: string | null) => {
        const { launchNo, domainNameUnicode: domainName } = started;
        try {
          await deps.finished?.({ launchId: id, launchNo, domainName, domainId, state, error });
        } catch {
          // An alert that cannot be recorded is the alerts' concern; the launch's own state is already written.
        }
      };

      for (const [i, stage] of STAGES.entries()) {
        const outcome = await ctx.step(stage.key, async () => {
          let cur = stages[i]!;
          if (LAUNCH_STAGE_FINISHED.includes(cur.state)) return;
          const save = async (patch: Partial<LaunchStage>) => {
            cur = { ...cur, ...patch };
            stages[i] = cur;
            await repo.setStage(id, i, cur);
          };
          const notWaiting = { waitingFor: null, nextCheckAt: null };
          // Waits `ms` for `waitingFor`, visibly: the launch says waiting before its stage does, so whoever sees the
          // stage wait sees the launch wait.
          const waitVisibly = async (waitingFor: string, ms: number, since: number) => {
            await repo.transition(id, ['running'], { state: 'waiting' });
            await save({
              state: 'waiting',
              waitingFor,
              since: cur.since ?? new Date(since).toISOString(),
              nextCheckAt: new Date(Date.now() + ms).toISOString(),
            });
            await sleep(ms, ctx.signal);
          };
          // Back from a wait, the other way round: the stage runs again before the launch does.
          const runningAgain = async () => {
            await save({ state: 'running', ...notWaiting });
            await repo.transition(id, ['waiting'], { state: 'running' });
          };
          await save({
            state: 'running',
            startedAt: new Date().toISOString(),
            finishedAt: null,
            attempts: cur.attempts + 1,
            error: null,
            since: null,
            ...notWaiting,
          });
          await ctx.progress({ done: i, total: STAGES.length, unit: 'stages', message: cur.label }, { force: true });
          const runCtx: Omit<StageRunContext, 'domainId'> = {
            launchId: id,
            domainName: started.domainName,
            input: started.input,
            confirmed: started.confirmed,
            settingsConfirmed: started.settingsConfirmed,
            actor,
            signal: ctx.signal,
            deps: deps.stageDeps,
            note: (detail) => save({ detail }),
            async wait<T>(waitingFor: string, check: () => Promise<T | null>): Promise<T> {
              const since = Date.now();
              let delay = deps.wait.firstDelayMs;
              for (;;) {
                const v = await check();
                if (v !== null && v !== undefined) {
                  await runningAgain();
                  return v;
                }
                const left = deps.wait.limitMs - (Date.now() - since);
                if (left <= 0)
                  throw new Error(
                    `Still waiting for ${waitingFor} after ${Math.round(deps.wait.limitMs / 60_000)} min; Retry waits again`,
                  );
                await waitVisibly(waitingFor, Math.min(delay, left), since);
                delay = Math.min(delay * 2, deps.wait.maxDelayMs);
              }
            },
          };
          const attempt = async (): Promise<StageOutcome> => {
            // Checked again as the stage runs: the rules of whoever queued this run (a Retry or a batch's run).
            const missing = launchStageRuleMissing(stage.key, started.input, runRules);
            if (missing) throw new Error(LAUNCH_MESSAGES.needsRule(missing));
            if (stage.key === 'domain') {
              const made = await ensureDomain(runCtx);
              domainId = made.id;
              await repo.update(id, { domainId });
              return made.created
                ? done(`Created ${started.domainNameUnicode} in the console`, [linkTo.domain(made.id)])
                : await stage.run({ ...runCtx, domainId });
            }
            const known = domainId;
            if (!known) throw new Error('The launch has no domain yet');
            return deps.background(() => stage.run({ ...runCtx, domainId: known }));
          };
          let o: StageOutcome;
          try {
            // A provider's call budget spent (our own per-account limit, 429 with its wait) is waited out, visibly
            // and a bounded number of times, rather than failing the stage.
            for (let tries = 1; ; tries++) {
              try {
                o = await attempt();
                break;
              } catch (err) {
                const waitMs = budgetWaitMs(err);
                if (waitMs === null || ctx.signal.aborted) throw err;
                if (tries > BUDGET_WAITS)
                  throw new Error(
                    `${messageOf(err)} (gave up after waiting ${BUDGET_WAITS} times for the call budget)`,
                  );
                await waitVisibly(`the provider's call budget (${messageOf(err)})`, waitMs, Date.now());
                await runningAgain();
              }
            }
          } catch (err) {
            if (ctx.signal.aborted) {
              // Cancelled or handed to another worker: the stage did not fail, it runs again if the launch does.
              await save({ state: 'pending', ...notWaiting });
              throw err;
            }
            const message = messageOf(err);
            await save({ state: 'failed', error: message, finishedAt: new Date().toISOString(), ...notWaiting });
            const error = `${cur.label}: ${message}`;
            await repo.transition(id, ['running', 'waiting'], { state: 'failed', error, finishedAt: new Date() });
            await told('failed', error);
            throw new PermanentJobError(error);
          }
          await save({
            state: o.state,
            detail: o.detail,
            links: o.links ?? [],
            finishedAt: o.state === 'needs_confirmation' ? null : new Date().toISOString(),
            ...notWaiting,
          });
          return o;
        });
        if (outcome?.state === 'needs_confirmation') {
          await repo.transition(id, ['running', 'waiting'], { state: 'needs_confirmation' });
          return { launchId: id, state: 'needs_confirmation', stage: stage.key };
        }
      }
      await repo.transition(id, ['running', 'waiting'], { state: 'completed', finishedAt: new Date(), error: null });
      await told('completed', null);
      await ctx.progress(
        { done: STAGES.length, total: STAGES.length, unit: 'stages', message: 'Live' },
        { force: true },
      );
      const counts = Object.fromEntries(
        ['done', 'already_done', 'skipped'].map((k) => [k, stages.filter((s) => s.state === k).length]),
      );
      // The site is live: its root and sitemap go to IndexNow when the brand has it on; the answer is told, never a failure.
      const indexNow = domainId ? await deps.indexNow?.afterChange(domainId) : null;
      return {
        launchId: id,
        domainName: started.domainName,
        domainId,
        state: 'completed',
        ...counts,
        ...(indexNow ? { indexNow } : {}),
      };
    },
  };
}
export type LaunchesService = ReturnType<typeof createLaunchesService>;

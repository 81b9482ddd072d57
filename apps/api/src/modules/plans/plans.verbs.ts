import type { Actor } from '../../http/context.ts';
import { ConflictError } from '../../http/errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { canRetry, type PlanEngine, type RunKind } from './plans.engine.ts';
import type { PlanRow } from './plans.repository.ts';

type Verb = 'run' | 'pause' | 'resume' | 'cancel' | 'retry';
type Plan = Pick<PlanRow, 'id' | 'planNo' | 'jobId' | 'state' | 'startedAt'>;

/** What a kind says for its verbs: its plan, its words and codes, and how its audit entries are named. */
export type VerbsKind<P extends Plan, S> = {
  run: RunKind;
  /** The kind's plan by id, or its own 404. */
  find(id: string): Promise<P>;
  /** The plan as the kind answers it, once a verb is done. */
  show(p: P): Promise<S>;
  /** What every verb checks first besides the state (an import's source rule). */
  guard?(p: P, actor: Actor): void;
  /** The states a cancel is taken from. */
  cancelFrom: readonly string[];
  /** The audit entries' entity, the detail key the plan's number goes by, and each verb's action. */
  audit: { entity: string; noKey: string; actions: Partial<Record<Verb, string>> };
  /** The refusals: their code's prefix ("fleet_state") and words. */
  refuse: {
    code: string;
    notPlanned: string;
    notRunnable(state: string): string;
    notRunning?(state: string): string;
    notPaused?(state: string): string;
    finished(state: string): string;
    noFailed?: string;
  };
  /** What the kind's jobs carry besides the plan (the rules of whoever queued an import). */
  jobExtra?(actor: Actor, p: Pick<P, 'id' | 'planNo'>): Record<string, unknown>;
};

/**
 * The verbs of a plan page, the same for every kind (decision 084): each checks the plan's state, moves it by the
 * engine, records who did it, and starts the run's job. A kind adds its own checks (`before`).
 */
export function createPlanVerbs<P extends Plan, S>(engine: PlanEngine, audit: AuditService, k: VerbsKind<P, S>) {
  const refuse = (message: string, suffix = 'state') =>
    new ConflictError(message, undefined, `${k.refuse.code}_${suffix}`);
  const { notRunnable, notRunning = notRunnable, notPaused = notRunnable } = k.refuse;
  const record = (actor: Actor, verb: Verb, p: P, more: Record<string, unknown> = {}) =>
    audit.record(actor, {
      action: k.audit.actions[verb] ?? `${verb}_plan`,
      entity: k.audit.entity,
      entityId: p.id,
      details: { [k.audit.noKey]: p.planNo, ...more },
    });
  const startRun = (p: Pick<P, 'id' | 'planNo'>, actor: Actor) =>
    engine.startJob(p, k.run.runJob, actor, k.jobExtra?.(actor, p));
  const found = async (id: string, actor: Actor) => {
    const p = await k.find(id);
    k.guard?.(p, actor);
    return p;
  };
  const shown = async (id: string) => k.show(await k.find(id));

  return {
    /** Starts the run of a planned plan; `before` refuses what the kind refuses (nothing to do, a threshold). */
    async run(id: string, actor: Actor, before?: (p: P) => Promise<void>): Promise<S> {
      const p = await found(id, actor);
      if (p.state === 'planning') throw refuse(k.refuse.notPlanned, 'not_planned');
      await before?.(p);
      const moved = await engine.start(id);
      if (!moved) throw refuse(notRunnable(p.state));
      await record(actor, 'run', p);
      await startRun(moved, actor);
      return shown(id);
    },

    async pause(id: string, actor: Actor): Promise<S> {
      const p = await found(id, actor);
      if (!(await engine.pause(id))) throw refuse(notRunning(p.state));
      await record(actor, 'pause', p);
      return shown(id);
    },

    /** Resumes a paused run, or one that failed for good once it had started (the engine's `resume`). */
    async resume(id: string, actor: Actor): Promise<S> {
      const p = await found(id, actor);
      if (p.state !== 'paused' && !(p.state === 'failed' && p.startedAt)) throw refuse(notPaused(p.state));
      if (!(await engine.resume(k.run, p, actor, k.jobExtra?.(actor, p)))) throw refuse(notPaused(p.state));
      await record(actor, 'resume', p);
      return shown(id);
    },

    /** The run's job is resumed (the Jobs screen or the plan page): the plan runs again, or the resume is refused. */
    async jobResuming(id: string): Promise<void> {
      const p = await k.find(id);
      if (!(await engine.jobResuming(k.run, p))) throw refuse(notPaused(p.state));
    },

    /** Cancels planning or a run: the items not yet done are left as they are. */
    async cancel(id: string, actor: Actor, after?: () => Promise<void>): Promise<S> {
      const p = await found(id, actor);
      if (!(await engine.cancel(k.run, id, k.cancelFrom))) throw refuse(k.refuse.finished(p.state));
      await record(actor, 'cancel', p);
      await after?.();
      return shown(id);
    },

    /** Runs again only the items whose step failed; `failed` counts them as the kind shows them. */
    async retryFailed(id: string, actor: Actor, failed: (p: P) => Promise<number>): Promise<S> {
      const p = await found(id, actor);
      if (!canRetry(p.state)) throw refuse(notRunnable(p.state));
      if ((await failed(p)) === 0) throw refuse(k.refuse.noFailed ?? notRunnable(p.state), 'no_failed');
      const n = await engine.retryFailed(k.run, p);
      if (n === undefined) throw refuse(notRunnable(p.state));
      await record(actor, 'retry', p, { domains: n });
      await startRun(p, actor);
      return shown(id);
    },

    /** A cancel was asked for on the plan's job (the Jobs screen): the plan is cancelled at once. */
    jobCancelling: (id: string, which: 'plan' | 'run') => engine.jobCancelling(k.run, id, which),
    /** The job failed for good (or ended cancelled without its handler): the plan says so. */
    jobEnded: (id: string, which: 'plan' | 'run', error: string | null) => engine.jobEnded(id, which, error),
  };
}

import { planStateOf, planTallyOf, type PlanState } from '@fleetdesk/contract';
import type { StoredPlanKind } from '../../db/schema/index.ts';
import type { Actor } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import type { JobEngine, JobRow } from '../../lib/jobs.ts';
import type { ItemFilter, PlanItemPatch, PlanItemRow, PlanRow, PlansRepository } from './plans.repository.ts';

const LOAD_BATCH = 2000;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/**
 * Works through items lane by lane: the lanes side by side (a lane is a Cloudflare account, so each account's budget
 * paces its own), up to `perLane` items at a time within one, each lane's in order. Stops taking items once `signal`
 * is aborted; the items under way finish.
 */
export async function inLanes<T>(
  lanes: Iterable<T[]>,
  perLane: number,
  signal: AbortSignal,
  work: (item: T, i: number, lane: T[]) => Promise<void>,
): Promise<void> {
  const runLane = async (items: T[]) => {
    let next = 0;
    const worker = async () => {
      while (!signal.aborted) {
        const i = next++;
        const it = items[i];
        if (!it) return;
        await work(it, i, items);
      }
    };
    await Promise.all(Array.from({ length: Math.min(items.length, Math.max(1, perLane)) }, worker));
  };
  await Promise.all([...lanes].map(runLane));
}

/** Items grouped by `laneOf`, each group in the order given. */
export function byLane<T>(items: Iterable<T>, laneOf: (it: T) => string | null): T[][] {
  const lanes = new Map<string, T[]>();
  for (const it of items) {
    const key = laneOf(it) ?? '';
    const list = lanes.get(key);
    if (list) list.push(it);
    else lanes.set(key, [it]);
  }
  return [...lanes.values()];
}

/** What a kind tells the engine to run its plans (decision 084). */
export type RunKind = {
  kind: StoredPlanKind;
  /** The items a run works on (still to do, of the outcomes that change something). */
  toDo: ItemFilter;
  /** Whether an item of this outcome is part of the run's counts (an item planned as "skip" is not). */
  inRun(outcome: string): boolean;
  /** The unit the Jobs screen counts in. */
  unit: string;
  /** The outcomes of the items a run works on: only these are reset, retried or cancelled. */
  runOutcomes?: readonly string[];
  /** The job kind that runs the plan (a job of it stopped is resumed rather than queued anew). */
  runJob: string;
};

/** Where a plan's job lives: read by id, and the engine that starts, stops and resumes it. */
export type PlanJobs = { find(id: string): Promise<JobRow | undefined>; engine(): JobEngine };

/** What a lifecycle step gives back: the plan as moved, or undefined when it was in another state (a race lost). */
type Moved = PlanRow | undefined;
/** What the lifecycle reads of a plan the kind holds. */
type PlanRef = Pick<PlanRow, 'id' | 'jobId' | 'state'>;
/** The states whose failed items may be run again: a run ended, or paused. */
export const canRetry = (state: string) =>
  ['completed', 'completed_with_failures', 'failed', 'cancelled', 'paused'].includes(state);

export type RunCtx = {
  signal: AbortSignal;
  progress(p: { done: number; total: number; unit: string; message: string }): Promise<void>;
};

/**
 * The part of every plan that is not its kind's: the state rule over the items (outcomes.ts), the run through the
 * items with its stop, the cancel and the end of a job. A kind says how to apply one item.
 */
export function createPlanEngine(repo: PlansRepository, jobs: PlanJobs) {
  const now = () => new Date();
  const tallyOf = async (k: RunKind, planId: string) =>
    planTallyOf(
      k.kind,
      (await repo.counts(planId)).filter((r) => k.inRun(r.outcome)).map((r) => [r.status, r.n] as const),
    );

  /** Queues the plan's job (named after the plan by its number) and keeps its id on the plan. */
  const startJob = async (
    p: Pick<PlanRow, 'id' | 'planNo'>,
    kind: string,
    actor: Actor,
    extra: Record<string, unknown> = {},
  ) => {
    const job = await jobs
      .engine()
      .enqueue(kind, { planId: p.id, planNo: p.planNo, ...extra }, { createdBy: actor.username });
    await repo.updatePlan(p.id, { jobId: job.id });
    return job;
  };

  /** Stops the plan's job, if it runs; its handler stops at the next item. */
  const stopJob = async (p: Pick<PlanRow, 'jobId'>) => {
    if (!p.jobId) return;
    const job = await jobs.find(p.jobId);
    if (job && ['queued', 'running'].includes(job.state)) await jobs.engine().cancel(job);
  };

  /** Ends the run's items not done: failed again where they had failed before, else cancelled. */
  const endOpen = (k: RunKind, id: string, statuses?: ('pending' | 'running')[]) =>
    repo.cancelPending(id, statuses, k.runOutcomes);

  return {
    tallyOf,
    startJob,
    stopJob,

    /** Planned → running (the run's job is the caller's to start: it may carry more than the plan). */
    start: (id: string): Promise<Moved> =>
      repo.transition(id, ['planned'], { state: 'running', startedAt: now(), error: null }),

    /** Running → paused, and its job stopped: the items in flight go back to pending when it has stopped. */
    async pause(id: string): Promise<Moved> {
      const moved = await repo.transition(id, ['running'], { state: 'paused' });
      if (moved) await stopJob(moved);
      return moved;
    },

    /**
     * Resumes a paused run, or one that failed for good: its own job again when that job stopped (the same job the
     * Jobs screen resumes), else a new one. Either way it carries on from the first item not done. False when the
     * plan was in another state.
     */
    async resume(k: RunKind, p: PlanRef, actor: Actor): Promise<boolean> {
      const job = p.jobId ? await jobs.find(p.jobId) : undefined;
      if (job?.kind === k.runJob && ['failed', 'cancelled'].includes(job.state)) {
        await jobs.engine().resume(job);
        return true;
      }
      const moved = await repo.transition(p.id, ['paused', 'failed'], {
        state: 'running',
        error: null,
        finishedAt: null,
      });
      if (moved) await startJob(moved, k.runJob, actor);
      return !!moved;
    },

    /**
     * The run's job is resumed (the Jobs screen or the plan page): the plan runs again. A paused run carries on with
     * the items not reached; a failed one tries its failed items again (each keeps its failure until its new attempt
     * decides); a cancelled one both. False when the plan cannot run again.
     */
    async jobResuming(k: RunKind, p: PlanRef): Promise<boolean> {
      if (p.state === 'running') return true;
      const moved = await repo.transition(p.id, ['paused', 'failed', 'completed_with_failures', 'cancelled'], {
        state: 'running',
        error: null,
        finishedAt: null,
      });
      if (!moved) return false;
      if (p.state !== 'paused')
        await repo.resetSteps(p.id, p.state === 'cancelled' ? ['failed', 'cancelled'] : ['failed'], k.runOutcomes);
      return true;
    },

    /** Cancels planning or a run from one of `from`: its job stops, and the items not done are left as they are. */
    async cancel(k: RunKind, id: string, from: readonly string[]): Promise<Moved> {
      const moved = await repo.transition(id, from, { state: 'cancelled', finishedAt: now() });
      if (!moved) return moved;
      await stopJob(moved);
      await endOpen(k, id);
      return moved;
    },

    /** Runs again only the failed items of a finished (or paused) run; the number put back, or undefined. */
    async retryFailed(k: RunKind, p: PlanRef): Promise<number | undefined> {
      if (!canRetry(p.state)) return undefined;
      const moved = await repo.transition(p.id, [p.state], { state: 'running', finishedAt: null, error: null });
      if (!moved) return undefined;
      return repo.resetSteps(p.id, ['failed'], k.runOutcomes);
    },

    /**
     * A cancel was asked for on the plan's job (the Jobs screen): the plan is cancelled at once and no item starts
     * from now on; the items in flight finish with their worker, or end with the job (`jobStopped`).
     */
    async jobCancelling(k: RunKind, id: string, which: 'plan' | 'run') {
      const moved = await repo.transition(id, which === 'run' ? ['running'] : ['planning'], {
        state: 'cancelled',
        finishedAt: now(),
      });
      if (moved && which === 'run') await endOpen(k, id, ['pending']);
    },

    /**
     * The job ended cancelled, whichever way (the Jobs screen, the plan's Pause or Cancel, a takeover of a dead
     * worker's job): a plan still working reads "Cancelled" like its job and no item stays running; a paused run's
     * items in flight go back to pending (Resume redoes them, re-reading first). The plan as it ended, for the
     * job's result; undefined when it had not started running.
     */
    async jobStopped(k: RunKind, id: string, which: 'plan' | 'run'): Promise<Moved> {
      const p = await repo.transition(id, which === 'run' ? ['running'] : ['planning'], {
        state: 'cancelled',
        finishedAt: now(),
      });
      const plan = p ?? (await repo.findPlan(k.kind, id));
      if (!plan || which === 'plan' || !plan.startedAt) return undefined;
      if (plan.state === 'paused') await repo.resetSteps(id, ['running'], k.runOutcomes);
      else await endOpen(k, id);
      return plan;
    },

    /** The plan's job ended for good without its handler (failed, or cancelled with no reason): the plan says so. */
    async jobEnded(id: string, which: 'plan' | 'run', error: string | null) {
      await repo.transition(id, which === 'plan' ? ['planning'] : ['running'], {
        state: error ? 'failed' : 'cancelled',
        error,
        finishedAt: now(),
      });
    },

    /**
     * Runs the plan's items one at a time, each applied by the kind and recorded as it ends; a refusal (an AppError)
     * is the item's own failure, anything else ends the job. Stops when the job is stopped or the plan leaves
     * "running" (cancelled meanwhile). The end state comes from the items by the one rule: never "completed" over
     * a failure or with items left.
     */
    async run(
      k: RunKind,
      planId: string,
      ctx: RunCtx,
      applyOne: (item: PlanItemRow) => Promise<PlanItemPatch>,
    ): Promise<{ stopped?: string; state?: PlanState; tally?: Awaited<ReturnType<typeof tallyOf>> }> {
      const start = await tallyOf(k, planId);
      const total = start.total;
      let done = total - start.pending - start.cancelled;
      for (let after = 0; ;) {
        const batch = await repo.items(planId, k.toDo, after, LOAD_BATCH);
        if (!batch.length) break;
        for (const it of batch) {
          if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('Stopped');
          const still = await repo.findPlan(k.kind, planId);
          if (still?.state !== 'running') return { stopped: still?.state ?? 'missing' };
          await repo.updateItem(planId, it.seq, { status: 'running' });
          try {
            await repo.updateItem(planId, it.seq, { ...(await applyOne(it)), finishedAt: new Date() });
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            await repo.updateItem(planId, it.seq, { status: 'failed', error: messageOf(err), finishedAt: new Date() });
          }
          done++;
          await ctx.progress({ done, total, unit: k.unit, message: `${done} of ${total}` }).catch(() => undefined);
        }
        after = batch[batch.length - 1]!.seq;
      }
      const tally = await tallyOf(k, planId);
      const state = planStateOf(tally);
      if (state !== 'running' && state !== 'waiting_for_confirmation')
        await repo.transition(planId, ['running'], { state, finishedAt: new Date() });
      return { state, tally };
    },
  };
}
export type PlanEngine = ReturnType<typeof createPlanEngine>;

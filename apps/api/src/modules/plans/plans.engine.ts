import { countEnded, planStateOf, planTallyOf, tallyText, type PlanState, type RunTally } from '@fleetdesk/contract';
import { isConnectionError, untilConnected } from '../../db/pg-errors.ts';
import type { StoredPlanKind } from '../../db/schema/index.ts';
import type { Actor } from '../../http/context.ts';
import type { JobEngine, JobRow } from '../../lib/jobs.ts';
import type { ItemFilter, PlanItemPatch, PlanItemRow, PlanRow, PlansRepository } from './plans.repository.ts';

/** Items read from the database at a time when a phase starts. */
const LOAD_BATCH = 5000;

/** Every row `page` gives, a batch after the last one's `seq` at a time. */
export async function allPages<T extends { seq: number }>(page: (after: number, limit: number) => Promise<T[]>) {
  const all: T[] = [];
  for (let after = 0; ;) {
    const batch = await page(after, LOAD_BATCH);
    if (!batch.length) return all;
    all.push(...batch);
    after = batch[batch.length - 1]!.seq;
  }
}
/** An error's message as an item keeps it (bounded). */
export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

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
      while (!signal.aborted && next < items.length) {
        const i = next++;
        await work(items[i]!, i, items);
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
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key)!.push(it);
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

/** The state a plan is in while its job of each phase works. */
const WORKING = { plan: ['planning'], run: ['running'] } as const;
type Phase = keyof typeof WORKING;
/** What a lifecycle step gives back: the plan as moved, or undefined when it was in another state (a race lost). */
type Moved = PlanRow | undefined;
/** What the lifecycle reads of a plan the kind holds. */
type PlanRef = Pick<PlanRow, 'id' | 'jobId' | 'state'>;
/** The states whose failed items may be run again: a run ended, or paused. */
export const canRetry = (state: string) =>
  ['completed', 'completed_with_failures', 'failed', 'cancelled', 'paused'].includes(state);

export type PhaseProgress = { done: number; total: number; unit: string; message: string; tally?: RunTally };
export type RunCtx = {
  signal: AbortSignal;
  progress(p: PhaseProgress, opts?: { force?: boolean }): Promise<void>;
};
/** How a phase works through its items: a lane's items `perLane` at a time, the whole walk inside `around`. */
export type WalkOpts = {
  perLane?: number;
  /** Wraps the walk (the Cloudflare budget's background context, so that its calls wait for their slot). */
  around?: <T>(fn: () => Promise<T>) => Promise<T>;
};
/** What applying one item gives back: its end status and what else the item records (error, undo, detail). */
export type ItemResult = PlanItemPatch & { status: string };

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

  /** The plan's phase (`which`) cancelled, when the plan is still in it. */
  const cancelPhase = (id: string, which: Phase) =>
    repo.transition(id, WORKING[which], { state: 'cancelled', finishedAt: now() });
  /** What a run going again clears. */
  const again = { state: 'running', error: null, finishedAt: null } as const;

  /** Every item of the plan the filter takes, in order. */
  const loadAll = (planId: string, f: ItemFilter): Promise<PlanItemRow[]> =>
    allPages((after, limit) => repo.items(planId, f, after, limit));

  /**
   * Works through a phase's items by their lane (a Cloudflare account: the accounts side by side, each paced by
   * its budget), reporting progress from `from` on as each counted item ends; throws once the job is stopped.
   */
  const walk = async <T extends Pick<PlanItemRow, 'lane'>>(
    items: T[],
    ctx: RunCtx,
    o: WalkOpts & { from: number; report(done: number): PhaseProgress },
    work: (item: T, i: number, lane: T[]) => Promise<boolean>,
  ) => {
    let done = o.from;
    const report = (force = false) => ctx.progress(o.report(done), { force }).catch(() => undefined);
    const around = o.around ?? (<R>(fn: () => Promise<R>) => fn());
    await around(() =>
      inLanes(
        byLane(items, (it) => it.lane),
        o.perLane ?? 1,
        ctx.signal,
        async (it, i, lane) => {
          if (!(await work(it, i, lane))) return;
          done++;
          await report();
        },
      ),
    );
    await report(true);
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('Stopped');
  };

  return {
    startJob,

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
    async resume(k: RunKind, p: PlanRef, actor: Actor, extra: Record<string, unknown> = {}): Promise<boolean> {
      const job = p.jobId ? await jobs.find(p.jobId) : undefined;
      if (job?.kind === k.runJob && ['failed', 'cancelled'].includes(job.state)) {
        await jobs.engine().resume(job);
        return true;
      }
      const moved = await repo.transition(p.id, ['paused', 'failed'], again);
      if (moved) await startJob(moved, k.runJob, actor, extra);
      return !!moved;
    },

    /**
     * The run's job is resumed (the Jobs screen or the plan page): the plan runs again. A paused run carries on with
     * the items not reached; a failed one tries its failed items again (each keeps its failure until its new attempt
     * decides); a cancelled one both. False when the plan cannot run again.
     */
    async jobResuming(k: RunKind, p: PlanRef): Promise<boolean> {
      if (p.state === 'running') return true;
      const moved = await repo.transition(p.id, ['paused', 'failed', 'completed_with_failures', 'cancelled'], again);
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
      await repo.cancelPending(id, ['pending', 'running'], k.runOutcomes);
      return moved;
    },

    /** Runs again only the failed items of a finished (or paused) run; the number put back, or undefined. */
    async retryFailed(k: RunKind, p: PlanRef): Promise<number | undefined> {
      if (!canRetry(p.state) || !(await repo.transition(p.id, [p.state], again))) return undefined;
      return repo.resetSteps(p.id, ['failed'], k.runOutcomes);
    },

    /**
     * A cancel was asked for on the plan's job (the Jobs screen): the plan is cancelled at once and no item starts
     * from now on; the items in flight finish with their worker, or end with the job (`jobStopped`).
     */
    async jobCancelling(k: RunKind, id: string, which: Phase) {
      const moved = await cancelPhase(id, which);
      if (moved && which === 'run') await repo.cancelPending(id, ['pending'], k.runOutcomes);
    },

    /**
     * The job ended cancelled, whichever way (the Jobs screen, the plan's Pause or Cancel, a takeover of a dead
     * worker's job): a plan still working reads "Cancelled" like its job and no item stays running; a paused run's
     * items in flight go back to pending (Resume redoes them, re-reading first). The plan as it ended, for the
     * job's result; undefined when it had not started running.
     */
    async jobStopped(k: RunKind, id: string, which: Phase): Promise<Moved> {
      const plan = (await cancelPhase(id, which)) ?? (await repo.findPlan(k.kind, id));
      if (!plan || which === 'plan' || !plan.startedAt) return undefined;
      if (plan.state === 'paused') await repo.resetSteps(id, ['running'], k.runOutcomes);
      else await repo.cancelPending(id, ['pending', 'running'], k.runOutcomes);
      return plan;
    },

    /** The plan's job ended for good without its handler (failed, or cancelled with no reason): the plan says so. */
    async jobEnded(id: string, which: Phase, error: string | null) {
      await repo.transition(id, WORKING[which], { state: error ? 'failed' : 'cancelled', error, finishedAt: now() });
    },

    loadAll,
    walk,

    /**
     * The run: each item still to do is claimed, applied by the kind and recorded as it ends, lane by lane. An
     * item's error is its own failure (a lost connection waits for the database and tries it again: the kind's
     * apply re-reads first). A cancel ends the items not claimed; a stop (pause, shutdown) ends the walk. The end
     * state comes from the items by the one rule: never "completed" over a failure or with items left.
     */
    async run(
      k: RunKind,
      planId: string,
      ctx: RunCtx,
      applyOne: (item: PlanItemRow) => Promise<ItemResult>,
      o: WalkOpts = {},
    ): Promise<{ stopped?: string; state?: PlanState; tally?: RunTally }> {
      const p = await repo.findPlan(k.kind, planId);
      if (p?.state !== 'running') return { stopped: p?.state ?? 'missing' };
      // Steps a stopped run left mid-way go again: each re-reads first, so a step done twice is found done.
      await repo.resetSteps(planId, ['running'], k.runOutcomes);
      // Items put back while the run goes on (a batch's retried or confirmed names) are taken in a next round; a
      // round that ended none of its items ends the run (nothing it could claim).
      for (let worked = 1; worked > 0;) {
        const items = await loadAll(planId, k.toDo);
        if (!items.length) break;
        const tally = await tallyOf(k, planId);
        const report = (done: number) => ({
          done,
          total: tally.total,
          unit: k.unit,
          message: tallyText(tally),
          tally: { ...tally },
        });
        worked = 0;
        await walk(items, ctx, { ...o, from: tally.total - (tally.pending ?? 0), report }, async (it) => {
          let tries = 0;
          const status = await untilConnected(
            async () => {
              // Cancelled meanwhile, this item does not start. Sent again after a cut, the claim may already have
              // been made (its answer was lost): it is this run's.
              if (!(await repo.claimItem(planId, it.seq, tries++ > 0))) return undefined;
              let res: ItemResult;
              try {
                res = await applyOne(it);
              } catch (err) {
                // A stop (pause, shutdown) is not the item's: it is tried again when the run goes on.
                if (isConnectionError(err) || ctx.signal.aborted) throw err;
                res = { status: 'failed', error: messageOf(err) };
              }
              // Tried again (resume, retry, takeover) and nothing to do: the item keeps its last failure and reason,
              // never "skipped" because the failed attempt moved it (outcomes round two).
              // An attempt that decided clears the last failure unless it gives its own.
              if (res.status === 'skipped' && it.error !== null) res = { status: 'failed' };
              else res = { error: null, ...res };
              await repo.updateItem(planId, it.seq, { ...res, finishedAt: now() });
              return res.status;
            },
            { signal: ctx.signal },
          );
          if (!status) return false;
          countEnded(tally, k.kind, status);
          worked++;
          return true;
        });
      }
      const end = await untilConnected(() => tallyOf(k, planId));
      const state = planStateOf(end);
      if (state === 'running') return { state, tally: end };
      // The counts say why (stateText, runText): no separate error to repeat them.
      const moved = await untilConnected(() =>
        repo.transition(planId, ['running'], { state, finishedAt: now(), error: null }),
      );
      if (moved) return { state, tally: end };
      return { stopped: (await repo.findPlan(k.kind, planId))?.state ?? 'missing' };
    },
  };
}
export type PlanEngine = ReturnType<typeof createPlanEngine>;

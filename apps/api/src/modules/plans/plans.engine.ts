import { planStateOf, planTallyOf, type PlanState } from '@fleetdesk/contract';
import type { StoredPlanKind } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import type { ItemFilter, PlanItemPatch, PlanItemRow, PlanRow, PlansRepository } from './plans.repository.ts';

const LOAD_BATCH = 2000;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/** What a kind tells the engine to run its plans (decision 084). */
export type RunKind = {
  kind: StoredPlanKind;
  /** The items a run works on (still to do, of the outcomes that change something). */
  toDo: ItemFilter;
  /** Whether an item of this outcome is part of the run's counts (an item planned as "skip" is not). */
  inRun(outcome: string): boolean;
  /** The unit the Jobs screen counts in. */
  unit: string;
};

export type RunCtx = {
  signal: AbortSignal;
  progress(p: { done: number; total: number; unit: string; message: string }): Promise<void>;
};

/**
 * The part of every plan that is not its kind's: the state rule over the items (outcomes.ts), the run through the
 * items with its stop, the cancel and the end of a job. A kind says how to apply one item.
 */
export function createPlanEngine(repo: PlansRepository) {
  const tallyOf = async (k: RunKind, planId: string) =>
    planTallyOf(
      k.kind,
      (await repo.counts(planId)).filter((r) => k.inRun(r.outcome)).map((r) => [r.status, r.n] as const),
    );

  return {
    tallyOf,

    /** Moves the plan to cancelled from one of `from`, and every item not finished with it; undefined if it had moved. */
    async cancel(id: string, from: readonly string[]): Promise<PlanRow | undefined> {
      const moved = await repo.transition(id, from, { state: 'cancelled', finishedAt: new Date() });
      if (moved) await repo.cancelPending(id);
      return moved;
    },

    /** The plan's job ended for good (failed, or cancelled from the Jobs screen): the plan says so. */
    async jobEnded(id: string, from: readonly string[], error: string | null) {
      await repo.transition(id, from, { state: error ? 'failed' : 'cancelled', error, finishedAt: new Date() });
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

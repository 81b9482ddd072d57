import type { z } from 'zod';
import { AppError } from '../../http/errors.ts';
import { PermanentJobError, defineJob, type JobContext, type RetryPolicy } from '../registry.ts';

type Which = 'plan' | 'run';

/**
 * What a kind's service answers when its plan's job ends without its handler (the plan engine's ends, decision
 * 084). Only `jobEnded` is required: a kind without `jobStopped` has its plan ended as cancelled by it instead.
 */
export type PlanJobHost = {
  /** The run's job is queued again (the Jobs screen's Resume): the plan runs again, or this refuses. */
  jobResuming?: (planId: string) => Promise<void>;
  /** A cancel was asked for while the job runs: the plan is cancelled at once. */
  jobCancelling?: (planId: string, which: Which) => Promise<void>;
  /** The job ended cancelled, whichever way: the plan reads as its job; what this returns is the job's result. */
  jobStopped?: (planId: string, which: Which) => Promise<Record<string, unknown> | void>;
  /** The job failed for good (or stopped, for a kind without `jobStopped`): the plan says so. */
  jobEnded: (planId: string, which: Which, error: string | null) => Promise<void>;
};

/**
 * A plan's planning or run job, the same way for every kind (decision 084): its items are the plan's (not the
 * job's), so a job taken back after a crash carries on with those not done. A handler's error fails the plan once
 * the retries are spent; a refusal (`refusalsFinal`: a source too large, no credentials) fails it at once, since
 * another attempt cannot fix it.
 */
export function definePlanJob<P extends Record<string, unknown>>(o: {
  kind: string;
  which: Which;
  payload: z.ZodType<P>;
  planOf: (p: P) => string;
  /** The kind's service (made after the jobs are defined: read when a job needs it). */
  host: () => PlanJobHost;
  retry: RetryPolicy;
  timeoutSeconds: number;
  refusalsFinal?: boolean;
  handler: (ctx: JobContext<P>) => Promise<Record<string, unknown>>;
}) {
  const { host, which } = o;
  return defineJob<P>({
    kind: o.kind,
    area: 'cnv:domains',
    payload: o.payload,
    // A stopped run resumes from its first item not done, from the Jobs screen as from the plan's page.
    resumable: which === 'run',
    beforeResume: (p) => host().jobResuming?.(o.planOf(p)) ?? Promise.resolve(),
    cancelling: (p) => host().jobCancelling?.(o.planOf(p), which) ?? Promise.resolve(),
    stopped: (p) => host().jobStopped?.(o.planOf(p), which) ?? Promise.resolve(),
    retry: o.retry,
    timeoutSeconds: o.timeoutSeconds,
    async handler(ctx) {
      try {
        return await o.handler(ctx);
      } catch (err) {
        const id = o.planOf(ctx.payload);
        const message = err instanceof Error ? err.message : String(err);
        const refused = !!o.refusalsFinal && err instanceof AppError && err.status < 500;
        // A stop is the engine's to end (`stopped`); a shutdown or a takeover hands the job on.
        if (ctx.signal.aborted) {
          if (!host().jobStopped)
            await host()
              .jobEnded(id, which, null)
              .catch(() => undefined);
        } else if (refused || ctx.attempt > o.retry.limit) await host().jobEnded(id, which, message);
        if (refused) throw new PermanentJobError(message);
        throw err;
      }
    },
  });
}

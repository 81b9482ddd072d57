import { z } from 'zod';
import { IdSchema, type JobProgress } from '@fleetdesk/contract';
import { FLEET_PLAN_JOB, FLEET_RUN_JOB, type FleetService } from '../../modules/fleet/fleet.service.ts';
import { defineJob, type JobContext } from '../registry.ts';

// The plan's number names the job everywhere ("Fleet plan #3", jobOwner in the contract).
const Payload = z.object({ planId: IdSchema, planNo: z.number().int().positive().optional() });

/**
 * The fleet jobs (decision 035): one reads each domain of a plan, the other changes them. Their steps are the
 * plan's items (one per domain, in the fleet tables, not the job row): a job taken back after a crash, or a
 * resumed plan, carries on with the items still pending.
 */
const fleetJob = (kind: string, which: 'plan' | 'run', fleet: () => FleetService) =>
  defineJob({
    kind,
    area: 'cnv:domains',
    payload: Payload,
    // A stopped run resumes from its first domain not done, from the Jobs screen as from the plan page.
    resumable: which === 'run',
    beforeResume: (p) => fleet().jobResuming(p.planId),
    // Cancelled on the Jobs screen: the plan reads "Cancelled" at once and its job ends in the same word.
    cancelling: (p) => fleet().jobCancelling(p.planId, which),
    stopped: (p) => fleet().jobStopped(p.planId, which),
    // A crashed worker's job comes back and carries on; a handler error is the plan's, shown on it.
    retry: { limit: 2, delaySeconds: 5, backoff: true },
    // pg-boss caps a job at 24 h with its grace; a longer run times out and its retry carries on where it was.
    timeoutSeconds: 22 * 60 * 60,
    async handler(ctx: JobContext<z.infer<typeof Payload>>) {
      const phaseCtx = {
        signal: ctx.signal,
        progress: (p: JobProgress, o?: { force?: boolean }) => ctx.progress(p, o),
      };
      try {
        return which === 'plan'
          ? await fleet().planPhase(ctx.payload.planId, phaseCtx)
          : await fleet().runPhase(ctx.payload.planId, phaseCtx);
      } catch (err) {
        // A cancel is the engine's to end (it calls `stopped`); a shutdown or a takeover hands the job on.
        if (!ctx.signal.aborted && ctx.attempt >= 3) {
          await fleet().jobFailed(ctx.payload.planId, which, err instanceof Error ? err.message : String(err));
        }
        throw err;
      }
    },
  });

export const fleetPlanJob = (fleet: () => FleetService) => fleetJob(FLEET_PLAN_JOB, 'plan', fleet);
export const fleetRunJob = (fleet: () => FleetService) => fleetJob(FLEET_RUN_JOB, 'run', fleet);

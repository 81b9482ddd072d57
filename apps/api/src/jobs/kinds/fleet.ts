import { z } from 'zod';
import { IdSchema, type JobProgress } from '@fleetdesk/contract';
import { FLEET_PLAN_JOB, FLEET_RUN_JOB, type FleetService } from '../../modules/fleet/fleet.service.ts';
import { definePlanJob } from './plans.ts';

// The plan's number names the job everywhere ("Fleet plan #3", jobOwner in the contract).
const Payload = z.object({ planId: IdSchema, planNo: z.number().int().positive().optional() });

/**
 * The fleet jobs (decision 035): one reads each domain of a plan, the other changes them. Their steps are the
 * plan's items (one per domain, in the plan tables, not the job row): a job taken back after a crash, or a
 * resumed plan, carries on with the items still pending.
 */
const fleetJob = (kind: string, which: 'plan' | 'run', fleet: () => FleetService) =>
  definePlanJob({
    kind,
    which,
    payload: Payload,
    planOf: (p) => p.planId,
    host: fleet,
    // A crashed worker's job comes back and carries on; a handler error is the plan's, shown on it.
    retry: { limit: 2, delaySeconds: 5, backoff: true },
    // pg-boss caps a job at 24 h with its grace; a longer run times out and its retry carries on where it was.
    timeoutSeconds: 22 * 60 * 60,
    async handler(ctx) {
      const phaseCtx = {
        signal: ctx.signal,
        progress: (p: JobProgress, o?: { force?: boolean }) => ctx.progress(p, o),
      };
      return which === 'plan'
        ? await fleet().planPhase(ctx.payload.planId, phaseCtx)
        : await fleet().runPhase(ctx.payload.planId, phaseCtx);
    },
  });

export const fleetPlanJob = (fleet: () => FleetService) => fleetJob(FLEET_PLAN_JOB, 'plan', fleet);
export const fleetRunJob = (fleet: () => FleetService) => fleetJob(FLEET_RUN_JOB, 'run', fleet);

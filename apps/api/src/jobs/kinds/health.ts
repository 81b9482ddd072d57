import { z } from 'zod';
import { FleetSelectionSchema } from '@fleetdesk/contract';
import { HEALTH_CHECK_JOB, HEALTH_CYCLE_JOB, type HealthService } from '../../modules/health/health.service.ts';
import { defineJob } from '../registry.ts';

export { HEALTH_CHECK_JOB, HEALTH_CYCLE_JOB };

/**
 * The periodic health run (decision 045): stale domains, longest-unchecked first, within the budgets' share;
 * its result says how long a whole cycle takes at the current budgets.
 */
export const healthCycleJob = (health: () => HealthService) =>
  defineJob({
    kind: HEALTH_CYCLE_JOB,
    area: 'cnv:domains',
    payload: z.object({}).passthrough(),
    // The next run picks up whatever this one did not reach.
    retry: { limit: 0, delaySeconds: 10, backoff: false },
    timeoutSeconds: 60 * 60,
    async handler(ctx) {
      return health().cycle((done, total) => ctx.progress({ done, total, unit: 'domains' }), ctx.signal);
    },
  });

/** "Check now" over a fleet selection: every check of each domain. */
export const healthCheckJob = (health: () => HealthService) =>
  defineJob({
    kind: HEALTH_CHECK_JOB,
    area: 'cnv:domains',
    payload: z.object({ selection: FleetSelectionSchema }),
    retry: { limit: 1, delaySeconds: 10, backoff: false },
    timeoutSeconds: 12 * 60 * 60,
    async handler(ctx) {
      const ids = await health().selectionIds(ctx.payload.selection);
      return health().checkMany(ids, (done, total) => ctx.progress({ done, total, unit: 'domains' }), ctx.signal);
    },
  });

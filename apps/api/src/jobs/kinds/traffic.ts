import { z } from 'zod';
import type { TrafficService } from '../../modules/traffic/traffic.service.ts';
import { defineJob } from '../registry.ts';

export const TRAFFIC_CYCLE_JOB = 'traffic.cycle';

/** The periodic traffic read (decision 070): the domains read longest ago, within the fleet share of the budgets. */
export const trafficCycleJob = (traffic: () => TrafficService) =>
  defineJob({
    kind: TRAFFIC_CYCLE_JOB,
    area: 'cnv:domains',
    payload: z.object({}).passthrough(),
    // The next run picks up whatever this one did not reach.
    retry: { limit: 0, delaySeconds: 10, backoff: false },
    timeoutSeconds: 60 * 60,
    async handler(ctx) {
      return traffic().cycle((done, total) => ctx.progress({ done, total, unit: 'domains' }), ctx.signal);
    },
  });

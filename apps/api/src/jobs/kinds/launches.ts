import { z } from 'zod';
import { IdSchema, LAUNCH_STAGES } from '@fleetdesk/contract';
import {
  LAUNCH_BATCH_PLAN_JOB,
  LAUNCH_BATCH_RUN_JOB,
  type BatchJobPayload,
  type LaunchBatchesService,
} from '../../modules/launches/launch-batches.service.ts';
import { LAUNCH_JOB, type LaunchJobPayload, type LaunchesService } from '../../modules/launches/launches.service.ts';

/** The rules of whoever queued the job (absent in jobs queued before runs carried them). */
const QueuedBy = z.array(z.string().max(100)).max(50).optional();
import { defineJob } from '../registry.ts';

/** pg-boss keeps a job at most 24 hours; a run (or a batch's run) stays within it, with its grace. */
const LONGEST_RUN_SECONDS = 22 * 60 * 60;

/**
 * A run of a launch (decision 044): one step per stage, so a crashed worker's run resumes from the stage it was
 * in. A failed stage fails the run at once (no blind retries: a refusal needs a person, and Retry runs it again);
 * waiting stages wait inside their step, so the run may last as long as their bound. `concurrency`: runs one
 * process takes at once, if more than the engine's.
 */
export const launchRunJob = (launches: () => LaunchesService, concurrency?: number) =>
  defineJob<LaunchJobPayload>({
    kind: LAUNCH_JOB,
    // As many at once as a batch keeps going (LAUNCH_BATCH_CONCURRENCY), else a batch would wait for workers.
    concurrency,
    area: 'cnv:domains',
    payload: z.object({ launchId: IdSchema, launchNo: z.number().int().positive().optional(), rules: QueuedBy }),
    steps: () => LAUNCH_STAGES.map((s) => ({ key: s.key, label: s.label })),
    retry: { limit: 0, delaySeconds: 0, backoff: false },
    // Two waiting stages (and a parse) may each take up to the wait limit (at most 7 hours each).
    timeoutSeconds: LONGEST_RUN_SECONDS,
    handler: (ctx) => launches().runJob(ctx),
  });

const BatchPayload = z.object({ batchId: IdSchema, batchNo: z.number().int().positive().optional(), rules: QueuedBy });

/** Plans every name of a batch; a resumed job plans only the names without a plan yet. */
export const launchBatchPlanJob = (batches: () => LaunchBatchesService) =>
  defineJob<BatchJobPayload>({
    kind: LAUNCH_BATCH_PLAN_JOB,
    area: 'cnv:domains',
    payload: BatchPayload,
    retry: { limit: 2, delaySeconds: 10, backoff: true },
    timeoutSeconds: 6 * 60 * 60,
    handler: (ctx) => batches().planJob(ctx),
  });

/** Runs a batch: starts its names' launches a few at a time and follows them; Resume queues it again. */
export const launchBatchRunJob = (batches: () => LaunchBatchesService) =>
  defineJob<BatchJobPayload>({
    kind: LAUNCH_BATCH_RUN_JOB,
    area: 'cnv:domains',
    payload: BatchPayload,
    // A stopped run resumes from its first name not done, from the Jobs screen as from the batch's page.
    resumable: true,
    beforeResume: (p) => batches().jobResuming(p.batchId),
    // Cancelled on the Jobs screen: the batch reads "Cancelled" at once; paused, its names in flight are followed
    // again on Resume.
    cancelling: (p) => batches().jobCancelling(p.batchId, 'run'),
    stopped: (p) => batches().jobStopped(p.batchId, 'run'),
    // A batch longer than one run's limit goes on in the retry, which follows the same rows.
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    timeoutSeconds: LONGEST_RUN_SECONDS,
    async handler(ctx) {
      try {
        return await batches().runJob(ctx);
      } catch (err) {
        // A stop is the engine's to end (`stopped`); the last attempt's failure is the batch's, shown on it.
        if (!ctx.signal.aborted && ctx.attempt >= 4)
          await batches().jobEnded(ctx.payload.batchId, 'run', err instanceof Error ? err.message : String(err));
        throw err;
      }
    },
  });

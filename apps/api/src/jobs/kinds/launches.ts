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
import { definePlanJob } from './plans.ts';

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
  definePlanJob<BatchJobPayload>({
    kind: LAUNCH_BATCH_PLAN_JOB,
    which: 'plan',
    payload: BatchPayload,
    planOf: (p) => p.batchId,
    // Planning ends only by failing or being cancelled: the batch says so (no cancel or stop of its own).
    host: () => ({ jobEnded: (id, w, error) => batches().jobEnded(id, w, error) }),
    retry: { limit: 2, delaySeconds: 10, backoff: true },
    timeoutSeconds: 6 * 60 * 60,
    handler: (ctx) => batches().planJob(ctx),
  });

/** Runs a batch: its names a few at a time, each launch followed to its end; Resume carries on where it was. */
export const launchBatchRunJob = (batches: () => LaunchBatchesService) =>
  definePlanJob<BatchJobPayload>({
    kind: LAUNCH_BATCH_RUN_JOB,
    which: 'run',
    payload: BatchPayload,
    planOf: (p) => p.batchId,
    // Paused, its names in flight are followed again on Resume; cancelled on the Jobs screen, the batch reads
    // "Cancelled" at once.
    host: batches,
    // A batch longer than one run's limit goes on in the retry, which follows the same rows.
    retry: { limit: 3, delaySeconds: 10, backoff: true },
    timeoutSeconds: LONGEST_RUN_SECONDS,
    handler: (ctx) => batches().runJob(ctx),
  });

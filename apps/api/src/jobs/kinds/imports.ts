import { z } from 'zod';
import { IdSchema, type JobProgress } from '@fleetdesk/contract';
import { IMPORT_PLAN_JOB, IMPORT_RUN_JOB, type ImportsService } from '../../modules/imports/imports.service.ts';
import { definePlanJob } from './plans.ts';

/** The plan, and the rules of whoever queued the job (absent in jobs queued before imports carried them). */
const Payload = z.object({
  planId: IdSchema,
  planNo: z.number().int().positive().optional(),
  rules: z.array(z.string().max(100)).max(50).optional(),
});

/**
 * The import jobs (decision 043): one reads the source and plans every name, the other writes them. The names
 * are the import's items (in the plan tables): a job taken back after a crash carries on with those still
 * pending, each decided again before it is written.
 */
const importJob = (kind: string, which: 'plan' | 'run', imports: () => ImportsService) =>
  definePlanJob({
    kind,
    which,
    payload: Payload,
    planOf: (p) => p.planId,
    // A paused or stopped run resumes from its first name not written, from the Jobs screen as from the import.
    host: imports,
    retry: { limit: 2, delaySeconds: 5, backoff: true },
    timeoutSeconds: 6 * 60 * 60,
    // A refusal (no panel credentials, a source too large) is not retried: the import says why at once.
    refusalsFinal: true,
    async handler(ctx) {
      const phaseCtx = {
        signal: ctx.signal,
        rules: ctx.payload.rules ?? ['cnv:domains'],
        progress: (p: JobProgress, o?: { force?: boolean }) => ctx.progress(p, o),
      };
      return which === 'plan'
        ? await imports().planPhase(ctx.payload.planId, phaseCtx)
        : await imports().runPhase(ctx.payload.planId, phaseCtx);
    },
  });

export const importPlanJob = (imports: () => ImportsService) => importJob(IMPORT_PLAN_JOB, 'plan', imports);
export const importRunJob = (imports: () => ImportsService) => importJob(IMPORT_RUN_JOB, 'run', imports);

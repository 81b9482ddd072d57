import { z } from 'zod';
import { IdSchema } from '@fleetdesk/contract';
import { IMPORT_PLAN_JOB, IMPORT_RUN_JOB, type ImportsService } from '../../modules/imports/imports.service.ts';
import { AppError } from '../../http/errors.ts';
import { PermanentJobError, defineJob, type JobContext } from '../registry.ts';

/** The plan, and the rules of whoever queued the job (absent in jobs queued before imports carried them). */
const Payload = z.object({
  planId: IdSchema,
  planNo: z.number().int().positive().optional(),
  rules: z.array(z.string().max(100)).max(50).optional(),
});

/**
 * The import jobs (decision 043): one reads the source and plans every name, the other writes them. The names
 * are the import's items (in the imports tables): a job taken back after a crash carries on with those still
 * pending, each decided again before it is written.
 */
const importJob = (kind: string, which: 'plan' | 'run', imports: () => ImportsService) =>
  defineJob({
    kind,
    area: 'cnv:domains',
    payload: Payload,
    retry: { limit: 2, delaySeconds: 5, backoff: true },
    timeoutSeconds: 6 * 60 * 60,
    async handler(ctx: JobContext<z.infer<typeof Payload>>) {
      const phaseCtx = {
        signal: ctx.signal,
        rules: ctx.payload.rules ?? ['cnv:domains'],
        progress: (p: { done: number; total: number; unit: string; message: string }) => ctx.progress(p),
      };
      try {
        return which === 'plan'
          ? await imports().planPhase(ctx.payload.planId, phaseCtx)
          : await imports().runPhase(ctx.payload.planId, phaseCtx);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // A refusal (no panel credentials, a source too large) is not retried: the import says why at once.
        const refused = err instanceof AppError && err.status < 500;
        if (ctx.signal.aborted)
          await imports()
            .jobEnded(ctx.payload.planId, which, null)
            .catch(() => undefined);
        else if (refused || ctx.attempt >= 3) await imports().jobEnded(ctx.payload.planId, which, message);
        if (refused) throw new PermanentJobError(message);
        throw err;
      }
    },
  });

export const importPlanJob = (imports: () => ImportsService) => importJob(IMPORT_PLAN_JOB, 'plan', imports);
export const importRunJob = (imports: () => ImportsService) => importJob(IMPORT_RUN_JOB, 'run', imports);

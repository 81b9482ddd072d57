import { z } from 'zod';
import { IdSchema } from './common.ts';
import { PLAN_KINDS, type PlanKind } from './outcomes.ts';

/** Each kind's page in the console, by the plan's id (decision 084): a plan is found by its id whatever its kind. */
export const PLAN_PAGES: Record<PlanKind, (id: string) => string> = {
  fleet: (id) => `/fleet/${encodeURIComponent(id)}`,
  imports: (id) => `/imports/${encodeURIComponent(id)}`,
  launches: (id) => `/launches/batches/${encodeURIComponent(id)}`,
};

/** What names a plan of any kind ("Fleet plan #3", "Import #2", "Launch batch #5"). */
export const PLAN_KIND_NAMES: Record<PlanKind, string> = {
  fleet: 'Fleet plan',
  imports: 'Import',
  launches: 'Launch batch',
};

/** A plan of any kind: its kind, number, state and page (GET /api/plans/{id}). */
export const PlanRefSchema = z.object({
  _id: IdSchema,
  kind: z.enum(PLAN_KINDS),
  planNo: z.number().int(),
  name: z.string(),
  state: z.string(),
  path: z.string(),
});
export type PlanRef = z.infer<typeof PlanRefSchema>;

/**
 * What a plan of every kind says of itself (fleet plans and imports extend it): its number, its state in the words
 * every screen uses (outcomes.ts), its error, its job, who planned it and when each phase came.
 */
export const PlanBaseSchema = z.object({
  _id: IdSchema,
  planNo: z.number().int(),
  /** The state in words, failures counted (outcomes.ts): the same words the Jobs screen shows. */
  stateText: z.string(),
  error: z.string().nullable(),
  jobId: IdSchema.nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  plannedAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

import { z } from 'zod';
import { IdSchema } from './common.ts';
import { HEALTH_CHECK_KEYS, HEALTH_FIXABLE_CHECKS, HEALTH_STATES } from './health-checks.ts';

/** Fix on the Health tab: which check to set back (the API reads its expected value itself). */
export const HealthFixInputSchema = z.object({
  check: z.enum(HEALTH_FIXABLE_CHECKS, { message: `check must be one of ${HEALTH_FIXABLE_CHECKS.join(', ')}` }),
});
export type HealthFixInput = z.infer<typeof HealthFixInputSchema>;

export const DomainHealthCheckSchema = z.object({
  check: z.enum(HEALTH_CHECK_KEYS),
  plane: z.string(),
  label: z.string(),
  state: z.enum(HEALTH_STATES),
  observed: z.string().nullable(),
  expected: z.string().nullable(),
  /** Why the state is what it is (the reason of an unknown, what failed). */
  reason: z.string().nullable(),
  since: z.string(),
  lastRun: z.string(),
  fix: z.string().nullable(),
});
export type DomainHealthCheck = z.infer<typeof DomainHealthCheckSchema>;

export const DomainHealthSchema = z.object({
  domainId: IdSchema,
  /** Worst result; null when the domain was never checked. */
  state: z.enum(HEALTH_STATES).nullable(),
  problems: z.number().int(),
  checks: z.array(DomainHealthCheckSchema),
  history: z.array(
    z.object({
      check: z.string(),
      from: z.enum(HEALTH_STATES).nullable(),
      to: z.enum(HEALTH_STATES),
      observed: z.string().nullable(),
      at: z.string(),
    }),
  ),
});
export type DomainHealth = z.infer<typeof DomainHealthSchema>;

export const HealthSummarySchema = z.object({
  /** Domains by their worst result ("unchecked": never checked yet). */
  domains: z.record(z.string(), z.number().int()),
  /** Per check, the number of domains in each state. */
  checks: z.array(z.object({ check: z.string(), label: z.string(), counts: z.record(z.string(), z.number().int()) })),
  recentFailing: z.array(z.object({ domainId: IdSchema, domainName: z.string(), check: z.string(), at: z.string() })),
  /** What the periodic job last reported about its cycle. */
  cycle: z
    .object({
      at: z.string(),
      fullCycleHours: z.number().nullable(),
      cheapCycleHours: z.number().nullable(),
      message: z.string(),
    })
    .nullable(),
});
export type HealthSummary = z.infer<typeof HealthSummarySchema>;

import { z } from 'zod';
import { FleetSelectionSchema } from './fleet.ts';

/** "Check now" over a fleet selection (ids, or the list's filter), run as a job. Apart from health.ts: fleet.ts
 * reads the domain filter, which reads health.ts. */
export const HealthCheckSelectionInputSchema = z.object({ selection: FleetSelectionSchema });
export type HealthCheckSelectionInput = z.infer<typeof HealthCheckSelectionInputSchema>;

export const HealthJobStartedSchema = z.object({ jobId: z.string(), jobNo: z.number().int() });
export type HealthJobStarted = z.infer<typeof HealthJobStartedSchema>;

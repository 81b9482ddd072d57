import { z } from 'zod';
import { IdSchema, requiredText } from './common.ts';

export const RegionSchema = z.object({ _id: IdSchema, regionNo: z.number().int(), name: z.string() });
export type Region = z.infer<typeof RegionSchema>;

export const RegionInputSchema = z.object({ name: requiredText(200, 'Name') });
export type RegionInput = z.infer<typeof RegionInputSchema>;

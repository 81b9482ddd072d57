import { z } from 'zod';
import { IdSchema, ListQuerySchema, requiredText } from './common.ts';

export const BrandSchema = z.object({
  _id: IdSchema,
  brandNo: z.number().int(),
  name: z.string(),
  /** The "Traffic fell" health check's limit (issue 47, decision 072): a fall of more than this % fails; null is off. */
  trafficFallPercent: z.number().int().nullable(),
  /** Submit the changed URLs of the brand's domains to IndexNow (issue 46, decision 075); off by default. */
  indexNow: z.boolean(),
  isInUseCloudId: z.boolean().optional(),
  isInUseYandexWebmasterAccountId: z.boolean().optional(),
});
export type Brand = z.infer<typeof BrandSchema>;

export const TRAFFIC_FALL_MESSAGE = 'Traffic fall must be a whole percent from 1 to 100';

/** A whole percent from 1 to 100, or null for off (the form sends null for an empty box). */
const trafficFallPercent = () =>
  z
    .number({ message: TRAFFIC_FALL_MESSAGE })
    .int(TRAFFIC_FALL_MESSAGE)
    .min(1, TRAFFIC_FALL_MESSAGE)
    .max(100, TRAFFIC_FALL_MESSAGE)
    .nullable()
    .optional();

export const BrandInputSchema = z.object({
  name: requiredText(200, 'Name'),
  trafficFallPercent: trafficFallPercent(),
  indexNow: z.boolean({ message: 'IndexNow must be on or off' }).optional(),
});
export type BrandInput = z.infer<typeof BrandInputSchema>;

export const BrandListQuerySchema = ListQuerySchema.extend({
  checkInUseCloudId: IdSchema.optional(),
  checkInUseCloudIdDomainId: IdSchema.optional(),
  checkInUseYandexWebmasterAccountId: IdSchema.optional(),
  checkInUseYandexWebmasterAccountIdDomainId: IdSchema.optional(),
});
export type BrandListQuery = z.infer<typeof BrandListQuerySchema>;

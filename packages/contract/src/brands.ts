import { z } from 'zod';
import { IdSchema, ListQuerySchema, requiredText } from './common.ts';

export const BrandSchema = z.object({
  _id: IdSchema,
  brandNo: z.number().int(),
  name: z.string(),
  isInUseCloudId: z.boolean().optional(),
  isInUseYandexWebmasterAccountId: z.boolean().optional(),
});
export type Brand = z.infer<typeof BrandSchema>;

export const BrandInputSchema = z.object({ name: requiredText(200, 'Name') });
export type BrandInput = z.infer<typeof BrandInputSchema>;

export const BrandListQuerySchema = ListQuerySchema.extend({
  checkInUseCloudId: IdSchema.optional(),
  checkInUseCloudIdDomainId: IdSchema.optional(),
  checkInUseYandexWebmasterAccountId: IdSchema.optional(),
  checkInUseYandexWebmasterAccountIdDomainId: IdSchema.optional(),
});
export type BrandListQuery = z.infer<typeof BrandListQuerySchema>;

import { z } from 'zod';
import { IdSchema, ListQuerySchema, optionalRef, secretInput, secretOutput, secretToken } from './common.ts';

export const RefSchema = z.object({ _id: IdSchema, name: z.string() });
export type Ref = z.infer<typeof RefSchema>;

export const CloudSchema = z.object({
  _id: IdSchema,
  cloudNo: z.number().int(),
  email: z.string(),
  password: secretOutput(),
  token: secretOutput(),
  globalAPIKey: secretOutput(),
  emailPassword: secretOutput(),
  proxyRegion: RefSchema.nullable(),
  /** Cloudflare's account id: found through GET /accounts and cached, or set by the operator. */
  accountId: z.string().nullable(),
  isInUseBrandId: z.boolean().optional(),
});
export type Cloud = z.infer<typeof CloudSchema>;

export const CloudInputSchema = z.object({
  email: z
    .string({ message: 'Email is required' })
    .trim()
    .min(1, 'Email is required')
    .max(320)
    .pipe(z.email({ message: 'Email must be a valid email address' })),
  password: secretInput(),
  // Sent in a header on every Cloudflare call.
  token: secretToken(),
  globalAPIKey: secretToken(),
  emailPassword: secretInput(),
  proxyRegionId: optionalRef(),
  accountId: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z
      .string()
      .trim()
      .regex(/^[0-9a-f]{32}$/, 'Account ID must be 32 hexadecimal characters, as Cloudflare shows it')
      .nullable()
      .optional(),
  ),
});
export type CloudInput = z.infer<typeof CloudInputSchema>;

export const CLOUD_SECRET_FIELDS = ['password', 'token', 'globalAPIKey', 'emailPassword'] as const;

export const CloudListQuerySchema = ListQuerySchema.extend({
  checkInUseBrandId: IdSchema.optional(),
  checkInUseBrandIdDomainId: IdSchema.optional(),
});
export type CloudListQuery = z.infer<typeof CloudListQuerySchema>;

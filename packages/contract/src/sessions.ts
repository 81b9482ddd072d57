import { z } from 'zod';
import { IdSchema, ListQuerySchema } from './common.ts';

/** A signed-in browser (or script) session; the token itself is never shown. */
export const SessionSchema = z.object({
  _id: IdSchema,
  userId: IdSchema,
  username: z.string(),
  /** Browser and system read from the user agent, e.g. "Chrome 131 on Linux". */
  browser: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  expiresAt: z.string(),
  /** The session making this request. */
  current: z.boolean(),
  /** Opened only to set up two-factor sign-in. */
  twoFactorSetup: z.boolean(),
});
export type Session = z.infer<typeof SessionSchema>;

export const SessionListQuerySchema = ListQuerySchema.extend({ userId: IdSchema.optional() });
export type SessionListQuery = z.infer<typeof SessionListQuerySchema>;

export const SESSION_MESSAGES = { notFound: 'Session not found' } as const;

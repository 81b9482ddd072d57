import { z } from 'zod';
import { IdSchema, requiredText } from './common.ts';
import { RoleRulesSchema } from './roles.ts';

/** A personal API token is sent as `Authorization: Bearer fdt_…`; the prefix tells it from a session token. */
export const API_TOKEN_PREFIX = 'fdt_';
export const API_TOKEN_MAX_DAYS = 366;
/** The expiries the console offers; the API takes any whole number of days up to API_TOKEN_MAX_DAYS. */
export const API_TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;

export const API_TOKEN_MESSAGES = {
  notFound: 'API token not found',
  noRules: 'Choose at least one rule',
  noExpiry: 'None of your roles allows a token without an expiry',
  notHeld: (rules: string) => `You cannot give a token rules you do not hold yourself (${rules})`,
  forbidden: 'API tokens cannot do this: sign in as a person',
  suspended:
    'This API token is suspended: a role of its owner requires two-factor sign-in, which the owner has not set up',
  tooMany: (n: number) => `You have ${n} active tokens, the most allowed: revoke one first`,
} as const;

export const API_TOKEN_STATUSES = ['active', 'expired'] as const;
export const API_TOKEN_STATUS_LABELS: Record<(typeof API_TOKEN_STATUSES)[number], string> = {
  active: 'Active',
  expired: 'Expired',
};

export const ApiTokenSchema = z.object({
  _id: IdSchema,
  tokenNo: z.number().int(),
  name: z.string(),
  /** The rules chosen at creation. */
  rules: z.array(z.string()),
  /** What the token can do today: its rules the owner still holds. */
  effectiveRules: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  lastUsedIp: z.string().nullable(),
  status: z.enum(API_TOKEN_STATUSES),
});
export type ApiToken = z.infer<typeof ApiTokenSchema>;

export const ApiTokenInputSchema = z.object({
  name: requiredText(100, 'Name'),
  rules: RoleRulesSchema.refine((r) => r.length > 0, { message: API_TOKEN_MESSAGES.noRules }),
  /** Days until it expires; null for none (only when a role of the owner allows it). */
  expiresInDays: z
    .number({ message: 'Expiry must be a number of days' })
    .int({ message: 'Expiry must be a whole number of days' })
    .min(1, { message: 'Expiry must be at least 1 day' })
    .max(API_TOKEN_MAX_DAYS, { message: `Expiry must be at most ${API_TOKEN_MAX_DAYS} days` })
    .nullable(),
});
export type ApiTokenInput = z.infer<typeof ApiTokenInputSchema>;

/** The answer of creating a token: the only time its value is shown. */
export const ApiTokenCreatedSchema = z.object({ apiToken: ApiTokenSchema, token: z.string() });
export type ApiTokenCreated = z.infer<typeof ApiTokenCreatedSchema>;

/** What the console lets a token's owner pick from. */
export const ApiTokenOptionsSchema = z.object({ rules: z.array(z.string()), noExpiryAllowed: z.boolean() });
export type ApiTokenOptions = z.infer<typeof ApiTokenOptionsSchema>;

/** The user's page: one of a user's tokens, revoked by an administrator. */
export const UserTokenParamsSchema = z.object({ id: IdSchema, tokenId: IdSchema });

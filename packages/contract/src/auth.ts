import { z } from 'zod';
import { IdSchema, NUL_MESSAGE, hasNoNul } from './common.ts';
import { STATUSES } from './constants.ts';

export const LoginInputSchema = z.object({
  username: z
    .string({ message: 'Username is required' })
    .trim()
    .min(1, 'Username is required')
    .max(200)
    .refine(hasNoNul, { message: NUL_MESSAGE }),
  password: z.string({ message: 'Password is required' }).min(1, 'Password is required').max(1024),
});
export type LoginInput = z.infer<typeof LoginInputSchema>;

export const SessionUserSchema = z.object({
  _id: IdSchema,
  userNo: z.number().int(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  status: z.enum(STATUSES),
  dateCreated: z.string(),
  dateLastLogin: z.string().nullable(),
});
export type SessionUser = z.infer<typeof SessionUserSchema>;

export const MeSchema = z.object({
  user: SessionUserSchema,
  rules: z.array(z.string()),
  /** This session may only set up two-factor sign-in (a role requires it). */
  twoFactorSetupRequired: z.boolean(),
});
export type Me = z.infer<typeof MeSchema>;

/** What the sign-in page shows: single sign-on's button and whether the password form is on. */
export const OidcConfigSchema = z.object({
  enabled: z.boolean(),
  providerName: z.string().nullable(),
  passwordSignIn: z.boolean(),
});
export type OidcConfig = z.infer<typeof OidcConfigSchema>;

/** The one-time code the callback hands the web app, exchanged for a session. */
export const OidcExchangeInputSchema = z.object({
  code: z.string({ message: 'Code is required' }).regex(/^[0-9a-f]{64}$/i, 'This sign-in link is not valid'),
});
export type OidcExchangeInput = z.infer<typeof OidcExchangeInputSchema>;

/** A provider account linked to a user: single sign-on with it signs in as this user. */
export const UserIdentitySchema = z.object({
  _id: IdSchema,
  issuer: z.string(),
  subject: z.string(),
  dateCreated: z.string(),
  dateLastLogin: z.string().nullable(),
});
export type UserIdentity = z.infer<typeof UserIdentitySchema>;

/** The user page's single sign-on card: linked accounts and the pending link invitation, if any. */
export const UserIdentitiesSchema = z.object({
  ssoEnabled: z.boolean(),
  providerName: z.string().nullable(),
  identities: z.array(UserIdentitySchema),
  pendingLink: z.object({ dateCreated: z.string(), dateExpires: z.string() }).nullable(),
});
export type UserIdentities = z.infer<typeof UserIdentitiesSchema>;

/** How long an administrator's link invitation stays usable. */
export const IDENTITY_LINK_HOURS = 72;

/** A new link invitation: its address is shown once; the next single sign-on through it links that account. */
export const IdentityLinkSchema = z.object({ url: z.string(), dateExpires: z.string() });
export type IdentityLink = z.infer<typeof IdentityLinkSchema>;

/** Linking by the provider's subject (the `sub` claim, as the provider's admin console shows it). */
export const IdentityLinkInputSchema = z.object({
  subject: z
    .string({ message: 'Subject is required' })
    .trim()
    .min(1, 'Subject is required')
    .max(255, 'At most 255 characters')
    .refine(hasNoNul, { message: NUL_MESSAGE }),
});
export type IdentityLinkInput = z.infer<typeof IdentityLinkInputSchema>;

export const IdentityParamsSchema = z.object({ id: IdSchema, identityId: IdSchema });

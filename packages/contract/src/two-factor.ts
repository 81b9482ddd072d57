import { z } from 'zod';
import { hasNoNul, NUL_MESSAGE } from './common.ts';
import { SessionUserSchema } from './auth.ts';

/** Ten single-use recovery codes are shown once when two-factor is turned on (or the codes are renewed). */
export const RECOVERY_CODE_COUNT = 10;
/** How long the code step of a sign-in may wait after the password. */
export const LOGIN_CHALLENGE_MINUTES = 5;

export const TWO_FACTOR_MESSAGES = {
  invalidCode: 'Invalid two-factor code',
  challengeGone: 'This sign-in has expired. Please sign in again.',
  setupRequired: 'Your role requires two-factor sign-in. Set it up on your profile to continue.',
  notEnabled: 'Two-factor sign-in is not turned on',
  alreadyEnabled: 'Two-factor sign-in is already turned on',
  noSetup: 'Start the two-factor setup first',
  requiredByRole: 'Your role requires two-factor sign-in: it cannot be turned off',
  wrongPassword: 'The password is not correct',
} as const;

/** A six-digit code from the authenticator app. */
export const TotpCodeSchema = z
  .string({ message: 'Code is required' })
  .trim()
  .regex(/^\d{6}$/, { message: 'Code must be 6 digits' });

/** At sign-in: a six-digit code or a recovery code (xxxxx-xxxxx). */
export const SecondFactorSchema = z
  .string({ message: 'Code is required' })
  .trim()
  .min(1, { message: 'Code is required' })
  .max(64, { message: 'Code must be at most 64 characters' })
  .refine(hasNoNul, { message: NUL_MESSAGE });

export const LoginTwoFactorInputSchema = z.object({
  challenge: z
    .string({ message: 'challenge is required' })
    .regex(/^[0-9a-f]{64}$/, { message: 'challenge is not valid' }),
  code: SecondFactorSchema,
});
export type LoginTwoFactorInput = z.infer<typeof LoginTwoFactorInputSchema>;

/**
 * The answer of POST /auth/login: signed in (the token in the Authorization header), or a challenge for the
 * code step (no token yet).
 */
export const LoginResultSchema = z.union([
  z.object({ user: SessionUserSchema, twoFactorSetupRequired: z.boolean() }),
  z.object({ twoFactorRequired: z.literal(true), challenge: z.string(), expiresInSeconds: z.number().int() }),
]);
export type LoginResult = z.infer<typeof LoginResultSchema>;

export const TwoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  /** One of the user's roles requires two-factor. */
  requiredByRole: z.boolean(),
  recoveryCodesLeft: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusSchema>;

/** The new secret, shown while setting up: as text, as an otpauth:// URI, and as a QR code (PNG data URL). */
export const TwoFactorSetupSchema = z.object({
  secret: z.string(),
  otpauthUri: z.string(),
  qrCode: z.string(),
});
export type TwoFactorSetup = z.infer<typeof TwoFactorSetupSchema>;

export const TwoFactorEnableInputSchema = z.object({ code: TotpCodeSchema });
export type TwoFactorEnableInput = z.infer<typeof TwoFactorEnableInputSchema>;

/** Turning two-factor off, or renewing the recovery codes: the password and a current code. */
export const TwoFactorConfirmInputSchema = z.object({
  password: z.string({ message: 'Password is required' }).min(1, 'Password is required').max(1024),
  code: SecondFactorSchema,
});
export type TwoFactorConfirmInput = z.infer<typeof TwoFactorConfirmInputSchema>;

export const RecoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof RecoveryCodesSchema>;

/** What an administrator sees of a user's two-factor (never the secret). */
export const UserTwoFactorSchema = z.object({ enabled: z.boolean(), enabledAt: z.string().nullable() });
export type UserTwoFactor = z.infer<typeof UserTwoFactorSchema>;

import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import {
  LOGIN_CHALLENGE_MINUTES,
  RECOVERY_CODE_COUNT,
  TWO_FACTOR_MESSAGES,
  type LoginResult,
  type LoginTwoFactorInput,
  type RecoveryCodes,
  type TwoFactorConfirmInput,
  type TwoFactorSetup,
  type TwoFactorStatus,
  type UserTwoFactor,
} from '@fleetdesk/contract';
import type { Database, Executor } from '../../db/client.ts';
import { systemActor, type Actor } from '../../http/context.ts';
import {
  ConflictError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '../../http/errors.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { sessionsChanged } from '../../lib/session-cache.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { ApiTokensRepository } from '../api-tokens/api-tokens.repository.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UserRow, UsersRepository } from '../users/users.repository.ts';
import { assertHoldsAll, toSessionUser } from '../users/users.service.ts';
import type { AuthRepository } from './auth.repository.ts';
import type { CodeThrottle } from './code-throttle.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { SessionMeta, SessionOpener } from './open-session.ts';
import type { TwoFactorRepository } from './two-factor.repository.ts';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30 s; one step either side for clock drift. */
const PERIOD = 30;
const WINDOW = 1;
/** Wrong codes one challenge takes before the password must be entered again (the throttle counts too). */
export const CHALLENGE_MAX_FAILURES = 5;
const CHALLENGE_MS = LOGIN_CHALLENGE_MINUTES * 60_000;

// Crockford's base32: no i, l, o, u. 16 characters are 80 random bits, enough for an unsalted SHA-256.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export function newRecoveryCode(): string {
  const bytes = crypto.randomBytes(16);
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
  return chars.match(/.{4}/g)!.join('-');
}
/** Case, spaces and dashes do not matter; the letters people confuse with digits are read as those digits. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
}
export const hashRecoveryCode = (code: string) => hashToken(`recovery:${normaliseRecoveryCode(code)}`);

const isTotpCode = (code: string) => /^\d{6}$/.test(code.trim());
const stepOf = (ms: number) => Math.floor(ms / 1000 / PERIOD);

/** The throttle key of a user's code step: usernames cannot contain a space, so it never meets a real one. */
const codeStepKey = (userId: string) => `2fa ${userId}`;

export type LoginOutcome = { token?: string; result: LoginResult };

export function createTwoFactorService(deps: {
  database: Database;
  repo: TwoFactorRepository;
  users: UsersRepository;
  sessions: Pick<AuthRepository, 'revokeAllForUser'>;
  /** A reset revokes the user's API tokens (issue 42). */
  tokens: Pick<ApiTokensRepository, 'revokeAllForUser'>;
  audit: AuditService;
  secrets: SecretBox;
  throttle: LoginThrottle;
  /** Wrong codes per user, whatever the address (issue 42). */
  codes: CodeThrottle;
  /** Tells a user by email that wrong codes are being tried; false when no email is configured. */
  mailUser?: (to: string, mail: { subject: string; text: string }) => Promise<boolean>;
  openSession: SessionOpener;
  issuer?: string;
}) {
  const { database, repo, users, audit, secrets, throttle, openSession } = deps;
  const issuer = deps.issuer ?? 'Fleetdesk';
  let lastPurge = 0;
  const totpOf = (sealed: string, label: string) =>
    new TOTP({
      issuer,
      label,
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD,
      secret: Secret.fromBase32(secrets.decrypt(sealed)),
    });

  /** The time step a TOTP code belongs to, or null when it is not valid now. Replays are the caller's check. */
  function totpStep(sealed: string, code: string): number | null {
    const now = Date.now();
    const delta = totpOf(sealed, 'x').validate({ token: code.trim(), timestamp: now, window: WINDOW });
    return delta === null ? null : stepOf(now) + delta;
  }

  /**
   * Checks a code (TOTP or recovery) against the user's enabled two-factor, in the caller's transaction with the
   * row locked, and spends it: the TOTP step is remembered, the recovery code marked used.
   */
  async function spendCode(userId: string, code: string, ex: Executor): Promise<'totp' | 'recovery code' | null> {
    const row = await repo.getForUpdate(userId, ex);
    if (!row?.enabledAt) return null;
    if (isTotpCode(code)) {
      const step = totpStep(row.secret, code);
      // A code of the last accepted step (or an earlier one) was already used.
      if (step === null || step <= row.lastStep) return null;
      await repo.setLastStep(userId, step, ex);
      return 'totp';
    }
    return (await repo.useRecoveryCode(userId, hashRecoveryCode(code), ex)) ? 'recovery code' : null;
  }

  async function newRecoveryCodes(userId: string, ex: Executor): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await repo.replaceRecoveryCodes(userId, codes.map(hashRecoveryCode), ex);
    return codes;
  }

  const tooMany = (wait: number) =>
    new RateLimitedError(
      `Too many failed two-factor codes. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      wait,
    );

  /** The password and a current code, counted by the sign-in throttle like a sign-in (a stolen session cannot guess). */
  async function confirmOwner(actor: Actor, input: TwoFactorConfirmInput, ip: string): Promise<UserRow> {
    const user = actor.userId ? await users.findById(actor.userId) : undefined;
    if (!user) throw new UnauthorizedError();
    const admission = await throttle.admit(user.username, ip);
    if (!admission.ok) {
      const wait = admission.retryAfterSeconds;
      throw new RateLimitedError(
        `Too many failed attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
        wait,
      );
    }
    if (!(await verifyPassword(user.passwordHash, input.password))) {
      throw new ValidationError(TWO_FACTOR_MESSAGES.wrongPassword, { password: TWO_FACTOR_MESSAGES.wrongPassword });
    }
    const ok = await database.db.transaction((tx) => spendCode(user.id, input.code, tx));
    if (!ok) throw new ValidationError(TWO_FACTOR_MESSAGES.invalidCode, { code: TWO_FACTOR_MESSAGES.invalidCode });
    await throttle.succeed(admission.keys);
    return user;
  }

  /** The owner hears of it when the wrong codes reach the limit: whoever tries them knows the password. */
  function warnOwner(user: UserRow, ip: string) {
    const text = [
      `Hello ${user.name || user.username},`,
      '',
      `Several wrong two-factor codes were entered for your Fleetdesk user "${user.username}" after a correct`,
      `password (the last from ${ip}, at ${new Date().toISOString()}). Further codes are now slowed down.`,
      '',
      'If this was not you, someone knows your password: change it, or ask an administrator to reset it.',
    ].join('\n');
    const mail = { subject: '[Fleetdesk] Wrong two-factor codes for your account', text };
    const sent = async () => {
      if (!deps.mailUser || !user.email) return 'no email configured';
      try {
        return (await deps.mailUser(user.email, mail)) ? 'sent' : 'no email configured';
      } catch (err) {
        return `not sent: ${(err as Error).message.slice(0, 200)}`;
      }
    };
    // Not awaited: the answer to the sign-in does not wait for the mail server. The audit log says what happened.
    void sent().then((outcome) =>
      audit
        .record(systemActor('two-factor'), {
          action: 'update',
          entity: 'users',
          entityId: user.id,
          details: { twoFactor: 'wrong codes warning', ip, mail: outcome },
        })
        .catch(() => undefined),
    );
  }

  const record = (actor: Actor, userId: string, action: string, ex: Executor, more: Record<string, unknown> = {}) =>
    audit.record(
      actor,
      { action: 'update', entity: 'users', entityId: userId, details: { twoFactor: action, ...more } },
      ex,
    );

  return {
    /**
     * After a correct password (or a single sign-on that must still meet the console's second factor): a
     * challenge for the code step when two-factor is on; otherwise a session, which may only set two-factor up
     * when a role of the user requires it.
     */
    async afterPassword(
      user: UserRow,
      meta: SessionMeta,
      firstFactor: 'password' | 'oidc' = 'password',
    ): Promise<LoginOutcome> {
      const tf = await repo.get(user.id);
      if (tf?.enabledAt) {
        // Expired challenges are cleared now and then (at most every 10 minutes per process).
        if (Date.now() - lastPurge > 600_000) {
          lastPurge = Date.now();
          await repo.purgeChallenges();
        }
        const challenge = newToken();
        await repo.insertChallenge({
          tokenHash: hashToken(challenge),
          userId: user.id,
          ip: meta.ip,
          userAgent: meta.userAgent?.slice(0, 500),
          expiresAt: new Date(Date.now() + CHALLENGE_MS),
          firstFactor,
        });
        return { result: { twoFactorRequired: true, challenge, expiresInSeconds: CHALLENGE_MS / 1000 } };
      }
      const setup = await repo.requiredByRole(user.id);
      const { token, user: fresh } = await openSession(user, meta, { twoFactorSetup: setup, method: firstFactor });
      return { token, result: { user: toSessionUser(fresh), twoFactorSetupRequired: setup } };
    },

    /** The code step of a sign-in: counted before the check, like the password (decision 042). */
    async completeLogin(input: LoginTwoFactorInput, meta: SessionMeta): Promise<LoginOutcome> {
      const challenge = await repo.findChallenge(hashToken(input.challenge));
      if (!challenge) throw new UnauthorizedError(TWO_FACTOR_MESSAGES.challengeGone, 'challenge_expired');
      // Counted per user first, whatever the address; then per address as before.
      const counted = await deps.codes.admit(challenge.userId);
      if (!counted.ok) throw tooMany(counted.retryAfterSeconds);
      const admission = await throttle.admit(codeStepKey(challenge.userId), meta.ip);
      if (!admission.ok) {
        await deps.codes.succeed(challenge.userId);
        throw tooMany(admission.retryAfterSeconds);
      }
      const user = await users.findById(challenge.userId);
      const method = await database.db.transaction(async (tx) => {
        if (!user || user.status !== 'active') return null;
        const m = await spendCode(user.id, input.code, tx);
        // Used once: a second request with the same challenge finds nothing.
        if (m && !(await repo.takeChallenge(challenge.id, tx))) return null;
        return m;
      });
      if (!user || !method) {
        const failures = await repo.failChallenge(challenge.id, CHALLENGE_MAX_FAILURES);
        await audit.record(
          {
            userId: user?.id ?? null,
            username: user?.username ?? null,
            rules: [],
            requestId: meta.requestId,
            ip: meta.ip,
          },
          {
            action: 'login_failed',
            entity: 'sessions',
            entityId: challenge.userId,
            details: { ip: meta.ip, reason: !user || user.status !== 'active' ? 'inactive user' : 'wrong code' },
          },
        );
        if (user && counted.failures === deps.codes.freeFailures) warnOwner(user, meta.ip);
        if (failures >= CHALLENGE_MAX_FAILURES) {
          throw new UnauthorizedError(TWO_FACTOR_MESSAGES.challengeGone, 'challenge_expired');
        }
        throw new UnauthorizedError(TWO_FACTOR_MESSAGES.invalidCode, 'invalid_code');
      }
      await throttle.succeed(admission.keys);
      await deps.codes.succeed(user.id);
      const { token, user: fresh } = await openSession(user, meta, {
        twoFactorSetup: false,
        method: `${challenge.firstFactor} and ${method}`,
      });
      return { token, result: { user: toSessionUser(fresh), twoFactorSetupRequired: false } };
    },

    async status(actor: Actor): Promise<TwoFactorStatus> {
      const userId = actor.userId!;
      const tf = await repo.get(userId);
      return {
        enabled: Boolean(tf?.enabledAt),
        enabledAt: tf?.enabledAt?.toISOString() ?? null,
        requiredByRole: await repo.requiredByRole(userId),
        recoveryCodesLeft: tf?.enabledAt ? await repo.recoveryCodesLeft(userId) : 0,
      };
    },

    /** A new secret to scan; replaces an unconfirmed one. Shown only now, to its owner. */
    async beginSetup(actor: Actor): Promise<TwoFactorSetup> {
      const userId = actor.userId!;
      if ((await repo.get(userId))?.enabledAt) throw new ConflictError(TWO_FACTOR_MESSAGES.alreadyEnabled);
      const secret = new Secret({ size: 20 }).base32;
      await repo.putPending(userId, secrets.encrypt(secret));
      const totp = new TOTP({ issuer, label: actor.username ?? 'user', secret: Secret.fromBase32(secret) });
      const otpauthUri = totp.toString();
      const qrCode = await QRCode.toDataURL(otpauthUri, { errorCorrectionLevel: 'M', margin: 1, width: 220 });
      return { secret, otpauthUri, qrCode };
    },

    /** Confirms the setup with a first code; answers the recovery codes, shown this once. */
    async enable(actor: Actor, code: string): Promise<RecoveryCodes> {
      const userId = actor.userId!;
      const codes = await database.db.transaction(async (tx) => {
        const row = await repo.getForUpdate(userId, tx);
        if (!row) throw new ConflictError(TWO_FACTOR_MESSAGES.noSetup);
        if (row.enabledAt) throw new ConflictError(TWO_FACTOR_MESSAGES.alreadyEnabled);
        const step = totpStep(row.secret, code);
        if (step === null)
          throw new ValidationError(TWO_FACTOR_MESSAGES.invalidCode, { code: TWO_FACTOR_MESSAGES.invalidCode });
        await repo.enable(userId, step, tx);
        const recoveryCodes = await newRecoveryCodes(userId, tx);
        await repo.liftSetupSessions(userId, tx);
        await record(actor, userId, 'enabled', tx);
        return recoveryCodes;
      });
      sessionsChanged(database);
      return { recoveryCodes: codes };
    },

    async disable(actor: Actor, input: TwoFactorConfirmInput, ip: string): Promise<void> {
      const userId = actor.userId!;
      if (!(await repo.get(userId))?.enabledAt) throw new ConflictError(TWO_FACTOR_MESSAGES.notEnabled);
      if (await repo.requiredByRole(userId)) throw new ConflictError(TWO_FACTOR_MESSAGES.requiredByRole);
      await confirmOwner(actor, input, ip);
      await database.db.transaction(async (tx) => {
        await repo.remove(userId, tx);
        await record(actor, userId, 'disabled', tx);
      });
    },

    async renewRecoveryCodes(actor: Actor, input: TwoFactorConfirmInput, ip: string): Promise<RecoveryCodes> {
      const userId = actor.userId!;
      if (!(await repo.get(userId))?.enabledAt) throw new ConflictError(TWO_FACTOR_MESSAGES.notEnabled);
      await confirmOwner(actor, input, ip);
      const codes = await database.db.transaction(async (tx) => {
        const c = await newRecoveryCodes(userId, tx);
        await record(actor, userId, 'recovery codes renewed', tx);
        return c;
      });
      return { recoveryCodes: codes };
    },

    /** What an administrator sees of a user's two-factor: on or off, never the secret. */
    async userStatus(userId: string): Promise<UserTwoFactor> {
      if (!(await users.findById(userId))) throw new NotFoundError('User not found');
      const tf = await repo.get(userId);
      return { enabled: Boolean(tf?.enabledAt), enabledAt: tf?.enabledAt?.toISOString() ?? null };
    },

    /**
     * An administrator turns a user's two-factor off (a lost phone): audited, the user's sessions end, and the
     * next sign-in asks for a new setup when a role requires it.
     */
    async reset(userId: string, actor: Actor): Promise<void> {
      if (actor.userId === userId) {
        throw new ConflictError('Turn your own two-factor sign-in off from your profile', undefined, 'self_reset');
      }
      await database.db.transaction(async (tx) => {
        if (!(await users.findById(userId, tx))) throw new NotFoundError('User not found');
        assertHoldsAll(
          actor,
          await users.rulesOf(userId, tx),
          "reset this user's two-factor",
          'reset it for a user holding it',
        );
        if (!(await repo.remove(userId, tx))) throw new ConflictError(TWO_FACTOR_MESSAGES.notEnabled);
        await deps.sessions.revokeAllForUser(userId, tx);
        const apiTokensRevoked = await deps.tokens.revokeAllForUser(userId, tx);
        await record(actor, userId, 'reset', tx, apiTokensRevoked ? { apiTokensRevoked } : {});
      });
      sessionsChanged(database);
    },
  };
}
export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

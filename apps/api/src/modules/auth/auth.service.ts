import crypto from 'node:crypto';
import type { LoginInput, Me } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { RateLimitedError, UnauthorizedError } from '../../http/errors.ts';
import type { Actor } from '../../http/context.ts';
import { verifyPassword, hashPassword } from '../../lib/passwords.ts';
import { sessionCacheOf, sessionsChanged } from '../../lib/session-cache.ts';
import { hashToken, tokenFromHeader } from '../../lib/tokens.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { toSessionUser } from '../users/users.service.ts';
import type { AuthRepository } from './auth.repository.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { deviceTokenAfterSuccess } from './device-cookie.ts';
import type { SessionPolicy } from './open-session.ts';
import type { TwoFactorService } from './two-factor.service.ts';

export const INVALID_CREDENTIALS = 'Invalid username or password';
export const PASSWORD_SIGN_IN_OFF = 'Password sign-in is turned off: use single sign-on';

/**
 * How an unknown username appears in the audit log: a short hash, so that repeated attempts with the same name
 * can be told apart and grouped, while whatever was typed (often a password) is not kept.
 */
export function maskUnknownUsername(username: string): string {
  const digest = crypto.createHash('sha256').update(username.trim().toLowerCase()).digest('hex');
  return `unknown#${digest.slice(0, 12)}`;
}

export function createAuthService(deps: {
  database: Database;
  repo: AuthRepository;
  users: UsersRepository;
  audit: AuditService;
  throttle: LoginThrottle;
  policy: SessionPolicy;
  /** The step after the password: the code when two-factor is on, a setup-only session when a role requires it. */
  twoFactor: Pick<TwoFactorService, 'afterPassword'>;
  /** With single sign-on, password sign-in can be off for everyone but one break-glass administrator. */
  passwordSignIn?: { enabled: boolean; breakGlassUsername: string };
}) {
  const { database, repo, users, audit, throttle, policy, twoFactor } = deps;
  const passwordSignIn = deps.passwordSignIn ?? { enabled: true, breakGlassUsername: '' };
  // Verifying against a real hash for unknown users keeps the timing of both failures alike.
  const dummyHash = hashPassword('not-a-real-password-0000');
  const cache = sessionCacheOf(database);
  cache.start();
  /**
   * Session checks under way, by cache generation and token: requests that miss together share one read (when the
   * cached entry lapses, every request in flight would read the same row). A check started before a clear is not
   * shared after it: the generation is part of the key.
   */
  const lookups = new Map<string, ReturnType<typeof repo.findActive>>();

  return {
    /** `device` is the device token the browser sent (device-cookie.ts); the answer names the one to keep. */
    async login(input: LoginInput, meta: { ip: string; userAgent?: string; requestId: string; device?: string }) {
      // Counted before the slow password check, so a concurrent burst cannot outrun the limit.
      const admission = await throttle.admit(input.username, meta.ip, meta.device);
      if (!admission.ok) {
        const wait = admission.retryAfterSeconds;
        throw new RateLimitedError(
          `Too many failed sign-in attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
          wait,
        );
      }
      if (
        !passwordSignIn.enabled &&
        input.username.trim().toLowerCase() !== passwordSignIn.breakGlassUsername.trim().toLowerCase()
      ) {
        const known = await users.findByUsername(input.username);
        await audit.record(
          {
            userId: known?.id ?? null,
            username: known ? known.username : maskUnknownUsername(input.username),
            rules: [],
            requestId: meta.requestId,
            ip: meta.ip,
          },
          {
            action: 'login_failed',
            entity: 'sessions',
            entityId: known?.id ?? null,
            details: { ip: meta.ip, reason: 'password sign-in off' },
          },
        );
        throw new UnauthorizedError(PASSWORD_SIGN_IN_OFF, 'password_sign_in_off');
      }
      const user = await users.findByUsername(input.username);
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
      const actor: Actor = {
        userId: user?.id ?? null,
        // A name that matches no user may be a password typed into the wrong field: never stored in clear.
        username: user ? user.username : maskUnknownUsername(input.username),
        rules: [],
        requestId: meta.requestId,
        ip: meta.ip,
      };
      if (!user || !ok || user.status !== 'active') {
        await audit.record(actor, {
          action: 'login_failed',
          entity: 'sessions',
          entityId: user?.id ?? null,
          details: { ip: meta.ip, reason: !user ? 'unknown user' : !ok ? 'wrong password' : 'inactive user' },
        });
        throw new UnauthorizedError(INVALID_CREDENTIALS, 'invalid_credentials');
      }
      // The device is known after the password: its allowance is for password attempts (the code step counts apart).
      const device = deviceTokenAfterSuccess(meta.device);
      await throttle.succeed(admission.keys, device);
      return { ...(await twoFactor.afterPassword(user, meta)), device };
    },

    /** The actor behind an Authorization header, or undefined when the token is missing, unknown or expired. */
    async authenticate(
      header: string | undefined,
    ): Promise<{ actor: Omit<Actor, 'requestId'>; sessionId: string; twoFactorSetup: boolean } | undefined> {
      const token = tokenFromHeader(header);
      if (!token) return undefined;
      const hash = hashToken(token);
      const now = Date.now();
      let s = cache.get(hash, now);
      // Served from memory only while still inside its absolute and idle limits.
      if (s && (s.expiresAt.getTime() <= now || s.lastUsedAt.getTime() <= now - policy.idleMs)) s = undefined;
      if (!s) {
        const gen = cache.generation();
        const key = `${gen}:${hash}`;
        let lookup = lookups.get(key);
        if (!lookup) {
          lookup = repo.findActive(hash, new Date(now - policy.idleMs)).finally(() => lookups.delete(key));
          lookups.set(key, lookup);
        }
        s = await lookup;
        if (!s) return undefined;
        cache.set(hash, s, gen, now);
      }
      // Writing on every request would cost a row update per call; a minute's precision is enough for the idle limit.
      if (now - s.lastUsedAt.getTime() > 60_000) {
        s.lastUsedAt = new Date(now);
        await repo.touch(s.sessionId);
      }
      return {
        actor: { userId: s.userId, username: s.username, rules: s.rules },
        sessionId: s.sessionId,
        twoFactorSetup: s.twoFactorSetup,
      };
    },

    async logout(sessionId: string, actor: Actor) {
      await database.db.transaction(async (tx) => {
        await repo.revoke(sessionId, tx);
        await audit.record(
          actor,
          { action: 'logout', entity: 'sessions', entityId: actor.userId, details: { sessionId } },
          tx,
        );
      });
      sessionsChanged(database);
    },

    async me(actor: Actor, twoFactorSetup = false): Promise<Me> {
      const user = actor.userId ? await users.findById(actor.userId) : undefined;
      if (!user) throw new UnauthorizedError();
      return { user: toSessionUser(user), rules: actor.rules, twoFactorSetupRequired: twoFactorSetup };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

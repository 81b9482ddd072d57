import type { LoginInput, Me } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { RateLimitedError, UnauthorizedError } from '../../http/errors.ts';
import type { Actor } from '../../http/context.ts';
import { verifyPassword, hashPassword } from '../../lib/passwords.ts';
import { hashToken, newToken, tokenFromHeader } from '../../lib/tokens.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { toSessionUser } from '../users/users.service.ts';
import type { AuthRepository } from './auth.repository.ts';
import type { LoginThrottle } from './login-throttle.ts';

export const INVALID_CREDENTIALS = 'Invalid username or password';

export type SessionPolicy = { ttlMs: number; idleMs: number };

export function createAuthService(deps: {
  database: Database;
  repo: AuthRepository;
  users: UsersRepository;
  audit: AuditService;
  throttle: LoginThrottle;
  policy: SessionPolicy;
}) {
  const { database, repo, users, audit, throttle, policy } = deps;
  // Verifying against a real hash for unknown users keeps the timing of both failures alike.
  const dummyHash = hashPassword('not-a-real-password-0000');

  return {
    async login(input: LoginInput, meta: { ip: string; userAgent?: string; requestId: string }) {
      const keys = [`u:${input.username.toLowerCase()}`, `ip:${meta.ip}`];
      const wait = throttle.retryAfter(keys);
      if (wait > 0) {
        throw new RateLimitedError(
          `Too many failed sign-in attempts. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
          wait,
        );
      }
      const user = await users.findByUsername(input.username);
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), input.password);
      const actor: Actor = {
        userId: user?.id ?? null,
        username: input.username,
        rules: [],
        requestId: meta.requestId,
        ip: meta.ip,
      };
      if (!user || !ok || user.status !== 'active') {
        throttle.fail(keys);
        await audit.record(actor, {
          action: 'login_failed',
          entity: 'sessions',
          entityId: user?.id ?? null,
          details: { ip: meta.ip, reason: !user ? 'unknown user' : !ok ? 'wrong password' : 'inactive user' },
        });
        throw new UnauthorizedError(INVALID_CREDENTIALS, 'invalid_credentials');
      }
      throttle.succeed([keys[0]!]);
      const token = newToken();
      const now = Date.now();
      const fresh = await database.db.transaction(async (tx) => {
        const sessionId = await repo.insertSession(
          {
            tokenHash: hashToken(token),
            userId: user.id,
            expiresAt: new Date(now + policy.ttlMs),
            ip: meta.ip,
            userAgent: meta.userAgent?.slice(0, 500),
          },
          tx,
        );
        await users.touchLastLogin(user.id, tx);
        await audit.record(
          actor,
          { action: 'login', entity: 'sessions', entityId: user.id, details: { ip: meta.ip, sessionId } },
          tx,
        );
        return users.findById(user.id, tx);
      });
      return { token, user: toSessionUser(fresh ?? user) };
    },

    /** The actor behind an Authorization header, or undefined when the token is missing, unknown or expired. */
    async authenticate(
      header: string | undefined,
    ): Promise<{ actor: Omit<Actor, 'requestId'>; sessionId: string } | undefined> {
      const token = tokenFromHeader(header);
      if (!token) return undefined;
      const s = await repo.findActive(hashToken(token), new Date(Date.now() - policy.idleMs));
      if (!s) return undefined;
      // Writing on every request would cost a row update per call; a minute's precision is enough for the idle limit.
      if (Date.now() - s.lastUsedAt.getTime() > 60_000) await repo.touch(s.sessionId);
      return { actor: { userId: s.userId, username: s.username, rules: s.rules }, sessionId: s.sessionId };
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
    },

    async me(actor: Actor): Promise<Me> {
      const user = actor.userId ? await users.findById(actor.userId) : undefined;
      if (!user) throw new UnauthorizedError();
      return { user: toSessionUser(user), rules: actor.rules };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UserRow, UsersRepository } from '../users/users.repository.ts';
import type { AuthRepository } from './auth.repository.ts';

export type SessionMeta = { ip: string; userAgent?: string; requestId: string };
export type SessionPolicy = { ttlMs: number; idleMs: number };

/**
 * Opens a session once every factor has been checked (password, then the code when two-factor is on): a new
 * token, the last sign-in time and the audit entry, in one transaction. `twoFactorSetup` opens a session that
 * may only set two-factor up (its role requires it and the user has none yet).
 */
export function createSessionOpener(deps: {
  database: Database;
  repo: AuthRepository;
  users: UsersRepository;
  audit: AuditService;
  policy: SessionPolicy;
}) {
  const { database, repo, users, audit, policy } = deps;
  return async (user: UserRow, meta: SessionMeta, opts: { twoFactorSetup: boolean; method: string }) => {
    const token = newToken();
    const actor: Actor = {
      userId: user.id,
      username: user.username,
      rules: [],
      requestId: meta.requestId,
      ip: meta.ip,
    };
    const fresh = await database.db.transaction(async (tx) => {
      const sessionId = await repo.insertSession(
        {
          tokenHash: hashToken(token),
          userId: user.id,
          expiresAt: new Date(Date.now() + policy.ttlMs),
          ip: meta.ip,
          userAgent: meta.userAgent?.slice(0, 500),
          twoFactorSetup: opts.twoFactorSetup,
        },
        tx,
      );
      await users.touchLastLogin(user.id, tx);
      await audit.record(
        actor,
        {
          action: 'login',
          entity: 'sessions',
          entityId: user.id,
          details: { ip: meta.ip, sessionId, method: opts.method },
        },
        tx,
      );
      return users.findById(user.id, tx);
    });
    return { token, user: fresh ?? user };
  };
}
export type SessionOpener = ReturnType<typeof createSessionOpener>;

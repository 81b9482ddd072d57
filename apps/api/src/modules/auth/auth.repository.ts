import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { roles, sessions, userRoles, users } from '../../db/schema/index.ts';

export type ActiveSession = {
  sessionId: string;
  userId: string;
  username: string;
  lastUsedAt: Date;
  expiresAt: Date;
  rules: string[];
  twoFactorSetup: boolean;
};

export function createAuthRepository(db: Db) {
  return {
    async insertSession(
      values: {
        tokenHash: string;
        userId: string;
        expiresAt: Date;
        ip?: string | null;
        userAgent?: string | null;
        twoFactorSetup?: boolean;
      },
      ex: Executor = db,
    ) {
      const [r] = await ex.insert(sessions).values(values).returning({ id: sessions.id });
      return r!.id;
    },
    /** A session that is not revoked, not expired, not idle too long, of an active user — with its rules. */
    async findActive(tokenHash: string, idleSince: Date, ex: Executor = db): Promise<ActiveSession | undefined> {
      const [r] = await ex
        .select({
          sessionId: sessions.id,
          userId: users.id,
          username: users.username,
          lastUsedAt: sessions.lastUsedAt,
          expiresAt: sessions.expiresAt,
          twoFactorSetup: sessions.twoFactorSetup,
          rules: sql<string[]>`coalesce((
            select array_agg(distinct r.rule) from ${userRoles} ur
            join ${roles} ro on ro.id = ur.role_id, unnest(ro.rules) as r(rule)
            where ur.user_id = ${users.id}), '{}')`,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(
            eq(sessions.tokenHash, tokenHash),
            isNull(sessions.revokedAt),
            sql`${sessions.expiresAt} > now()`,
            sql`${sessions.lastUsedAt} > ${idleSince.toISOString()}`,
            eq(users.status, 'active'),
          ),
        );
      return r;
    },
    async touch(sessionId: string, ex: Executor = db) {
      await ex.update(sessions).set({ lastUsedAt: new Date() }).where(eq(sessions.id, sessionId));
    },
    async revoke(sessionId: string, ex: Executor = db) {
      await ex
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
    },
    async revokeAllForUser(userId: string, ex: Executor = db) {
      await ex
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
    },
    /** Housekeeping: sessions long past any use. */
    async purgeExpired(ex: Executor = db) {
      await ex.delete(sessions).where(sql`${sessions.expiresAt} < now() - interval '7 days'`);
    },
  };
}
export type AuthRepository = ReturnType<typeof createAuthRepository>;

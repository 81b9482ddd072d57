import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { apiTokens, roles, userRoles, userTwoFactor, users } from '../../db/schema/index.ts';
import { userRulesColumn } from '../../db/user-rules.ts';

export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type ActiveToken = {
  tokenId: string;
  name: string;
  tokenRules: string[];
  userId: string;
  username: string;
  ownerRules: string[];
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  /** A role of the owner requires two-factor and the owner has none on: the token is suspended (issue 42). */
  twoFactorMissing: boolean;
};

const notExpired = sql`(${apiTokens.expiresAt} is null or ${apiTokens.expiresAt} > now())`;

export function createApiTokensRepository(db: Db) {
  return {
    async insert(
      values: { userId: string; name: string; tokenHash: string; rules: string[]; expiresAt: Date | null },
      ex: Executor = db,
    ): Promise<ApiTokenRow> {
      const [r] = await ex.insert(apiTokens).values(values).returning();
      return r!;
    },
    /** A user's tokens that are not revoked, expired ones included (shown as such). */
    async listForUser(userId: string, ex: Executor = db): Promise<ApiTokenRow[]> {
      return ex
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .orderBy(asc(apiTokens.tokenNo));
    },
    async countActive(userId: string, ex: Executor = db): Promise<number> {
      const [r] = await ex
        .select({ n: count() })
        .from(apiTokens)
        .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), notExpired));
      return r?.n ?? 0;
    },
    /** A token that is not revoked, not expired, of an active user, with the owner's rules of this moment. */
    async findActive(tokenHash: string, ex: Executor = db): Promise<ActiveToken | undefined> {
      const [r] = await ex
        .select({
          tokenId: apiTokens.id,
          name: apiTokens.name,
          tokenRules: apiTokens.rules,
          userId: users.id,
          username: users.username,
          lastUsedAt: apiTokens.lastUsedAt,
          lastUsedIp: apiTokens.lastUsedIp,
          ownerRules: userRulesColumn(),
          twoFactorMissing: sql<boolean>`(exists (select 1 from ${userRoles} ur join ${roles} r on r.id = ur.role_id
            where ur.user_id = ${users.id} and r.require_two_factor)
            and not exists (select 1 from ${userTwoFactor} tf where tf.user_id = ${users.id}
            and tf.enabled_at is not null))`.mapWith(Boolean),
        })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .where(
          and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt), notExpired, eq(users.status, 'active')),
        );
      return r;
    },
    async touch(tokenId: string, ip: string, ex: Executor = db) {
      await ex.update(apiTokens).set({ lastUsedAt: new Date(), lastUsedIp: ip }).where(eq(apiTokens.id, tokenId));
    },
    /** Revokes one of the user's tokens; the row stays for the audit trail. */
    async revoke(id: string, userId: string, ex: Executor = db): Promise<ApiTokenRow | undefined> {
      const [r] = await ex
        .update(apiTokens)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .returning();
      return r;
    },
    /** Revokes every live token of the user (a password or two-factor reset); answers how many. */
    async revokeAllForUser(userId: string, ex: Executor = db): Promise<number> {
      const rows = await ex
        .update(apiTokens)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), notExpired))
        .returning({ id: apiTokens.id });
      return rows.length;
    },
    /** True when a role of the user allows tokens without an expiry. */
    async noExpiryAllowed(userId: string, ex: Executor = db): Promise<boolean> {
      const [r] = await ex
        .select({ n: count() })
        .from(userRoles)
        .innerJoin(roles, eq(roles.id, userRoles.roleId))
        .where(and(eq(userRoles.userId, userId), eq(roles.tokensWithoutExpiry, true)));
      return (r?.n ?? 0) > 0;
    },
  };
}
export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;

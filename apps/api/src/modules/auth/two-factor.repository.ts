import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import {
  loginChallenges,
  roles,
  sessions,
  userRecoveryCodes,
  userRoles,
  userTwoFactor,
} from '../../db/schema/index.ts';

export type TwoFactorRow = typeof userTwoFactor.$inferSelect;
export type ChallengeRow = typeof loginChallenges.$inferSelect;

export function createTwoFactorRepository(db: Db) {
  return {
    async get(userId: string, ex: Executor = db): Promise<TwoFactorRow | undefined> {
      const [r] = await ex.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId));
      return r;
    },
    /** Locks the row for the code check, so two requests with the same code cannot both pass. */
    async getForUpdate(userId: string, ex: Executor): Promise<TwoFactorRow | undefined> {
      const [r] = await ex.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId)).for('update');
      return r;
    },
    /** A new pending secret (replacing a pending one; an enabled one is never replaced here). */
    async putPending(userId: string, sealedSecret: string, ex: Executor = db) {
      await ex
        .insert(userTwoFactor)
        .values({ userId, secret: sealedSecret })
        .onConflictDoUpdate({
          target: userTwoFactor.userId,
          set: { secret: sealedSecret, createdAt: new Date(), lastStep: 0 },
          setWhere: isNull(userTwoFactor.enabledAt),
        });
    },
    async enable(userId: string, step: number, ex: Executor) {
      await ex
        .update(userTwoFactor)
        .set({ enabledAt: new Date(), lastStep: step })
        .where(eq(userTwoFactor.userId, userId));
    },
    async setLastStep(userId: string, step: number, ex: Executor) {
      await ex.update(userTwoFactor).set({ lastStep: step }).where(eq(userTwoFactor.userId, userId));
    },
    async remove(userId: string, ex: Executor) {
      await ex.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId));
      return (await ex.delete(userTwoFactor).where(eq(userTwoFactor.userId, userId)).returning()).length > 0;
    },
    async replaceRecoveryCodes(userId: string, hashes: string[], ex: Executor) {
      await ex.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, userId));
      await ex.insert(userRecoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash })));
    },
    /** Marks an unused recovery code used; false when there is none with this hash. */
    async useRecoveryCode(userId: string, codeHash: string, ex: Executor): Promise<boolean> {
      const rows = await ex
        .update(userRecoveryCodes)
        .set({ usedAt: new Date() })
        .where(
          and(
            eq(userRecoveryCodes.userId, userId),
            eq(userRecoveryCodes.codeHash, codeHash),
            isNull(userRecoveryCodes.usedAt),
          ),
        )
        .returning({ id: userRecoveryCodes.id });
      return rows.length > 0;
    },
    async recoveryCodesLeft(userId: string, ex: Executor = db): Promise<number> {
      const [r] = await ex
        .select({ n: count() })
        .from(userRecoveryCodes)
        .where(and(eq(userRecoveryCodes.userId, userId), isNull(userRecoveryCodes.usedAt)));
      return r?.n ?? 0;
    },
    /** True when one of the user's roles requires two-factor sign-in. */
    async requiredByRole(userId: string, ex: Executor = db): Promise<boolean> {
      const [r] = await ex
        .select({ n: count() })
        .from(userRoles)
        .innerJoin(roles, eq(roles.id, userRoles.roleId))
        .where(and(eq(userRoles.userId, userId), eq(roles.requireTwoFactor, true)));
      return (r?.n ?? 0) > 0;
    },
    /** The user's setup-only sessions become full sessions once two-factor is on. */
    async liftSetupSessions(userId: string, ex: Executor) {
      await ex
        .update(sessions)
        .set({ twoFactorSetup: false })
        .where(and(eq(sessions.userId, userId), eq(sessions.twoFactorSetup, true)));
    },

    async insertChallenge(
      values: {
        tokenHash: string;
        userId: string;
        ip: string;
        userAgent?: string | null;
        expiresAt: Date;
        firstFactor: string;
      },
      ex: Executor = db,
    ) {
      await ex.insert(loginChallenges).values(values);
    },
    async findChallenge(tokenHash: string, ex: Executor = db): Promise<ChallengeRow | undefined> {
      const [r] = await ex
        .select()
        .from(loginChallenges)
        .where(and(eq(loginChallenges.tokenHash, tokenHash), sql`${loginChallenges.expiresAt} > now()`));
      return r;
    },
    /** Counts a wrong code; the challenge is gone once it reaches `max`. Returns the failures so far. */
    async failChallenge(id: string, max: number, ex: Executor = db): Promise<number> {
      const [r] = await ex
        .update(loginChallenges)
        .set({ failures: sql`${loginChallenges.failures} + 1` })
        .where(eq(loginChallenges.id, id))
        .returning({ failures: loginChallenges.failures });
      if (r && r.failures >= max) await ex.delete(loginChallenges).where(eq(loginChallenges.id, id));
      return r?.failures ?? max;
    },
    /** Deletes the challenge; false when another request used it first. */
    async takeChallenge(id: string, ex: Executor): Promise<boolean> {
      return (await ex.delete(loginChallenges).where(eq(loginChallenges.id, id)).returning()).length > 0;
    },
    async purgeChallenges(ex: Executor = db) {
      await ex.delete(loginChallenges).where(sql`${loginChallenges.expiresAt} < now()`);
    },
  };
}
export type TwoFactorRepository = ReturnType<typeof createTwoFactorRepository>;

import { and, asc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { identityLinks, oidcLogins, roles, userIdentities, userRoles } from '../../db/schema/index.ts';

export type OidcLoginRow = typeof oidcLogins.$inferSelect;

export function createOidcRepository(db: Db) {
  return {
    async insertLogin(values: {
      stateHash: string;
      codeVerifier: string;
      nonce: string;
      expiresAt: Date;
      linkId?: string | null;
    }) {
      await db.insert(oidcLogins).values(values);
    },
    /** Takes a sign-in under way by its state, once: a second callback with the same state finds nothing. */
    async takeLogin(stateHash: string, ex: Executor = db): Promise<OidcLoginRow | undefined> {
      const [r] = await ex
        .delete(oidcLogins)
        .where(and(eq(oidcLogins.stateHash, stateHash), gt(oidcLogins.expiresAt, new Date())))
        .returning();
      return r;
    },
    /** The one-time code of a finished sign-in (a fresh row: the state's row is gone). */
    async insertExchange(
      values: { exchangeHash: string; userId: string; expiresAt: Date; providerMfa: boolean },
      ex: Executor = db,
    ) {
      await ex.insert(oidcLogins).values({
        stateHash: `x:${values.exchangeHash}`,
        codeVerifier: '',
        nonce: '',
        exchangeHash: values.exchangeHash,
        userId: values.userId,
        providerMfa: values.providerMfa,
        expiresAt: values.expiresAt,
      });
    },
    /** Spends a one-time code: it works once, and only before it expires. */
    async takeExchange(exchangeHash: string): Promise<{ userId: string; providerMfa: boolean } | undefined> {
      const [r] = await db
        .delete(oidcLogins)
        .where(and(eq(oidcLogins.exchangeHash, exchangeHash), gt(oidcLogins.expiresAt, new Date())))
        .returning({ userId: oidcLogins.userId, providerMfa: oidcLogins.providerMfa });
      return r?.userId ? { userId: r.userId, providerMfa: r.providerMfa } : undefined;
    },
    async purgeExpired() {
      await db.delete(oidcLogins).where(lt(oidcLogins.expiresAt, new Date()));
      await db.delete(identityLinks).where(lt(identityLinks.expiresAt, new Date()));
    },
    /** A user's single pending link invitation is replaced by a new one. */
    async replaceLink(
      values: { userId: string; tokenHash: string; createdBy: string | null; expiresAt: Date },
      ex: Executor,
    ) {
      await ex.delete(identityLinks).where(eq(identityLinks.userId, values.userId));
      const [r] = await ex.insert(identityLinks).values(values).returning();
      return r!;
    },
    async findLinkByToken(tokenHash: string) {
      const [r] = await db
        .select()
        .from(identityLinks)
        .where(and(eq(identityLinks.tokenHash, tokenHash), gt(identityLinks.expiresAt, new Date())));
      return r;
    },
    async pendingLinkOf(userId: string) {
      const [r] = await db
        .select()
        .from(identityLinks)
        .where(and(eq(identityLinks.userId, userId), gt(identityLinks.expiresAt, new Date())));
      return r;
    },
    /** Spends an invitation: it links one provider account, once. */
    async takeLink(id: string, ex: Executor) {
      const [r] = await ex
        .delete(identityLinks)
        .where(and(eq(identityLinks.id, id), gt(identityLinks.expiresAt, new Date())))
        .returning();
      return r;
    },
    async deleteLinkOf(userId: string, ex: Executor = db): Promise<boolean> {
      const r = await ex
        .delete(identityLinks)
        .where(eq(identityLinks.userId, userId))
        .returning({ id: identityLinks.id });
      return r.length > 0;
    },
    async identitiesOf(userId: string) {
      return db
        .select()
        .from(userIdentities)
        .where(eq(userIdentities.userId, userId))
        .orderBy(asc(userIdentities.createdAt));
    },
    async deleteIdentity(userId: string, id: string, ex: Executor = db) {
      const [r] = await ex
        .delete(userIdentities)
        .where(and(eq(userIdentities.id, id), eq(userIdentities.userId, userId)))
        .returning();
      return r;
    },
    async findIdentity(issuer: string, subject: string, ex: Executor = db) {
      const [r] = await ex
        .select()
        .from(userIdentities)
        .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
      return r;
    },
    /** Linked at a sign-in unless `lastLoginAt` says otherwise (an administrator's link by subject). */
    async insertIdentity(
      values: { userId: string; issuer: string; subject: string; lastLoginAt?: Date | null },
      ex: Executor = db,
    ) {
      const [r] = await ex
        .insert(userIdentities)
        .values({ lastLoginAt: new Date(), ...values })
        .returning();
      return r!;
    },
    async touchIdentity(id: string, ex: Executor = db) {
      await ex.update(userIdentities).set({ lastLoginAt: new Date() }).where(eq(userIdentities.id, id));
    },
    /** Roles by name (case-insensitive), for the group mapping. */
    async rolesByNames(names: string[], ex: Executor = db) {
      if (!names.length) return [];
      const lower = names.map((n) => n.toLowerCase());
      return ex
        .select({ id: roles.id, name: roles.name })
        .from(roles)
        .where(inArray(sql`lower(${roles.name})`, lower));
    },
    async roleIdsOf(userId: string, ex: Executor = db): Promise<string[]> {
      const rows = await ex.select({ roleId: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, userId));
      return rows.map((r) => r.roleId);
    },
    async addRoles(userId: string, roleIds: string[], ex: Executor = db) {
      if (!roleIds.length) return;
      await ex
        .insert(userRoles)
        .values(roleIds.map((roleId) => ({ userId, roleId })))
        .onConflictDoNothing();
    },
    async removeRoles(userId: string, roleIds: string[], ex: Executor = db) {
      if (!roleIds.length) return;
      await ex.delete(userRoles).where(and(eq(userRoles.userId, userId), inArray(userRoles.roleId, roleIds)));
    },
  };
}
export type OidcRepository = ReturnType<typeof createOidcRepository>;

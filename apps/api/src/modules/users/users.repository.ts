import { and, count, eq, sql } from 'drizzle-orm';
import type { Executor, Db } from '../../db/client.ts';
import { roles, userRoles, users } from '../../db/schema/index.ts';

export type UserRow = typeof users.$inferSelect;

export function createUsersRepository(db: Db) {
  return {
    async count(ex: Executor = db) {
      const [r] = await ex.select({ n: count() }).from(users);
      return r?.n ?? 0;
    },
    async findByUsername(username: string, ex: Executor = db): Promise<UserRow | undefined> {
      const [r] = await ex
        .select()
        .from(users)
        .where(sql`lower(${users.username}) = lower(${username})`);
      return r;
    },
    async findById(id: string, ex: Executor = db): Promise<UserRow | undefined> {
      const [r] = await ex.select().from(users).where(eq(users.id, id));
      return r;
    },
    async insert(
      values: { username: string; name: string; email: string; passwordHash: string; status?: 'active' | 'inactive' },
      ex: Executor = db,
    ): Promise<UserRow> {
      const [r] = await ex.insert(users).values(values).returning();
      return r!;
    },
    async setRoles(userId: string, roleIds: string[], ex: Executor = db) {
      await ex.delete(userRoles).where(eq(userRoles.userId, userId));
      if (roleIds.length) await ex.insert(userRoles).values(roleIds.map((roleId) => ({ userId, roleId })));
    },
    async setPasswordHashByUsername(username: string, passwordHash: string, ex: Executor = db) {
      await ex
        .update(users)
        .set({ passwordHash })
        .where(sql`lower(${users.username}) = lower(${username})`);
    },
    async touchLastLogin(userId: string, ex: Executor = db) {
      await ex.update(users).set({ dateLastLogin: new Date() }).where(eq(users.id, userId));
    },
    /** The union of the rules of every role the user holds. */
    async rulesOf(userId: string, ex: Executor = db): Promise<string[]> {
      const rows = await ex
        .selectDistinct({ rule: sql<string>`unnest(${roles.rules})` })
        .from(userRoles)
        .innerJoin(roles, eq(roles.id, userRoles.roleId))
        .where(and(eq(userRoles.userId, userId)));
      return rows.map((r) => r.rule).sort();
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;

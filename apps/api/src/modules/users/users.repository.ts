import { and, asc, count, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { ADMIN_RULE, type ListQuery, type ListResult, type Status, type UserRole } from '@fleetdesk/contract';
import type { Executor, Db } from '../../db/client.ts';
import { roles, userRoles, users } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';

export type UserRow = typeof users.$inferSelect;
export type UserWithRoles = UserRow & { userRoles: UserRole[] };
export type UserValues = {
  username: string;
  name: string;
  email: string;
  passwordHash: string;
  status?: Status;
};

// Any constant works: it only has to be the same for every transaction that can change who holds `cnv`.
const ADMIN_GUARD_LOCK = 4_104_201;

export function createUsersRepository(db: Db) {
  const page = tableList(db, 'fd_users', users, {
    search: [users.username, users.name, users.email],
    orderBy: users.userNo,
  });
  async function rolesByUser(userIds: string[], ex: Executor): Promise<Map<string, UserRole[]>> {
    const out = new Map<string, UserRole[]>();
    if (!userIds.length) return out;
    const rows = await ex
      .select({ userId: userRoles.userId, roleId: roles.id, name: roles.name })
      .from(userRoles)
      .innerJoin(roles, eq(roles.id, userRoles.roleId))
      .where(inArray(userRoles.userId, userIds))
      .orderBy(asc(roles.name));
    for (const r of rows) {
      out.set(r.userId, [...(out.get(r.userId) ?? []), { roleId: r.roleId, role: { _id: r.roleId, name: r.name } }]);
    }
    return out;
  }

  async function findById(id: string, ex: Executor = db): Promise<UserRow | undefined> {
    const [r] = await ex.select().from(users).where(eq(users.id, id));
    return r;
  }

  return {
    async count(ex: Executor = db) {
      const [r] = await ex.select({ n: count() }).from(users);
      return r?.n ?? 0;
    },
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<UserWithRoles>> {
      const { rows, count: total } = await page(q, ex);
      const byUser = await rolesByUser(
        rows.map((r) => r.id),
        ex,
      );
      return { items: rows.map((r) => ({ ...r, userRoles: byUser.get(r.id) ?? [] })), itemsCount: total };
    },
    async findByUsername(username: string, ex: Executor = db): Promise<UserRow | undefined> {
      const [r] = await ex
        .select()
        .from(users)
        .where(sql`lower(${users.username}) = lower(${username})`);
      return r;
    },
    findById,
    async findWithRoles(id: string, ex: Executor = db): Promise<UserWithRoles | undefined> {
      const [r] = await ex.select().from(users).where(eq(users.id, id));
      if (!r) return undefined;
      return { ...r, userRoles: (await rolesByUser([id], ex)).get(id) ?? [] };
    },
    async insert(values: UserValues, ex: Executor = db): Promise<UserRow> {
      const [r] = await ex.insert(users).values(values).returning();
      return r!;
    },
    async update(id: string, patch: Partial<UserValues>, ex: Executor = db): Promise<UserRow | undefined> {
      const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (!Object.keys(set).length) return findById(id, ex);
      const [r] = await ex.update(users).set(set).where(eq(users.id, id)).returning();
      return r;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      return (await ex.delete(users).where(eq(users.id, id)).returning({ id: users.id })).length > 0;
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
    /** Serialises the transactions that can change who holds `cnv`, so two of them cannot both remove the last. */
    async lockAdminGuard(ex: Executor) {
      await ex.execute(sql`select pg_advisory_xact_lock(${ADMIN_GUARD_LOCK})`);
    },
    /** Active users holding `cnv` through some role, leaving out one user or one role. */
    async countActiveAdmins(opts: { exceptUserId?: string; exceptRoleId?: string } = {}, ex: Executor = db) {
      const conds: SQL[] = [eq(users.status, 'active'), sql`${ADMIN_RULE} = any(${roles.rules})`];
      if (opts.exceptUserId) conds.push(ne(users.id, opts.exceptUserId));
      if (opts.exceptRoleId) conds.push(ne(roles.id, opts.exceptRoleId));
      const [r] = await ex
        .select({ n: sql<number>`count(distinct ${users.id})::int` })
        .from(users)
        .innerJoin(userRoles, eq(userRoles.userId, users.id))
        .innerJoin(roles, eq(roles.id, userRoles.roleId))
        .where(and(...conds));
      return r?.n ?? 0;
    },
    /** How many users hold a role, and how many of them are active. */
    async countHolders(roleId: string, ex: Executor = db): Promise<{ all: number; active: number }> {
      const [r] = await ex
        .select({
          all: sql<number>`count(*)::int`,
          active: sql<number>`(count(*) filter (where ${users.status} = 'active'))::int`,
        })
        .from(userRoles)
        .innerJoin(users, eq(users.id, userRoles.userId))
        .where(eq(userRoles.roleId, roleId));
      return { all: r?.all ?? 0, active: r?.active ?? 0 };
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;

import { eq, inArray, sql } from 'drizzle-orm';
import { type ListQuery, type ListResult, type Role } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { roles } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';

export type RoleRow = typeof roles.$inferSelect;

export const toRole = (r: RoleRow): Role => ({
  _id: r.id,
  roleNo: r.roleNo,
  name: r.name,
  rules: r.rules,
  requireTwoFactor: r.requireTwoFactor,
  tokensWithoutExpiry: r.tokensWithoutExpiry,
});
export type RoleValues = { name: string; rules: string[]; requireTwoFactor?: boolean; tokensWithoutExpiry?: boolean };

export function createRolesRepository(db: Db) {
  const page = tableList(db, 'fd_roles', roles, { search: [roles.name], orderBy: roles.roleNo });
  async function findById(id: string, ex: Executor = db): Promise<Role | undefined> {
    const [r] = await ex.select().from(roles).where(eq(roles.id, id));
    return r ? toRole(r) : undefined;
  }

  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<Role>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toRole), itemsCount: total };
    },
    async findByName(name: string, ex: Executor = db): Promise<RoleRow | undefined> {
      const [r] = await ex
        .select()
        .from(roles)
        .where(sql`lower(${roles.name}) = lower(${name})`);
      return r;
    },
    findById,
    async findByIds(ids: string[], ex: Executor = db): Promise<Role[]> {
      if (!ids.length) return [];
      return (await ex.select().from(roles).where(inArray(roles.id, ids))).map(toRole);
    },
    async insert(values: RoleValues, ex: Executor = db): Promise<RoleRow> {
      const [r] = await ex.insert(roles).values(values).returning();
      return r!;
    },
    async update(id: string, patch: Partial<RoleValues>, ex: Executor = db): Promise<Role | undefined> {
      const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (!Object.keys(set).length) return findById(id, ex);
      const [r] = await ex.update(roles).set(set).where(eq(roles.id, id)).returning();
      return r ? toRole(r) : undefined;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      return (await ex.delete(roles).where(eq(roles.id, id)).returning({ id: roles.id })).length > 0;
    },
  };
}
export type RolesRepository = ReturnType<typeof createRolesRepository>;

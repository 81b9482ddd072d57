import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { roles } from '../../db/schema/index.ts';

export type RoleRow = typeof roles.$inferSelect;

export function createRolesRepository(db: Db) {
  return {
    async findByName(name: string, ex: Executor = db): Promise<RoleRow | undefined> {
      const [r] = await ex
        .select()
        .from(roles)
        .where(sql`lower(${roles.name}) = lower(${name})`);
      return r;
    },
    async insert(values: { name: string; rules: string[] }, ex: Executor = db): Promise<RoleRow> {
      const [r] = await ex.insert(roles).values(values).returning();
      return r!;
    },
  };
}
export type RolesRepository = ReturnType<typeof createRolesRepository>;

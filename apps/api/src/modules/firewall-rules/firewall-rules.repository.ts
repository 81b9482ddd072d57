import { eq, inArray, sql } from 'drizzle-orm';
import { type FirewallRule, type ListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { firewallRules } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';

export type FirewallRuleRow = typeof firewallRules.$inferSelect;
export type FirewallRuleWrite = Omit<typeof firewallRules.$inferInsert, 'id' | 'firewallRuleNo'>;

export const toFirewallRule = (r: FirewallRuleRow): FirewallRule => ({
  _id: r.id,
  firewallRuleNo: r.firewallRuleNo,
  name: r.name,
  action: r.action,
  expression: r.expression,
  defaultPriority: r.defaultPriority,
});

const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createFirewallRulesRepository(db: Db) {
  const page = tableList(db, 'fd_firewall_rules', firewallRules, {
    search: [firewallRules.name],
    orderBy: firewallRules.firewallRuleNo,
  });
  const findById = async (id: string, ex: Executor = db): Promise<FirewallRule | undefined> => {
    const [r] = await ex.select().from(firewallRules).where(eq(firewallRules.id, id));
    return r ? toFirewallRule(r) : undefined;
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<FirewallRule>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toFirewallRule), itemsCount: total };
    },
    findById,
    async findByIds(ids: string[], ex: Executor = db): Promise<FirewallRule[]> {
      if (!ids.length) return [];
      const rows = await ex.select().from(firewallRules).where(inArray(firewallRules.id, ids));
      return rows.map(toFirewallRule);
    },
    /** The templates of these names, whatever their case (names are unique without case). */
    async findByNames(names: string[], ex: Executor = db): Promise<FirewallRule[]> {
      if (!names.length) return [];
      const lower = [...new Set(names.map((n) => n.toLowerCase()))];
      const rows = await ex
        .select()
        .from(firewallRules)
        .where(inArray(sql`lower(${firewallRules.name})`, lower));
      return rows.map(toFirewallRule);
    },
    async insert(values: FirewallRuleWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(firewallRules).values(values).returning({ id: firewallRules.id });
      return r!.id;
    },
    async update(id: string, values: Partial<FirewallRuleWrite>, ex: Executor = db): Promise<boolean> {
      const set = defined(values);
      if (!Object.keys(set).length) return !!(await findById(id, ex));
      const r = await ex
        .update(firewallRules)
        .set(set)
        .where(eq(firewallRules.id, id))
        .returning({ id: firewallRules.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(firewallRules).where(eq(firewallRules.id, id)).returning({ id: firewallRules.id });
      return r.length > 0;
    },
  };
}
export type FirewallRulesRepository = ReturnType<typeof createFirewallRulesRepository>;

import { asc, eq, inArray, sql } from 'drizzle-orm';
import { PAGE_SIZE, type AlertRule, type ListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { alertRules, brands, notificationChannels } from '../../db/schema/index.ts';

export type RuleRow = typeof alertRules.$inferSelect;
export type RuleWrite = Partial<Omit<typeof alertRules.$inferInsert, 'id' | 'ruleNo'>>;

export function createAlertRulesRepository(db: Db) {
  /** Rows → rules with their brand's and channels' names (two small reads, not a join per rule). */
  async function hydrate(rows: RuleRow[], ex: Executor): Promise<AlertRule[]> {
    const channelIds = [...new Set(rows.flatMap((r) => r.channelIds))];
    const brandIds = [...new Set(rows.map((r) => r.brandId).filter((b): b is string => !!b))];
    const chans = channelIds.length
      ? await ex
          .select({ id: notificationChannels.id, name: notificationChannels.name, kind: notificationChannels.kind })
          .from(notificationChannels)
          .where(inArray(notificationChannels.id, channelIds))
      : [];
    const brandRows = brandIds.length
      ? await ex.select({ id: brands.id, name: brands.name }).from(brands).where(inArray(brands.id, brandIds))
      : [];
    const chanOf = new Map(chans.map((c) => [c.id, c]));
    const brandOf = new Map(brandRows.map((b) => [b.id, b.name]));
    return rows.map((r) => ({
      _id: r.id,
      ruleNo: r.ruleNo,
      name: r.name,
      enabled: r.enabled,
      events: r.events as AlertRule['events'],
      expiryDays: r.expiryDays,
      healthMinutes: r.healthMinutes,
      scope: r.scope,
      brand: r.brandId ? { _id: r.brandId, name: brandOf.get(r.brandId) ?? '' } : null,
      filter: r.filter ?? null,
      channels: r.channelIds.flatMap((id) => {
        const c = chanOf.get(id);
        return c ? [{ _id: c.id, name: c.name, kind: c.kind }] : [];
      }),
      minSeverity: r.minSeverity,
      reminderMinutes: r.reminderMinutes,
      quietStart: r.quietStart,
      quietEnd: r.quietEnd,
      timeZone: r.timeZone,
    }));
  }

  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<AlertRule>> {
      const where = q.search
        ? sql`${alertRules.name} ilike ${`%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`
        : sql`true`;
      const [{ n } = { n: 0 }] = await ex
        .select({ n: sql<number>`count(*)::int` })
        .from(alertRules)
        .where(where);
      const rows = await ex
        .select()
        .from(alertRules)
        .where(where)
        .orderBy(asc(alertRules.ruleNo))
        .limit(PAGE_SIZE)
        .offset((q.page - 1) * PAGE_SIZE);
      return { items: await hydrate(rows, ex), itemsCount: n };
    },
    async findById(id: string, ex: Executor = db) {
      const r = await this.findRow(id, ex);
      return r ? (await hydrate([r], ex))[0] : undefined;
    },
    async findRow(id: string, ex: Executor = db): Promise<RuleRow | undefined> {
      const [r] = await ex.select().from(alertRules).where(eq(alertRules.id, id));
      return r;
    },
    async insert(values: RuleWrite, ex: Executor = db) {
      const [r] = await ex
        .insert(alertRules)
        .values(values as typeof alertRules.$inferInsert)
        .returning({ id: alertRules.id });
      return r!.id;
    },
    async update(id: string, values: RuleWrite, ex: Executor = db) {
      if (!Object.keys(values).length) return;
      await ex.update(alertRules).set(values).where(eq(alertRules.id, id));
    },
    async delete(id: string, ex: Executor = db) {
      const r = await ex.delete(alertRules).where(eq(alertRules.id, id)).returning();
      return r.length > 0;
    },
    /** Every enabled rule (a handful; read once per evaluation). */
    enabled: (ex: Executor = db) =>
      ex.select().from(alertRules).where(eq(alertRules.enabled, true)).orderBy(asc(alertRules.ruleNo)),
    async channelsExist(ids: string[], ex: Executor = db) {
      if (!ids.length) return [];
      const rows = await ex
        .select({ id: notificationChannels.id })
        .from(notificationChannels)
        .where(inArray(notificationChannels.id, ids));
      return rows.map((r) => r.id);
    },
    async usageOfBrand(brandId: string, ex: Executor = db) {
      const rows = await ex
        .select({ name: alertRules.name })
        .from(alertRules)
        .where(eq(alertRules.brandId, brandId))
        .orderBy(asc(alertRules.ruleNo));
      return { count: rows.length, examples: rows.slice(0, 3).map((r) => r.name) };
    },
  };
}
export type AlertRulesRepository = ReturnType<typeof createAlertRulesRepository>;

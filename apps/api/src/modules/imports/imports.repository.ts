import { and, asc, count, desc, eq, gt, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, toAsciiDomain, type ImportItemsQuery, type ImportState } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { clouds, domains, importItems, importPlans, servers } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';
import { unicodeOf } from '../domains/domains.repository.ts';

export type ImportPlanRow = typeof importPlans.$inferSelect;
export type ImportItemRow = typeof importItems.$inferSelect;
export type ImportItemPatch = Partial<
  Pick<ImportItemRow, 'outcome' | 'reason' | 'detail' | 'domainId' | 'status' | 'error' | 'finishedAt'>
>;

/** What an import needs to know of a console domain of the same name. */
export type ExistingDomain = {
  id: string;
  domainName: string;
  cloudId: string | null;
  cloudEmail: string | null;
  cloudZoneId: string | null;
  serverId: string | null;
  serverIp: string | null;
  domainRegistratorId: string | null;
};

const INSERT_CHUNK = 2000;
const LOOKUP_CHUNK = 5000;

export function createImportsRepository(db: Db) {
  const existingSelect = {
    id: domains.id,
    domainName: domains.domainName,
    cloudId: domains.cloudId,
    cloudEmail: clouds.email,
    cloudZoneId: domains.cloudZoneId,
    serverId: domains.serverId,
    serverIp: servers.ipAddress,
    domainRegistratorId: domains.domainRegistratorId,
  };
  return {
    async insertPlan(values: typeof importPlans.$inferInsert): Promise<ImportPlanRow> {
      const [r] = await db.insert(importPlans).values(values).returning();
      return r!;
    },

    async findPlan(id: string): Promise<ImportPlanRow | undefined> {
      const [r] = await db.select().from(importPlans).where(eq(importPlans.id, id));
      return r;
    },

    async listPlans(page: number): Promise<{ items: ImportPlanRow[]; itemsCount: number }> {
      const [items, [total]] = await Promise.all([
        db.select().from(importPlans).orderBy(desc(importPlans.planNo)).limit(PAGE_SIZE).offset(pageOffset(page)),
        db.select({ n: count() }).from(importPlans),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async updatePlan(id: string, patch: Partial<typeof importPlans.$inferInsert>) {
      await db
        .update(importPlans)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(importPlans.id, id));
    },

    /** Moves a plan from one of `from` to a new state; undefined when it was in another state (a race lost). */
    async transition(id: string, from: readonly ImportState[], patch: Partial<typeof importPlans.$inferInsert>) {
      const [r] = await db
        .update(importPlans)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(importPlans.id, id), inArray(importPlans.state, [...from])))
        .returning();
      return r;
    },

    /** Replaces a plan's items (planning again after a crash starts from an empty list). */
    async replaceItems(planId: string, items: Omit<typeof importItems.$inferInsert, 'planId' | 'seq'>[]) {
      await db.transaction(async (tx) => {
        await tx.delete(importItems).where(eq(importItems.planId, planId));
        for (let i = 0; i < items.length; i += INSERT_CHUNK) {
          await tx
            .insert(importItems)
            .values(items.slice(i, i + INSERT_CHUNK).map((it, j) => ({ ...it, planId, seq: i + j + 1 })));
        }
      });
    },

    async itemsToDo(planId: string, after: number, limit: number): Promise<ImportItemRow[]> {
      return db
        .select()
        .from(importItems)
        .where(
          and(
            eq(importItems.planId, planId),
            inArray(importItems.status, ['pending', 'running']),
            inArray(importItems.outcome, ['create', 'link']),
            gt(importItems.seq, after),
          ),
        )
        .orderBy(asc(importItems.seq))
        .limit(limit);
    },

    async updateItem(planId: string, seq: number, patch: ImportItemPatch) {
      await db
        .update(importItems)
        .set(patch)
        .where(and(eq(importItems.planId, planId), eq(importItems.seq, seq)));
    },

    /** The names an import's run created or linked (a revert is planned from them), after item `after`. */
    async doneItems(planId: string, after: number, limit: number): Promise<ImportItemRow[]> {
      return db
        .select()
        .from(importItems)
        .where(
          and(
            eq(importItems.planId, planId),
            eq(importItems.status, 'done'),
            inArray(importItems.outcome, ['create', 'link']),
            gt(importItems.seq, after),
          ),
        )
        .orderBy(asc(importItems.seq))
        .limit(limit);
    },

    async cancelPending(planId: string) {
      await db
        .update(importItems)
        .set({ status: 'cancelled' })
        .where(and(eq(importItems.planId, planId), inArray(importItems.status, ['pending', 'running'])));
    },

    async itemsPage(planId: string, q: ImportItemsQuery) {
      const conds: (SQL | undefined)[] = [eq(importItems.planId, planId)];
      if (q.outcome) conds.push(eq(importItems.outcome, q.outcome));
      if (q.search) {
        const p = likePattern(q.search);
        conds.push(or(ilike(importItems.name, p), ilike(importItems.nameUnicode, p), ilike(importItems.reason, p)));
      }
      const where = and(...conds);
      const [items, [total]] = await Promise.all([
        db
          .select()
          .from(importItems)
          .where(where)
          .orderBy(asc(importItems.seq))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        db.select({ n: count() }).from(importItems).where(where),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async counts(planId: string) {
      return db
        .select({ outcome: importItems.outcome, status: importItems.status, n: sql<number>`count(*)::int` })
        .from(importItems)
        .where(eq(importItems.planId, planId))
        .groupBy(importItems.outcome, importItems.status);
    },

    /**
     * The console's domains among these (ASCII) names, keyed by the ASCII name, with what an import compares.
     * An older record may hold its name in Unicode: it is found by that form too.
     */
    async existingByNames(names: string[]): Promise<Map<string, ExistingDomain>> {
      const out = new Map<string, ExistingDomain>();
      for (let i = 0; i < names.length; i += LOOKUP_CHUNK) {
        const chunk = names.slice(i, i + LOOKUP_CHUNK);
        const unicode = [...new Set(chunk.filter((n) => n.includes('xn--')).map(unicodeOf))];
        const rows = await db
          .select(existingSelect)
          .from(domains)
          .leftJoin(clouds, eq(clouds.id, domains.cloudId))
          .leftJoin(servers, eq(servers.id, domains.serverId))
          .where(
            unicode.length
              ? or(inArray(domains.domainName, chunk), inArray(domains.domainName, unicode))
              : inArray(domains.domainName, chunk),
          );
        for (const r of rows) out.set(toAsciiDomain(r.domainName) ?? r.domainName, r);
      }
      return out;
    },

    /** The console's domains linked to these zone ids, by zone id. */
    async domainsByZoneIds(zoneIds: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (let i = 0; i < zoneIds.length; i += LOOKUP_CHUNK) {
        const rows = await db
          .select({ zoneId: domains.cloudZoneId, name: domains.domainName })
          .from(domains)
          .where(inArray(domains.cloudZoneId, zoneIds.slice(i, i + LOOKUP_CHUNK)));
        for (const r of rows) if (r.zoneId) out.set(r.zoneId, r.name);
      }
      return out;
    },

    /** A server's address, limit and domain count (the capacity an import fills). */
    async serverCapacity(serverId: string) {
      const [s] = await db
        .select({
          ip: servers.ipAddress,
          limit: servers.domainsLimitQty,
          qty: sql<number>`(select count(*)::int from ${domains} where ${domains.serverId} = ${serverId})`,
        })
        .from(servers)
        .where(eq(servers.id, serverId));
      return s;
    },
  };
}
export type ImportsRepository = ReturnType<typeof createImportsRepository>;

import { and, asc, eq, sql } from 'drizzle-orm';
import { PAGE_SIZE, type ListResult, type Proxy, type ProxyListQuery } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { proxies, regions } from '../../db/schema/index.ts';
import { ilikeAny, searchList, type Buildable } from '../../http/list-query.ts';
import { maskOf } from '../../lib/secrets.ts';

export type ProxyRow = typeof proxies.$inferSelect;
export type ProxyWrite = Partial<Omit<typeof proxies.$inferInsert, 'id' | 'proxyNo'>>;

const toProxy = ({ p, regionName }: { p: ProxyRow; regionName: string | null }): Proxy => ({
  _id: p.id,
  proxyNo: p.proxyNo,
  isHttps: p.isHttps,
  IPAddress: p.ipAddress,
  httpPort: p.httpPort,
  username: p.username,
  password: maskOf(p.passwordEnc),
  region: p.regionId && regionName !== null ? { _id: p.regionId, name: regionName } : null,
  proxyType: p.proxyType,
  checkStatus: p.checkStatus,
  checkLatencyMs: p.checkLatencyMs,
  checkError: p.checkError,
  checkedAt: p.checkedAt?.toISOString() ?? null,
});

/** Failed checks in a row, from one process, before a proxy is marked failed. */
export const FAILED_AFTER = 2;

export function createProxiesRepository(db: Db) {
  const base = (ex: Executor) =>
    ex
      .select({ p: proxies, regionName: regions.name })
      .from(proxies)
      .leftJoin(regions, eq(regions.id, proxies.regionId));
  type Joined = { p: ProxyRow; regionName: string | null };
  // The search reads the region's name: both tables' versions guard the count.
  const page = searchList<Joined>(db, {
    name: 'fd_proxies',
    from: sql`${proxies} left join ${regions} on ${regions.id} = ${proxies.regionId}`,
    tables: [proxies, regions],
    search: (p) => ilikeAny([proxies.ipAddress, proxies.username, regions.name, proxies.proxyType], p),
    // 'unchecked' is the one value that is not a stored state: a proxy never checked has none.
    filter: (check) =>
      sql`(${proxies.checkStatus} = ${check} or (${proxies.checkStatus} is null and ${check} = 'unchecked'))`,
    rows: (ex, where, offset, v) =>
      ex
        .select({ p: proxies, regionName: regions.name, ...v })
        .from(proxies)
        .leftJoin(regions, eq(regions.id, proxies.regionId))
        .where(where)
        .orderBy(asc(proxies.proxyNo))
        .limit(PAGE_SIZE)
        .offset(offset as number) as unknown as Buildable<Joined & { v: string }>,
  });
  return {
    async list(q: ProxyListQuery, ex: Executor = db): Promise<ListResult<Proxy>> {
      const { rows, count: total } = await page({ ...q, filter: q.check }, ex);
      return { items: rows.map(toProxy), itemsCount: total };
    },
    async findById(id: string, ex: Executor = db): Promise<Proxy | undefined> {
      const [r] = await base(ex).where(eq(proxies.id, id));
      return r ? toProxy(r) : undefined;
    },
    async findRow(id: string, ex: Executor = db): Promise<ProxyRow | undefined> {
      const [r] = await ex.select().from(proxies).where(eq(proxies.id, id));
      return r;
    },
    /** Usable proxies of a region, the last good check first, so callers try healthy ones before unknown ones. */
    async findUsableInRegion(
      regionId: string,
      ex: Executor = db,
      o: { includeFailed?: boolean } = {},
    ): Promise<ProxyRow[]> {
      return ex
        .select()
        .from(proxies)
        .where(
          and(
            eq(proxies.regionId, regionId),
            sql`${proxies.ipAddress} is not null and ${proxies.httpPort} is not null and ${proxies.proxyType} is not null`,
            o.includeFailed ? sql`true` : sql`coalesce(${proxies.checkStatus}, 'ok') = 'ok'`,
          ),
        )
        .orderBy(
          sql`${proxies.checkStatus} is null`,
          asc(proxies.checkFailures),
          sql`${proxies.checkLatencyMs} nulls last`,
          asc(proxies.proxyNo),
        );
    },
    /**
     * Records a check. A success clears any mark; a failure is counted, and marks the proxy failed only on
     * evidence that holds: a second failure in a row, or failures seen by more than one process (issue 26).
     * One statement, so checks from several processes count together.
     */
    async recordCheck(
      id: string,
      r: { ok: boolean; latencyMs: number | null; error: string | null; checkedAt: Date },
      processName: string,
      ex: Executor = db,
    ) {
      if (r.ok) {
        await ex
          .update(proxies)
          .set({
            checkStatus: 'ok',
            checkLatencyMs: r.latencyMs,
            checkError: null,
            checkedAt: r.checkedAt,
            checkFailures: 0,
            checkFailedBy: sql`'{}'::text[]`,
          })
          .where(eq(proxies.id, id));
        return;
      }
      const seenBy = sql`array(select distinct x from unnest(${proxies.checkFailedBy} || array[${processName}::text]) as x limit 10)`;
      await ex
        .update(proxies)
        .set({
          checkFailures: sql`${proxies.checkFailures} + 1`,
          checkFailedBy: seenBy,
          checkStatus: sql`case when ${proxies.checkFailures} + 1 >= ${FAILED_AFTER} or cardinality(${seenBy}) >= 2 then 'error' else ${proxies.checkStatus} end`,
          checkLatencyMs: r.latencyMs,
          checkError: r.error,
          checkedAt: r.checkedAt,
        })
        .where(eq(proxies.id, id));
    },
    /** A call through the proxy worked: the mark and the run of failures go at once. */
    async clearFailure(id: string, ex: Executor = db) {
      await ex
        .update(proxies)
        .set({ checkStatus: 'ok', checkError: null, checkFailures: 0, checkFailedBy: sql`'{}'::text[]` })
        .where(and(eq(proxies.id, id), sql`(${proxies.checkStatus} = 'error' or ${proxies.checkFailures} > 0)`));
    },
    async insert(values: ProxyWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(proxies).values(values).returning({ id: proxies.id });
      return r!.id;
    },
    async update(id: string, values: ProxyWrite, ex: Executor = db) {
      if (!Object.keys(values).length) return;
      await ex.update(proxies).set(values).where(eq(proxies.id, id));
    },
    /** Every id in number order, for the periodic health check. */
    async allIds(ex: Executor = db): Promise<string[]> {
      const rows = await ex.select({ id: proxies.id }).from(proxies).orderBy(asc(proxies.proxyNo));
      return rows.map((r) => r.id);
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(proxies).where(eq(proxies.id, id)).returning({ id: proxies.id });
      return r.length > 0;
    },
    async usageOfRegion(regionId: string, ex: Executor = db) {
      const rows = await ex
        .select({
          label: sql<string>`coalesce(${proxies.ipAddress}, '#' || ${proxies.proxyNo})`,
          n: sql<number>`count(*) over ()`,
        })
        .from(proxies)
        .where(eq(proxies.regionId, regionId))
        .orderBy(asc(proxies.proxyNo))
        .limit(3);
      return { count: Number(rows[0]?.n ?? 0), examples: rows.map((r) => r.label) };
    },
  };
}
export type ProxiesRepository = ReturnType<typeof createProxiesRepository>;

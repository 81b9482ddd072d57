import { asc, eq, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, type Cloud, type CloudListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { clouds, regions } from '../../db/schema/index.ts';
import { ilikeAny, searchList, type Buildable } from '../../http/list-query.ts';
import { maskOf } from '../../lib/secrets.ts';

export type CloudRow = typeof clouds.$inferSelect;
export type CloudWrite = Partial<Omit<typeof clouds.$inferInsert, 'id' | 'cloudNo'>>;

const fields = { c: clouds, regionName: regions.name };
type Joined = { c: CloudRow; regionName: string | null };

export const toCloud = ({ c, regionName }: Joined): Cloud => ({
  _id: c.id,
  cloudNo: c.cloudNo,
  email: c.email,
  password: maskOf(c.passwordEnc),
  token: maskOf(c.tokenEnc),
  globalAPIKey: maskOf(c.globalApiKeyEnc),
  emailPassword: maskOf(c.emailPasswordEnc),
  proxyRegion: c.proxyRegionId && regionName !== null ? { _id: c.proxyRegionId, name: regionName } : null,
  accountId: c.accountId,
});

export function createCloudsRepository(db: Db) {
  /** The clouds with their region's name; `v`, for a list page, adds the versions its count needs. */
  const base = <V extends { v?: SQL<string> }>(ex: Executor, v = {} as V) =>
    ex
      .select({ ...fields, ...v })
      .from(clouds)
      .leftJoin(regions, eq(regions.id, clouds.proxyRegionId));
  const page = searchList<Joined>(db, {
    name: 'fd_clouds',
    from: clouds,
    // The page shows each cloud's region name.
    tables: [clouds, regions],
    search: (p) => ilikeAny([clouds.email], p),
    rows: (ex, where, offset, v) =>
      base(ex, v)
        .where(where)
        .orderBy(asc(clouds.cloudNo))
        .limit(PAGE_SIZE)
        .offset(offset as number) as unknown as Buildable<Joined & { v: string }>,
  });
  return {
    async list(q: CloudListQuery, ex: Executor = db): Promise<ListResult<Cloud>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toCloud), itemsCount: total };
    },
    async findById(id: string, ex: Executor = db): Promise<Cloud | undefined> {
      const [r] = await base(ex).where(eq(clouds.id, id));
      return r ? toCloud(r) : undefined;
    },
    /** The raw row with sealed secrets, for the integration and the reveal. */
    /** Ids and emails of the clouds, for the metrics (bounded). */
    async labels(limit = 1000, ex: Executor = db): Promise<{ id: string; email: string }[]> {
      return ex.select({ id: clouds.id, email: clouds.email }).from(clouds).orderBy(asc(clouds.email)).limit(limit);
    },
    async findRow(id: string, ex: Executor = db): Promise<CloudRow | undefined> {
      const [r] = await ex.select().from(clouds).where(eq(clouds.id, id));
      return r;
    },
    async insert(values: CloudWrite & { email: string }, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(clouds).values(values).returning({ id: clouds.id });
      return r!.id;
    },
    async update(id: string, values: CloudWrite, ex: Executor = db): Promise<boolean> {
      if (!Object.keys(values).length) return !!(await this.findRow(id, ex));
      const r = await ex.update(clouds).set(values).where(eq(clouds.id, id)).returning({ id: clouds.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(clouds).where(eq(clouds.id, id)).returning({ id: clouds.id });
      return r.length > 0;
    },
    async usageOfRegion(regionId: string, ex: Executor = db) {
      const rows = await ex
        .select({ email: clouds.email, n: sql<number>`count(*) over ()` })
        .from(clouds)
        .where(eq(clouds.proxyRegionId, regionId))
        .orderBy(asc(clouds.cloudNo))
        .limit(3);
      return { count: Number(rows[0]?.n ?? 0), examples: rows.map((r) => r.email) };
    },
  };
}
export type CloudsRepository = ReturnType<typeof createCloudsRepository>;

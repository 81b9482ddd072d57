import { eq, inArray } from 'drizzle-orm';
import { type DomainRegistrator, type ListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { domainRegistrators } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';
import { maskOf } from '../../lib/secrets.ts';

export type DomainRegistratorRow = typeof domainRegistrators.$inferSelect;
/** api_key is the sealed value. */
export type DomainRegistratorWrite = Omit<typeof domainRegistrators.$inferInsert, 'id' | 'domainRegistratorNo'>;

export const toDomainRegistrator = (r: DomainRegistratorRow): DomainRegistrator => ({
  _id: r.id,
  domainRegistratorNo: r.domainRegistratorNo,
  name: r.name,
  type: r.type,
  credentials: { endpointUrl: r.endpointUrl, apiUsername: r.apiUsername, apiKey: maskOf(r.apiKey) },
});

const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createDomainRegistratorsRepository(db: Db) {
  const t = domainRegistrators;
  const page = tableList(db, 'fd_domain_registrators', t, { search: [t.name], orderBy: t.domainRegistratorNo });
  const findRow = async (id: string, ex: Executor = db): Promise<DomainRegistratorRow | undefined> => {
    const [r] = await ex.select().from(t).where(eq(t.id, id));
    return r;
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<DomainRegistrator>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toDomainRegistrator), itemsCount: total };
    },
    async findById(id: string, ex: Executor = db): Promise<DomainRegistrator | undefined> {
      const r = await findRow(id, ex);
      return r ? toDomainRegistrator(r) : undefined;
    },
    async findByIds(ids: string[], ex: Executor = db): Promise<DomainRegistrator[]> {
      if (!ids.length) return [];
      return (await ex.select().from(t).where(inArray(t.id, ids))).map(toDomainRegistrator);
    },
    /** The row with the sealed key, for the reveal, the audit snapshot and the Namecheap client. */
    findRow,
    async insert(values: DomainRegistratorWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(t).values(values).returning({ id: t.id });
      return r!.id;
    },
    async update(id: string, values: Partial<DomainRegistratorWrite>, ex: Executor = db): Promise<boolean> {
      const set = defined(values);
      if (!Object.keys(set).length) return !!(await findRow(id, ex));
      return (await ex.update(t).set(set).where(eq(t.id, id)).returning({ id: t.id })).length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      return (await ex.delete(t).where(eq(t.id, id)).returning({ id: t.id })).length > 0;
    },
  };
}
export type DomainRegistratorsRepository = ReturnType<typeof createDomainRegistratorsRepository>;

import { eq, inArray } from 'drizzle-orm';
import { type DomainRegistratorContact, type ListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { domainRegistratorContacts } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';

export type ContactRow = typeof domainRegistratorContacts.$inferSelect;
export type ContactWrite = Omit<typeof domainRegistratorContacts.$inferInsert, 'id' | 'domainRegistratorContactNo'>;

export const toContact = ({ id, ...r }: ContactRow): DomainRegistratorContact => ({ _id: id, ...r });

const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createDomainRegistratorsContactsRepository(db: Db) {
  const t = domainRegistratorContacts;
  const page = tableList(db, 'fd_domain_registrators_contacts', t, {
    search: [t.name, t.email, t.firstName, t.lastName],
    orderBy: t.domainRegistratorContactNo,
  });
  const findById = async (id: string, ex: Executor = db): Promise<DomainRegistratorContact | undefined> => {
    const [r] = await ex.select().from(t).where(eq(t.id, id));
    return r ? toContact(r) : undefined;
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<DomainRegistratorContact>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toContact), itemsCount: total };
    },
    findById,
    async findByIds(ids: string[], ex: Executor = db): Promise<DomainRegistratorContact[]> {
      if (!ids.length) return [];
      return (await ex.select().from(t).where(inArray(t.id, ids))).map(toContact);
    },
    async insert(values: ContactWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(t).values(values).returning({ id: t.id });
      return r!.id;
    },
    async update(id: string, values: Partial<ContactWrite>, ex: Executor = db): Promise<boolean> {
      const set = defined(values);
      if (!Object.keys(set).length) return !!(await findById(id, ex));
      return (await ex.update(t).set(set).where(eq(t.id, id)).returning({ id: t.id })).length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      return (await ex.delete(t).where(eq(t.id, id)).returning({ id: t.id })).length > 0;
    },
  };
}
export type DomainRegistratorsContactsRepository = ReturnType<typeof createDomainRegistratorsContactsRepository>;

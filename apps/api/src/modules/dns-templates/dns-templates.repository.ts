import { eq, inArray, sql } from 'drizzle-orm';
import type { DnsTemplate, DnsTemplateRecord, ListQuery, ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { dnsTemplates, launchProfiles } from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';

export type DnsTemplateRow = typeof dnsTemplates.$inferSelect;
export type DnsTemplateWrite = { name?: string; records?: DnsTemplateRecord[] };

export const toDnsTemplate = (r: DnsTemplateRow, inUse?: boolean): DnsTemplate => ({
  _id: r.id,
  dnsTemplateNo: r.dnsTemplateNo,
  name: r.name,
  records: r.records as DnsTemplateRecord[],
  ...(inUse === undefined ? {} : { isInUse: inUse }),
});

export function createDnsTemplatesRepository(db: Db) {
  const page = tableList(db, 'fd_dns_templates', dnsTemplates, {
    search: [dnsTemplates.name],
    orderBy: dnsTemplates.dnsTemplateNo,
  });
  /** Of these templates, the ones a launch profile uses (read fresh: the list's kept pages do not cover it). */
  const usedIds = async (ids: string[], ex: Executor): Promise<Set<string>> => {
    if (!ids.length) return new Set();
    const rows = await ex
      .selectDistinct({ id: launchProfiles.dnsTemplateId })
      .from(launchProfiles)
      .where(inArray(launchProfiles.dnsTemplateId, ids));
    return new Set(rows.map((r) => r.id).filter((id): id is string => !!id));
  };
  const findById = async (id: string, ex: Executor = db): Promise<DnsTemplate | undefined> => {
    const [r] = await ex.select().from(dnsTemplates).where(eq(dnsTemplates.id, id));
    return r ? toDnsTemplate(r, (await usedIds([r.id], ex)).has(r.id)) : undefined;
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<DnsTemplate>> {
      const { rows, count } = await page(q, ex);
      const used = await usedIds(
        rows.map((r) => r.id),
        ex,
      );
      return { items: rows.map((r) => toDnsTemplate(r, used.has(r.id))), itemsCount: count };
    },
    findById,
    async exists(id: string, ex: Executor = db): Promise<boolean> {
      const [r] = await ex.select({ id: dnsTemplates.id }).from(dnsTemplates).where(eq(dnsTemplates.id, id));
      return !!r;
    },
    async insert(values: DnsTemplateWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex
        .insert(dnsTemplates)
        .values({ name: values.name!, records: values.records! })
        .returning({ id: dnsTemplates.id });
      return r!.id;
    },
    async update(id: string, values: DnsTemplateWrite, ex: Executor = db): Promise<boolean> {
      const set: Partial<typeof dnsTemplates.$inferInsert> = { updatedAt: sql`now()` as unknown as Date };
      if (values.name !== undefined) set.name = values.name;
      if (values.records !== undefined) set.records = values.records;
      const r = await ex
        .update(dnsTemplates)
        .set(set)
        .where(eq(dnsTemplates.id, id))
        .returning({ id: dnsTemplates.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(dnsTemplates).where(eq(dnsTemplates.id, id)).returning({ id: dnsTemplates.id });
      return r.length > 0;
    },
  };
}
export type DnsTemplatesRepository = ReturnType<typeof createDnsTemplatesRepository>;

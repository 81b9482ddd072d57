import { eq, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../db/client.ts';
import { tableList } from '../http/list-query.ts';

/**
 * The list, read and write of a provider's accounts (Yandex Webmaster, Google Search Console): rows with a sealed
 * credential, shown through `toEntity` (which masks it), and the raw row for the provider's client.
 */
export function createAccountRepository<T extends PgTable & { id: PgColumn }, E, W extends object>(
  db: Db,
  t: { table: T; search: PgColumn[]; orderBy: PgColumn; toEntity: (r: T['$inferSelect']) => E },
) {
  type Row = T['$inferSelect'];
  const { table, toEntity } = t;
  const table_ = table as unknown as PgTable & { id: PgColumn };
  const page = tableList(db, `fd_${getTableName(table)}`, table, { search: t.search, orderBy: t.orderBy });
  const findRow = async (id: string, ex: Executor = db): Promise<Row | undefined> => {
    const [r] = await ex.select().from(table_).where(eq(table_.id, id));
    return r as Row | undefined;
  };
  return {
    async list(q: { search?: string; page: number }, ex: Executor = db): Promise<ListResult<E>> {
      const { rows, count: total } = await page(q, ex);
      return { items: rows.map(toEntity), itemsCount: total };
    },
    async findById(id: string, ex: Executor = db): Promise<E | undefined> {
      const r = await findRow(id, ex);
      return r ? toEntity(r) : undefined;
    },
    /** The raw row with the sealed credential, for the client (and a reveal where there is one). */
    findRow,
    async insert(values: W, ex: Executor = db): Promise<string> {
      const [r] = await ex
        .insert(table_)
        .values(values as never)
        .returning({ id: table_.id });
      return (r as { id: string }).id;
    },
    async update(id: string, values: W, ex: Executor = db): Promise<boolean> {
      if (!Object.keys(values).length) return !!(await findRow(id, ex));
      const r = await ex
        .update(table_)
        .set(values as never)
        .where(eq(table_.id, id))
        .returning({ id: table_.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(table_).where(eq(table_.id, id)).returning({ id: table_.id });
      return r.length > 0;
    },
  };
}

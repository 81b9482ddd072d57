import { asc, eq, getTableName, inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { PAGE_SIZE, type ListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../db/client.ts';
import { ilikeAny, searchList, type Buildable } from '../http/list-query.ts';

type Base = { id: string; no: number; name: string };

/**
 * Repository for a simple named list (brands, regions): search by name ignoring case, newest number last.
 * `toEntity` names the number field as the contract wants it (brandNo, regionNo). `extra` columns (a brand's
 * settings) are read with the row and written when the input has them.
 */
export function createNamedRepository<E, X extends Record<string, unknown> = Record<never, never>>(
  db: Db,
  t: { table: PgTable; id: PgColumn; no: PgColumn; name: PgColumn; extra?: { [K in keyof X]: PgColumn } },
  toEntity: (r: Base & X) => E,
) {
  type Row = Base & X;
  const extra = (t.extra ?? {}) as Record<string, PgColumn>;
  const fields = { id: t.id, no: t.no, name: t.name, ...extra };
  /** The columns the input sets (a key it leaves out keeps its value). */
  const writes = (input: Record<string, unknown>) =>
    Object.fromEntries(['name', ...Object.keys(extra)].filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
  const page = searchList<Row>(db, {
    name: `fd_${getTableName(t.table)}`,
    from: t.table,
    tables: [t.table],
    search: (p) => ilikeAny([t.name], p),
    rows: (ex, where, offset, v) =>
      ex
        .select({ ...fields, ...v })
        .from(t.table)
        .where(where)
        .orderBy(asc(t.no))
        .limit(PAGE_SIZE)
        .offset(offset as number) as unknown as Buildable<Row & { v: string }>,
  });
  const one = async (where: ReturnType<typeof eq>, ex: Executor) => {
    const [r] = (await ex.select(fields).from(t.table).where(where)) as Row[];
    return r ? toEntity(r) : undefined;
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<E>> {
      const { rows, count: total } = await page(q, ex);
      return { items: (rows as Row[]).map(toEntity), itemsCount: total };
    },
    findById: (id: string, ex: Executor = db) => one(eq(t.id, id), ex),
    async findByIds(ids: string[], ex: Executor = db): Promise<E[]> {
      if (!ids.length) return [];
      const rows = (await ex.select(fields).from(t.table).where(inArray(t.id, ids))) as Row[];
      return rows.map(toEntity);
    },
    async insert(input: { name: string } & Partial<X>, ex: Executor = db): Promise<E> {
      const [r] = (await ex
        .insert(t.table)
        .values(writes(input) as never)
        .returning(fields)) as Row[];
      return toEntity(r!);
    },
    async update(id: string, patch: { name?: string } & Partial<X>, ex: Executor = db): Promise<E | undefined> {
      const set = writes(patch);
      if (!Object.keys(set).length) return one(eq(t.id, id), ex);
      const [r] = (await ex
        .update(t.table)
        .set(set as never)
        .where(eq(t.id, id))
        .returning(fields)) as Row[];
      return r ? toEntity(r) : undefined;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = (await ex.delete(t.table).where(eq(t.id, id)).returning({ id: t.id })) as unknown[];
      return r.length > 0;
    },
  };
}

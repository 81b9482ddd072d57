import { SQL, asc, getTableColumns, getTableName, is, sql } from 'drizzle-orm';
import { PgDialect, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { PAGE_SIZE } from '@fleetdesk/contract';
import type { Db, Executor } from '../db/client.ts';

/** ILIKE pattern for a substring search, with the user's % and _ taken literally. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const pageOffset = (page: number, size = PAGE_SIZE) => (Math.max(1, page) - 1) * size;

/** `col1 ILIKE p OR col2 ILIKE p`, or undefined for an empty search. */
export function searchWhere(search: string | undefined, columns: SQL.Aliased[] | unknown[]): SQL | undefined {
  const s = search?.trim();
  if (!s) return undefined;
  const p = likePattern(s);
  const parts = columns.map((c) => sql`${c} ILIKE ${p}`);
  return parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` OR `)})`;
}

/** How long an exact count may be reused (while the tables' versions stay put), and how many are kept. */
export const COUNT_CACHE_TTL_MS = 30_000;
const COUNT_CACHE_MAX = 2_000;
type CountEntry = { v: string; n: number; at: number };
const countCaches = new WeakMap<Db, Map<string, CountEntry>>();
const dialect = new PgDialect();
const fromOf = (f: PgTable | SQL): SQL => (is(f, SQL) ? f : sql`${f}`);

/** Forgets every cached count of the database (tests that truncate every table, list_versions included). */
export const forgetCounts = (db: Db) => countCaches.delete(db);

/**
 * The tables' versions as one text, read in the same statement as what it guards. list_versions moves at the
 * commit of any write (migration 0013), so equal text means the rows counted have not changed since.
 */
export const versionSql = (tables: PgTable[]) =>
  sql<string>`(select coalesce(string_agg(lv.tbl || ':' || lv.v, ',' order by lv.tbl), '') from list_versions lv
    where lv.tbl in (${sql.join(
      tables.map((t) => sql`${getTableName(t)}`),
      sql`, `,
    )}))`;

/** What a count reads; `key`, when given, names the FROM and WHERE with their values canonically (else made from the SQL). */
type CountSource = { from: PgTable | SQL; tables: PgTable[]; where: SQL | undefined; key?: string };

/** Sets `key` last in a map kept in insertion order, dropping the oldest entry when it holds `max` already. */
export function setBounded<V>(map: Map<string, V>, key: string, value: V, max: number) {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}

const cacheOf = (db: Db) => {
  let cache = countCaches.get(db);
  if (!cache) countCaches.set(db, (cache = new Map()));
  return cache;
};
const keyOf = (o: Pick<CountSource, 'from' | 'where' | 'key'>) => {
  if (o.key !== undefined) return o.key;
  const q = dialect.sqlToQuery(sql`${fromOf(o.from)}${o.where ? sql` where ${o.where}` : sql``}`);
  return `${q.sql}\u0000${JSON.stringify(q.params)}`;
};

/** Counts, and keeps the count with the versions read in the same statement. */
async function countAndKeep(db: Db, ex: Executor, o: CountSource, key: string): Promise<number> {
  const res = await ex.execute<{ n: number; v: string }>(
    sql`select count(*)::int as n, ${versionSql(o.tables)} as v from ${fromOf(o.from)}${o.where ? sql` where ${o.where}` : sql``}`,
  );
  const r = (res as unknown as { rows: { n: number | string; v: string }[] }).rows[0]!;
  const n = Number(r.n);
  if (ex !== db) return n;
  setBounded(cacheOf(db), key, { v: r.v, n, at: Date.now() }, COUNT_CACHE_MAX);
  return n;
}

/** The cached count of this FROM and WHERE if it was taken at these versions, not too long ago. */
function countAt(db: Db, key: string, version: string | undefined): number | undefined {
  if (version === undefined) return undefined;
  const hit = countCaches.get(db)?.get(key);
  return hit && hit.v === version && Date.now() - hit.at < COUNT_CACHE_TTL_MS ? hit.n : undefined;
}

/**
 * The exact number of rows of a list (`from` and `where`), for the pager. A count costs a scan of every hit
 * (all rows for a one-letter search), so it is kept for a short while and reused as long as none of the
 * tables it reads has been written since: checking that is one read of list_versions, made while the page
 * is being read. Inside a transaction it always counts.
 *
 * `from` is the FROM clause (a table, or a table with joins); `tables` every table the WHERE reads.
 */
export async function exactCount(db: Db, ex: Executor, o: CountSource): Promise<number> {
  const key = keyOf(o);
  if (ex === db && countCaches.get(db)?.has(key)) {
    const res = await ex.execute<{ v: string }>(sql`select ${versionSql(o.tables)} as v`);
    const n = countAt(db, key, (res as unknown as { rows: { v: string }[] }).rows[0]?.v);
    if (n !== undefined) return n;
  }
  return countAndKeep(db, ex, o, key);
}

/**
 * A page and the exact count of its list in one statement when the count is known: the page's query carries
 * the tables' versions as a column (`v`), and a count kept at those versions is exact for that page's snapshot.
 * Otherwise the count runs beside the page (no count known) or after it (the versions moved). Every kit list
 * pages through this.
 *
 * `rows(v)` builds the page's query with `v` among its selected fields.
 */
export async function pageWithCount<R>(
  db: Db,
  ex: Executor,
  o: CountSource & { rows: (v: { v: SQL<string> }) => Promise<(R & { v: string })[]> },
): Promise<{ rows: R[]; count: number }> {
  const key = keyOf(o);
  const v = { v: versionSql(o.tables) };
  if (ex !== db || !countCaches.get(db)?.has(key)) {
    const [rows, count] = await Promise.all([o.rows(v), countAndKeep(db, ex, o, key)]);
    return { rows, count };
  }
  const rows = await o.rows(v);
  return { rows, count: await countWithVersion(db, ex, o, rows[0]?.v) };
}

/**
 * The exact count, given the versions read with the page (undefined when the page had no row to carry them): the
 * count kept at those versions, else a count taken now. Only without the versions does it read them first.
 */
export async function countWithVersion(
  db: Db,
  ex: Executor,
  o: CountSource,
  version: string | undefined,
): Promise<number> {
  if (ex !== db || version === undefined) return exactCount(db, ex, o);
  const key = keyOf(o);
  return countAt(db, key, version) ?? countAndKeep(db, ex, o, key);
}

/** A cached count, if one is known for this FROM and WHERE (any version): a hint for choosing a plan. */
export function knownCount(db: Db, from: PgTable | SQL, where: SQL | undefined, key?: string): number | undefined {
  return countCaches.get(db)?.get(keyOf({ from, where, key }))?.n;
}

/**
 * The kit's common list: one page of a table's rows (every column) in number order, with the exact count of the
 * rows matching `where` (pageWithCount).
 */
export async function tablePage<T extends PgTable>(
  db: Db,
  ex: Executor,
  table: T,
  o: { where: SQL | undefined; orderBy: PgColumn; page: number },
): Promise<{ rows: T['$inferSelect'][]; count: number }> {
  const { rows, count } = await pageWithCount(db, ex, {
    from: table,
    tables: [table],
    where: o.where,
    rows: (v) =>
      (ex as Db)
        .select({ ...getTableColumns(table), ...v })
        .from(table as PgTable)
        .where(o.where)
        .orderBy(asc(o.orderBy))
        .limit(PAGE_SIZE)
        .offset(pageOffset(o.page)) as unknown as Promise<(T['$inferSelect'] & { v: string })[]>,
  });
  return { rows, count };
}

import { SQL, getTableName, is, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
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
const versionSql = (tables: string[]) =>
  sql<string>`(select coalesce(string_agg(lv.tbl || ':' || lv.v, ',' order by lv.tbl), '') from list_versions lv
    where lv.tbl in (${sql.join(
      tables.map((t) => sql`${t}`),
      sql`, `,
    )}))`;

/**
 * The exact number of rows of a list (`from` and `where`), for the pager. A count costs a scan of every hit
 * (all rows for a one-letter search), so it is kept for a short while and reused as long as none of the
 * tables it reads has been written since: checking that is one read of list_versions, made while the page
 * is being read. Inside a transaction it always counts.
 *
 * `from` is the FROM clause (a table, or a table with joins); `tables` every table the WHERE reads.
 */
export async function exactCount(
  db: Db,
  ex: Executor,
  o: { from: PgTable | SQL; tables: PgTable[]; where: SQL | undefined },
): Promise<number> {
  const fromSql = fromOf(o.from);
  const whereSql = o.where ? sql` where ${o.where}` : sql``;
  const names = o.tables.map((t) => getTableName(t));
  const counted = async () => {
    const res = await ex.execute<{ n: number; v: string }>(
      sql`select count(*)::int as n, ${versionSql(names)} as v from ${fromSql}${whereSql}`,
    );
    return (res as unknown as { rows: { n: number | string; v: string }[] }).rows[0]!;
  };
  if (ex !== db) return Number((await counted()).n);

  let cache = countCaches.get(db);
  if (!cache) countCaches.set(db, (cache = new Map()));
  const q = dialect.sqlToQuery(sql`${fromSql}${whereSql}`);
  const key = `${q.sql}\u0000${JSON.stringify(q.params)}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && now - hit.at < COUNT_CACHE_TTL_MS) {
    const res = await ex.execute<{ v: string }>(sql`select ${versionSql(names)} as v`);
    if ((res as unknown as { rows: { v: string }[] }).rows[0]?.v === hit.v) return hit.n;
  }
  const r = await counted();
  const n = Number(r.n);
  cache.delete(key);
  if (cache.size >= COUNT_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, { v: r.v, n, at: now });
  return n;
}

/** A cached count, if one is known for this FROM and WHERE (any version): a hint for choosing a plan. */
export function knownCount(db: Db, from: PgTable | SQL, where: SQL | undefined): number | undefined {
  const fromSql = fromOf(from);
  const q = dialect.sqlToQuery(sql`${fromSql}${where ? sql` where ${where}` : sql``}`);
  return countCaches.get(db)?.get(`${q.sql}\u0000${JSON.stringify(q.params)}`)?.n;
}

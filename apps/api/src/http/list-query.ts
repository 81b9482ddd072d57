import { SQL, and, asc, getTableColumns, getTableName, is, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { PAGE_SIZE } from '@fleetdesk/contract';
import type { Db, Executor } from '../db/client.ts';
import { freshRead } from '../lib/fresh-read.ts';

/** ILIKE pattern for a substring search, with the user's % and _ taken literally. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const pageOffset = (page: number, size = PAGE_SIZE) => (Math.max(1, page) - 1) * size;

/** `col1 ILIKE p OR col2 ILIKE p`, or undefined for an empty search. */
export function searchWhere(search: string | undefined, columns: SQL.Aliased[] | unknown[]): SQL | undefined {
  const s = search?.trim();
  return s ? ilikeAny(columns, likePattern(s)) : undefined;
}

/** `col1 ILIKE p OR col2 ILIKE p` for a pattern (a value, or a placeholder in a prepared statement). */
export function ilikeAny(columns: SQL.Aliased[] | unknown[], pattern: unknown): SQL {
  const parts = columns.map((c) => sql`${c} ILIKE ${pattern}`);
  return parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` OR `)})`;
}

/** How long an exact count may be reused (while the tables' versions stay put), and how many are kept. */
export const COUNT_CACHE_TTL_MS = 30_000;
const COUNT_CACHE_MAX = 2_000;
type CountEntry = { v: string; n: number; at: number };
const countCaches = new WeakMap<Db, Map<string, CountEntry>>();
const fromOf = (f: PgTable | SQL): SQL => (is(f, SQL) ? f : sql`${f}`);

/** Forgets every cached count of the database (tests that truncate every table, list_versions included). */
export const forgetCounts = (db: Db) => countCaches.delete(db);

/** Every table whose version some list reads: each needs the list_versions triggers (a test checks). */
export const versionedTables = new Set<string>();

/**
 * The tables' versions as one text, read in the same statement as what it guards. list_versions moves at the
 * commit of any write (migration 0013), so equal text means the rows counted have not changed since.
 */
export function versionSql(tables: PgTable[]) {
  for (const t of tables) versionedTables.add(getTableName(t));
  return sql<string>`(select coalesce(string_agg(lv.tbl || ':' || lv.v, ',' order by lv.tbl), '') from list_versions lv
    where lv.tbl in (${sql.join(
      tables.map((t) => sql`${getTableName(t)}`),
      sql`, `,
    )}))`;
}

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

/** The cached count of this FROM and WHERE if it was taken at these versions, not too long ago. */
function countAt(db: Db, key: string, version: string | undefined): number | undefined {
  if (version === undefined) return undefined;
  const hit = countCaches.get(db)?.get(key);
  return hit && hit.v === version && Date.now() - hit.at < COUNT_CACHE_TTL_MS ? hit.n : undefined;
}

/**
 * A count kept under `key` at a version of the caller's own (the domains repository carries its counts forward
 * over the rows that changed); forgotten with the rest by forgetCounts.
 */
export const keptCount = (db: Db, key: string): CountEntry | undefined => countCaches.get(db)?.get(key);
export const keepCount = (db: Db, key: string, e: CountEntry) => setBounded(cacheOf(db), key, e, COUNT_CACHE_MAX);

type Prepared<T> = { execute(values?: Record<string, unknown>): Promise<T[]> };
/** A drizzle select: run as it is, or prepared once under a name. */
export type Buildable<T> = PromiseLike<T[]> & { prepare(name: string): Prepared<T> };
type Page<R> = { rows: R[]; count: number };

/** Pages each list keeps in memory on a database (LIST_PAGE_CACHE_SIZE; none unless the container sets it). */
const pageCacheSizes = new WeakMap<Db, number>();
export const setListPageCacheSize = (db: Db, n: number) => pageCacheSizes.set(db, n);
export const listPageCacheSize = (db: Db) => pageCacheSizes.get(db) ?? 0;

/**
 * The kit's list, for every resource but domains (which has plans of its own): a page of the rows matching a
 * search, in number order, with the exact count. Its statements are built once and prepared, with the search's
 * pattern and the offset as parameters: building a query with drizzle cost more than running it on a small table
 * (issue 15's profile). The page's statement reads the versions of `tables` as a column (`v`), so a count kept
 * at those versions needs no statement of its own; otherwise the count runs beside the page (none kept) or after
 * it (the versions moved). A page whose rows and count were read at the same versions is kept (decision 038),
 * and served again after a read of the versions, shared under load (lib/fresh-read.ts), finds them unchanged.
 * Inside a transaction both are built and run anew, and nothing is kept.
 *
 * `name` prefixes the statements' names; `tables` names every table the count or the page's rows read;
 * `search(pattern)` is the WHERE of a search; `rows` the page's query with `v` among its fields, for a WHERE (or
 * none) and an offset (a number, or a placeholder). Kept rows are shared: callers map them, never change them.
 */
export function searchList<R>(
  db: Db,
  o: {
    name: string;
    from: PgTable | SQL;
    tables: PgTable[];
    search: (pattern: unknown) => SQL;
    /** One optional filter of the list (a value, or a placeholder), beside the search: `q.filter`. */
    filter?: (value: unknown) => SQL;
    rows: (
      ex: Executor,
      where: SQL | undefined,
      offset: unknown,
      v: { v: SQL<string> },
    ) => Buildable<R & { v: string }>;
  },
): (q: { search?: string; page: number; filter?: string }, ex?: Executor) => Promise<Page<R>> {
  const v = { v: versionSql(o.tables) };
  const counted = (ex: Executor, where: SQL | undefined) =>
    (ex as Db)
      .select({ n: sql<number>`count(*)::int`, ...v })
      .from(fromOf(o.from))
      .where(where) as unknown as Buildable<{ n: number | string; v: string }>;
  const prepared = (where: SQL | undefined, suffix: string) => ({
    rows: o.rows(db, where, sql.placeholder('offset'), v).prepare(`${o.name}_page${suffix}`),
    count: counted(db, where).prepare(`${o.name}_count${suffix}`),
  });
  /** The WHERE of a search and the filter, each given or not (values, or placeholders). */
  const whereOf = (pattern: unknown, filter: unknown) =>
    and(
      pattern === undefined ? undefined : o.search(pattern),
      filter === undefined || !o.filter ? undefined : o.filter(filter),
    );
  // Built at the first call, when whatever the queries read from elsewhere (the servers' domain count) is set;
  // one pair of statements per shape (search or not, filter or not), prepared when first asked.
  const shapes = new Map<string, ReturnType<typeof prepared>>();
  const statementsFor = (searched: boolean, filtered: boolean) => {
    const suffix = `${searched ? '_search' : ''}${filtered ? '_filter' : ''}`;
    let st = shapes.get(suffix);
    if (!st) {
      st = prepared(
        whereOf(searched ? sql.placeholder('pattern') : undefined, filtered ? sql.placeholder('filter') : undefined),
        suffix,
      );
      shapes.set(suffix, st);
    }
    return st;
  };
  let versions: Prepared<{ v: string }> | undefined;
  const readVersions = freshRead(
    async () =>
      (
        await (versions ??= (db as Db)
          .select(v)
          .from(sql`(values (1)) as one (x)`)
          .prepare(`${o.name}_versions`)).execute()
      )[0]?.v,
  );
  const pages = new Map<string, { v: string; at: number; page: Page<R> }>();

  return async (q, ex = db) => {
    const s = q.search?.trim();
    const pattern = s ? likePattern(s) : undefined;
    const filter = o.filter && q.filter ? q.filter : undefined;
    const offset = pageOffset(q.page);
    if (ex !== db) {
      const where = whereOf(pattern, filter);
      const [rows, [c]] = await Promise.all([o.rows(ex, where, offset, v), counted(ex, where)]);
      return { rows: rows.map(({ v: _v, ...row }) => row as R), count: Number(c!.n) };
    }
    const keepMax = listPageCacheSize(db);
    const pageKey = `${pattern ?? ''}\u0000${filter ?? ''}\u0000${offset}`;
    const kept = keepMax > 0 ? pages.get(pageKey) : undefined;
    if (kept && Date.now() - kept.at < COUNT_CACHE_TTL_MS && (await readVersions()) === kept.v) return kept.page;

    const st = statementsFor(pattern !== undefined, filter !== undefined);
    const values = { pattern, filter, offset };
    const key = `${o.name}\u0000${pattern ?? ''}\u0000${filter ?? ''}`;
    const count = async () => {
      const [c] = await st.count.execute(values);
      const n = Number(c!.n);
      setBounded(cacheOf(db), key, { v: c!.v, n, at: Date.now() }, COUNT_CACHE_MAX);
      return { n, v: c!.v };
    };
    /** Keeps the page when its rows and its count were read at the same versions (an empty page is not kept). */
    const answer = (rows: (R & { v: string })[], n: number, countV: string | undefined): Page<R> => {
      // The versions column is the list's own business: the rows leave without it.
      const page = { rows: rows.map(({ v: _v, ...row }) => row as R), count: n };
      if (keepMax > 0 && rows.length && rows[0]!.v === countV) {
        setBounded(pages, pageKey, { v: countV, at: Date.now(), page }, keepMax);
      }
      return page;
    };
    if (!countCaches.get(db)?.has(key)) {
      const [rows, c] = await Promise.all([st.rows.execute(values), count()]);
      return answer(rows, c.n, c.v);
    }
    const rows = await st.rows.execute(values);
    // An empty page (past the end, or no hits) carries no versions: they are read on their own.
    const version = rows.length ? rows[0]!.v : await readVersions();
    const n = countAt(db, key, version);
    if (n !== undefined) return answer(rows, n, version);
    const c = await count();
    return answer(rows, c.n, c.v);
  };
}

/**
 * searchList over one table's columns: every column of a page of rows in `orderBy` order, searched by `search`
 * (ILIKE on any of them).
 */
export function tableList<T extends PgTable>(
  db: Db,
  name: string,
  table: T,
  o: { search: PgColumn[]; orderBy: PgColumn },
): (q: { search?: string; page: number }, ex?: Executor) => Promise<Page<T['$inferSelect']>> {
  return searchList<T['$inferSelect']>(db, {
    name,
    from: table,
    tables: [table],
    search: (p) => ilikeAny(o.search, p),
    rows: (ex, where, offset, v) =>
      (ex as Db)
        .select({ ...getTableColumns(table), ...v })
        .from(table as PgTable)
        .where(where)
        .orderBy(asc(o.orderBy))
        .limit(PAGE_SIZE)
        .offset(offset as number) as unknown as Buildable<T['$inferSelect'] & { v: string }>,
  });
}

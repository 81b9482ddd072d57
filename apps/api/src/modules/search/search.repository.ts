import { domainToASCII } from 'node:url';
import { sql, type SQL } from 'drizzle-orm';
import { SEARCH_AREA_LIMIT, hasNonAscii, type SearchArea } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { likePattern } from '../../http/list-query.ts';

/** How many candidates each of the exact, prefix and substring passes may bring, before ranking. */
const CANDIDATES = 20;

type Row = { id: string; title: string; subtitle: string | null; rank: number };

/** `p%` with the user's % and _ taken literally. */
const prefixPattern = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One area's search: three bounded passes (exact, prefix, substring; each a LIMIT, so a substring found in
 * every one of 100,000 rows still stops at the first few), ranked in that order. The trigram indexes serve
 * the ILIKE passes; exact matches come first even when the substring pass is full.
 */
async function searchArea(
  db: Db,
  spec: { from: SQL; id: SQL; title: SQL; subtitle: SQL; columns: SQL[]; exact?: SQL[] },
  q: string,
): Promise<Row[]> {
  const lower = q.toLowerCase();
  const anyOf = (pattern: string) =>
    sql.join(
      spec.columns.map((c) => sql`${c} ILIKE ${pattern}`),
      sql` OR `,
    );
  const exact = spec.exact ?? spec.columns.map((c) => sql`lower(${c}) = ${lower}`);
  const pass = (rank: number, where: SQL) =>
    sql`(select ${spec.id}::text as id, ${spec.title} as title, ${spec.subtitle} as subtitle, ${rank}::int as rank
      from ${spec.from} where ${where} limit ${CANDIDATES})`;
  const res = await db.execute(
    sql`${pass(0, sql.join(exact, sql` OR `))} union all ${pass(1, anyOf(prefixPattern(lower)))} union all ${pass(2, anyOf(likePattern(lower)))}`,
  );
  const rows = (res as unknown as { rows: Row[] }).rows;
  // One hit per item, at its best rank; then shorter (closer) titles first.
  const best = new Map<string, Row>();
  for (const r of rows) {
    const seen = best.get(r.id);
    if (!seen || Number(r.rank) < Number(seen.rank)) best.set(r.id, r);
  }
  return [...best.values()]
    .sort(
      (a, b) => Number(a.rank) - Number(b.rank) || a.title.length - b.title.length || a.title.localeCompare(b.title),
    )
    .slice(0, SEARCH_AREA_LIMIT);
}

export function createSearchRepository(db: Db) {
  const areas: Record<SearchArea, (q: string) => Promise<Row[]>> = {
    domains: (q) => {
      // Stored names are lower-case punycode; a Unicode query is also tried in that form.
      const ascii = hasNonAscii(q) ? domainToASCII(q.toLowerCase().replace(/^\.+|\.+$/g, '')) : '';
      // Exact on the stored form only: it is the unique index, so the exact pass is one index probe.
      const exact = [sql`domain_name = ${ascii || q.toLowerCase()}`];
      return searchArea(
        db,
        {
          from: sql`domains`,
          id: sql`id`,
          title: sql`domain_name_unicode`,
          subtitle: sql`status`,
          columns: [sql`domain_name`, sql`domain_name_unicode`],
          exact,
        },
        q,
      );
    },
    servers: (q) =>
      searchArea(
        db,
        {
          from: sql`servers`,
          id: sql`id`,
          title: sql`ip_address`,
          subtitle: sql`email`,
          columns: [sql`ip_address`, sql`email`],
        },
        q,
      ),
    clouds: (q) =>
      searchArea(
        db,
        { from: sql`clouds`, id: sql`id`, title: sql`email`, subtitle: sql`null::text`, columns: [sql`email`] },
        q,
      ),
    users: (q) =>
      searchArea(
        db,
        {
          from: sql`users`,
          id: sql`id`,
          title: sql`username`,
          subtitle: sql`nullif(concat_ws(' · ', nullif(name, ''), nullif(email, '')), '')`,
          columns: [sql`username`, sql`name`, sql`email`],
        },
        q,
      ),
    brands: (q) =>
      searchArea(
        db,
        { from: sql`brands`, id: sql`id`, title: sql`name`, subtitle: sql`null::text`, columns: [sql`name`] },
        q,
      ),
    domainRegistrators: (q) =>
      searchArea(
        db,
        { from: sql`domain_registrators`, id: sql`id`, title: sql`name`, subtitle: sql`type`, columns: [sql`name`] },
        q,
      ),
  };
  return { search: (area: SearchArea, q: string) => areas[area](q) };
}
export type SearchRepository = ReturnType<typeof createSearchRepository>;

import { sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE } from '@fleetdesk/contract';

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

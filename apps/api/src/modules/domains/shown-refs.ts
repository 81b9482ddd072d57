import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { preparedArrays, type Db } from '../../db/client.ts';
import { brands, clouds, domainRegistrators, servers } from '../../db/schema/index.ts';
import { versionSql } from '../../http/list-query.ts';

/** The values the list shows of the rows a domain refers to (null where it has none or the row is gone). */
export type ShownValues = {
  serverIp: string | null;
  serverEmail: string | null;
  brandName: string | null;
  cloudEmail: string | null;
  registratorName: string | null;
};
type Refs = {
  serverId: string | null;
  brandId: string | null;
  cloudId: string | null;
  domainRegistratorId: string | null;
};

const REF_TABLES = new Set(['brands', 'clouds', 'domain_registrators', 'servers']);
/** Each map holds at most this many ids; a fleet with more starts that map again (and reads what a page needs). */
const MAX_PER_TABLE = 50_000;

/** The part of a page's versions (`versionSql` of the tables a domains page reads) that the shown values depend on. */
export const refVersionOf = (ov: string) =>
  ov
    .split(',')
    .filter((p) => REF_TABLES.has(p.slice(0, p.lastIndexOf(':'))))
    .join(',');

/**
 * The shown values of a domains page's references, from memory (decision 057). Reading them with the page, as
 * five scalar subqueries per row, was half of PostgreSQL's work for a page of the list view (0.16 of 0.27 ms,
 * pgbench). Servers, brands, clouds and registrators change rarely (an operator's edit), and each page already
 * reads their versions (`ov`): values are kept per id at those versions, emptied when they move, and a page whose
 * ids are not all known reads just those, in one statement. A read made after the versions moved again answers
 * its page (its values are as new as the database's) but is not kept.
 */
export function createShownRefs(db: Db) {
  let at: string | undefined;
  let lastOv: string | undefined;
  let lastV = '';
  const server = new Map<string, [string | null, string | null]>();
  const brand = new Map<string, string | null>();
  const cloud = new Map<string, string | null>();
  const registrator = new Map<string, string | null>();
  const maps = [server, brand, cloud, registrator] as const;

  const ids = sql.placeholder;
  const read = preparedArrays(db, 'fd_domains_shown_refs', {
    toSQL: () =>
      new PgDialect().sqlToQuery(
        sql`select 's', r.id::text, r.ip_address, r.email from ${servers} r where r.id = any(${ids('s')}::uuid[])
        union all select 'b', r.id::text, r.name, null from ${brands} r where r.id = any(${ids('b')}::uuid[])
        union all select 'c', r.id::text, r.email, null from ${clouds} r where r.id = any(${ids('c')}::uuid[])
        union all select 'r', r.id::text, r.name, null from ${domainRegistrators} r where r.id = any(${ids('r')}::uuid[])
        union all select 'v', null, ${versionSql([servers, brands, clouds, domainRegistrators])}, null`,
      ),
  });

  const missing = (rows: readonly Refs[]) => {
    const want = { s: new Set<string>(), b: new Set<string>(), c: new Set<string>(), r: new Set<string>() };
    for (const d of rows) {
      if (d.serverId && !server.has(d.serverId)) want.s.add(d.serverId);
      if (d.brandId && !brand.has(d.brandId)) want.b.add(d.brandId);
      if (d.cloudId && !cloud.has(d.cloudId)) want.c.add(d.cloudId);
      if (d.domainRegistratorId && !registrator.has(d.domainRegistratorId)) want.r.add(d.domainRegistratorId);
    }
    return want;
  };
  type Tables = {
    s: Map<string, [string | null, string | null]>;
    b: Map<string, string | null>;
    c: Map<string, string | null>;
    r: Map<string, string | null>;
  };
  const kept: Tables = { s: server, b: brand, c: cloud, r: registrator };
  /** From `first` (values read for this page alone), else from the kept ones. */
  const lookup = <V>(first: Map<string, V> | undefined, then: Map<string, V>, id: string | null) =>
    id === null ? undefined : first?.has(id) ? first.get(id) : then.get(id);
  const valuesIn = (d: Refs, only?: Tables): ShownValues => {
    const sv = lookup(only?.s, server, d.serverId);
    return {
      serverIp: sv?.[0] ?? null,
      serverEmail: sv?.[1] ?? null,
      brandName: lookup(only?.b, brand, d.brandId) ?? null,
      cloudEmail: lookup(only?.c, cloud, d.cloudId) ?? null,
      registratorName: lookup(only?.r, registrator, d.domainRegistratorId) ?? null,
    };
  };

  return {
    /** The shown values of each row, in order, for a page read at versions `ov`. */
    async of(rows: readonly Refs[], ov: string): Promise<ShownValues[]> {
      if (ov !== lastOv) [lastOv, lastV] = [ov, refVersionOf(ov)];
      const v = lastV;
      if (v !== at) {
        for (const m of maps) m.clear();
        at = v;
      }
      const want = missing(rows);
      if (!want.s.size && !want.b.size && !want.c.size && !want.r.size) {
        return rows.map((d) => valuesIn(d));
      }
      const got = await read.execute({
        s: `{${[...want.s].join(',')}}`,
        b: `{${[...want.b].join(',')}}`,
        c: `{${[...want.c].join(',')}}`,
        r: `{${[...want.r].join(',')}}`,
      });
      const readAt = String(got.find((g) => g[0] === 'v')?.[2] ?? '');
      // Kept only when read at the versions the maps hold; otherwise they answer this page alone.
      const into: Tables = readAt === at ? kept : { s: new Map(), b: new Map(), c: new Map(), r: new Map() };
      if (into === kept) for (const m of maps) if (m.size > MAX_PER_TABLE) m.clear();
      // An id asked for and not found (gone since the page was read) shows nothing.
      for (const id of want.s) into.s.set(id, [null, null]);
      for (const id of want.b) into.b.set(id, null);
      for (const id of want.c) into.c.set(id, null);
      for (const id of want.r) into.r.set(id, null);
      for (const [kind, id, a, e] of got as [string, string, string | null, string | null][]) {
        if (kind === 's') into.s.set(id, [a, e]);
        else if (kind === 'b') into.b.set(id, a);
        else if (kind === 'c') into.c.set(id, a);
        else if (kind === 'r') into.r.set(id, a);
      }
      return rows.map((d) => valuesIn(d, into === kept ? undefined : into));
    },
  };
}

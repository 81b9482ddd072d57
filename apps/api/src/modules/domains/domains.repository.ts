import { domainToASCII, domainToUnicode } from 'node:url';
import {
  Column,
  and,
  asc,
  count,
  eq,
  getTableName,
  gt,
  inArray,
  isNotNull,
  isNull,
  gte,
  lt,
  ne,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import {
  FILTER_NONE,
  PAGE_SIZE,
  hasNonAscii,
  lookAlikeWarning,
  healthCountsOfMarks,
  healthMark,
  type Domain,
  type DomainFilter,
  type DomainFirewallRule,
  type DomainFirewallRuleDetail,
  type DomainListItem,
  type DomainListQuery,
  type DomainListView,
  type ListResult,
} from '@fleetdesk/contract';
import { preparedArrays, type Db, type Executor } from '../../db/client.ts';
import { freshRead, freshReadByKey } from '../../lib/fresh-read.ts';
import { deepFreeze } from '../../http/serializer.ts';
import { createChangeLog, type KeptPage, type ListChange } from './kept-pages.ts';
import { createShownRefs, type ShownValues } from './shown-refs.ts';
import {
  brands,
  clouds,
  domainCounts,
  domainFilterCounts,
  domainFirewallRules,
  domainRegistrators,
  domains,
  firewallRules,
  regions,
  servers,
  yandexWebmasterAccounts,
} from '../../db/schema/index.ts';
import {
  COUNT_CACHE_TTL_MS,
  keepCount,
  keptCount,
  likePattern,
  listPageCacheSize,
  pageOffset,
  setBounded,
  versionSql,
} from '../../http/list-query.ts';

export type DomainRow = typeof domains.$inferSelect;
export type DomainWrite = Partial<Omit<typeof domains.$inferInsert, 'id' | 'domainNo' | 'createdAt'>>;

/** The references a domain holds, by the field name the API uses. */
export const DOMAIN_REFS = {
  serverId: domains.serverId,
  brandId: domains.brandId,
  cloudId: domains.cloudId,
  parserProxyRegionId: domains.parserProxyRegionId,
  domainRegistratorId: domains.domainRegistratorId,
  yandexWebmasterAccountId: domains.yandexWebmasterAccountId,
} as const;
export type DomainRefField = keyof typeof DOMAIN_REFS;

/**
 * Counts a server's domains; the servers list and item compute domainsQty with it. A column is written out
 * with its table's name: drizzle leaves the table off in a single-table select, and an unqualified "id"
 * inside this subquery would name the domain's own id.
 */
export const domainsQtySql = (serverId: unknown) => {
  const ref =
    serverId instanceof Column
      ? sql`${sql.identifier(getTableName(serverId.table))}.${sql.identifier(serverId.name)}`
      : sql`${serverId}`;
  return sql<number>`(select count(*)::int from ${domains} d where d.server_id = ${ref})`;
};

export const unicodeOf = (ascii: string) => domainToUnicode(ascii) || ascii;

// The domain's columns are written out with the table's name: drizzle leaves it off in a one-table select, and an
// unqualified "id" inside a subquery would name the subquery's own.
const rulesJson = sql<DomainFirewallRule[] | string>`coalesce((
  select json_agg(json_build_object('ruleId', fr.id, 'ruleName', fr.name, 'action', fr.action, 'priority', dfr.priority)
    order by dfr.position)
  from ${domainFirewallRules} dfr join ${firewallRules} fr on fr.id = dfr.rule_id
  where dfr.domain_id = "domains"."id"), '[]'::json)`;

/** One value of the row a domain refers to, or null. */
const refValue = (table: string, column: string, ref: string) =>
  sql<
    string | null
  >`(select r.${sql.identifier(column)} from ${sql.identifier(table)} r where r.id = "domains".${sql.identifier(ref)})`;

/**
 * A domain with what it shows of the rows it refers to. Those are scalar subqueries, not joins: PostgreSQL plans
 * each alone, where planning a six-table join cost more than reading the page (2.5 against 1.6 ms a page, and
 * PGlite plans every statement anew: issue 32's burst).
 */
const fields = {
  d: domains,
  serverIp: refValue('servers', 'ip_address', 'server_id'),
  serverEmail: refValue('servers', 'email', 'server_id'),
  brandName: refValue('brands', 'name', 'brand_id'),
  cloudEmail: refValue('clouds', 'email', 'cloud_id'),
  regionName: refValue('regions', 'name', 'parser_proxy_region_id'),
  registratorName: refValue('domain_registrators', 'name', 'domain_registrator_id'),
  rules: rulesJson,
};
type Joined = {
  d: DomainRow;
  serverIp: string | null;
  serverEmail: string | null;
  brandName: string | null;
  cloudEmail: string | null;
  regionName: string | null;
  registratorName: string | null;
  rules: DomainFirewallRule[] | string;
};

const ref = <T>(id: string | null, value: T | null, make: (id: string, v: T) => object) =>
  id && value !== null ? make(id, value) : null;

/** The references the list shows, as objects: null where the domain has none or the row is gone. */
const shownRefs = (
  d: Pick<DomainRow, 'serverId' | 'brandId' | 'cloudId' | 'domainRegistratorId'>,
  v: ShownValues,
): Pick<Domain, 'server' | 'brand' | 'cloud' | 'domainRegistrator'> => ({
  server: ref(d.serverId, v.serverIp, (_id, IPAddress) => ({
    _id,
    IPAddress,
    email: v.serverEmail,
  })) as Domain['server'],
  brand: ref(d.brandId, v.brandName, (_id, name) => ({ _id, name })) as Domain['brand'],
  cloud: ref(d.cloudId, v.cloudEmail, (_id, email) => ({ _id, email })) as Domain['cloud'],
  domainRegistrator: ref(d.domainRegistratorId, v.registratorName, (_id, name) => ({
    _id,
    name,
  })) as Domain['domainRegistrator'],
});

export const toDomain = (r: Joined): Domain => {
  const { d } = r;
  return {
    _id: d.id,
    domainNo: d.domainNo,
    domainName: d.domainName,
    domainNameUnicode: d.domainNameUnicode,
    domainNameWarning: lookAlikeWarning(d.domainName),
    status: d.status,
    serverId: d.serverId,
    brandId: d.brandId,
    cloudId: d.cloudId,
    domainRegistratorId: d.domainRegistratorId,
    ...shownRefs(d, r),
    cloudZoneId: d.cloudZoneId,
    cloudRulesetId: d.cloudRulesetId,
    parserEnabled: d.parserEnabled,
    isSinglePage: d.isSinglePage,
    parserURL: d.parserUrl,
    parserProxyRegionId: d.parserProxyRegionId,
    parserProxyRegion: ref(d.parserProxyRegionId, r.regionName, (_id, name) => ({
      _id,
      name,
    })) as Domain['parserProxyRegion'],
    redirectDomainName: d.redirectDomainName,
    redirectDomainNameUnicode: d.redirectDomainName === null ? null : unicodeOf(d.redirectDomainName),
    isRestricted: d.isRestricted,
    domainRegistratorExpirationDate: d.domainRegistratorExpirationDate,
    yandexWebmasterAccountId: d.yandexWebmasterAccountId,
    // node-postgres and PGlite both parse json; a driver that does not would hand over the text.
    cloudFirewallRules: typeof r.rules === 'string' ? (JSON.parse(r.rules) as DomainFirewallRule[]) : r.rules,
    parsingStartDate: d.parsingStartDate?.toISOString() ?? null,
    parsingEndDate: d.parsingEndDate?.toISOString() ?? null,
    parsingProgress: d.parsingProgress ?? null,
    healthState: d.healthState ?? null,
    healthProblems: d.healthProblems ?? 0,
    healthCounts: healthCountsOfMarks(d.healthChecks ?? []),
  };
};

/**
 * The list view of a domain (DomainListItem): the domain's own columns the list shows and the references' shown
 * values, as plain columns. Building the item as JSON in PostgreSQL cost it twice as much (0.51 against 0.27 ms a
 * page of 20, pgbench) and more than the whole domain (0.37 ms).
 */
const listItemOwnFields = {
  id: domains.id,
  domainNo: domains.domainNo,
  domainName: domains.domainName,
  domainNameUnicode: domains.domainNameUnicode,
  status: domains.status,
  serverId: domains.serverId,
  brandId: domains.brandId,
  cloudId: domains.cloudId,
  cloudZoneId: domains.cloudZoneId,
  redirectDomainName: domains.redirectDomainName,
  isRestricted: domains.isRestricted,
  domainRegistratorId: domains.domainRegistratorId,
  domainRegistratorExpirationDate: domains.domainRegistratorExpirationDate,
  yandexWebmasterAccountId: domains.yandexWebmasterAccountId,
  healthState: domains.healthState,
  healthProblems: domains.healthProblems,
  healthChecks: domains.healthChecks,
};
const listItemFields = {
  ...listItemOwnFields,
  serverIp: fields.serverIp,
  serverEmail: fields.serverEmail,
  brandName: fields.brandName,
  cloudEmail: fields.cloudEmail,
  registratorName: fields.registratorName,
};
type OwnRow = Pick<DomainRow, Exclude<keyof typeof listItemOwnFields, 'id'>> & { id: string };
type ListItemRow = OwnRow & ShownValues;

/** A list item from the domain's own columns and the shown values of its references. */
export const toListItem = (r: OwnRow, v: ShownValues): DomainListItem => ({
  _id: r.id,
  domainNo: r.domainNo,
  domainName: r.domainName,
  domainNameUnicode: r.domainNameUnicode,
  status: r.status,
  serverId: r.serverId,
  brandId: r.brandId,
  cloudId: r.cloudId,
  domainRegistratorId: r.domainRegistratorId,
  ...shownRefs(r, v),
  cloudZoneId: r.cloudZoneId,
  redirectDomainName: r.redirectDomainName,
  redirectDomainNameUnicode: r.redirectDomainName === null ? null : unicodeOf(r.redirectDomainName),
  isRestricted: r.isRestricted,
  domainRegistratorExpirationDate: r.domainRegistratorExpirationDate,
  yandexWebmasterAccountId: r.yandexWebmasterAccountId,
  healthState: r.healthState ?? null,
  healthProblems: r.healthProblems ?? 0,
  healthCounts: healthCountsOfMarks(r.healthChecks ?? []),
});

/**
 * A list view row read as an array (db/client.ts preparedArrays): the domain's own columns (listItemOwnFields) in
 * their order, then extras. The references' shown values come from memory (shown-refs.ts).
 */
const LIST_ITEM_KEYS = Object.keys(listItemOwnFields) as (keyof typeof listItemOwnFields)[];
const col = Object.fromEntries(LIST_ITEM_KEYS.map((k, i) => [k, i])) as Record<keyof typeof listItemOwnFields, number>;
// Written out, not built key by key: an object given its keys in a loop was slow to read (V8 dictionary mode).
const ownRowOf = (a: unknown[]) =>
  ({
    id: a[col.id],
    domainNo: a[col.domainNo],
    domainName: a[col.domainName],
    domainNameUnicode: a[col.domainNameUnicode],
    status: a[col.status],
    serverId: a[col.serverId],
    brandId: a[col.brandId],
    cloudId: a[col.cloudId],
    cloudZoneId: a[col.cloudZoneId],
    redirectDomainName: a[col.redirectDomainName],
    isRestricted: a[col.isRestricted],
    domainRegistratorId: a[col.domainRegistratorId],
    domainRegistratorExpirationDate: a[col.domainRegistratorExpirationDate],
    yandexWebmasterAccountId: a[col.yandexWebmasterAccountId],
    healthState: a[col.healthState],
    healthProblems: a[col.healthProblems],
    healthChecks: a[col.healthChecks],
  }) satisfies Record<keyof typeof listItemOwnFields, unknown> as OwnRow;

/** What each view of the list reads of a domain, and how a row becomes an item. */
const VIEWS = {
  full: { fields, map: (r: unknown) => toDomain(r as Joined) },
  list: { fields: listItemFields, map: (r: unknown) => toListItem(r as ListItemRow, r as ListItemRow) },
} as const;
type ListItem = Domain | DomainListItem;

/**
 * Substring search on the domain name and the redirect domain, ignoring case (ILIKE, served by the trigram
 * indexes). A search typed in Unicode also matches the Unicode form of the name, and, converted to punycode,
 * the stored forms.
 */
export function domainSearchWhere(search: string | undefined): SQL | undefined {
  const s = search?.trim().toLowerCase();
  if (!s) return undefined;
  if (!hasNonAscii(s)) {
    const p = likePattern(s);
    return or(sql`${domains.domainName} ILIKE ${p}`, sql`${domains.redirectDomainName} ILIKE ${p}`);
  }
  const parts: SQL[] = [sql`${domains.domainNameUnicode} ILIKE ${likePattern(s)}`];
  const ascii = domainToASCII(s.replace(/^\.+|\.+$/g, ''));
  if (ascii && ascii !== s) {
    const p = likePattern(ascii);
    parts.push(sql`${domains.domainName} ILIKE ${p}`, sql`${domains.redirectDomainName} ILIKE ${p}`);
  }
  return or(...parts);
}

/** A reference filter: the id, or `none` for "not set". */
const refIs = (column: Column, value: string | undefined) =>
  value === undefined ? undefined : value === FILTER_NONE ? isNull(column) : eq(column, value);

/**
 * The search and filters in one canonical text (what domainFilterWhere reads, as it reads it): the key of the
 * counts and pages kept for them, made without building any SQL.
 */
export const domainFilterKey = (f: Partial<DomainFilter>) =>
  JSON.stringify([
    'domains',
    f.search?.trim().toLowerCase() ?? '',
    f.brandId ?? null,
    f.serverId ?? null,
    f.cloudId ?? null,
    f.domainRegistratorId ?? null,
    f.status || null,
    f.hasZone ?? null,
    f.expiresBefore || null,
    f.expiresFrom || null,
    f.health ?? null,
    f.failingCheck ?? null,
    f.check ?? null,
    f.check ? (f.checkState ?? 'problems') : null,
  ]);

/** The WHERE of the search and every filter of the list (undefined when nothing filters). */
export function domainFilterWhere(f: Partial<DomainFilter>): SQL | undefined {
  return and(
    domainSearchWhere(f.search),
    refIs(domains.brandId, f.brandId),
    refIs(domains.serverId, f.serverId),
    refIs(domains.cloudId, f.cloudId),
    refIs(domains.domainRegistratorId, f.domainRegistratorId),
    f.status ? eq(domains.status, f.status) : undefined,
    f.hasZone === undefined ? undefined : f.hasZone ? isNotNull(domains.cloudZoneId) : isNull(domains.cloudZoneId),
    f.expiresBefore ? lt(domains.domainRegistratorExpirationDate, f.expiresBefore) : undefined,
    f.expiresFrom ? gte(domains.domainRegistratorExpirationDate, f.expiresFrom) : undefined,
    healthWhere(f.health),
    // Served by the GIN index on the failing checks.
    f.failingCheck ? sql`${domains.healthFailing} @> array[${f.failingCheck}]::text[]` : undefined,
    checkWhere(f.check, f.checkState),
  );
}

/** One check in one state (any problem by default): served by the GIN index on the domain's "check:state" marks. */
function checkWhere(check: DomainFilter['check'], state: DomainFilter['checkState']): SQL | undefined {
  if (!check) return undefined;
  const states = !state || state === 'problems' ? ['failing', 'warning', 'unknown'] : [state];
  const marks = states.map((s) => healthMark(check, s));
  return marks.length === 1
    ? sql`${domains.healthChecks} @> array[${marks[0]}]::text[]`
    : sql`${domains.healthChecks} && array[${sql.join(
        marks.map((m) => sql`${m}`),
        sql`, `,
      )}]::text[]`;
}

/**
 * The one filter value a list asks for, when it asks for exactly one of those the triggers count (brand,
 * server, cloud, registrator, status, has a zone; migration 0032) and nothing else: its count is one row.
 */
export function countedFilter(f: Partial<DomainFilter>): { dim: string; val: string } | undefined {
  if (f.search?.trim() || f.expiresBefore || f.expiresFrom || f.health || f.failingCheck || f.check) return undefined;
  const set: { dim: string; val: string }[] = [];
  for (const [dim, v] of [
    ['brand', f.brandId],
    ['server', f.serverId],
    ['cloud', f.cloudId],
    ['registrator', f.domainRegistratorId],
  ] as const) {
    if (v) set.push({ dim, val: v === FILTER_NONE ? 'none' : v });
  }
  if (f.status) set.push({ dim: 'status', val: f.status });
  if (f.hasZone !== undefined) set.push({ dim: 'zone', val: String(f.hasZone) });
  return set.length === 1 ? set[0] : undefined;
}

/** The health filter: by the worst result (health_state is indexed with the domain number). */
function healthWhere(h: DomainFilter['health']): SQL | undefined {
  if (!h) return undefined;
  if (h === 'unchecked') return isNull(domains.healthState);
  if (h === 'problems') return inArray(domains.healthState, ['failing', 'warning', 'unknown']);
  return eq(domains.healthState, h);
}

/** The filters of a list query, copied (every field but the page): what a kept page was read for (kept-pages.ts). */
const filterOf = (q: Partial<DomainListQuery>): Partial<DomainFilter> => {
  const { page: _page, view: _view, ...filter } = q;
  return filter;
};

export type DomainExportRow = {
  domainNo: number;
  domainName: string;
  domainNameUnicode: string;
  redirectDomainName: string | null;
  expirationDate: string | null;
  isRestricted: boolean;
  status: string;
  serverIp: string | null;
  brandName: string | null;
  cloudEmail: string | null;
  registratorName: string | null;
  cloudZoneId: string | null;
  yandexAccountName: string | null;
};

export function createDomainsRepository(db: Db) {
  const joined = (ex: Executor) => ex.select(fields).from(domains);

  const findById = async (id: string, ex: Executor = db): Promise<Domain | undefined> => {
    const [r] = await joined(ex).where(eq(domains.id, id));
    return r ? toDomain(r as Joined) : undefined;
  };

  /** The first few domain names and the count, for the 409 that refuses a delete. */
  const usage = async (where: SQL, ex: Executor, from: 'domains' | 'rules' = 'domains') => {
    const base =
      from === 'domains'
        ? ex.select({ name: domains.domainNameUnicode, n: sql<number>`count(*) over ()` }).from(domains)
        : ex
            .select({ name: domains.domainNameUnicode, n: sql<number>`count(*) over ()` })
            .from(domainFirewallRules)
            .innerJoin(domains, eq(domains.id, domainFirewallRules.domainId));
    const rows = await base.where(where).orderBy(asc(domains.domainNo)).limit(3);
    return { what: 'domains', count: Number(rows[0]?.n ?? 0), examples: rows.map((r) => r.name) };
  };

  /** The exact number of domains, from the trigger-kept counter row (one row read at any size). */
  const countAll = (ex: Executor) =>
    ex
      .select({ n: sql<number>`coalesce(max(${domainCounts.n}), 0)::int` })
      .from(domainCounts)
      .where(eq(domainCounts.id, 1));

  /** The whole list's size when last read: only a hint for choosing a plan. */
  let lastTotal: number | undefined;

  /**
   * Pages kept in memory (decisions 038 and 053), each with the versions of every table a page reads, taken
   * with the page's numbers. A page is reused only after one read of those versions, shared by the requests
   * waiting (lib/fresh-read.ts), finds it exact: the other tables unchanged, and no domain change since the
   * page's domains version that could alter it (kept-pages.ts; the database records each changed row's values
   * before and after, in commit order, migration 0033). A write to one domain therefore ends only the pages it
   * could change. Never inside a transaction.
   */
  const pageCacheSize = listPageCacheSize(db);
  const otherVersion = versionSql([
    servers,
    brands,
    clouds,
    regions,
    domainRegistrators,
    firewallRules,
    domainFirewallRules,
  ]);
  const domainsVersion = sql<string>`(select coalesce(max(lv.v), 0)::text from list_versions lv where lv.tbl = 'domains')`;
  const pages = new Map<string, KeptPage<ListResult<ListItem>>>();
  const changeLog = createChangeLog(COUNT_CACHE_TTL_MS + 5_000);
  /** Changes read per check at most; a process further behind starts again (its kept pages go). */
  const CHANGES_PER_CHECK = 2000;
  // One read in flight serves every request that arrived while the one before it ran.
  const readPageVersion = freshRead(async () => {
    const after = changeLog.cursor ?? -1;
    const res = await db.execute<{ ov: string; dv: string; ch: ListChange[] | null; k: number }>(
      sql`select vv.ov, vv.dv, c.ch, c.k from (select ${otherVersion} as ov, ${domainsVersion} as dv) vv
        left join lateral (select json_agg(json_build_object('v', x.v, 'no', x.domain_no, 'o', x.o, 'n', x.n) order by x.v) as ch,
          count(*)::int as k
          from (select v, domain_no, o, n from domain_list_changes
            where v > ${after} and v <= vv.dv::bigint order by v limit ${CHANGES_PER_CHECK + 1}) x) c on true`,
    );
    const r = (res as unknown as { rows: { ov: string; dv: string; ch: ListChange[] | string | null; k: number }[] })
      .rows[0]!;
    const dv = Number(r.dv);
    const ch = typeof r.ch === 'string' ? (JSON.parse(r.ch) as ListChange[]) : (r.ch ?? []);
    changeLog.take(dv, Number(r.k) > CHANGES_PER_CHECK ? null : ch);
    return { ov: r.ov, dv };
  });
  const keep = (
    key: string | undefined,
    q: Partial<DomainFilter>,
    v: { ov: string; dv: string | number } | undefined,
    result: ListResult<ListItem>,
  ) => {
    // Frozen: a kept page is shared by every request that gets it, and its JSON is written once (http/serializer.ts).
    if (!key || !v) return;
    const page: KeptPage<ListResult<ListItem>> = {
      ov: v.ov,
      dv: Number(v.dv),
      at: Date.now(),
      filter: filterOf(q),
      nos: new Set(result.items.map((d) => d.domainNo)),
      result: deepFreeze(result),
    };
    setBounded(pages, key, page, pageCacheSize);
  };

  // The rows of a page are read by their numbers with a statement built once and prepared: PostgreSQL then runs
  // a generic plan, where planning the page's statement on every request cost several times its execution (issue
  // 15's profile). The numbers come from a one-table query, quick to plan, that also carries what the count needs.
  // Only on the database itself; a transaction builds anew.
  // The list view, the console's own read, skips drizzle's mapping of each field (db/client.ts preparedArrays).
  const byNumbersOf = (f: typeof fields | typeof listItemOwnFields) =>
    db
      .select(f)
      .from(domains)
      .where(sql`${domains.domainNo} = any(${sql.placeholder('nos')}::int[])`)
      .orderBy(asc(domains.domainNo));
  const byNumbersFull = byNumbersOf(fields).prepare('fd_domains_by_numbers_full');
  const byNumbersList = preparedArrays(db, 'fd_domains_by_numbers_list', byNumbersOf(listItemOwnFields));
  const refValues = createShownRefs(db);
  /** List items from the domains' own columns and the shown values kept in memory at the page's versions `ov`. */
  const listItemsOf = async (own: OwnRow[], ov: string): Promise<DomainListItem[]> => {
    const shown = await refValues.of(own, ov);
    return own.map((r, i) => toListItem(r, shown[i]!));
  };
  const rowsOf = async (ex: Executor, nos: number[], view: DomainListView, ov: string): Promise<ListItem[]> => {
    if (!nos.length) return [];
    if (ex === db) {
      const values = { nos: `{${nos.join(',')}}` };
      return view === 'list'
        ? listItemsOf((await byNumbersList.execute(values)).map(ownRowOf), ov)
        : (await byNumbersFull.execute(values)).map(VIEWS.full.map);
    }
    const rows = await ex
      .select(VIEWS[view].fields)
      .from(domains)
      .where(inArray(domains.domainNo, nos))
      .orderBy(asc(domains.domainNo));
    return rows.map(VIEWS[view].map);
  };
  const counterRow = sql<number>`(select coalesce(max(${domainCounts.n}), 0)::int from ${domainCounts} where ${domainCounts.id} = 1)`;
  /** The unfiltered page's numbers with the exact count from the trigger-kept counter row (one row read at any size). */
  const unfilteredNumbers = (ex: Executor, offset: unknown) =>
    ex
      .select({ no: domains.domainNo, total: counterRow, ov: otherVersion, dv: domainsVersion })
      .from(domains)
      .orderBy(asc(domains.domainNo))
      .limit(PAGE_SIZE)
      .offset(offset as number);
  const unfilteredPrepared = unfilteredNumbers(db, sql.placeholder('offset')).prepare('fd_domains_unfiltered_numbers');
  const countAllPrepared = countAll(db).prepare('fd_domains_count_all');

  /**
   * A page filtered by one value the triggers count (brand, server, cloud, registrator, status, has a zone) in
   * one prepared statement: its rows, its exact count and the versions, where the general path takes two round
   * trips (on PGlite, two turns in the one connection's queue). PostgreSQL plans it on every execution (the
   * offset is a parameter, and a generic plan guesses a tenth of the rows for it), which is cheap only because
   * what a domain refers to is read by scalar subqueries, not joined (issue 32: with the join, planning cost 5 ms
   * against 1 ms of work, and this path was slower than two statements). One statement per filter and kind of
   * value, prepared on first use; an empty page answers nothing and takes the general path.
   */
  type CountedPage = { items: ListItem[]; total: string; ov: string; ldv: string } | undefined;
  const countedPages = new Map<string, (values: { val: string; offset: number }) => Promise<CountedPage>>();
  const countedStatement = (cond: SQL, dim: string, first: boolean, view: DomainListView) =>
    db
      .select({
        ...(view === 'list' ? listItemOwnFields : VIEWS.full.fields),
        total: sql<string>`(select coalesce(max(fc.n), 0)::bigint from ${domainFilterCounts} fc
          where fc.dim = ${dim} and fc.val = ${sql.placeholder('val')})`,
        ov: otherVersion,
        ldv: domainsVersion,
      })
      .from(domains)
      .where(
        sql`${domains.domainNo} in (select d2.domain_no from ${domains} d2 where ${cond}
          order by d2.domain_no limit ${sql.raw(String(PAGE_SIZE))} offset ${first ? sql.raw('0') : sql.placeholder('offset')})`,
      )
      .orderBy(asc(domains.domainNo));
  /** The counted page's statement, prepared as `name`; the list view read as arrays (total, ov, ldv follow its fields). */
  const countedReader = (name: string, cond: SQL, dim: string, first: boolean, view: DomainListView) => {
    if (view === 'list') {
      const st = preparedArrays(db, name, countedStatement(cond, dim, first, view));
      const k = LIST_ITEM_KEYS.length;
      return async (values: { val: string; offset: number }): Promise<CountedPage> => {
        const rows = await st.execute(values);
        const top = rows[0];
        if (!top) return undefined;
        const ov = String(top[k + 1]);
        return { items: await listItemsOf(rows.map(ownRowOf), ov), total: String(top[k]), ov, ldv: String(top[k + 2]) };
      };
    }
    const st = countedStatement(cond, dim, first, view).prepare(name);
    return async (values: { val: string; offset: number }): Promise<CountedPage> => {
      const rows = await st.execute(values);
      const top = rows[0];
      if (!top) return undefined;
      return { items: rows.map(VIEWS.full.map), total: String(top.total), ov: top.ov, ldv: top.ldv };
    };
  };
  const countedPage = (c: { dim: string; val: string }, offset: number, view: DomainListView) => {
    const column = { brand: 'brand_id', server: 'server_id', cloud: 'cloud_id', registrator: 'domain_registrator_id' }[
      c.dim
    ];
    const kind = column ? (c.val === 'none' ? 'none' : 'id') : c.dim === 'zone' ? c.val : 'value';
    // The first page has its own statement, its limit and offset written in: with no value left unknown but the
    // filter's, PostgreSQL settles on a generic plan and stops planning it on every execution (the first page is
    // the one most read). Other pages pass the offset, and are planned each time.
    const first = offset === 0;
    const name = `fd_domains_counted_${c.dim}_${kind}${first ? '_first' : ''}_${view}`;
    let st = countedPages.get(name);
    if (!st) {
      const cond = column
        ? kind === 'none'
          ? sql`${sql.identifier('d2')}.${sql.identifier(column)} is null`
          : sql`${sql.identifier('d2')}.${sql.identifier(column)} = ${sql.placeholder('val')}::uuid`
        : c.dim === 'zone'
          ? sql.raw(`d2.cloud_zone_id is ${c.val === 'true' ? 'not ' : ''}null`)
          : sql`d2.status = ${sql.placeholder('val')}`;
      countedPages.set(name, (st = countedReader(name, cond, c.dim, first, view)));
    }
    return st;
  };
  /**
   * Counts of the filters the triggers do not count (searches, expiry, health), each kept with the domains version
   * it is exact at (read in the count's own statement) and carried forward over the rows changed since, as the
   * change log records them: a count at a later version is the kept one plus the rows that entered the filter,
   * less those that left. A write therefore costs a kept count nothing, where before any write to any domain
   * meant counting again (a whole scan for a one-letter search). Counted again only when the log cannot tell
   * (kept-pages.ts countDelta) or after COUNT_CACHE_TTL_MS. Inside a transaction it always counts.
   */
  const countKey = (filterKey: string) => `domains\u0000${filterKey}`;
  // Requests that need the same count together share one (started after they asked): the first requests of a
  // one-letter search would otherwise each scan every row at once.
  const sameCount = freshReadByKey<number>();
  const countNow = (ex: Executor, where: SQL | undefined, filterKey: string) =>
    ex === db ? sameCount(filterKey, () => countTaken(ex, where, filterKey)) : countTaken(ex, where, filterKey);
  const countTaken = async (ex: Executor, where: SQL | undefined, filterKey: string) => {
    const res = await ex.execute<{ n: number; dv: string }>(
      sql`select count(*)::int as n, ${domainsVersion} as dv from ${domains}${where ? sql` where ${where}` : sql``}`,
    );
    const r = (res as unknown as { rows: { n: number | string; dv: string }[] }).rows[0]!;
    const n = Number(r.n);
    if (ex === db) keepCount(db, countKey(filterKey), { v: r.dv, n, at: Date.now() });
    return n;
  };
  const countAt = async (
    ex: Executor,
    where: SQL | undefined,
    q: Partial<DomainFilter>,
    filterKey: string,
    dv: number | undefined,
  ) => {
    const fresh = () => {
      const e = ex === db && dv !== undefined ? keptCount(db, countKey(filterKey)) : undefined;
      return e && Date.now() - e.at < COUNT_CACHE_TTL_MS ? e : undefined;
    };
    const seen = fresh();
    if (seen && dv !== undefined) {
      if (Number(seen.v) === dv) return seen.n;
      // One read of the changes, shared by every request waiting for it, when this process has not read them yet.
      if ((changeLog.cursor ?? -1) < Math.max(dv, Number(seen.v))) await readPageVersion();
    }
    // Taken again after the wait: another request may have carried it meanwhile.
    const kept = fresh();
    if (kept && dv !== undefined) {
      const at = Number(kept.v);
      if (at === dv) return kept.n;
      const delta = changeLog.countDelta(filterOf(q), Math.min(at, dv), Math.max(at, dv));
      if (delta !== undefined) {
        if (at > dv) return kept.n - delta;
        kept.n += delta;
        kept.v = String(dv);
        return kept.n;
      }
    }
    return countNow(ex, where, filterKey);
  };
  const total = async (ex: Executor) =>
    (lastTotal = Number((ex === db ? await countAllPrepared.execute() : await countAll(ex))[0]?.n ?? 0));

  /** One page (see list), read or taken from the kept ones. */
  const readPage = async (
    q: Partial<DomainListQuery> & { page: number },
    ex: Executor,
    offset: number,
    filterKey: string,
    key: string | undefined,
  ): Promise<ListResult<ListItem>> => {
    const view = q.view ?? 'full';
    const kept = key ? pages.get(key) : undefined;
    if (kept && Date.now() - kept.at < COUNT_CACHE_TTL_MS) {
      const now = await readPageVersion();
      if (now.ov === kept.ov && changeLog.stillExact(kept, now.dv)) return kept.result;
    }
    const where = domainFilterWhere(q);
    if (!where) {
      const found = ex === db ? await unfilteredPrepared.execute({ offset }) : await unfilteredNumbers(ex, offset);
      const rows = await rowsOf(
        ex,
        found.map((r) => r.no),
        view,
        found[0]?.ov ?? '',
      );
      const n = found.length ? (lastTotal = Number(found[0]!.total)) : await total(ex);
      const result = { items: rows, itemsCount: n };
      keep(key, q, found[0], result);
      return result;
    }
    const counted = countedFilter(q);
    if (counted && ex === db) {
      const found = await countedPage(counted, offset, view)({ val: counted.val, offset });
      if (found) {
        const result = { items: found.items, itemsCount: Number(found.total) };
        keep(key, q, { ov: found.ov, dv: found.ldv }, result);
        return result;
      }
    }
    let byHits = false;
    const term = q.search?.trim() ?? '';
    if (term.length >= 3) {
      const hits = keptCount(db, countKey(filterKey))?.n ?? (await countNow(ex, where, filterKey));
      if (lastTotal === undefined) await total(ex);
      byHits = hits * hits * 4 < (offset + PAGE_SIZE) * Math.max(hits, lastTotal ?? 0);
    }
    // The page's numbers through the filter (one table, quick to build and plan), then those rows joined.
    const numbers = ex
      .select({ no: sql<number>`${domains.domainNo}`.as('no') })
      .from(domains)
      .where(where)
      // `+ 0` hides the index order from the planner, so it gathers the hits through the indexes and sorts them.
      .orderBy(byHits ? sql`${domains.domainNo} + 0` : asc(domains.domainNo))
      .limit(PAGE_SIZE)
      .offset(offset);
    // One row even for an empty page: the versions, read in the same statement as the numbers, are what lets
    // a kept count or a kept page (empty ones too: a search with no hits reads the whole index) be reused.
    // A filter on one value the triggers count carries its exact count in the same statement: no count to take
    // or keep, so writes to other domains cost it nothing (migration 0032).
    const fc = counted
      ? sql`(select coalesce(max(${domainFilterCounts.n}), 0)::bigint from ${domainFilterCounts}
          where ${domainFilterCounts.dim} = ${counted.dim} and ${domainFilterCounts.val} = ${counted.val})`
      : sql`null::bigint`;
    type Found = { ov: string; ldv: string; dv: string; fc: string | number | null; no: number | null };
    const res = await ex.execute<Found>(
      sql`select vv.ov, vv.ldv, vv.dv, vv.fc, n.no from (select ${otherVersion} as ov, ${domainsVersion} as ldv,
        ${versionSql([domains])} as dv, ${fc} as fc) vv
        left join lateral (${numbers}) n on true order by n.no`,
    );
    const found = (res as unknown as { rows: Found[] }).rows;
    const nos = found.flatMap((r) => (r.no === null ? [] : [Number(r.no)]));
    const filterCount = counted && found[0]?.fc != null ? Number(found[0].fc) : undefined;
    const [rows, count] = await Promise.all([
      rowsOf(ex, nos, view, found[0]?.ov ?? ''),
      filterCount ?? countAt(ex, where, q, filterKey, found[0] ? Number(found[0].ldv) : undefined),
    ]);
    const result = { items: rows, itemsCount: count };
    keep(key, q, found[0] && { ov: found[0].ov, dv: found[0].ldv }, result);
    return result;
  };
  const samePage = freshReadByKey<ListResult<ListItem>>();
  type PageQuery = Partial<DomainListQuery> & { page: number };
  function list(q: PageQuery & { view: 'list' }, ex?: Executor): Promise<ListResult<DomainListItem>>;
  function list(q: PageQuery, ex?: Executor): Promise<ListResult<Domain>>;
  function list(q: PageQuery, ex: Executor = db): Promise<ListResult<ListItem>> {
    const offset = pageOffset(q.page);
    const filterKey = domainFilterKey(q);
    const key = pageCacheSize > 0 && ex === db ? `${filterKey}@${offset}@${q.view ?? 'full'}` : undefined;
    // Requests for the same page share one read (never one that started before they asked): a burst of them
    // costs one turn of the database, not one each (issue 32's burst on PGlite).
    if (key) return samePage(key, () => readPage(q, db, offset, filterKey, key));
    return readPage(q, ex, offset, filterKey, key);
  }

  return {
    /**
     * One page in domain number order, with the exact count of matching domains.
     *
     * The page's numbers are found first, then only those rows are read and joined. Two plans find them:
     * - walking the domain_no index and testing each row until the page is full: cheap when hits are dense
     *   (and the only plan for a search of one or two letters, which no trigram index can serve);
     * - collecting every hit through the trigram (or reference) indexes and sorting only those: cheap when hits
     *   are few and far apart in number order, where the walk would test thousands of rows for 20.
     * The choice uses the count already known for this filter: the walk reads about (offset + 20) × total / hits
     * rows, the other about hits. The count is the counter row for the whole list, else an exact count reused
     * while no domain has been written: the numbers' query reads the table's version for that, so a page whose
     * count is known costs two statements (http/list-query.ts).
     */
    list,
    /** The ids of the domains matching the filter, in list order, at most `limit` (a fleet selection). */
    async listIds(filter: Partial<DomainFilter>, limit: number, ex: Executor = db): Promise<string[]> {
      const rows = await ex
        .select({ id: domains.id })
        .from(domains)
        .where(domainFilterWhere(filter))
        .orderBy(asc(domains.domainNo))
        .limit(Math.max(0, Math.floor(limit)));
      return rows.map((r) => r.id);
    },
    findById,
    /** Whole domains by id, in one statement (a fleet plan reads its domains a page at a time); missing ids left out. */
    async findByIds(ids: string[], ex: Executor = db): Promise<Domain[]> {
      if (!ids.length) return [];
      const rows = await joined(ex).where(inArray(domains.id, ids));
      return rows.map((r) => toDomain(r as Joined));
    },
    async findRow(id: string, ex: Executor = db): Promise<DomainRow | undefined> {
      const [r] = await ex.select().from(domains).where(eq(domains.id, id));
      return r;
    },
    /** A new domain; `id` only when one removed is put back under its own id (a revert, fleet.revert.ts). */
    async insert(
      values: DomainWrite & { domainName: string; domainNameUnicode: string; id?: string },
      ex: Executor = db,
    ) {
      const [r] = await ex.insert(domains).values(values).returning({ id: domains.id });
      return r!.id;
    },
    async update(id: string, values: DomainWrite, ex: Executor = db): Promise<boolean> {
      const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
      if (!Object.keys(set).length) return true;
      const r = await ex.update(domains).set(set).where(eq(domains.id, id)).returning({ id: domains.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(domains).where(eq(domains.id, id)).returning({ id: domains.id });
      return r.length > 0;
    },
    /** The console's domains among these stored (ASCII) names, for the registrar list's marks and its import. */
    async idsByNames(names: string[], ex: Executor = db): Promise<Map<string, string>> {
      if (!names.length) return new Map();
      const rows = await ex
        .select({ id: domains.id, name: domains.domainName })
        .from(domains)
        .where(inArray(domains.domainName, names));
      return new Map(rows.map((r) => [r.name, r.id]));
    },

    /** The console's domains linked to these Cloudflare zones (Link Zone's picker marks them). */
    async byZoneIds(zoneIds: string[], ex: Executor = db) {
      if (!zoneIds.length) return [];
      return ex
        .select({ _id: domains.id, domainName: domains.domainName, cloudZoneId: domains.cloudZoneId })
        .from(domains)
        .where(inArray(domains.cloudZoneId, zoneIds));
    },

    /**
     * Locks the server row (FOR NO KEY UPDATE, held to the end of the transaction) so that two assignments
     * to the same server run one after the other, then counts its domains. Undefined when there is no such server.
     */
    async lockServerCapacity(serverId: string, tx: Executor) {
      const [s] = await tx
        .select({ ipAddress: servers.ipAddress, limit: servers.domainsLimitQty })
        .from(servers)
        .where(eq(servers.id, serverId))
        .for('no key update');
      if (!s) return undefined;
      const [c] = await tx.select({ n: count() }).from(domains).where(eq(domains.serverId, serverId));
      return { ipAddress: s.ipAddress, limit: s.limit, qty: c?.n ?? 0 };
    },

    /** Of the given references, the fields whose row does not exist. */
    async missingRefs(
      refs: Partial<Record<Exclude<DomainRefField, 'serverId'>, string | null | undefined>>,
      ex: Executor = db,
    ): Promise<string[]> {
      const tables = {
        brandId: brands,
        cloudId: clouds,
        parserProxyRegionId: regions,
        domainRegistratorId: domainRegistrators,
        yandexWebmasterAccountId: yandexWebmasterAccounts,
      } as const;
      const checks = Object.entries(refs)
        .filter((e): e is [keyof typeof tables, string] => typeof e[1] === 'string')
        .map(([field, id]) => {
          const t = tables[field];
          return sql`select ${field}::text as field where not exists (select 1 from ${t} where ${t.id} = ${id})`;
        });
      if (!checks.length) return [];
      const res = await ex.execute<{ field: string }>(sql.join(checks, sql` union all `));
      return (res as unknown as { rows: { field: string }[] }).rows.map((r) => r.field);
    },

    /** How many domains hold a reference (server, brand, cloud, region, registrator), naming the first few. */
    usageOf: (field: DomainRefField, id: string, ex: Executor = db) => usage(eq(DOMAIN_REFS[field], id), ex),
    usageOfFirewallRule: (ruleId: string, ex: Executor = db) =>
      usage(eq(domainFirewallRules.ruleId, ruleId), ex, 'rules'),

    /** Of the clouds given, those that a domain of the brand other than exceptDomainId uses. */
    async cloudsInUse(cloudIds: string[], brandId: string, exceptDomainId?: string, ex: Executor = db) {
      if (!cloudIds.length) return new Set<string>();
      const rows = await ex
        .selectDistinct({ id: domains.cloudId })
        .from(domains)
        .where(
          and(
            inArray(domains.cloudId, cloudIds),
            eq(domains.brandId, brandId),
            exceptDomainId ? ne(domains.id, exceptDomainId) : undefined,
          ),
        );
      return new Set(rows.map((r) => r.id!));
    },

    /** Of the webmaster accounts given, those that a domain of the brand other than exceptDomainId uses. */
    async webmasterAccountsInUse(accountIds: string[], brandId: string, exceptDomainId?: string, ex: Executor = db) {
      if (!accountIds.length) return new Set<string>();
      const rows = await ex
        .selectDistinct({ id: domains.yandexWebmasterAccountId })
        .from(domains)
        .where(
          and(
            inArray(domains.yandexWebmasterAccountId, accountIds),
            eq(domains.brandId, brandId),
            exceptDomainId ? ne(domains.id, exceptDomainId) : undefined,
          ),
        );
      return new Set(rows.map((r) => r.id!));
    },

    /** Of the brands given, those with a domain other than exceptDomainId that uses the cloud (or account). */
    async brandsInUse(
      brandIds: string[],
      by: { field: 'cloudId' | 'yandexWebmasterAccountId'; id: string; exceptDomainId?: string },
      ex: Executor = db,
    ) {
      if (!brandIds.length) return new Set<string>();
      const column = by.field === 'cloudId' ? domains.cloudId : domains.yandexWebmasterAccountId;
      const rows = await ex
        .selectDistinct({ id: domains.brandId })
        .from(domains)
        .where(
          and(
            inArray(domains.brandId, brandIds),
            eq(column, by.id),
            by.exceptDomainId ? ne(domains.id, by.exceptDomainId) : undefined,
          ),
        );
      return new Set(rows.map((r) => r.id!));
    },

    /** The domain's WAF rules with their templates' fields, in the saved order. */
    async firewallRules(domainId: string, ex: Executor = db): Promise<DomainFirewallRuleDetail[]> {
      return ex
        .select({
          ruleId: firewallRules.id,
          ruleName: firewallRules.name,
          action: firewallRules.action,
          expression: firewallRules.expression,
          priority: domainFirewallRules.priority,
        })
        .from(domainFirewallRules)
        .innerJoin(firewallRules, eq(firewallRules.id, domainFirewallRules.ruleId))
        .where(eq(domainFirewallRules.domainId, domainId))
        .orderBy(asc(domainFirewallRules.position));
    },
    /** Of the template ids given, those that exist (locked against a concurrent delete until commit). */
    async existingFirewallRuleIds(ids: string[], tx: Executor): Promise<Set<string>> {
      if (!ids.length) return new Set();
      const rows = await tx
        .select({ id: firewallRules.id })
        .from(firewallRules)
        .where(inArray(firewallRules.id, ids))
        .for('key share');
      return new Set(rows.map((r) => r.id));
    },
    async replaceFirewallRules(domainId: string, rules: { ruleId: string; priority: number }[], tx: Executor) {
      await tx.delete(domainFirewallRules).where(eq(domainFirewallRules.domainId, domainId));
      if (!rules.length) return;
      await tx
        .insert(domainFirewallRules)
        .values(rules.map((r, position) => ({ domainId, ruleId: r.ruleId, priority: r.priority, position })));
    },
    async lockDomain(id: string, tx: Executor): Promise<boolean> {
      const r = await tx.select({ id: domains.id }).from(domains).where(eq(domains.id, id)).for('no key update');
      return r.length > 0;
    },

    /** One batch of the export: the matching rows after domain number `afterNo`, in order (keyset pagination). */
    async exportBatch(
      filter: Partial<DomainFilter>,
      afterNo: number,
      limit: number,
      ex: Executor = db,
    ): Promise<DomainExportRow[]> {
      return ex
        .select({
          domainNo: domains.domainNo,
          domainName: domains.domainName,
          domainNameUnicode: domains.domainNameUnicode,
          redirectDomainName: domains.redirectDomainName,
          expirationDate: domains.domainRegistratorExpirationDate,
          isRestricted: domains.isRestricted,
          status: domains.status,
          serverIp: servers.ipAddress,
          brandName: brands.name,
          cloudEmail: clouds.email,
          registratorName: domainRegistrators.name,
          cloudZoneId: domains.cloudZoneId,
          yandexAccountName: yandexWebmasterAccounts.name,
        })
        .from(domains)
        .leftJoin(servers, eq(servers.id, domains.serverId))
        .leftJoin(brands, eq(brands.id, domains.brandId))
        .leftJoin(clouds, eq(clouds.id, domains.cloudId))
        .leftJoin(domainRegistrators, eq(domainRegistrators.id, domains.domainRegistratorId))
        .leftJoin(yandexWebmasterAccounts, eq(yandexWebmasterAccounts.id, domains.yandexWebmasterAccountId))
        .where(and(gt(domains.domainNo, afterNo), domainFilterWhere(filter)))
        .orderBy(asc(domains.domainNo))
        .limit(limit);
    },
  };
}
export type DomainsRepository = ReturnType<typeof createDomainsRepository>;

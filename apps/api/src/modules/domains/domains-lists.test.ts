import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { versionedTables } from '../../http/list-query.ts';
import { DomainListItemSchema, type Domain, type DomainFilter } from '@fleetdesk/contract';
import { domainFilterWhere } from './domains.repository.ts';
import { domainMatches, type ListValues } from './kept-pages.ts';

/**
 * Issue 15: the list's plans and cached counts must not move its answers. A few thousand domains seeded with
 * SQL, then every kind of search and filter compared with plain SQL: the page's numbers in order and the exact
 * itemsCount against count(*), before and after writes made through the API and straight in the database.
 */
let t: TestApp;
let h: string;
const N = 3000;
beforeAll(async () => {
  t = await createTestApp();
  await t.reset();
  h = await t.tokenFor(['cnv']);
  await t.c.database.exec(`
    insert into brands (name) select 'Brand ' || g from generate_series(1, 6) g;
    insert into domains (domain_name, domain_name_unicode, status, brand_id, cloud_zone_id, redirect_domain_name,
      domain_registrator_expiration_date)
    select n, n, case when g % 7 = 0 then 'inactive' else 'active' end,
      (select id from brands order by brand_no offset (g % 6) limit 1),
      case when g % 2 = 0 then 'z' || g end,
      case when g % 5 = 0 then 'www.' || substr(md5('r' || g), 1, 8) || '.net' end,
      case when g % 3 = 0 then date '2026-01-01' + (g % 400) end
    from (select g, case
        -- A term whose hits are few and far apart in number order: 'qqz' in about 1 in 600.
        when g % 600 = 17 then 'qqz' || g || '.example'
        else substr(md5(g::text), 1, 8) || '-' || g || '.' || (array['com','net','org'])[1 + g % 3] end as n
      from generate_series(1, ${N}) g) x;
    analyze domains;
  `);
}, 120_000);
afterAll(async () => t?.close());

type Page = { items: { domainNo: number }[]; itemsCount: number };
const list = async (qs: string): Promise<Page> => {
  const res = await t.inject({ method: 'GET', url: `/api/domains?${qs}`, headers: { authorization: h } });
  expect(res.statusCode, `${qs}: ${res.body}`).toBe(200);
  return res.json().data as Page;
};
const rows = async <T>(q: ReturnType<typeof sql>) =>
  ((await t.c.database.db.execute(q)) as unknown as { rows: T[] }).rows;

/** What plain SQL says for a search term (both names, ignoring case) and an extra condition. */
async function expected(term: string | null, extra = sql`true`, page = 1) {
  const like =
    term === null ? sql`true` : sql`(domain_name ilike ${`%${term}%`} or redirect_domain_name ilike ${`%${term}%`})`;
  const [c] = await rows<{ n: number }>(sql`select count(*)::int as n from domains where ${like} and ${extra}`);
  const nos = await rows<{ domain_no: number }>(
    sql`select domain_no from domains where ${like} and ${extra} order by domain_no limit 20 offset ${(page - 1) * 20}`,
  );
  return { itemsCount: c!.n, numbers: nos.map((r) => r.domain_no) };
}

async function check(qs: string, term: string | null, extra = sql`true`, page = 1) {
  const got = await list(`${qs}&page=${page}`);
  const want = await expected(term, extra, page);
  expect({ itemsCount: got.itemsCount, numbers: got.items.map((i) => i.domainNo) }, `${qs} page ${page}`).toEqual(want);
  return want;
}

describe('domain list plans and counts', () => {
  it('answers one- and two-letter searches (no trigram index) with the exact count, on first and deep pages', async () => {
    for (const term of ['a', '7', 'ab', 'e4', '.n', 'qz']) {
      const first = await check(`search=${encodeURIComponent(term)}`, term);
      expect(first.itemsCount, term).toBeGreaterThan(0);
      const last = Math.max(1, Math.ceil(first.itemsCount / 20));
      await check(`search=${encodeURIComponent(term)}`, term, sql`true`, last);
      await check(`search=${encodeURIComponent(term)}`, term, sql`true`, Math.ceil(last / 2));
    }
  });

  it('finds a search whose hits are few and far apart in number order, on every page, in number order', async () => {
    const first = await check('search=qqz', 'qqz');
    expect(first.itemsCount).toBe(5);
    expect(first.numbers).toEqual([17, 617, 1217, 1817, 2417]);
    // Upper case, and the same again served with its count from memory.
    await check('search=QQZ', 'qqz');
    await check('search=qqz', 'qqz', sql`true`, 2);
    // Three letters, denser: the walk and the gathering plans must agree across pages.
    for (const term of ['-12', '.ne', 'abc', '999']) {
      const w = await check(`search=${encodeURIComponent(term)}`, term);
      for (const page of [2, Math.ceil(w.itemsCount / 20)])
        await check(`search=${encodeURIComponent(term)}`, term, sql`true`, page);
    }
  });

  it('counts every filter exactly, alone and with a search', async () => {
    const [brand] = await rows<{ id: string }>(sql`select id from brands order by brand_no offset 2 limit 1`);
    const cases: [string, string | null, ReturnType<typeof sql>][] = [
      [`brandId=${brand!.id}`, null, sql`brand_id = ${brand!.id}`],
      ['brandId=none', null, sql`brand_id is null`],
      ['status=inactive', null, sql`status = 'inactive'`],
      ['hasZone=true', null, sql`cloud_zone_id is not null`],
      ['hasZone=false&search=a', 'a', sql`cloud_zone_id is null`],
      ['expiresBefore=2026-03-01', null, sql`domain_registrator_expiration_date < '2026-03-01'`],
      [`brandId=${brand!.id}&status=active&search=qqz`, 'qqz', sql`brand_id = ${brand!.id} and status = 'active'`],
      ['serverId=none&cloudId=none&domainRegistratorId=none&search=ab', 'ab', sql`true`],
    ];
    for (const [qs, term, extra] of cases) {
      const w = await check(qs, term, extra);
      if (w.itemsCount > 20) await check(qs, term, extra, 2);
    }
  });

  it('keeps cached counts exact after writes through the API and straight in the database', async () => {
    const before = await check('search=qqz', 'qqz');
    // Through the API.
    const res = await t.inject({
      method: 'POST',
      url: '/api/domains',
      headers: { authorization: h },
      payload: { domainName: 'qqz-new.example', status: 'active' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await check('search=qqz', 'qqz')).itemsCount).toBe(before.itemsCount + 1);
    // Straight in the database, as another process would: the version moves at commit.
    await t.c.database.exec(
      `update domains set domain_name = 'renamed-' || domain_no || '.example' where domain_name = 'qqz17.example'`,
    );
    expect((await check('search=qqz', 'qqz')).itemsCount).toBe(before.itemsCount);
    await t.c.database.exec(`delete from domains where domain_name like 'qqz%' and domain_no > 2000`);
    await check('search=qqz', 'qqz');
    // A rolled-back write moves nothing and changes no count.
    await t.c.database.exec(`begin; delete from domains where domain_name like 'qqz%'; rollback;`);
    await check('search=qqz', 'qqz');
    // The other lists of the kit too.
    const brands = async () =>
      (await t.inject({ method: 'GET', url: '/api/brands?search=Brand', headers: { authorization: h } })).json().data
        .itemsCount as number;
    expect(await brands()).toBe(6);
    await t.c.database.exec(`insert into brands (name) values ('Brand extra')`);
    expect(await brands()).toBe(7);
  });

  it('keeps the counts per filter value exact through inserts, updates, deletes, a rollback and truncate', async () => {
    // Migration 0032's counters against a count of the rows themselves, for every filter value at once.
    const truth = sql`select v.dim, v.val, count(*)::int as n from domains r,
      domain_filter_values(r.brand_id, r.server_id, r.cloud_id, r.domain_registrator_id, r.status, r.cloud_zone_id) v
      group by 1, 2`;
    const same = async (when: string) => {
      const want = await rows<{ dim: string; val: string; n: number }>(truth);
      const got = await rows<{ dim: string; val: string; n: number }>(
        sql`select dim, val, n::int as n from domain_filter_counts where n <> 0`,
      );
      const key = (r: { dim: string; val: string; n: number }) => `${r.dim}=${r.val}:${r.n}`;
      expect(got.map(key).sort(), when).toEqual(want.map(key).sort());
      // Each dimension adds up to every domain.
      const [total] = await rows<{ n: number }>(sql`select count(*)::int as n from domains`);
      const sums = await rows<{ dim: string; n: number }>(
        sql`select dim, sum(n)::int as n from domain_filter_counts group by dim`,
      );
      for (const d of sums) expect(d.n, `${when}: ${d.dim}`).toBe(total!.n);
    };
    const [brand] = await rows<{ id: string }>(sql`select id from brands order by brand_no offset 1 limit 1`);
    const lists: [string, ReturnType<typeof sql>][] = [
      [`brandId=${brand!.id}`, sql`brand_id = ${brand!.id}`],
      ['brandId=none', sql`brand_id is null`],
      ['status=inactive', sql`status = 'inactive'`],
      ['hasZone=false', sql`cloud_zone_id is null`],
      ['cloudId=none', sql`cloud_id is null`],
    ];
    const listsAgree = async () => {
      for (const [qs, extra] of lists) await check(qs, null, extra);
    };
    await same('as seeded');
    await listsAgree();
    // Through the API: a new domain, then an edit of two counted values.
    const created = await t.inject({
      method: 'POST',
      url: '/api/domains',
      headers: { authorization: h },
      payload: { domainName: 'counted-new.example', status: 'inactive', brandId: brand!.id },
    });
    expect(created.statusCode, created.body).toBe(201);
    await same('after a create');
    await listsAgree();
    const id = (created.json().data as { _id: string })._id;
    const edited = await t.inject({
      method: 'PATCH',
      url: `/api/domains/${id}`,
      headers: { authorization: h },
      payload: { status: 'active', brandId: null },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    await same('after an edit');
    await listsAgree();
    // Straight in the database: many rows in one statement, a change that touches no counted value, deletes.
    await t.c.database.exec(`update domains set status = 'inactive', cloud_zone_id = null where domain_no % 11 = 0`);
    await same('after a bulk update');
    await t.c.database.exec(`update domains set redirect_domain_name = 'x.example' where domain_no % 13 = 0`);
    await same('after an update of no counted value');
    await t.c.database.exec(`delete from domains where domain_no % 17 = 0`);
    await same('after a delete');
    await listsAgree();
    await t.c.database.exec(`begin; update domains set brand_id = null; delete from domains; rollback;`);
    await same('after a rollback');
    await listsAgree();
    // A truncate empties the counters (inside a transaction rolled back, so the rows stay for the next tests).
    let inside = -1;
    const rolledBack = await t.c.database.db
      .transaction(async (tx) => {
        await tx.execute(sql`truncate domains cascade`);
        const r = await tx.execute(sql`select count(*)::int as n from domain_filter_counts`);
        inside = Number((r as unknown as { rows: { n: number }[] }).rows[0]!.n);
        tx.rollback();
      })
      .then(
        () => false,
        () => true,
      );
    expect({ rolledBack, inside }).toEqual({ rolledBack: true, inside: 0 });
    await same('after a rolled-back truncate');
  });

  it('moves a version on every write to each table a kept count or page reads (its triggers exist)', async () => {
    expect([...versionedTables]).toEqual(expect.arrayContaining(['domains', 'brands', 'servers', 'regions']));
    const found = await rows<{ tbl: string }>(
      sql`select c.relname as tbl from pg_trigger g join pg_class c on c.oid = g.tgrelid
        where g.tgname = c.relname || '_list_version'`,
    );
    const triggered = new Set(found.map((r) => r.tbl));
    expect([...versionedTables].filter((name) => !triggered.has(name))).toEqual([]);
  });

  it('serves a kept page only while nothing it shows has changed: domains, references and rule links', async () => {
    type Full = { items: Record<string, unknown>[]; itemsCount: number };
    const full = async (qs: string) =>
      (await t.inject({ method: 'GET', url: `/api/domains?${qs}`, headers: { authorization: h } })).json().data as Full;
    const [d] = await rows<{ id: string; domain_no: number }>(
      sql`select id, domain_no from domains order by domain_no limit 1`,
    );
    const first = () => full('page=1').then((p) => p.items.find((i) => i.domainNo === d!.domain_no)!);
    await t.c.database.exec(`
      insert into servers (ip_address, email) values ('192.0.2.10', 'ops@example.test');
      insert into clouds (email) values ('cf@example.test');
      insert into firewall_rules (name, action, expression) values ('Block bots', 'block', 'true');
    `);
    const [brand] = await rows<{ id: string }>(sql`select id from brands order by brand_no limit 1`);
    await t.c.database.exec(`
      update domains set brand_id = '${brand!.id}', server_id = (select id from servers limit 1),
        cloud_id = (select id from clouds limit 1) where id = '${d!.id}';
      insert into domain_firewall_rules (domain_id, rule_id, priority, position)
        select '${d!.id}', id, 1, 0 from firewall_rules limit 1;
    `);
    const kept = await first();
    expect(await first()).toEqual(kept);
    // Each write below is made straight in the database, as another process would make it.
    const after = async (write: string) => {
      await t.c.database.exec(write);
      return first();
    };
    expect(
      ((await after(`update brands set name = 'Brand renamed' where id = '${brand!.id}'`)).brand as { name: string })
        .name,
    ).toBe('Brand renamed');
    expect(
      ((await after(`update servers set ip_address = '192.0.2.11'`)).server as { IPAddress: string }).IPAddress,
    ).toBe('192.0.2.11');
    expect(((await after(`update clouds set email = 'cf2@example.test'`)).cloud as { email: string }).email).toBe(
      'cf2@example.test',
    );
    expect((await after(`update firewall_rules set name = 'Block all bots'`)).cloudFirewallRules).toMatchObject([
      { ruleName: 'Block all bots' },
    ]);
    expect((await after(`update domain_firewall_rules set priority = 7`)).cloudFirewallRules).toMatchObject([
      { priority: 7 },
    ]);
    expect((await after(`delete from domain_firewall_rules`)).cloudFirewallRules).toEqual([]);
    expect((await after(`update domains set status = 'inactive' where id = '${d!.id}'`)).status).toBe('inactive');
    // Under a burst the version reads are shared, but never with a read that started before a request arrived:
    // requests in flight while a write commits may show either state, every request made after it shows the write.
    for (const status of ['active', 'inactive']) {
      const inFlight = Array.from({ length: 30 }, () => first());
      await t.c.database.exec(`update domains set status = '${status}' where id = '${d!.id}'`);
      const made = await Promise.all(Array.from({ length: 30 }, () => first()));
      expect(made.map((i) => i.status)).toEqual(Array(30).fill(status));
      await Promise.all(inFlight);
    }
    // A search with no hits is kept too (it reads the whole index), and a new match shows at once.
    expect((await check('search=zzqq', 'zzqq')).itemsCount).toBe(0);
    expect((await check('search=zzqq', 'zzqq')).itemsCount).toBe(0);
    await t.c.database.exec(
      `insert into domains (domain_name, domain_name_unicode) values ('zzqq.example', 'zzqq.example')`,
    );
    expect((await check('search=zzqq', 'zzqq')).itemsCount).toBe(1);
    // A deep page and a filtered page too, against plain SQL, after a write that moves every later page.
    await check('status=', null, sql`true`, 40);
    await check('status=active', null, sql`status = 'active'`, 3);
    await t.c.database.exec(
      `delete from domains where domain_no in (select domain_no from domains order by domain_no limit 3)`,
    );
    await check('status=', null, sql`true`, 40);
    await check('status=active', null, sql`status = 'active'`, 3);
  });

  it('decides in memory as the database does which domains a filter keeps (what a kept page is checked against)', async () => {
    const [b] = await rows<{ id: string }>(sql`select id from brands order by brand_no limit 1`);
    // Some health marks to filter on.
    await t.c.database.exec(`
      update domains set health_state = (array['ok','failing','warning','unknown'])[1 + domain_no % 4],
        health_failing = case when domain_no % 4 = 1 then array['cf_dns'] else array[]::text[] end,
        health_checks = array['cf_dns:' || (array['ok','failing','warning','unknown'])[1 + domain_no % 4]]
      where domain_no % 3 = 0`);
    const filters: Partial<DomainFilter>[] = [
      {},
      { search: 'a' },
      { search: ' AB ' },
      { search: 'qqz' },
      { search: 'www.' },
      { search: '%' },
      { brandId: b!.id },
      { brandId: 'none' },
      { serverId: 'none' },
      { cloudId: 'none' },
      { domainRegistratorId: 'none' },
      { status: 'inactive' },
      { hasZone: true },
      { hasZone: false },
      { expiresBefore: '2026-03-01' },
      { health: 'unchecked' },
      { health: 'problems' },
      { health: 'ok' },
      { failingCheck: 'cf_dns' },
      { check: 'cf_dns' },
      { check: 'cf_dns', checkState: 'warning' },
      { brandId: b!.id, status: 'active', search: '1', hasZone: false },
    ];
    for (const f of filters) {
      const got = await rows<{ v: ListValues; m: boolean }>(
        sql`select domain_list_values(domains) as v, coalesce(${domainFilterWhere(f) ?? sql`true`}, false) as m from domains`,
      );
      const wrong = got.filter((r) => domainMatches(r.v, f) !== r.m);
      expect(wrong.length, `${JSON.stringify(f)}: ${JSON.stringify(wrong[0])}`).toBe(0);
    }
    // A search typed in Unicode is left to the database: "may match".
    expect(
      domainMatches(
        got0(await rows<{ v: ListValues }>(sql`select domain_list_values(domains) as v from domains limit 1`)),
        { search: 'ü' },
      ),
    ).toBe(undefined);
  });

  it('carries a search count over writes by the rows they change, exact, without counting again', async () => {
    const db = t.c.database.db as unknown as {
      execute: (q: unknown) => Promise<unknown>;
      dialect: { sqlToQuery: (q: unknown) => { sql: string } };
    };
    const counts: string[] = [];
    // Counted once, then carried.
    await check('search=e4', 'e4');
    await check('search=qqz', 'qqz');
    const exec = db.execute.bind(db);
    const watch = vi.spyOn(db, 'execute').mockImplementation((q: unknown) => {
      const text = db.dialect.sqlToQuery(q).sql;
      // The repository's count (with the domains version it is exact at), not plain SQL's or the change log's.
      if (/count\(\*\)::int as n, \(select/.test(text)) counts.push(text);
      return exec(q);
    });
    try {
      const writes = [
        // Into both searches, out of one, a change neither sees, a delete, and an edit through the API.
        `insert into domains (domain_name, domain_name_unicode, status) values ('qqze4-in.example', 'qqze4-in.example', 'active')`,
        `update domains set domain_name = 'out-' || domain_no || '.example', domain_name_unicode = 'out-' || domain_no || '.example'
          where domain_no = (select min(domain_no) from domains where domain_name like 'qqz%')`,
        `update domains set is_restricted = not is_restricted where domain_no = 5`,
        `delete from domains where domain_no = (select max(domain_no) from domains where domain_name like '%e4%')`,
      ];
      for (const w of writes) {
        await t.c.database.exec(w);
        await check('search=e4', 'e4');
        await check('search=qqz', 'qqz');
        await check('search=e4', 'e4', sql`true`, 2);
      }
      const [d] = await rows<{ id: string }>(
        sql`select id from domains where domain_name like '%e4%' order by domain_no limit 1`,
      );
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/domains/${d!.id}`,
        headers: { authorization: h },
        payload: { domainName: 'renamed-away.example' },
      });
      expect(res.statusCode, res.body).toBe(200);
      await check('search=e4', 'e4');
      expect(counts, 'no count taken again').toEqual([]);
      // A statement changing many rows at once is "anything": counted again, still exact.
      await t.c.database.exec(`update domains set parser_enabled = not parser_enabled`);
      await check('search=e4', 'e4');
      expect(counts.length).toBe(1);
      // Five pages of a search never counted, asked at once: at most two counts, not five (the first one's, and one shared
      // by those who asked while it ran: none takes a count started before it asked).
      const want = await expected('9f', sql`true`);
      const pages = await Promise.all([1, 2, 3, 4, 5].map((p) => list(`search=9f&page=${p}`)));
      expect(pages.map((p) => p.itemsCount)).toEqual([1, 2, 3, 4, 5].map(() => want.itemsCount));
      // One count if all five asked before the first began (stop 52's CI on PostgreSQL saw that), never more than two.
      expect(counts.length - 1).toBeGreaterThanOrEqual(1);
      expect(counts.length - 1).toBeLessThanOrEqual(2);
    } finally {
      watch.mockRestore();
    }
  });

  it('ends only the kept pages a write to a domain can change, and every read after a write shows it', async () => {
    const repo = t.c.repos.domains;
    const [b1, b2] = await rows<{ id: string }>(sql`select id from brands order by brand_no limit 2`);
    const inBrand = (id: string) => sql`brand_id = ${id}`;
    // A domain of brand 2 on its first page; brand 1's pages do not hold it.
    const [x] = await rows<{ id: string; domain_no: number; status: string }>(
      sql`select id, domain_no, status from domains where ${inBrand(b2!.id)} order by domain_no limit 1`,
    );
    const patch = async (body: object) => {
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/domains/${x!.id}`,
        headers: { authorization: h },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const b1Page1 = await repo.list({ brandId: b1!.id, page: 1 });
    const b1Page3 = await repo.list({ brandId: b1!.id, page: 3 });
    const b2Page1 = await repo.list({ brandId: b2!.id, page: 1 });
    const inactive = await repo.list({ status: 'inactive', page: 1 });
    const searchQqz = await repo.list({ search: 'qqz', page: 1 });
    expect(await repo.list({ brandId: b1!.id, page: 1 })).toBe(b1Page1);

    // An edit of x's status: brand 1's pages and a search x is outside stay kept (the same answer, not read again).
    const next = x!.status === 'active' ? 'inactive' : 'active';
    await patch({ status: next });
    expect(await repo.list({ brandId: b1!.id, page: 1 })).toBe(b1Page1);
    expect(await repo.list({ brandId: b1!.id, page: 3 })).toBe(b1Page3);
    expect(await repo.list({ search: 'qqz', page: 1 })).toBe(searchQqz);
    // Brand 2's first page shows x: read again, with the new status.
    const b2After = await repo.list({ brandId: b2!.id, page: 1 });
    expect(b2After).not.toBe(b2Page1);
    expect(b2After.items.find((d) => d._id === x!.id)?.status).toBe(next);
    // x entered or left the inactive list: its count moved, the page is read again, exact.
    expect(await repo.list({ status: 'inactive', page: 1 })).not.toBe(inactive);
    await check('status=inactive', null, sql`status = 'inactive'`);

    // x moves to brand 1: brand 1's pages (count and places) are read again, page 3 too.
    await patch({ brandId: b1!.id });
    expect(await repo.list({ brandId: b1!.id, page: 3 })).not.toBe(b1Page3);
    await check(`brandId=${b1!.id}`, null, inBrand(b1!.id));
    await check(`brandId=${b1!.id}`, null, inBrand(b1!.id), 3);
    await check(`brandId=${b2!.id}`, null, inBrand(b2!.id));

    // A change inside brand 1 to a domain on its first page leaves its third page kept, ends the first.
    const p1 = await repo.list({ brandId: b1!.id, page: 1 });
    const p3 = await repo.list({ brandId: b1!.id, page: 3 });
    const y = p1.items[0]!;
    await t.c.database.exec(`update domains set is_restricted = not is_restricted where id = '${y._id}'`);
    expect(await repo.list({ brandId: b1!.id, page: 3 })).toBe(p3);
    const p1After = await repo.list({ brandId: b1!.id, page: 1 });
    expect(p1After).not.toBe(p1);
    expect(p1After.items[0]!.isRestricted).toBe(!y.isRestricted);

    // A health result on y (another kind of write) ends the pages filtered by health and the page showing y.
    const unchecked = await repo.list({ health: 'unchecked', page: 1 });
    await t.c.database.db.transaction((tx) =>
      t.c.repos.health.store(
        y._id,
        [{ check: 'registrar_expiry', state: 'failing', observed: null, expected: null, reason: null }],
        new Date(),
        'cheap',
        tx,
      ),
    );
    expect((await repo.list({ brandId: b1!.id, page: 1 })).items[0]!.healthState).toBe('failing');
    expect(await repo.list({ brandId: b1!.id, page: 3 })).toBe(p3);
    if (y.healthState === null) expect(await repo.list({ health: 'unchecked', page: 1 })).not.toBe(unchecked);
    await check('health=failing', null, sql`health_state = 'failing'`);

    // A rolled-back write changes nothing, and ends nothing.
    await t.c.database.db
      .transaction(async (tx) => {
        await tx.execute(sql`update domains set status = 'inactive' where id = ${p3.items[0]!._id}`);
        throw new Error('rollback');
      })
      .catch(() => undefined);
    expect(await repo.list({ brandId: b1!.id, page: 3 })).toBe(p3);

    // A bulk statement is "anything changed": every kept page is read again, exact.
    const kept = await repo.list({ search: 'qqz', page: 1 });
    await t.c.database.exec(`update domains set parser_enabled = not parser_enabled`);
    expect(await repo.list({ search: 'qqz', page: 1 })).not.toBe(kept);
    expect(await repo.list({ brandId: b1!.id, page: 3 })).not.toBe(p3);
    await check('search=qqz', 'qqz');

    // Read after write under a burst, through the API, for a filter the edited domain enters and leaves.
    for (const status of ['inactive', 'active'] as const) {
      const inFlight = Array.from({ length: 20 }, () => list(`brandId=${b1!.id}&status=inactive`));
      await patch({ status });
      const made = await Promise.all(Array.from({ length: 20 }, () => list(`brandId=${b1!.id}&status=inactive`)));
      const want = await expected(null, sql`${inBrand(b1!.id)} and status = 'inactive'`);
      for (const m of made) expect({ itemsCount: m.itemsCount, numbers: m.items.map((i) => i.domainNo) }).toEqual(want);
      await Promise.all(inFlight);
    }
  });
});
describe('the list view (view=list)', () => {
  it("answers each domain as the whole domain does, in the list item's fields only, on every plan", async () => {
    await t.c.database.exec(`
      insert into servers (ip_address, email) values ('203.0.113.7', 'ops@example.com'), ('203.0.113.8', null);
      insert into clouds (email) values ('cf@example.com');
      insert into domain_registrators (name, type, endpoint_url, api_username)
        values ('Namecheap main', 'namecheap', 'https://api.example.com', 'u');
      update domains set server_id = (select id from servers where ip_address = '203.0.113.7'),
        cloud_id = (select id from clouds where email = 'cf@example.com'),
          domain_registrator_id = (select id from domain_registrators where name = 'Namecheap main')
        where domain_no % 4 = 1;
      update domains set server_id = (select id from servers where ip_address = '203.0.113.8') where domain_no % 4 = 2;
      update domains set redirect_domain_name = 'xn--e1afmkfd.xn--p1ai' where domain_no % 9 = 4;
    `);
    const [server] = await rows<{ id: string }>(sql`select id from servers where ip_address = '203.0.113.7'`);
    const keys = Object.keys(DomainListItemSchema.shape).sort();
    const pick = (d: Record<string, unknown>) => Object.fromEntries(keys.map((k) => [k, d[k]]));
    const queries = [
      'page=1',
      'page=7',
      `serverId=${server!.id}`,
      `serverId=${server!.id}&page=3`,
      'domainRegistratorId=none&page=2',
      'status=inactive',
      'search=qqz',
      'search=a&hasZone=true',
      'search=xn--e1a',
    ];
    const compare = async () => {
      for (const qs of queries) {
        const whole = await list(qs);
        const res = await t.inject({
          method: 'GET',
          url: `/api/domains?${qs}&view=list`,
          headers: { authorization: h },
        });
        expect(res.statusCode, res.body).toBe(200);
        const view = res.json().data as { items: Record<string, unknown>[]; itemsCount: number };
        expect(view.itemsCount, qs).toBe(whole.itemsCount);
        expect(view.items.length, qs).toBeGreaterThan(0);
        for (const item of view.items) expect(Object.keys(item).sort(), qs).toEqual(keys);
        expect(view.items, qs).toEqual(whole.items.map((d) => pick(d as unknown as Record<string, unknown>)));
        // The whole domain is still what a list without a view answers, kept pages or not.
        expect(Object.keys((await list(qs)).items[0]!)).toContain('cloudFirewallRules');
      }
    };
    await compare();
    const withRefs = (await list(`serverId=${server!.id}&view=list`)).items[0] as unknown as Domain;
    expect(withRefs.server).toEqual({ _id: server!.id, IPAddress: '203.0.113.7', email: 'ops@example.com' });
    expect(withRefs.cloud?.email).toBe('cf@example.com');
    expect(withRefs.domainRegistrator?.name).toBe('Namecheap main');
    const unicode = (await list('search=xn--e1a&view=list')).items[0] as unknown as Domain;
    expect(unicode.redirectDomainNameUnicode).toBe('пример.рф');

    // The list view's shown values are kept in memory at the referenced tables' versions (shown-refs.ts): what
    // another writer renames shows at the next read, on every plan.
    await t.c.database.exec(`
      update servers set ip_address = '203.0.113.9', email = 'noc@example.com' where ip_address = '203.0.113.7';
      update brands set name = name || ' renamed';
      update clouds set email = 'cf2@example.com' where email = 'cf@example.com';
      update domain_registrators set name = 'Namecheap renamed' where name = 'Namecheap main';
    `);
    await compare();
    const renamed = (await list(`serverId=${server!.id}&view=list`)).items[0] as unknown as Domain;
    expect(renamed.server).toEqual({ _id: server!.id, IPAddress: '203.0.113.9', email: 'noc@example.com' });
    expect([renamed.cloud?.email, renamed.domainRegistrator?.name]).toEqual(['cf2@example.com', 'Namecheap renamed']);
    expect(renamed.brand?.name).toMatch(/^Brand \d renamed$/);
  });

  it('refuses a view it does not know with a 400 naming the field', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/domains?view=compact', headers: { authorization: h } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('view must be one of full, list');
  });

  it('reads a page filtered by one reference or the status from an index on that value and the number', async () => {
    const idx = await rows<{ indexname: string; indexdef: string }>(
      sql`select indexname, indexdef from pg_indexes where tablename = 'domains' and indexname like '%\_no\_idx'`,
    );
    const defs = Object.fromEntries(idx.map((r) => [r.indexname, r.indexdef.replace(/.*USING btree /, '')]));
    expect(defs).toMatchObject({
      domains_server_no_idx: '(server_id, domain_no)',
      domains_brand_no_idx: '(brand_id, domain_no)',
      domains_cloud_no_idx: '(cloud_id, domain_no)',
      domains_domain_registrator_no_idx: '(domain_registrator_id, domain_no)',
      domains_status_no_idx: '(status, domain_no)',
    });
  });
});
const got0 = <T extends { v: ListValues }>(r: T[]) => r[0]!.v;

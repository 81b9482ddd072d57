import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { versionedTables } from '../../http/list-query.ts';

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
});

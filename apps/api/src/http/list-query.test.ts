import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { createTestDatabase } from '../test/harness.ts';
import { createBrandsRepository } from '../modules/brands/brands.repository.ts';
import { createProxiesRepository } from '../modules/proxies/proxies.repository.ts';
import { createRolesRepository } from '../modules/roles/roles.repository.ts';
import { brands } from '../db/schema/index.ts';
import { searchList, setListPageCacheSize, tableList } from './list-query.ts';

/**
 * Issue 15: the kit's list (searchList) runs prepared statements and keeps counts while the versions of what they
 * read hold. Its answers must be what plain SQL says, on every page and search, after writes made straight in the
 * database (as another process would make them), and inside a transaction.
 */
let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
  // Pages are kept, as in service: every answer below is checked against plain SQL all the same.
  setListPageCacheSize(database.db, 50);
  await database.exec(`
    insert into brands (name) select 'Brand ' || g from generate_series(1, 45) g;
    insert into brands (name) values ('100% off'), ('under_score'), ('back\\slash');
    insert into regions (name) values ('Europe'), ('Asia');
    insert into proxies (ip_address, http_port, region_id, proxy_type)
      select '10.0.0.' || g, 3128, (select id from regions order by region_no offset (g % 2) limit 1), 'http'
      from generate_series(1, 30) g;
    insert into roles (name, rules) select 'Role ' || g, '{cnv:domains}' from generate_series(1, 25) g;
  `);
}, 60_000);
afterAll(async () => drop?.());

const rows = async <T>(q: ReturnType<typeof sql>) => ((await database.db.execute(q)) as unknown as { rows: T[] }).rows;

/** Plain SQL's page of brand names and count for a search (ILIKE with the search's own % _ \ taken literally). */
async function brandsBySql(search: string, page: number) {
  const p = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [c] = await rows<{ n: number }>(sql`select count(*)::int as n from brands where name ilike ${p}`);
  const names = await rows<{ name: string }>(
    sql`select name from brands where name ilike ${p} order by brand_no limit 20 offset ${(page - 1) * 20}`,
  );
  return { itemsCount: c!.n, names: names.map((r) => r.name) };
}

describe('the kit list (prepared statements, kept counts)', () => {
  it('answers what plain SQL says for every page and search, the same the second time', async () => {
    const repo = createBrandsRepository(database.db);
    for (const search of ['', 'brand', '1', 'BRAND 4', '%', '_', '\\', 'nothing']) {
      for (const page of [1, 2, 3, 9]) {
        const want = await brandsBySql(search, page);
        for (let i = 0; i < 2; i++) {
          const got = await repo.list({ search, page });
          expect({ itemsCount: got.itemsCount, names: got.items.map((b) => b.name) }, `${search} ${page}`).toEqual(
            want,
          );
        }
      }
    }
  });

  it('follows writes made straight in the database at once: count and rows, an empty page too', async () => {
    const repo = createBrandsRepository(database.db);
    const count = async (search: string, page = 1) => (await repo.list({ search, page })).itemsCount;
    expect(await count('Brand 4')).toBe(7);
    expect(await count('Brand 4', 5)).toBe(7);
    await database.exec(`insert into brands (name) values ('Brand 4x')`);
    expect(await count('Brand 4')).toBe(8);
    expect(await count('Brand 4', 5)).toBe(8);
    await database.exec(`update brands set name = 'Renamed' where name = 'Brand 4x'`);
    expect(await count('Brand 4')).toBe(7);
    expect((await repo.list({ search: 'renamed', page: 1 })).items.map((b) => b.name)).toEqual(['Renamed']);
    await database.exec(`delete from brands where name = 'Renamed'`);
    expect(await count('renamed')).toBe(0);
    expect(await count('')).toBe(48);
  });

  it('keeps a count of a joined search only while both tables hold (a region renamed moves the proxies found)', async () => {
    const repo = createProxiesRepository(database.db);
    const found = async (search: string) => {
      const r = await repo.list({ search, page: 1 });
      return { n: r.itemsCount, regions: [...new Set(r.items.map((p) => p.region?.name))].sort() };
    };
    expect(await found('europe')).toEqual({ n: 15, regions: ['Europe'] });
    expect(await found('europe')).toEqual({ n: 15, regions: ['Europe'] });
    await database.exec(`update regions set name = 'Europa' where name = 'Europe'`);
    expect(await found('europe')).toEqual({ n: 0, regions: [] });
    expect(await found('europa')).toEqual({ n: 15, regions: ['Europa'] });
    expect(await found('10.0.0.1')).toEqual({ n: 11, regions: ['Asia', 'Europa'] });
  });

  it('inside a transaction, sees the transaction’s own writes and keeps nothing from them', async () => {
    const repo = createRolesRepository(database.db);
    expect((await repo.list({ search: 'role', page: 1 })).itemsCount).toBe(25);
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into roles (name, rules) values ('Role in tx', '{}')`);
        expect((await repo.list({ search: 'role', page: 2 }, tx)).itemsCount).toBe(26);
        expect((await repo.list({ search: 'role', page: 2 }, tx)).items.map((r) => r.name)).toContain('Role in tx');
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).toBe('roll back'));
    expect((await repo.list({ search: 'role', page: 2 })).itemsCount).toBe(25);
  });

  it('keeps a page whose rows and count agree, and serves it again only while its tables are unchanged', async () => {
    const page = tableList(database.db, 'fd_test_kept_brands', brands, {
      search: [brands.name],
      orderBy: brands.brandNo,
    });
    const first = await page({ search: 'brand 1', page: 1 });
    expect(first.rows[0]).not.toHaveProperty('v');
    const again = await page({ search: 'brand 1', page: 1 });
    expect(again).toBe(first);
    await database.exec(`update brands set name = name where name = 'Brand 10'`);
    const after = await page({ search: 'brand 1', page: 1 });
    expect(after).not.toBe(first);
    const names = (p: typeof first) => ({ count: p.count, names: p.rows.map((r) => r.name) });
    expect(names(after)).toEqual(names(first));
    // Nothing is kept inside a transaction, nor taken from what is kept.
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into brands (name) values ('Brand 1 in tx')`);
        expect((await page({ search: 'brand 1', page: 1 }, tx)).count).toBe(first.count + 1);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await page({ search: 'brand 1', page: 1 })).toBe(after);
  });

  it('keeps no page when no list asks for it (the default without the container)', async () => {
    const { database: other, drop: dropOther } = await createTestDatabase();
    try {
      await other.exec(`insert into brands (name) values ('Only')`);
      const page = searchList<{ name: string }>(other.db, {
        name: 'fd_test_unkept',
        from: brands,
        tables: [brands],
        search: (p) => sql`${brands.name} ilike ${p}`,
        rows: (ex, where, offset, v) =>
          ex
            .select({ name: brands.name, ...v })
            .from(brands)
            .where(where)
            .limit(20)
            .offset(offset as number) as never,
      });
      const a = await page({ page: 1 });
      expect(a.rows.map((r) => r.name)).toEqual(['Only']);
      expect(await page({ page: 1 })).not.toBe(a);
    } finally {
      await dropOther();
    }
  });
});

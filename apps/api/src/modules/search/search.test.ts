import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { brands, clouds, domainRegistrators, domains, servers } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Hit = { area: string; _id: string; title: string; subtitle: string | null };

async function search(token: string, q: string) {
  const res = await t.inject({
    method: 'GET',
    url: `/api/search?q=${encodeURIComponent(q)}`,
    headers: { authorization: token },
  });
  return res;
}

async function seed() {
  const db = t.c.database.db;
  const names = Array.from({ length: 30 }, (_, i) => `shop${i}-example.test`);
  await db
    .insert(domains)
    .values([
      ...names.map((n) => ({ domainName: n, domainNameUnicode: n })),
      { domainName: 'example.test', domainNameUnicode: 'example.test' },
      { domainName: 'xn--e1afmkfd.test', domainNameUnicode: 'пример.test' },
    ]);
  await db
    .insert(servers)
    .values([{ ipAddress: '203.0.113.10', email: 'ops@example.test' }, { ipAddress: '198.51.100.7' }]);
  await db.insert(clouds).values([{ email: 'cf@example.test' }]);
  await db.insert(brands).values([{ name: 'Example Brand' }, { name: 'Other' }]);
  await db
    .insert(domainRegistrators)
    .values([{ name: 'Example Namecheap', type: 'namecheap', endpointUrl: 'https://api.test', apiUsername: 'u' }]);
}

describe('GET /api/search', () => {
  it('needs a session and a bounded, non-empty q', async () => {
    expect((await t.inject({ method: 'GET', url: '/api/search?q=x' })).statusCode).toBe(401);
    const admin = await t.tokenFor(['cnv']);
    const empty = await search(admin, '  ');
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('q');
    expect((await t.inject({ method: 'GET', url: '/api/search', headers: { authorization: admin } })).statusCode).toBe(
      400,
    );
    expect((await search(admin, 'x'.repeat(101))).statusCode).toBe(400);
    expect((await search(admin, 'a\u0000b')).statusCode).toBe(400);
  });

  it('finds items of every area by name, email or IP, the exact match first, at most 5 per area', async () => {
    await seed();
    const admin = await t.tokenFor(['cnv']);
    const res = await search(admin, 'Example.test');
    expect(res.statusCode).toBe(200);
    const d = res.json().data as { areas: string[]; hits: Hit[] };
    expect(d.areas).toEqual(['domains', 'servers', 'clouds', 'users', 'brands', 'domainRegistrators']);
    const byArea = (a: string) => d.hits.filter((h) => h.area === a);
    expect(byArea('domains')).toHaveLength(5);
    expect(byArea('domains')[0]!.title).toBe('example.test');
    expect(byArea('servers').map((h) => h.title)).toEqual(['203.0.113.10']);
    expect(byArea('servers')[0]!.subtitle).toBe('ops@example.test');
    expect(byArea('clouds').map((h) => h.title)).toEqual(['cf@example.test']);

    const ip = (await search(admin, '198.51')).json().data as { hits: Hit[] };
    expect(ip.hits.map((h) => [h.area, h.title])).toEqual([['servers', '198.51.100.7']]);

    const brand = (await search(admin, 'example')).json().data as { hits: Hit[] };
    expect(brand.hits.filter((h) => h.area === 'brands').map((h) => h.title)).toEqual(['Example Brand']);
    expect(brand.hits.filter((h) => h.area === 'domainRegistrators')[0]).toMatchObject({
      title: 'Example Namecheap',
      subtitle: 'namecheap',
    });
  });

  it('takes % and _ literally, and finds a Unicode name typed either way', async () => {
    await seed();
    const admin = await t.tokenFor(['cnv']);
    expect(((await search(admin, '%')).json().data as { hits: Hit[] }).hits).toEqual([]);
    const uni = (await search(admin, 'пример')).json().data as { hits: Hit[] };
    expect(uni.hits.map((h) => h.title)).toEqual(['пример.test']);
    const puny = (await search(admin, 'xn--e1afmkfd')).json().data as { hits: Hit[] };
    expect(puny.hits.map((h) => h.title)).toEqual(['пример.test']);
  });

  it('searches only the areas the caller may read', async () => {
    await seed();
    const token = await t.tokenFor(['cnv:servers', 'cnv:brands'], { username: 'example-user' });
    const d = (await search(token, 'example')).json().data as { areas: string[]; hits: Hit[] };
    expect(d.areas).toEqual(['servers', 'brands']);
    expect(new Set(d.hits.map((h) => h.area))).toEqual(new Set(['servers', 'brands']));

    const users = await t.tokenFor(['cnv:users']);
    const u = (await search(users, 'example-user')).json().data as { areas: string[]; hits: Hit[] };
    expect(u.areas).toEqual(['users']);
    expect(u.hits[0]).toMatchObject({ area: 'users', title: 'example-user' });
  });
});

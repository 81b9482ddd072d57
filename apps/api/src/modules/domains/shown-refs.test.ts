import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createShownRefs, refVersionOf } from './shown-refs.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.reset();
}, 120_000);
afterAll(async () => t?.close());

const one = async <T>(q: ReturnType<typeof sql>) =>
  ((await t.c.database.db.execute(q)) as unknown as { rows: T[] }).rows[0]!;
/** The versions a domains page reads with its rows (the shown values depend on four of them). */
const versions = async () =>
  (
    await one<{ v: string }>(
      sql`select coalesce(string_agg(tbl || ':' || v, ',' order by tbl), '') as v from list_versions`,
    )
  ).v;

describe('shown values of a page, from memory at the referenced tables versions', () => {
  it('keeps only the four referenced tables of a page version', () => {
    expect(refVersionOf('brands:4,clouds:7,domain_firewall_rules:9,domain_registrators:2,regions:1,servers:12')).toBe(
      'brands:4,clouds:7,domain_registrators:2,servers:12',
    );
    expect(refVersionOf('')).toBe('');
  });

  it('answers each row its values, serves them at the versions they were read at, and reads anew when they move', async () => {
    await t.c.database.exec(`
      insert into servers (ip_address, email) values ('198.51.100.1', 'a@example.com'), ('198.51.100.2', null);
      insert into brands (name) values ('Acme');
      insert into clouds (email) values ('cf@example.com');
      insert into domain_registrators (name, type, endpoint_url, api_username)
        values ('Registrar', 'namecheap', 'https://api.example.com', 'u');
    `);
    const ids = await one<{ s1: string; s2: string; b: string; c: string; r: string }>(sql`select
      (select id from servers where ip_address = '198.51.100.1') as s1, (select id from servers where ip_address = '198.51.100.2') as s2,
      (select id from brands where name = 'Acme') as b, (select id from clouds limit 1) as c,
      (select id from domain_registrators limit 1) as r`);
    const rows = [
      { serverId: ids.s1, brandId: ids.b, cloudId: ids.c, domainRegistratorId: ids.r },
      { serverId: ids.s2, brandId: null, cloudId: null, domainRegistratorId: null },
      { serverId: '00000000-0000-4000-8000-000000000000', brandId: null, cloudId: null, domainRegistratorId: null },
    ];
    const refs = createShownRefs(t.c.database.db);
    const v1 = await versions();
    const first = [
      {
        serverIp: '198.51.100.1',
        serverEmail: 'a@example.com',
        brandName: 'Acme',
        cloudEmail: 'cf@example.com',
        registratorName: 'Registrar',
      },
      { serverIp: '198.51.100.2', serverEmail: null, brandName: null, cloudEmail: null, registratorName: null },
      { serverIp: null, serverEmail: null, brandName: null, cloudEmail: null, registratorName: null },
    ];
    expect(await refs.of(rows, v1)).toEqual(first);

    await t.c.database.exec(`update servers set email = 'b@example.com' where ip_address = '198.51.100.1'`);
    // A page read before the change is answered as it was then, from memory.
    expect(await refs.of(rows, v1)).toEqual(first);
    const v2 = await versions();
    expect(refVersionOf(v2)).not.toBe(refVersionOf(v1));
    const second = [{ ...first[0], serverEmail: 'b@example.com' }, first[1], first[2]];
    expect(await refs.of(rows, v2)).toEqual(second);
    // A page older than the database is answered with what the database holds now (never older than its page).
    expect(await refs.of(rows, v1)).toEqual(second);
    expect(await refs.of(rows, v2)).toEqual(second);
    // Nothing to read for a page with no references.
    expect(await refs.of([{ serverId: null, brandId: null, cloudId: null, domainRegistratorId: null }], v2)).toEqual([
      first[2],
    ]);
  });
});

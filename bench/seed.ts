import type { Database } from '../apps/api/src/db/client.ts';

/**
 * The benchmarks' fleet: 30 brands, 400 servers, 60 clouds, 8 regions and 4 registrators, then the domains,
 * all with set-based SQL. Domain g is named md5(g)[0..10] + '-' + g + '.' + one of six TLDs; every 4th has a
 * redirect domain, every 5th no registrator nor expiry date, every 2nd a Cloudflare zone, every 9th is inactive.
 */
/** Brands, servers, clouds, regions and registrators, then the domains, all with set-based SQL. */
export async function seedDomains(database: Database, total: number, log: (s: string) => void) {
  await database.exec(`
    insert into brands (name) select 'Brand ' || g from generate_series(1, 30) g;
    insert into regions (name) select 'Region ' || g from generate_series(1, 8) g;
    insert into servers (ip_address, email, domains_limit_qty)
      select '10.' || (g / 250) || '.' || (g % 250) || '.1', 'ops' || g || '@example.com', 0 from generate_series(1, 400) g;
    insert into clouds (email) select 'cloud' || g || '@example.com' from generate_series(1, 60) g;
    insert into domain_registrators (name, type, endpoint_url, api_username)
      select 'Registrar ' || g, 'namecheap', 'https://api.sandbox.namecheap.com/xml.response', 'user' || g
      from generate_series(1, 4) g;
  `);
  const chunk = 100_000;
  for (let from = 1; from <= total; from += chunk) {
    const to = Math.min(total, from + chunk - 1);
    await database.exec(`
      with b as (select array_agg(id order by brand_no) a from brands),
           s as (select array_agg(id order by server_no) a from servers),
           c as (select array_agg(id order by cloud_no) a from clouds),
           r as (select array_agg(id order by region_no) a from regions),
           dr as (select array_agg(id order by domain_registrator_no) a from domain_registrators)
      insert into domains (domain_name, domain_name_unicode, status, server_id, brand_id, cloud_id,
        parser_enabled, parser_proxy_region_id, redirect_domain_name, is_restricted, domain_registrator_id,
        domain_registrator_expiration_date, cloud_zone_id)
      select n, n,
        case when g % 9 = 0 then 'inactive' else 'active' end,
        s.a[1 + g % 400], b.a[1 + g % 30], c.a[1 + g % 60],
        g % 3 = 0, case when g % 3 = 0 then r.a[1 + g % 8] end,
        case when g % 4 = 0 then 'www.' || substr(md5('r' || g), 1, 9) || '.net' end,
        g % 11 = 0,
        case when g % 5 <> 0 then dr.a[1 + g % 4] end,
        case when g % 5 <> 0 then date '2026-01-01' + (g % 1000) end,
        case when g % 2 = 0 then md5('z' || g) end
      from (select g, substr(md5(g::text), 1, 10) || '-' || g || '.' ||
                   (array['com','net','org','io','de','info'])[1 + g % 6] as n
            from generate_series(${from}, ${to}) g) x, b, s, c, r, dr;
    `);
    log(`  seeded ${to.toLocaleString('en')} domains`);
  }
  await database.exec('vacuum analyze');
}

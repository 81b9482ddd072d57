import { describe, expect, it } from 'vitest';
import {
  DOMAIN_EXPORT_COLUMNS,
  DomainFilterSchema,
  healthCountsText,
  type HealthCheckKey,
  type HealthState,
} from '@fleetdesk/contract';
import { useAdminCalls, useTestApp, type Method } from '../../test/fixtures.ts';
import { systemActor } from '../../http/context.ts';
import { csvField } from './csv.ts';

const t = useTestApp();
const { call, create } = useAdminCalls(t);
const domain = (payload: object) => call('POST', '/api/domains', { status: 'active', ...payload });
const mkDomain = async (payload: object) => {
  const res = await domain(payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const registrator = (name: string) =>
  create('domain-registrators', {
    name,
    type: 'namecheap',
    credentials: { endpointUrl: 'https://api.sandbox.namecheap.com/xml.response', apiUsername: 'u', apiKey: 'k' },
  });
const rule = (name: string, defaultPriority = 10) =>
  create('firewall-rules', { name, action: 'block', expression: '(ip.src eq 1.2.3.4)', defaultPriority });
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('domains CRUD', () => {
  it('creates, reads, updates (PATCH and PUT, partial) and deletes a domain with every field', async () => {
    const region = await create('regions', { name: 'EU' });
    const brand = await create('brands', { name: 'Aurora' });
    const cloud = await create('clouds', { email: 'cf@example.com' });
    const server = await create('servers', { IPAddress: '5.6.7.8', email: 'ops@example.com', domainsLimitQty: 5 });
    const reg = await registrator('Namecheap main');
    const accountId = (await create('yandex-webmaster/accounts', { name: 'Webmaster main' }))._id;

    const res = await domain({
      domainName: ' Example.COM ',
      status: 'inactive',
      serverId: server._id,
      brandId: brand._id,
      cloudId: cloud._id,
      parserEnabled: true,
      isSinglePage: 'true',
      parserURL: 'https://source.example.org/start',
      parserProxyRegionId: region._id,
      redirectDomainName: 'WWW.Example.net',
      isRestricted: true,
      domainRegistratorId: reg._id,
      domainRegistratorExpirationDate: '2027-03-31',
      yandexWebmasterAccountId: accountId,
    });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json().data;
    expect(d).toMatchObject({
      domainNo: 1,
      domainName: 'example.com',
      domainNameUnicode: 'example.com',
      status: 'inactive',
      serverId: server._id,
      server: { _id: server._id, IPAddress: '5.6.7.8', email: 'ops@example.com' },
      brandId: brand._id,
      brand: { _id: brand._id, name: 'Aurora' },
      cloudId: cloud._id,
      cloud: { _id: cloud._id, email: 'cf@example.com' },
      cloudZoneId: null,
      cloudRulesetId: null,
      parserEnabled: true,
      isSinglePage: true,
      parserURL: 'https://source.example.org/start',
      parserProxyRegionId: region._id,
      parserProxyRegion: { _id: region._id, name: 'EU' },
      redirectDomainName: 'www.example.net',
      redirectDomainNameUnicode: 'www.example.net',
      isRestricted: true,
      domainRegistratorId: reg._id,
      domainRegistrator: { _id: reg._id, name: 'Namecheap main' },
      domainRegistratorExpirationDate: '2027-03-31',
      yandexWebmasterAccountId: accountId,
      cloudFirewallRules: [],
      parsingStartDate: null,
      parsingEndDate: null,
      parsingProgress: null,
      healthState: null,
      healthProblems: 0,
      healthCounts: { failing: 0, warning: 0, unknown: 0 },
    });

    const got = await call('GET', `/api/domains/${d._id}`);
    expect(got.json().data).toEqual(d);

    // PATCH changes only what it sends.
    const patched = await call('PATCH', `/api/domains/${d._id}`, { status: 'active', isRestricted: false });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({ status: 'active', isRestricted: false, parserEnabled: true });

    // PUT is partial too, and null (or '') clears references and optional values.
    const cleared = await call('PUT', `/api/domains/${d._id}`, {
      serverId: null,
      brandId: '',
      cloudId: null,
      parserProxyRegionId: null,
      domainRegistratorId: null,
      yandexWebmasterAccountId: null,
      parserURL: '',
      redirectDomainName: null,
      domainRegistratorExpirationDate: '',
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data).toMatchObject({
      domainName: 'example.com',
      server: null,
      serverId: null,
      brand: null,
      cloud: null,
      parserProxyRegion: null,
      domainRegistrator: null,
      yandexWebmasterAccountId: null,
      parserURL: null,
      redirectDomainName: null,
      domainRegistratorExpirationDate: null,
      status: 'active',
    });

    const list = await call('GET', '/api/domains?search=EXAMPLE');
    expect(list.json().data).toMatchObject({ itemsCount: 1, items: [{ _id: d._id }] });

    const audit = await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}`);
    if (audit.statusCode === 200) expect(audit.json().data.itemsCount).toBeGreaterThanOrEqual(3);

    expect((await call('DELETE', `/api/domains/${d._id}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/domains/${d._id}`)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/domains/${d._id}`, { status: 'active' })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/domains/${d._id}`)).statusCode).toBe(404);
  });

  it('says each health number for what it is: 4 failing, 1 warning, 2 unknown, never one sum of 7', async () => {
    const d = await mkDomain({ domainName: 'mixed-health.example' });
    const r = (check: HealthCheckKey, state: HealthState) => ({
      check,
      state,
      observed: null,
      expected: null,
      reason: null,
    });
    const results = [
      r('registrar_ns', 'failing'),
      r('cf_ssl', 'failing'),
      r('cf_tls13', 'failing'),
      r('cf_waf', 'failing'),
      r('cf_zone', 'warning'),
      r('server', 'unknown'),
      r('site_https', 'unknown'),
      r('cf_dns', 'ok'),
      r('yandex_host', 'na'),
    ];
    await t.c.database.db.transaction((tx) => t.c.repos.health.store(d._id, results, new Date(), 'full', tx));
    const want = { healthState: 'failing', healthProblems: 7, healthCounts: { failing: 4, warning: 1, unknown: 2 } };
    expect((await call('GET', `/api/domains/${d._id}`)).json().data).toMatchObject(want);
    for (const view of ['list', 'full']) {
      const list = (await call('GET', `/api/domains?view=${view}&search=mixed-health`)).json().data;
      expect(list.items, view).toEqual([expect.objectContaining(want)]);
    }
    expect(healthCountsText(want.healthCounts)).toBe('4 failing · 1 warning · 2 unknown');
    // A later result moves the counts with it (one check fixed, one read again).
    await t.c.database.db.transaction((tx) =>
      t.c.repos.health.store(d._id, [r('cf_ssl', 'ok'), r('server', 'warning')], new Date(), 'fix', tx),
    );
    const after = (await call('GET', '/api/domains?view=list&search=mixed-health')).json().data.items[0];
    expect(after.healthCounts).toEqual({ failing: 3, warning: 2, unknown: 1 });
  });

  it('defaults the flags of a new domain and pages the list in number order', async () => {
    for (let i = 1; i <= 23; i++) await mkDomain({ domainName: `site${String(i).padStart(2, '0')}.example` });
    const first = (await call('GET', '/api/domains')).json().data;
    expect(first.itemsCount).toBe(23);
    expect(first.items).toHaveLength(20);
    expect(first.items[0]).toMatchObject({
      domainNo: 1,
      domainName: 'site01.example',
      parserEnabled: false,
      isSinglePage: false,
      isRestricted: false,
      status: 'active',
    });
    const second = (await call('GET', '/api/domains?page=2')).json().data;
    expect(second.items.map((x: { domainNo: number }) => x.domainNo)).toEqual([21, 22, 23]);
    expect((await call('GET', '/api/domains?page=9')).json().data).toEqual({ items: [], itemsCount: 23 });
  });

  it('searches the domain name and the redirect domain as a substring, ignoring case, and takes % and _ literally', async () => {
    await mkDomain({ domainName: 'alpha-shop.com' });
    await mkDomain({ domainName: 'beta.org', redirectDomainName: 'SHOPPING.net' });
    await mkDomain({ domainName: 'gamma.io' });
    const names = async (search: string) =>
      (await call('GET', `/api/domains?search=${encodeURIComponent(search)}`))
        .json()
        .data.items.map((x: { domainName: string }) => x.domainName);
    expect(await names('Shop')).toEqual(['alpha-shop.com', 'beta.org']);
    expect(await names('amm')).toEqual(['gamma.io']);
    expect(await names('%')).toEqual([]);
    expect(await names('_')).toEqual([]);
  });
});

describe('filters', () => {
  type Item = { domainName: string; domainNo: number };
  /** Builds six domains over two brands, servers, clouds and registrators, with and without each. */
  const fleet = async () => {
    const [b1, b2] = [await create('brands', { name: 'B1' }), await create('brands', { name: 'B2' })];
    const [s1, s2] = [
      await create('servers', { IPAddress: '10.0.0.1' }),
      await create('servers', { IPAddress: '10.0.0.2' }),
    ];
    const [c1, c2] = [
      await create('clouds', { email: 'c1@example.com' }),
      await create('clouds', { email: 'c2@example.com' }),
    ];
    const [r1, r2] = [await registrator('R1'), await registrator('R2')];
    const rows = [
      {
        domainName: 'a1.example',
        brandId: b1._id,
        serverId: s1._id,
        cloudId: c1._id,
        domainRegistratorId: r1._id,
        domainRegistratorExpirationDate: '2026-01-10',
      },
      {
        domainName: 'a2.example',
        brandId: b1._id,
        serverId: s2._id,
        cloudId: c2._id,
        domainRegistratorId: r2._id,
        domainRegistratorExpirationDate: '2026-03-01',
        status: 'inactive',
      },
      {
        domainName: 'b1.example',
        brandId: b2._id,
        serverId: s1._id,
        cloudId: c1._id,
        domainRegistratorExpirationDate: '2027-01-01',
      },
      { domainName: 'b2.example', brandId: b2._id, cloudId: c2._id, domainRegistratorId: r1._id, status: 'inactive' },
      { domainName: 'n1.example' },
      {
        domainName: 'n2.other',
        brandId: b1._id,
        serverId: s1._id,
        domainRegistratorId: r2._id,
        domainRegistratorExpirationDate: '2026-02-28',
      },
    ];
    const ids: Record<string, string> = {};
    for (const r of rows) ids[r.domainName] = (await mkDomain(r))._id;
    const actor = systemActor('test');
    for (const name of ['a1.example', 'b2.example', 'n2.other'])
      await t.c.services.domains.setCloudZone(ids[name]!, { cloudZoneId: `z-${name}` }, actor);
    return { b1, b2, s1, s2, c1, c2, r1, r2, ids };
  };
  const list = async (qs: string) => {
    const res = await call('GET', `/api/domains?${qs}`);
    expect(res.statusCode, `${qs}: ${res.body}`).toBe(200);
    const data = res.json().data as { items: Item[]; itemsCount: number };
    return { names: data.items.map((x) => x.domainName), count: data.itemsCount };
  };
  const exported = async (qs: string) => {
    const res = await call('GET', `/api/domains/export?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.body
      .slice(1)
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',')[2]);
  };

  it('filters by brand, server, cloud and registrator (an id, or none), status, zone and expiry, alone and combined', async () => {
    const f = await fleet();
    const cases: [string, string[]][] = [
      [`brandId=${f.b1._id}`, ['a1.example', 'a2.example', 'n2.other']],
      [`brandId=${f.b2._id.toUpperCase()}`, ['b1.example', 'b2.example']],
      ['brandId=none', ['n1.example']],
      [`serverId=${f.s1._id}`, ['a1.example', 'b1.example', 'n2.other']],
      ['serverId=none', ['b2.example', 'n1.example']],
      [`cloudId=${f.c2._id}`, ['a2.example', 'b2.example']],
      ['cloudId=NONE', ['n1.example', 'n2.other']],
      [`domainRegistratorId=${f.r1._id}`, ['a1.example', 'b2.example']],
      ['domainRegistratorId=none', ['b1.example', 'n1.example']],
      ['status=inactive', ['a2.example', 'b2.example']],
      ['status=active', ['a1.example', 'b1.example', 'n1.example', 'n2.other']],
      ['hasZone=true', ['a1.example', 'b2.example', 'n2.other']],
      ['hasZone=false', ['a2.example', 'b1.example', 'n1.example']],
      // Strictly before the day; a domain without a date never matches.
      ['expiresBefore=2026-03-01', ['a1.example', 'n2.other']],
      ['expiresBefore=2026-03-02', ['a1.example', 'a2.example', 'n2.other']],
      ['expiresBefore=2030-01-01', ['a1.example', 'a2.example', 'b1.example', 'n2.other']],
      [`brandId=${f.b1._id}&status=active`, ['a1.example', 'n2.other']],
      [`brandId=${f.b1._id}&hasZone=true&search=example`, ['a1.example']],
      [`serverId=${f.s1._id}&cloudId=none`, ['n2.other']],
      [`cloudId=${f.c1._id}&domainRegistratorId=none&expiresBefore=2027-01-02`, ['b1.example']],
      [`brandId=${f.b2._id}&serverId=${f.s2._id}`, []],
      // Empty values are no filter (a form that sends every field).
      ['brandId=&serverId=&cloudId=&domainRegistratorId=&status=&hasZone=&expiresBefore=&search=', Object.keys(f.ids)],
    ];
    for (const [qs, expected] of cases) {
      const got = await list(qs);
      expect(got.names, qs).toEqual(expected);
      expect(got.count, qs).toBe(expected.length);
      expect(await exported(qs), qs).toEqual(expected);
      const filter = DomainFilterSchema.parse(Object.fromEntries(new URLSearchParams(qs)));
      const ids = await t.c.services.domains.listIds(filter, 100);
      expect(ids, qs).toEqual(expected.map((n) => f.ids[n]));
    }
    // listIds stops at the limit, in list order.
    expect(await t.c.services.domains.listIds({ search: 'example' }, 2)).toEqual([
      f.ids['a1.example'],
      f.ids['a2.example'],
    ]);
  });

  it('counts a filtered list exactly across pages', async () => {
    const brand = await create('brands', { name: 'Many' });
    for (let i = 1; i <= 45; i++)
      await mkDomain({ domainName: `m${String(i).padStart(2, '0')}.example`, brandId: i % 2 ? brand._id : null });
    const p1 = await list(`brandId=${brand._id}`);
    expect(p1.count).toBe(23);
    expect(p1.names).toHaveLength(20);
    const p2 = await list(`brandId=${brand._id}&page=2`);
    expect(p2.names).toEqual(['m41.example', 'm43.example', 'm45.example']);
    expect(p2.count).toBe(23);
    expect((await list('brandId=none&page=2')).count).toBe(22);
  });

  it('refuses bad filter values with a 400 naming the field, on the list and the export', async () => {
    const bad: [string, string, string][] = [
      ['brandId=abc', 'brandId', 'Brand must be an id or "none"'],
      ['serverId=1', 'serverId', 'Server must be an id or "none"'],
      ['cloudId=nothing', 'cloudId', 'Cloud must be an id or "none"'],
      ['domainRegistratorId=%00', 'domainRegistratorId', 'Domain registrator must be an id or "none"'],
      ['status=deleted', 'status', 'Status must be active or inactive'],
      ['hasZone=yes', 'hasZone', 'Has a zone must be true or false'],
      ['expiresBefore=2026-02-30', 'expiresBefore', 'Expires before must be a date (YYYY-MM-DD)'],
      ['expiresBefore=tomorrow', 'expiresBefore', 'Expires before must be a date (YYYY-MM-DD)'],
      [`brandId=${MISSING}&brandId=${MISSING}`, 'brandId', 'Brand must be an id or "none"'],
    ];
    for (const [qs, field, message] of bad) {
      for (const url of [`/api/domains?${qs}`, `/api/domains/export?${qs}`]) {
        const res = await call('GET', url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().message, url).toBeTruthy();
        expect(res.json().fields?.[field], url).toBe(message);
      }
    }
    // A well-formed id that matches nothing is an empty list, not an error.
    expect(await list(`brandId=${MISSING}`)).toEqual({ names: [], count: 0 });
  });
});

describe('domain names', () => {
  it('validates required fields, host names, the parser URL, the date and references', async () => {
    const empty = await call('POST', '/api/domains', {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toMatchObject({ domainName: 'Domain name is required', status: 'Status is required' });

    for (const domainName of [
      '',
      'localhost',
      'exa mple.com',
      'foo_bar.com',
      '-a.com',
      '1.2.3.4',
      'a..b.com',
      'a/b.com',
    ]) {
      const res = await domain({ domainName });
      expect(res.statusCode, domainName).toBe(400);
      expect(res.json().fields.domainName, domainName).toBeTruthy();
    }
    const bad = await domain({
      domainName: 'ok.example',
      status: 'paused',
      parserURL: 'ftp://files.example.com',
      redirectDomainName: 'not a host',
      domainRegistratorExpirationDate: '2025-02-30',
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().fields).sort()).toEqual([
      'domainRegistratorExpirationDate',
      'parserURL',
      'redirectDomainName',
      'status',
    ]);

    for (const field of ['serverId', 'brandId', 'cloudId', 'parserProxyRegionId', 'domainRegistratorId']) {
      const res = await domain({ domainName: 'ok.example', [field]: MISSING });
      expect(res.statusCode, field).toBe(400);
      expect(Object.keys(res.json().fields)).toEqual([field]);
    }
    const twoMissing = await domain({ domainName: 'ok.example', brandId: MISSING, cloudId: MISSING });
    expect(Object.keys(twoMissing.json().fields).sort()).toEqual(['brandId', 'cloudId']);
    expect((await call('GET', '/api/domains')).json().data.itemsCount).toBe(0);
  });

  it('stores names lower-case in punycode, shows them in Unicode, and refuses duplicates in either form', async () => {
    const d = await mkDomain({ domainName: 'Bücher.example', redirectDomainName: 'Münich.DE.' });
    expect(d).toMatchObject({
      domainName: 'xn--bcher-kva.example',
      domainNameUnicode: 'bücher.example',
      redirectDomainName: 'xn--mnich-kva.de',
      redirectDomainNameUnicode: 'münich.de',
    });
    for (const domainName of ['xn--bcher-kva.example', 'BÜCHER.example', 'bücher.example.']) {
      const res = await domain({ domainName });
      expect(res.statusCode, domainName).toBe(409);
      expect(res.json()).toMatchObject({
        message: 'A domain with this name already exists',
        fields: { domainName: 'A domain with this name already exists' },
      });
    }
    const other = await mkDomain({ domainName: 'other.example' });
    const renamed = await call('PATCH', `/api/domains/${other._id}`, { domainName: 'XN--BCHER-KVA.example' });
    expect(renamed.statusCode).toBe(409);

    // The search takes Unicode (part of a label) and ASCII alike.
    for (const search of ['bücher', 'ÜCH', 'xn--bcher', 'münich']) {
      const res = await call('GET', `/api/domains?search=${encodeURIComponent(search)}`);
      expect(
        res.json().data.items.map((x: { _id: string }) => x._id),
        search,
      ).toEqual([d._id]);
    }
  });

  it('warns on a name that mixes scripts (a look-alike), and not on a name in one script', async () => {
    // Cyrillic "а" (U+0430) for the Latin "a".
    const d = await mkDomain({ domainName: '\u0430pple-test.com' });
    expect(d).toMatchObject({
      domainName: 'xn--pple-test-zyh.com',
      domainNameUnicode: '\u0430pple-test.com',
      domainNameWarning: expect.stringMatching(/mixes Latin and Cyrillic letters.*xn--pple-test-zyh\.com$/),
    });
    const got = await call('GET', `/api/domains/${d._id}`);
    expect(got.json().data.domainNameWarning).toMatch(/mixes Latin and Cyrillic/);
    expect((await mkDomain({ domainName: 'bücher-warn.example' })).domainNameWarning).toBeNull();
  });
});

describe('server capacity', () => {
  it('refuses a full server with 409, allows re-saving on the current server, and treats 0 as no limit', async () => {
    const server = await create('servers', { IPAddress: '5.6.7.8', domainsLimitQty: 2 });
    const other = await create('servers', { IPAddress: '9.9.9.9', domainsLimitQty: 0 });
    const a = await mkDomain({ domainName: 'a.example', serverId: server._id });
    await mkDomain({ domainName: 'b.example', serverId: server._id });

    const full = await domain({ domainName: 'c.example', serverId: server._id });
    expect(full.statusCode).toBe(409);
    expect(full.json()).toMatchObject({
      message: 'Server 5.6.7.8 is full: 2 of 2 domains',
      code: 'server_full',
      fields: { serverId: 'Server 5.6.7.8 is full: 2 of 2 domains' },
    });
    const c = await mkDomain({ domainName: 'c.example', serverId: other._id });
    const move = await call('PUT', `/api/domains/${c._id}`, { serverId: server._id });
    expect(move.statusCode).toBe(409);

    const srv = (await call('GET', `/api/servers/${server._id}`)).json().data;
    expect(srv).toMatchObject({ domainsQty: 2, domainsLimitQty: 2 });

    // Lowering the limit below the count does not stop a domain staying where it is.
    expect((await call('PATCH', `/api/servers/${server._id}`, { domainsLimitQty: 1 })).statusCode).toBe(200);
    const resave = await call('PUT', `/api/domains/${a._id}`, { serverId: server._id, status: 'inactive' });
    expect(resave.statusCode, resave.body).toBe(200);

    // 0 means no limit.
    for (let i = 0; i < 3; i++) await mkDomain({ domainName: `z${i}.example`, serverId: other._id });
    expect((await call('GET', `/api/servers/${other._id}`)).json().data.domainsQty).toBe(4);

    // Moving off frees the place.
    expect((await call('PATCH', `/api/domains/${a._id}`, { serverId: other._id })).statusCode).toBe(200);
    expect((await call('PATCH', `/api/servers/${server._id}`, { domainsLimitQty: 2 })).statusCode).toBe(200);
    expect((await call('PATCH', `/api/domains/${c._id}`, { serverId: server._id })).statusCode).toBe(200);
  });

  it('lets only one of two concurrent assignments take the last place', async () => {
    const server = await create('servers', { IPAddress: '10.0.0.1', domainsLimitQty: 1 });
    const results = await Promise.all(
      ['p.example', 'q.example', 'r.example'].map((domainName) => domain({ domainName, serverId: server._id })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect((await call('GET', `/api/servers/${server._id}`)).json().data.domainsQty).toBe(1);
  });
});

describe('in-use checks', () => {
  it('marks clouds another domain of the brand uses, excluding the domain being edited', async () => {
    const b1 = await create('brands', { name: 'B1' });
    const b2 = await create('brands', { name: 'B2' });
    const [c1, c2, c3] = [
      await create('clouds', { email: 'c1@example.com' }),
      await create('clouds', { email: 'c2@example.com' }),
      await create('clouds', { email: 'c3@example.com' }),
    ];
    const d1 = await mkDomain({ domainName: 'd1.example', brandId: b1._id, cloudId: c1._id });
    const d2 = await mkDomain({ domainName: 'd2.example', brandId: b1._id });
    await mkDomain({ domainName: 'd3.example', brandId: b2._id, cloudId: c2._id });
    await mkDomain({ domainName: 'd4.example', cloudId: c3._id }); // no brand

    const marks = async (query: string) => {
      const res = await call('GET', `/api/clouds?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return Object.fromEntries(
        res.json().data.items.map((c: { email: string; isInUseBrandId?: boolean }) => [c.email, c.isInUseBrandId]),
      );
    };
    // Editing d2 (brand B1): c1 is used by d1, another domain of B1.
    expect(await marks(`checkInUseBrandId=${b1._id}&checkInUseBrandIdDomainId=${d2._id}`)).toEqual({
      'c1@example.com': true,
      'c2@example.com': false,
      'c3@example.com': false,
    });
    // Editing d1 itself: its own cloud does not count.
    expect(await marks(`checkInUseBrandId=${b1._id}&checkInUseBrandIdDomainId=${d1._id}`)).toMatchObject({
      'c1@example.com': false,
    });
    // A new domain (no domain id) of brand B2: c2 is used by d3.
    expect(await marks(`checkInUseBrandId=${b2._id}`)).toEqual({
      'c1@example.com': false,
      'c2@example.com': true,
      'c3@example.com': false,
    });
    // Without the check, no flag.
    expect(await marks('')).toEqual({
      'c1@example.com': undefined,
      'c2@example.com': undefined,
      'c3@example.com': undefined,
    });
  });

  it('marks brands that have another domain using the cloud or the webmaster account', async () => {
    const b1 = await create('brands', { name: 'B1' });
    const b2 = await create('brands', { name: 'B2' });
    const b3 = await create('brands', { name: 'B3' });
    const cloud = await create('clouds', { email: 'c@example.com' });
    const account = (await create('yandex-webmaster/accounts', { name: 'Webmaster' }))._id;
    const d1 = await mkDomain({ domainName: 'd1.example', brandId: b1._id, cloudId: cloud._id });
    const d2 = await mkDomain({ domainName: 'd2.example', brandId: b2._id, yandexWebmasterAccountId: account });
    await mkDomain({ domainName: 'd3.example', cloudId: cloud._id, yandexWebmasterAccountId: account }); // no brand

    const marks = async (query: string) => {
      const res = await call('GET', `/api/brands?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return Object.fromEntries(
        res
          .json()
          .data.items.map(
            (b: { name: string; isInUseCloudId?: boolean; isInUseYandexWebmasterAccountId?: boolean }) => [
              b.name,
              [b.isInUseCloudId, b.isInUseYandexWebmasterAccountId],
            ],
          ),
      );
    };
    expect(await marks(`checkInUseCloudId=${cloud._id}`)).toEqual({
      B1: [true, undefined],
      B2: [false, undefined],
      B3: [false, undefined],
    });
    expect(await marks(`checkInUseCloudId=${cloud._id}&checkInUseCloudIdDomainId=${d1._id}`)).toMatchObject({
      B1: [false, undefined],
    });
    expect(
      await marks(
        `checkInUseYandexWebmasterAccountId=${account}&checkInUseYandexWebmasterAccountIdDomainId=${d1._id}` +
          `&checkInUseCloudId=${cloud._id}&checkInUseCloudIdDomainId=${d2._id}`,
      ),
    ).toEqual({ B1: [true, false], B2: [false, true], B3: [false, false] });
    expect(
      await marks(`checkInUseYandexWebmasterAccountId=${account}&checkInUseYandexWebmasterAccountIdDomainId=${d2._id}`),
    ).toMatchObject({ B2: [undefined, false] });
    expect(b3).toBeTruthy();
  });
});

describe('Setup WAF', () => {
  it('stores the rule set in order, ignores repeated rules (the first wins) and refuses unknown templates', async () => {
    const r1 = await rule('Block bad bots', 5);
    const r2 = await rule('Challenge RU', 7);
    const d = await mkDomain({ domainName: 'waf.example' });
    const url = `/api/domains/${d._id}/firewall-rules`;
    expect((await call('GET', url)).json()).toEqual({ data: { items: [] } });

    const saved = await call('POST', url, {
      cloudFirewallRules: [
        { ruleId: r2._id, priority: 3 },
        { ruleId: r1._id, priority: '9' },
        { ruleId: r2._id, priority: 100 },
      ],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const items = [
      { ruleId: r2._id, ruleName: 'Challenge RU', action: 'block', expression: '(ip.src eq 1.2.3.4)', priority: 3 },
      { ruleId: r1._id, ruleName: 'Block bad bots', action: 'block', expression: '(ip.src eq 1.2.3.4)', priority: 9 },
    ];
    expect(saved.json().data.items).toEqual(items);
    expect((await call('GET', url)).json().data.items).toEqual(items);
    expect((await call('GET', `/api/domains/${d._id}`)).json().data.cloudFirewallRules).toEqual(
      items.map(({ expression: _e, ...r }) => r),
    );

    const unknown = await call('POST', url, {
      cloudFirewallRules: [
        { ruleId: r1._id, priority: 1 },
        { ruleId: MISSING, priority: 1 },
      ],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().fields).toEqual({ 'cloudFirewallRules.1.ruleId': 'The firewall rule does not exist' });
    const badPriority = await call('POST', url, { cloudFirewallRules: [{ ruleId: r1._id, priority: -1 }] });
    expect(badPriority.statusCode).toBe(400);
    expect((await call('GET', url)).json().data.items).toHaveLength(2);

    expect((await call('GET', `/api/domains/${MISSING}/firewall-rules`)).statusCode).toBe(404);
    expect((await call('POST', `/api/domains/${MISSING}/firewall-rules`, { cloudFirewallRules: [] })).statusCode).toBe(
      404,
    );

    // A template in use cannot be deleted; once the domain drops it, it can.
    const del = await call('DELETE', `/api/firewall-rules/${r1._id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toContain('1 domain (waf.example)');
    expect((await call('POST', url, { cloudFirewallRules: [] })).json().data.items).toEqual([]);
    expect((await call('DELETE', `/api/firewall-rules/${r1._id}`)).statusCode).toBe(200);

    // Deleting the domain drops its rule set.
    await call('POST', url, { cloudFirewallRules: [{ ruleId: r2._id, priority: 1 }] });
    expect((await call('DELETE', `/api/domains/${d._id}`)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/firewall-rules/${r2._id}`)).statusCode).toBe(200);
  });
});

describe('referential integrity', () => {
  it('refuses to delete a server, brand, cloud, region, registrator or template that a domain uses', async () => {
    const region = await create('regions', { name: 'EU' });
    const brand = await create('brands', { name: 'Aurora' });
    const cloud = await create('clouds', { email: 'cf@example.com' });
    const server = await create('servers', { IPAddress: '5.6.7.8' });
    const reg = await registrator('NC');
    const tpl = await rule('T1');
    const refs = {
      serverId: server._id,
      brandId: brand._id,
      cloudId: cloud._id,
      parserProxyRegionId: region._id,
      domainRegistratorId: reg._id,
    };
    const ds = [];
    for (const name of ['one', 'two', 'three', 'four', 'five'])
      ds.push(await mkDomain({ domainName: `${name}.example`, ...refs }));
    await call('POST', `/api/domains/${ds[0]!._id}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: tpl._id, priority: 1 }],
    });

    const targets = [
      ['servers', server._id, 'server'],
      ['brands', brand._id, 'brand'],
      ['clouds', cloud._id, 'cloud'],
      ['regions', region._id, 'region'],
      ['domain-registrators', reg._id, 'domain registrator'],
    ] as const;
    for (const [resource, id, label] of targets) {
      const res = await call('DELETE', `/api/${resource}/${id}`);
      expect(res.statusCode, resource).toBe(409);
      expect(res.json().message, resource).toBe(
        `This ${label} cannot be deleted: it is used by 5 domains (one.example, two.example, three.example, and 2 more)`,
      );
    }
    const tplRes = await call('DELETE', `/api/firewall-rules/${tpl._id}`);
    expect(tplRes.statusCode).toBe(409);
    expect(tplRes.json().message).toBe('This firewall rule cannot be deleted: it is used by 1 domain (one.example)');

    for (const d of ds) expect((await call('DELETE', `/api/domains/${d._id}`)).statusCode).toBe(200);
    for (const [resource, id] of targets) expect((await call('DELETE', `/api/${resource}/${id}`)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/firewall-rules/${tpl._id}`)).statusCode).toBe(200);
  });
});

describe('export', () => {
  const parseCsv = (bom: string): string[][] => {
    expect(bom.startsWith('\uFEFF')).toBe(true);
    const text = bom.slice(1);
    const rows: string[][] = [];
    let row: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') {
          field += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else field += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        row.push(field);
        field = '';
      } else if (ch === '\r' && text[i + 1] === '\n') {
        row.push(field);
        rows.push(row);
        row = [];
        field = '';
        i++;
      } else field += ch;
    }
    return rows;
  };

  it('streams a CSV with a header row, every column, proper quoting, and the search applied', async () => {
    const brand = await create('brands', { name: 'Smith, "Jones"\nand Co' });
    const cloud = await create('clouds', { email: 'cf@example.com' });
    const server = await create('servers', { IPAddress: '5.6.7.8' });
    const reg = await registrator('NC');
    const d = await mkDomain({
      domainName: 'bücher.example',
      redirectDomainName: 'www.example.net',
      brandId: brand._id,
      cloudId: cloud._id,
      serverId: server._id,
      domainRegistratorId: reg._id,
      domainRegistratorExpirationDate: '2026-01-15',
      isRestricted: true,
    });
    await t.c.services.domains.setCloudZone(d._id, { cloudZoneId: 'zone-123' }, systemActor('test'));
    await mkDomain({ domainName: 'plain.example', status: 'inactive' });

    const res = await call('GET', '/api/domains/export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="domains.csv"');
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual([...DOMAIN_EXPORT_COLUMNS]);
    expect(rows.slice(1)).toEqual([
      [
        '1',
        'bücher.example',
        'xn--bcher-kva.example',
        'www.example.net',
        '2026-01-15',
        'Yes',
        'active',
        '5.6.7.8',
        'Smith, "Jones"\nand Co',
        'cf@example.com',
        'NC',
        'zone-123',
      ],
      ['2', 'plain.example', 'plain.example', '', '', '', 'inactive', '', '', '', '', ''],
    ]);
    expect(res.body).toContain('"Smith, ""Jones""\nand Co"');

    const searched = parseCsv((await call('GET', '/api/domains/export?search=PLAIN')).body);
    expect(searched.map((r) => r[1])).toEqual(['Domain Name', 'plain.example']);
    const none = parseCsv((await call('GET', '/api/domains/export?search=nothing-like-this')).body);
    expect(none).toHaveLength(1);

    // The list's column chooser: the spec's columns and the chosen ones, in the list's order, whatever the query's.
    const chosen = parseCsv((await call('GET', '/api/domains/export?columns=yandexAccount,cloud,brand')).body);
    expect(chosen[0]).toEqual([
      ...DOMAIN_EXPORT_COLUMNS.slice(0, 7),
      'Brand',
      'Cloud',
      'Cloud Zone Id',
      'Yandex Webmaster Account',
    ]);
    expect(chosen[1]!.slice(7)).toEqual(['Smith, "Jones"\nand Co', 'cf@example.com', 'zone-123', '']);
    const specOnly = parseCsv((await call('GET', '/api/domains/export?columns=none')).body);
    expect(specOnly[0]).toEqual([...DOMAIN_EXPORT_COLUMNS.slice(0, 7)]);
    const bad = await call('GET', '/api/domains/export?columns=server,password');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('Columns must be among server, brand, cloud, registrator, yandexAccount');
  });

  it('reads the database in batches (keyset on the number), so a large export never sits in memory', async () => {
    await t.c.database.exec(
      `insert into domains (domain_name, domain_name_unicode)
       select 'bulk' || g || '.example', 'bulk' || g || '.example' from generate_series(1, 2345) g`,
    );
    await t.c.database.exec(`delete from domains where domain_name in ('bulk7.example', 'bulk1000.example')`);
    // The unfiltered count comes from the trigger-kept counter: exact after bulk SQL too.
    expect((await call('GET', '/api/domains')).json().data.itemsCount).toBe(2343);
    expect((await call('GET', '/api/domains?search=bulk')).json().data.itemsCount).toBe(2343);
    const chunks: string[] = [];
    for await (const chunk of t.c.services.domains.exportCsv({}, { batchSize: 500 })) chunks.push(chunk);
    expect(chunks).toHaveLength(1 + 5);
    const lines = chunks.join('').slice(1).trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + 2343);
    const numbers = lines.slice(1).map((l) => Number(l.split(',')[0]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(2343);

    const res = await call('GET', '/api/domains/export?search=bulk23');
    const body = res.body.trimEnd().split('\r\n');
    // bulk23, bulk230–bulk239, bulk2300–bulk2345
    expect(body).toHaveLength(1 + 1 + 10 + 46);
  });

  it('quotes fields holding commas, quotes and line breaks', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('plain')).toBe('plain');
    expect(csvField(null)).toBe('');
    expect(csvField(12)).toBe('12');
  });

  it('neutralises cells a spreadsheet would run as a formula (OWASP), and starts with a UTF-8 BOM', async () => {
    for (const [raw, safe] of [
      ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
      ['+1+2', "'+1+2"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tcmd', "'\tcmd"],
      ['\rcmd', `"'\rcmd"`],
      ['a=b', 'a=b'],
    ] as const)
      expect(csvField(raw), raw).toBe(safe);
    expect(csvField(-5)).toBe('-5');

    const brand = await create('brands', { name: '=HYPERLINK("http://evil.example","click")' });
    await mkDomain({ domainName: 'formula.example', brandId: brand._id });
    const res = await call('GET', '/api/domains/export');
    expect(res.statusCode).toBe(200);
    const rows = parseCsv(res.body);
    expect(rows[1]![8]).toBe(`'=HYPERLINK("http://evil.example","click")`);
  });

  it('exports and finds an internationalised name by its ASCII (punycode) form as well as its Unicode form', async () => {
    await mkDomain({ domainName: 'münchen.de' });
    await mkDomain({ domainName: 'bücher-welt.de' });
    await mkDomain({ domainName: 'plain.example' });
    const names = async (search: string) =>
      (await call('GET', `/api/domains?search=${encodeURIComponent(search)}`))
        .json()
        .data.items.map((d: { domainNameUnicode: string }) => d.domainNameUnicode);
    expect(await names('xn--mnchen')).toEqual(['münchen.de']);
    expect(await names('XN--BCHER-WELT-9DB.DE')).toEqual(['bücher-welt.de']);
    expect(await names('münch')).toEqual(['münchen.de']);
    const rows = parseCsv((await call('GET', '/api/domains/export?search=xn--bcher')).body);
    expect(rows.slice(1).map((r) => [r[1], r[2]])).toEqual([['bücher-welt.de', 'xn--bcher-welt-9db.de']]);
  });

  it('refuses a NUL in the search with a 400 before the first byte of the file, and in the list search', async () => {
    await mkDomain({ domainName: 'nul.example' });
    for (const url of ['/api/domains/export?search=nul%00x', '/api/domains?search=nul%00x']) {
      const res = await call('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().fields.search).toBe('Must not contain a NUL character');
    }
  });
});

describe('cloud zone and permissions', () => {
  it('lets the Cloudflare actions write the zone and ruleset ids, with an audit entry', async () => {
    const d = await mkDomain({ domainName: 'zone.example' });
    const actor = systemActor('test');
    const set = await t.c.services.domains.setCloudZone(d._id, { cloudZoneId: 'z1', cloudRulesetId: 'rs1' }, actor);
    expect(set).toMatchObject({ cloudZoneId: 'z1', cloudRulesetId: 'rs1' });
    const unset = await t.c.services.domains.setCloudZone(d._id, { cloudRulesetId: null }, actor);
    expect(unset).toMatchObject({ cloudZoneId: 'z1', cloudRulesetId: null });
    await expect(t.c.services.domains.setCloudZone(MISSING, { cloudZoneId: 'x' }, actor)).rejects.toThrow(
      'Domain not found',
    );
    // The form cannot write them.
    const res = await call('PATCH', `/api/domains/${d._id}`, { cloudZoneId: 'hacked' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cloudZoneId).toBe('z1');
  });

  it('needs cnv:domains (or cnv) on every domains route', async () => {
    const d = await mkDomain({ domainName: 'perm.example' });
    const other = await t.tokenFor(['cnv:servers', 'cnv:brands']);
    const own = await t.tokenFor(['cnv:domains']);
    const urls: [Method, string][] = [
      ['GET', '/api/domains'],
      ['GET', '/api/domains/export'],
      ['GET', `/api/domains/${d._id}`],
      ['GET', `/api/domains/${d._id}/firewall-rules`],
    ];
    for (const [method, url] of urls) {
      expect((await t.inject({ method, url })).statusCode, url).toBe(401);
      expect((await call(method, url, undefined, other)).statusCode, url).toBe(403);
      expect((await call(method, url, undefined, own)).statusCode, url).toBe(200);
    }
    expect((await call('PATCH', `/api/domains/${d._id}`, { status: 'inactive' }, other)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/domains/${d._id}`, undefined, other)).statusCode).toBe(403);
    expect((await call('DELETE', `/api/domains/${d._id}`, undefined, own)).statusCode).toBe(200);
  });
});

describe('demo seed', () => {
  it('creates about 60 domains across the brands, servers and clouds, skipping full servers, and can run twice', async () => {
    const { seedDemoDomains } = await import('../../demo/seed-domains.ts');
    const actor = systemActor('demo-seed');
    for (const name of ['Aurora', 'Bluefin', 'Cobalt']) await create('brands', { name });
    await create('clouds', { email: 'one@example.com' });
    await create('clouds', { email: 'two@example.com' });
    const small = await create('servers', { IPAddress: '10.0.0.1', domainsLimitQty: 3 });
    await create('servers', { IPAddress: '10.0.0.2' });
    await rule('Block bots');
    expect(await seedDemoDomains(t.c, actor)).toBe(60);
    expect(await seedDemoDomains(t.c, actor)).toBe(0);
    const list = (await call('GET', '/api/domains')).json().data;
    expect(list.itemsCount).toBe(60);
    expect((await call('GET', `/api/servers/${small._id}`)).json().data.domainsQty).toBe(3);
    const idn = (await call('GET', `/api/domains?search=${encodeURIComponent('bücher')}`)).json().data.items;
    expect(idn.map((d: { domainNameUnicode: string }) => d.domainNameUnicode)).toEqual(['bücher-welt.de']);

    // With nothing to link to, the domains are created without links.
    await t.reset();
    expect(await seedDemoDomains(t.c, actor)).toBe(60);
  });
});

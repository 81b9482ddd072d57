import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REGISTRAR_TEXT } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { REGISTRANT, useAdminCalls, useTestApp } from '../../test/fixtures.ts';

let cfSim: CloudflareSim;
let nc: NamecheapSim;
let seq = 0;
const KEY = 'nc-api-key-for-tests-0123';

const t = useTestApp(
  () => ({
    CLOUDFLARE_API_URL: cfSim.url,
    CLOUDFLARE_TIMEOUT_SECONDS: '5',
    NAMECHEAP_CLIENT_IP: '198.51.100.7',
    NAMECHEAP_TIMEOUT_SECONDS: '1',
    NAMECHEAP_CALLS_PER_MINUTE: '10000',
  }),
  {
    before: async () => {
      cfSim = await startCloudflareSim();
      nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
    },
    after: () => Promise.all([cfSim?.close(), nc?.close()]),
    each: () => nc.clearFailures(),
  },
);
const { call, create } = useAdminCalls(t);
const unique = (p: string) => `${p}-${++seq}-${Math.random().toString(36).slice(2, 7)}`;

/** A Namecheap account in the simulator and the registrator holding its credentials. */
async function registrator(opts: { apiKey?: string } = {}) {
  const apiUser = unique('acct').slice(0, 20);
  nc.addAccount({ apiUser, apiKey: KEY, balance: 200 });
  const r = await create('domain-registrators', {
    name: unique('Namecheap'),
    type: 'namecheap',
    credentials: { endpointUrl: nc.url, apiUsername: apiUser, apiKey: opts.apiKey ?? KEY },
  });
  return { id: r._id, apiUser };
}
const contact = (over: object = {}) =>
  create('domain-registrators-contacts', {
    name: unique('Registrant'),
    ...REGISTRANT,
    ...over,
  });
const domain = (name: string, over: object = {}) => create('domains', { domainName: name, status: 'active', ...over });
const getDomain = async (id: string) => (await call('GET', `/api/domains/${id}`)).json().data;
const info = (registratorId: string, domainName: string) =>
  call('GET', `/api/domain-registrators/${registratorId}/domain-info?domainName=${encodeURIComponent(domainName)}`);
const auditOf = async (entity: string, id: string) =>
  (await call('GET', `/api/audit-log?entity=${entity}&entityId=${id}`)).json().data.items as {
    action: string;
    details: Record<string, unknown>;
  }[];

describe('domain info', () => {
  it('success: status and expiration date, stored on the domain so the list shows it', async () => {
    const reg = await registrator();
    const name = `${unique('site')}.com`;
    nc.addDomain(reg.apiUser, name, { expires: '2027-08-09' });
    const d = await domain(name, { domainRegistratorId: reg.id });
    const res = await info(reg.id, name);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: `Namecheap: ${name} is in the account`,
      data: { status: 'Ok', expirationDate: '2027-08-09' },
    });
    expect((await getDomain(d._id)).domainRegistratorExpirationDate).toBe('2027-08-09');
    const list = (await call('GET', `/api/domains?search=${name}`)).json().data.items;
    expect(list[0].domainRegistratorExpirationDate).toBe('2027-08-09');
    expect((await auditOf('domains', d._id)).map((e) => e.action)).toContain('set_registrator_expiration');
    // A second check with the same date changes nothing.
    await info(reg.id, name);
    const actions = (await auditOf('domains', d._id)).map((e) => e.action);
    expect(actions.filter((a) => a === 'set_registrator_expiration')).toHaveLength(1);
  });

  it('an IDN name goes to Namecheap in punycode', async () => {
    const reg = await registrator();
    nc.addDomain(reg.apiUser, 'тест-домен.рф', { expires: '2028-01-02' });
    const d = await domain('тест-домен.рф', { domainRegistratorId: reg.id });
    const res = await info(reg.id, 'тест-домен.рф');
    expect(res.json().data).toEqual({ status: 'Ok', expirationDate: '2028-01-02' });
    expect(nc.requests.at(-1)?.params.domainname).toBe(domainToASCII('тест-домен.рф'));
    expect((await getDomain(d._id)).domainRegistratorExpirationDate).toBe('2028-01-02');
  });

  it('unsuccessful: a domain not in the account answers success false with Namecheap’s message', async () => {
    const reg = await registrator();
    const res = await info(reg.id, 'not-there.com');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: false,
      message: 'Namecheap 2019166: Domain not found',
      data: { status: null, expirationDate: null },
    });
    expect((await info(reg.id, 'google.com')).json().message).toBe(
      'Namecheap 2016166: Domain is not associated with your account',
    );
  });

  it('failure: bad key, timeout, bad input and an unknown registrator are errors, not results', async () => {
    const bad = await registrator({ apiKey: 'wrong-key-4567' });
    const res = await info(bad.id, 'x.com');
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe('Namecheap 1011102: API key is invalid or API access has not been enabled');
    expect(t.logs.join('\n')).not.toContain(KEY);
    expect(t.logs.join('\n')).not.toContain('wrong-key-4567');

    const reg = await registrator();
    nc.fail({ kind: 'slow', delayMs: 1500 });
    const slow = await info(reg.id, 'x.com');
    expect(slow.statusCode).toBe(504);
    expect(slow.json().message).toBe('Namecheap: timed out after 1000 ms');

    const empty = await call('GET', `/api/domain-registrators/${reg.id}/domain-info`);
    expect(empty.statusCode).toBe(400);
    expect((await info(reg.id, 'no dots here')).statusCode).toBe(400);
    expect((await info(reg.id, 'a'.repeat(300))).statusCode).toBe(400);
    const unknown = await info('00000000-0000-4000-8000-000000000000', 'x.com');
    expect(unknown.statusCode).toBe(404);
    expect(
      (
        await call(
          'GET',
          `/api/domain-registrators/${reg.id}/domain-info?domainName=x.com`,
          undefined,
          await t.tokenFor(['cnv:users']),
        )
      ).statusCode,
    ).toBe(403);
  });
});

describe('the registrator domain list and import', () => {
  it('pages and searches the account, marking names the console has', async () => {
    const reg = await registrator();
    for (let i = 0; i < 25; i++) nc.addDomain(reg.apiUser, `list-${String(i).padStart(2, '0')}.com`);
    await domain('list-03.com');
    const page1 = (await call('GET', `/api/domain-registrators/${reg.id}/domains`)).json().data;
    expect(page1.itemsCount).toBe(25);
    expect(page1.items).toHaveLength(20);
    expect(page1.items[3]).toMatchObject({
      domainName: 'list-03.com',
      existsInConsole: true,
      domainId: expect.any(String),
    });
    expect(page1.items[4]).toMatchObject({ domainName: 'list-04.com', existsInConsole: false, domainId: null });
    const page2 = (await call('GET', `/api/domain-registrators/${reg.id}/domains?page=2`)).json().data;
    expect(page2.items.map((d: { domainName: string }) => d.domainName)).toEqual([
      'list-20.com',
      'list-21.com',
      'list-22.com',
      'list-23.com',
      'list-24.com',
    ]);
    const found = (await call('GET', `/api/domain-registrators/${reg.id}/domains?search=list-1`)).json().data;
    expect(found.itemsCount).toBe(10);
    expect((await call('GET', `/api/domain-registrators/${reg.id}/domains?page=0`)).statusCode).toBe(400);
  });

  it('imports selected names with their expiration dates, past the first 100, skipping the others, audited', async () => {
    const reg = await registrator();
    for (let i = 0; i < 120; i++)
      nc.addDomain(reg.apiUser, `bulk-${String(i).padStart(3, '0')}.net`, { expires: '2027-01-15' });
    nc.addDomain(reg.apiUser, 'zz-last.org', { expires: '2026-12-24' });
    await domain('bulk-001.net');
    const res = await call('POST', `/api/domain-registrators/${reg.id}/import`, {
      domainNames: ['zz-last.org', 'bulk-110.net', 'bulk-001.net', 'elsewhere.com', 'ZZ-LAST.org'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json().data;
    expect(r.created.map((c: { domainName: string }) => c.domainName)).toEqual(['zz-last.org', 'bulk-110.net']);
    expect(r.skipped).toEqual([
      { domainName: 'bulk-001.net', reason: REGISTRAR_TEXT.alreadyInConsole },
      { domainName: 'elsewhere.com', reason: REGISTRAR_TEXT.notInAccount },
    ]);
    const created = await getDomain(r.created[0]._id);
    expect(created).toMatchObject({
      domainName: 'zz-last.org',
      domainRegistratorId: reg.id,
      domainRegistratorExpirationDate: '2026-12-24',
      status: 'active',
    });
    expect((await auditOf('domains', created._id)).map((e) => e.action)).toEqual(['create']);
    const imp = await auditOf('domain-registrators', reg.id);
    expect(imp[0]?.action).toBe('registrar_import');
    expect(imp[0]?.details.outcome).toBe('ok');

    const none = await call('POST', `/api/domain-registrators/${reg.id}/import`, { domainNames: [] });
    expect(none.statusCode).toBe(400);
    expect(none.json().fields.domainNames).toBe(REGISTRAR_TEXT.importNone);
    const many = await call('POST', `/api/domain-registrators/${reg.id}/import`, {
      domainNames: Array.from({ length: 101 }, (_, i) => `n${i}.com`),
    });
    expect(many.statusCode).toBe(400);
  });
});

describe('register', () => {
  it('warns when the domain has no registrator, the contact is missing or incomplete', async () => {
    const d = await domain(`${unique('plain')}.com`);
    const c = await contact();
    const res = await call('POST', `/api/domains/${d._id}/register`, { domainRegistratorContactId: c._id });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'Domain registrator is not selected: choose a registrator in the Domain Registrator tab',
    );

    const reg = await registrator();
    const d2 = await domain(`${unique('plain')}.com`, { domainRegistratorId: reg.id });
    const noBody = await call('POST', `/api/domains/${d2._id}/register`, {});
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().fields.domainRegistratorContactId).toBe(REGISTRAR_TEXT.contactRequired);
    const ghost = await call('POST', `/api/domains/${d2._id}/register`, {
      domainRegistratorContactId: '00000000-0000-4000-8000-000000000000',
    });
    expect(ghost.statusCode).toBe(400);
    expect(ghost.json().fields.domainRegistratorContactId).toBe(REGISTRAR_TEXT.noContact);
    const partial = await contact({ state: null, phone: null });
    const incomplete = await call('POST', `/api/domains/${d2._id}/register`, {
      domainRegistratorContactId: partial._id,
    });
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.json().message).toBe('The contact is missing what Namecheap requires: State, Phone');
  });

  it('without a zone: domains.create with the contact in all four roles and Namecheap’s default DNS', async () => {
    const reg = await registrator();
    const name = `${unique('fresh')}.com`;
    const d = await domain(name, { domainRegistratorId: reg.id });
    const c = await contact();
    const res = await call('POST', `/api/domains/${d._id}/register`, { domainRegistratorContactId: c._id });
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json().data;
    expect(r).toMatchObject({ domainName: name, registered: true, chargedAmount: '10.87', nameServers: null });
    expect(r.orderId).toEqual(expect.any(Number));
    const sent = nc.requests.find((q) => q.command === 'namecheap.domains.create' && q.params.domainname === name)!;
    for (const role of ['registrant', 'tech', 'admin', 'auxbilling']) {
      expect(sent.params[`${role}firstname`]).toBe('Dana');
      expect(sent.params[`${role}emailaddress`]).toBe('dana@example.org');
    }
    expect(sent.params.nameservers).toBeUndefined();
    // The expiration date lands on the domain, and the registration is audited.
    expect((await getDomain(d._id)).domainRegistratorExpirationDate).toBe(r.expirationDate);
    expect(r.expirationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await auditOf('domains', d._id)).map((e) => e.action)).toContain('namecheap_register');

    const again = await call('POST', `/api/domains/${d._id}/register`, { domainRegistratorContactId: c._id });
    expect(again.statusCode).toBe(502);
    expect(again.json().message).toMatch(/^Namecheap 3019166: /);
  });

  it('with a zone: the zone’s name servers go with the order', async () => {
    const reg = await registrator();
    const email = `${unique('ops')}@example.com`;
    const token = `${unique('tok')}-0123456789abcdef`;
    cfSim.addAccount({ email, token });
    const cloud = await create('clouds', { email, token });
    const name = `${unique('zoned')}.com`;
    const d = await domain(name, { domainRegistratorId: reg.id, cloudId: cloud._id });
    const zone = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
    expect(zone.statusCode, zone.body).toBe(200);
    const ns = zone.json().data.nameServers as string[];
    const c = await contact();
    const res = await call('POST', `/api/domains/${d._id}/register`, { domainRegistratorContactId: c._id, years: 2 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ nameServers: ns, chargedAmount: '21.74' });
    expect(nc.domain(reg.apiUser, name)?.nameServers).toEqual(ns);
  });
});

describe('set name servers at registrar', () => {
  it('points the domain at its zone’s name servers and shows before and after', async () => {
    const reg = await registrator();
    const email = `${unique('ops')}@example.com`;
    const token = `${unique('tok')}-0123456789abcdef`;
    cfSim.addAccount({ email, token });
    const cloud = await create('clouds', { email, token });
    const name = `${unique('move')}.com`;
    nc.addDomain(reg.apiUser, name);
    const d = await domain(name, { domainRegistratorId: reg.id, cloudId: cloud._id });

    const noZone = await call('POST', `/api/domains/${d._id}/registrar/name-servers`);
    expect(noZone.statusCode).toBe(400);
    expect(noZone.json().message).toBe(REGISTRAR_TEXT.noZone);

    const ns = (await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`)).json().data.nameServers;
    const res = await call('POST', `/api/domains/${d._id}/registrar/name-servers`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      domainName: name,
      before: ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'],
      after: ns,
      updated: true,
    });
    expect(nc.domain(reg.apiUser, name)?.nameServers).toEqual(ns);
    const entry = (await auditOf('domains', d._id)).find((e) => e.action === 'namecheap_set_name_servers');
    expect(entry?.details.outcome).toBe('ok');

    const plain = await domain(`${unique('plain')}.com`);
    const noReg = await call('POST', `/api/domains/${plain._id}/registrar/name-servers`);
    expect(noReg.statusCode).toBe(400);
    expect(noReg.json().message).toContain(REGISTRAR_TEXT.noRegistrator);
  });
});

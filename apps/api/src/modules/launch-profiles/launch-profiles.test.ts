import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LAUNCH_PROFILE_MESSAGES, NAMECHEAP_ENDPOINTS } from '@fleetdesk/contract';
import { startGoogleSearchSim, type GoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let g: GoogleSearchSim;
let admin: string;
beforeAll(async () => {
  // A Google account's key is proven by a token request on save: the simulator's token endpoint answers it.
  g = await startGoogleSearchSim();
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
  await g?.close();
});
beforeEach(async () => {
  await t.reset();
  admin = await t.tokenFor(['cnv']);
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, auth: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const PATH = '/api/launch-profiles';
const MISSING = '00000000-0000-4000-8000-000000000000';

async function make(resource: string, payload: object): Promise<string> {
  const res = await call('POST', `/api/${resource}`, admin, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data._id;
}

/** Everything a profile can point at. */
async function world() {
  const regionId = await make('regions', { name: 'EU' });
  const serverId = await make('servers', { IPAddress: '198.51.100.10' });
  const brandId = await make('brands', { name: 'Acme' });
  const cloudId = await make('clouds', { email: 'ops@example.com' });
  const domainRegistratorId = await make('domain-registrators', {
    name: 'Namecheap',
    type: 'namecheap',
    credentials: { endpointUrl: NAMECHEAP_ENDPOINTS[0].value, apiUsername: 'acme', apiKey: 'k'.repeat(32) },
  });
  const domainRegistratorContactId = await make('domain-registrators-contacts', { name: 'Owner' });
  const dnsTemplateId = await make('dns-templates', {
    name: 'Standard site',
    records: [{ type: 'A', name: '@', content: '{serverIp}', proxied: true }],
  });
  const firewallRuleId = await make('firewall-rules', { name: 'Bots', action: 'block', defaultPriority: 1 });
  const yandexWebmasterAccountId = await make('yandex-webmaster/accounts', { name: 'Main' });
  const googleSearchAccountId = await make('google-search/accounts', {
    name: 'Google main',
    serviceAccountKey: JSON.stringify(g.createServiceAccount('fleetdesk-console')),
  });
  const domainId = await make('domains', { domainName: 'template.example', status: 'active' });
  return {
    googleSearchAccountId,
    regionId,
    serverId,
    brandId,
    cloudId,
    domainRegistratorId,
    domainRegistratorContactId,
    dnsTemplateId,
    firewallRuleId,
    yandexWebmasterAccountId,
    domainId,
  };
}
type World = Awaited<ReturnType<typeof world>>;
const profile = (w: World, over: object = {}) => ({
  name: 'Demo launch',
  brandId: w.brandId,
  serverId: w.serverId,
  cloudId: w.cloudId,
  domainRegistratorId: w.domainRegistratorId,
  register: true,
  domainRegistratorContactId: w.domainRegistratorContactId,
  contentSource: { kind: 'copy', domainId: w.domainId },
  dnsTemplateId: w.dnsTemplateId,
  firewallRuleIds: [w.firewallRuleId],
  sslMode: 'strict',
  tls13: true,
  yandexWebmasterAccountId: w.yandexWebmasterAccountId,
  googleSearchAccountId: w.googleSearchAccountId,
  ...over,
});

describe('/api/launch-profiles', () => {
  it('creates (201), reads, lists with search, updates, deletes; 404 after', async () => {
    const w = await world();
    const h = await t.tokenFor(['cnv:domains']);
    const created = await call('POST', PATH, h, profile(w));
    expect(created.statusCode, created.body).toBe(201);
    const p = created.json().data;
    expect(p).toEqual({ _id: expect.any(String), launchProfileNo: 1, ...profile(w) });
    expect((await call('GET', `${PATH}/${p._id}`, h)).json().data).toEqual(p);
    expect((await call('GET', `${PATH}?search=demo`, h)).json().data).toEqual({ items: [p], itemsCount: 1 });

    const parse = { kind: 'parse', url: 'https://donor.example/', regionId: w.regionId };
    const put = await call(
      'PUT',
      `${PATH}/${p._id}`,
      h,
      profile(w, { contentSource: parse, register: false, tls13: false }),
    );
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ contentSource: parse, register: false, tls13: false });

    const minimal = await call('POST', PATH, h, { name: 'Bare', serverId: w.serverId, cloudId: w.cloudId });
    expect(minimal.statusCode, minimal.body).toBe(201);
    expect(minimal.json().data).toMatchObject({
      brandId: null,
      contentSource: { kind: 'none' },
      dnsTemplateId: null,
      firewallRuleIds: [],
      sslMode: 'strict',
      tls13: true,
      yandexWebmasterAccountId: null,
      googleSearchAccountId: null,
    });

    expect((await call('DELETE', `${PATH}/${p._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `${PATH}/${p._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Launch profile not found');
  });

  it('answers 400 with per-field errors for bad input and for references that do not exist', async () => {
    const w = await world();
    const empty = await call('POST', PATH, admin, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toMatchObject({
      name: 'Name is required',
      serverId: LAUNCH_PROFILE_MESSAGES.serverId,
      cloudId: LAUNCH_PROFILE_MESSAGES.cloudId,
    });
    const copyWithout = await call('POST', PATH, admin, profile(w, { contentSource: { kind: 'copy' } }));
    expect(copyWithout.json().fields).toEqual({ 'contentSource.domainId': LAUNCH_PROFILE_MESSAGES.contentDomainId });

    const unknown = await call(
      'POST',
      PATH,
      admin,
      profile(w, {
        serverId: MISSING,
        dnsTemplateId: MISSING,
        firewallRuleIds: [w.firewallRuleId, MISSING],
        contentSource: { kind: 'copy', domainId: MISSING },
      }),
    );
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().fields).toEqual({
      serverId: LAUNCH_PROFILE_MESSAGES.missing('server'),
      dnsTemplateId: LAUNCH_PROFILE_MESSAGES.missing('DNS template'),
      'contentSource.domainId': LAUNCH_PROFILE_MESSAGES.missing('domain to copy from'),
      firewallRuleIds: LAUNCH_PROFILE_MESSAGES.missingFirewallRules(1),
    });
    const one = await call('POST', PATH, admin, profile(w, { yandexWebmasterAccountId: MISSING }));
    expect(one.json().message).toBe(LAUNCH_PROFILE_MESSAGES.missing('Yandex Webmaster account'));
    const noGoogle = await call('POST', PATH, admin, profile(w, { googleSearchAccountId: MISSING }));
    expect(noGoogle.statusCode).toBe(400);
    expect(noGoogle.json().fields).toEqual({
      googleSearchAccountId: LAUNCH_PROFILE_MESSAGES.missing('Google account'),
    });
    const badGoogle = await call('POST', PATH, admin, profile(w, { googleSearchAccountId: 'nope' }));
    expect(badGoogle.json().fields).toEqual({ googleSearchAccountId: 'Google account must be a valid id' });
    expect((await call('GET', PATH, admin)).json().data.itemsCount).toBe(0);

    expect((await call('POST', PATH, admin, profile(w))).statusCode).toBe(201);
    const dup = await call('POST', PATH, admin, profile(w, { name: 'DEMO LAUNCH' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().fields).toEqual({ name: 'A launch profile with this name already exists' });
  });

  it('keeps what a profile uses: 409 on deleting its template, server, rule or copy source; In Use on the template', async () => {
    const w = await world();
    const p = (await call('POST', PATH, admin, profile(w))).json().data;
    const tpl = await call('GET', `/api/dns-templates/${w.dnsTemplateId}`, admin);
    expect(tpl.json().data.isInUse).toBe(true);
    expect((await call('GET', '/api/dns-templates', admin)).json().data.items[0].isInUse).toBe(true);

    const del = await call('DELETE', `/api/dns-templates/${w.dnsTemplateId}`, admin);
    expect(del.statusCode).toBe(409);
    expect(del.json()).toMatchObject({
      code: 'in_use',
      message: 'This DNS template cannot be deleted: it is used by 1 launch profile (Demo launch)',
    });
    for (const url of [
      `/api/servers/${w.serverId}`,
      `/api/firewall-rules/${w.firewallRuleId}`,
      `/api/domains/${w.domainId}`,
      `/api/yandex-webmaster/accounts/${w.yandexWebmasterAccountId}`,
      `/api/google-search/accounts/${w.googleSearchAccountId}`,
    ]) {
      const res = await call('DELETE', url, admin);
      expect(res.statusCode, url).toBe(409);
      expect(res.json().message, url).toContain('1 launch profile (Demo launch)');
    }

    expect((await call('DELETE', `${PATH}/${p._id}`, admin)).statusCode).toBe(200);
    expect((await call('GET', `/api/dns-templates/${w.dnsTemplateId}`, admin)).json().data.isInUse).toBe(false);
    expect((await call('DELETE', `/api/dns-templates/${w.dnsTemplateId}`, admin)).statusCode).toBe(200);
  });

  it('is guarded by cnv:domains and audits create, update and delete', async () => {
    const w = await world();
    const other = await t.tokenFor(['cnv:servers']);
    expect((await call('GET', PATH, other)).statusCode).toBe(403);
    const id = (await call('POST', PATH, admin, profile(w))).json().data._id;
    await call('PUT', `${PATH}/${id}`, admin, profile(w, { sslMode: 'full' }));
    await call('DELETE', `${PATH}/${id}`, admin);
    const log = (await call('GET', `/api/audit-log?entity=launch-profiles&entityId=${id}`, admin)).json().data;
    expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(log.items[1].diff).toEqual({ sslMode: { before: 'strict', after: 'full' } });
  });
});

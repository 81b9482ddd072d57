import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema/index.ts';
import { LAUNCH_STAGES, type Alert, type Launch, type LaunchPlan, type LaunchStageKey } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import { startIndexNowSim, type IndexNowSim } from '@fleetdesk/simulators/indexnow/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import {
  cloudflareTxtLookup,
  directoryFileLookup,
  startYandexWebmasterSim,
  type YandexWebmasterSim,
} from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { startGoogleSearchSim, type GoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { REGISTRANT } from '../../test/fixtures.ts';
import { STAGES } from './stages/index.ts';

// Launches end to end against the simulators: Namecheap, Cloudflare, DirectAdmin, an SSH host, Yandex Webmaster,
// IndexNow, Google Search Console.
let t: TestApp;
let indexNow: IndexNowSim;
let cf: CloudflareSim;
let nc: NamecheapSim;
let da: DirectAdminSim;
let ya: YandexWebmasterSim;
let g: GoogleSearchSim;
let host: SshHost;
let h: string;
let seq = 0;
const sshKey = generateKeyPair('ed25519');
const DA_PASSWORD = 'da-admin-pa55word';
const NC_KEY = 'nc-api-key-for-tests-0123';

type Fixture = {
  cloudId: string;
  registratorId: string;
  apiUser: string;
  contactId: string;
  serverId: string;
  yandexId: string;
  /** A Google account (its service account in the simulator) and a profile naming it. */
  google: { accountId: string; email: string; profileId: string };
  ruleId: string;
  sourceId: string;
  sourceName: string;
};
let fx: Fixture;

beforeAll(async () => {
  [cf, host] = await Promise.all([startCloudflareSim(), startSshHost({ authorizedKeys: [sshKey.publicLine] })]);
  fs.mkdirSync(path.join(host.rootDir, 'www'));
  ya = await startYandexWebmasterSim({ verifyDelayMs: 0, dnsTxtLookup: cloudflareTxtLookup(cf) });
  da = await startDirectAdminSim({
    users: [
      { username: 'admin', password: DA_PASSWORD, level: 'admin' },
      { username: 'web', password: 'web-pa55word', domains: [] },
    ],
  });
  nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
  // Google reads the TXT record in the zones and the sitemap from the SSH host's site directories.
  g = await startGoogleSearchSim({
    dnsTxtLookup: cloudflareTxtLookup(cf),
    fileLookup: directoryFileLookup((name) => path.join(host.rootDir, 'www', name)),
  });
  // IndexNow reads the key files from the SSH host's site directories, as it would from the sites.
  indexNow = await startIndexNowSim({
    fileLookup: directoryFileLookup((name) => path.join(host.rootDir, 'www', name)),
  });
  t = await createTestApp(
    {
      INDEXNOW_ENDPOINT: indexNow.url,
      CLOUDFLARE_API_URL: cf.url,
      CLOUDFLARE_TIMEOUT_SECONDS: '5',
      YANDEX_WEBMASTER_API_URL: ya.url,
      GOOGLE_SEARCH_CONSOLE_API_URL: g.url,
      GOOGLE_SITE_VERIFICATION_API_URL: g.siteVerificationUrl,
      GOOGLE_SEARCH_TIMEOUT_SECONDS: '5',
      DIRECTADMIN_TIMEOUT_SECONDS: '3',
      NAMECHEAP_CLIENT_IP: '198.51.100.7',
      NAMECHEAP_TIMEOUT_SECONDS: '3',
      NAMECHEAP_CALLS_PER_MINUTE: '10000',
      LAUNCH_WAIT_FIRST_SECONDS: '0.1',
      LAUNCH_WAIT_MAX_SECONDS: '0.3',
      LAUNCH_WAIT_LIMIT_MINUTES: '0.5',
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
  fx = await fixture();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([cf?.close(), nc?.close(), da?.close(), ya?.close(), g?.close(), host?.close(), indexNow?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';
const call = (method: Method, url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (p: string) => `${p}-${++seq}-${crypto.randomBytes(3).toString('hex')}`;

async function fixture(): Promise<Fixture> {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('token')}-0123456789abcdef`;
  cf.addAccount({ email, token });
  const cloudId = (await create('clouds', { email, token }))._id;
  const apiUser = unique('acct').slice(0, 20);
  nc.addAccount({ apiUser, apiKey: NC_KEY, balance: 500 });
  const registratorId = (
    await create('domain-registrators', {
      name: unique('Namecheap'),
      type: 'namecheap',
      credentials: { endpointUrl: nc.url, apiUsername: apiUser, apiKey: NC_KEY },
    })
  )._id;
  const contactId = (
    await create('domain-registrators-contacts', {
      name: unique('Registrant'),
      ...REGISTRANT,
    })
  )._id;
  const serverId = await server();
  const yaToken = unique('ya-token');
  ya.addUser(yaToken);
  const yandexId = (await create('yandex-webmaster/accounts', { name: unique('Yandex'), apiToken: yaToken }))._id;
  // As the demo's: a service account named fleetdesk-console, named by a launch profile.
  const key = g.createServiceAccount('fleetdesk-console', { projectId: 'fleetdesk-demo' });
  const googleId = (
    await create('google-search/accounts', { name: unique('Google'), serviceAccountKey: JSON.stringify(key) })
  )._id;
  const googleProfile = await create('launch-profiles', {
    name: unique('Google profile'),
    serverId,
    cloudId,
    googleSearchAccountId: googleId,
  });
  expect(googleProfile.googleSearchAccountId).toBe(googleId);
  const ruleId = (
    await create('firewall-rules', {
      name: unique('Block bots'),
      action: 'block',
      expression: '(http.user_agent contains "badbot")',
      defaultPriority: 1,
    })
  )._id;
  // The template site: three pages that name it, and a binary file.
  const sourceName = `${unique('template')}.com`;
  const source = await create('domains', { domainName: sourceName, status: 'active', serverId });
  const dir = path.join(host.rootDir, 'www', sourceName);
  fs.mkdirSync(path.join(dir, 'blog'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), `<a href="https://${sourceName}/blog/">${sourceName}</a>`);
  fs.writeFileSync(path.join(dir, 'about.html'), `<h1>About ${sourceName.toUpperCase()}</h1>`);
  fs.writeFileSync(path.join(dir, 'blog', 'index.html'), '<h1>Blog</h1>');
  fs.writeFileSync(path.join(dir, 'logo.bin'), crypto.randomBytes(2048));
  return {
    cloudId,
    registratorId,
    apiUser,
    contactId,
    serverId,
    yandexId,
    google: { accountId: googleId, email: key.client_email, profileId: googleProfile._id },
    ruleId,
    sourceId: source._id,
    sourceName,
  };
}

async function server(over: object = {}) {
  const s = await create('servers', {
    IPAddress: '127.0.0.1',
    email: 'da@example.com',
    sshPort: host.port,
    domainsPath: '/www',
    domainsLimitQty: 100,
    directAdminUri: da.url,
    directAdminUsername: 'admin|web',
    directAdminPassword: DA_PASSWORD,
    ...over,
  });
  const key = await call('POST', `/api/servers/${s._id}/rsa-key`, { rsaKey: sshKey.privateKey });
  expect(key.statusCode, key.body).toBe(200);
  return s._id;
}

/** The whole launch input: everything a profile would fill in, given explicitly. */
const full = (domainName: string, over: object = {}) => ({
  domainName,
  serverId: fx.serverId,
  cloudId: fx.cloudId,
  registration: { domainRegistratorId: fx.registratorId, register: true, contactId: fx.contactId, years: 1 },
  content: { type: 'copy', fromDomainId: fx.sourceId },
  dnsRecords: [
    { type: 'A', name: '@', content: '{serverIp}', proxied: true, ttl: 1 },
    { type: 'CNAME', name: 'www', content: '{domain}', proxied: true, ttl: 1 },
    { type: 'TXT', name: '@', content: 'v=spf1 -all', proxied: false, ttl: 1 },
  ],
  firewallRules: [{ ruleId: fx.ruleId, priority: 5 }],
  sslMode: 'strict',
  tls13: true,
  yandexWebmasterAccountId: fx.yandexId,
  verification: 'DNS',
  ...over,
});

const planOf = async (input: object): Promise<LaunchPlan> => {
  const res = await call('POST', '/api/launches', { ...input, dryRun: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const start = async (input: object): Promise<Launch> => {
  const res = await call('POST', '/api/launches', input);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
};
const get = async (id: string): Promise<Launch> => (await call('GET', `/api/launches/${id}`)).json().data;
/** Polls the launch until `done` holds (bounded). */
async function until(id: string, done: (l: Launch) => boolean, ms = 30_000): Promise<Launch> {
  const end = Date.now() + ms;
  for (;;) {
    const l = await get(id);
    if (done(l)) return l;
    if (Date.now() > end)
      throw new Error(
        `launch ${id} stuck: ${JSON.stringify({ state: l.state, error: l.error, stages: l.stages.map((s) => [s.key, s.state, s.error]) })}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
const stage = (l: Launch, key: LaunchStageKey) => l.stages.find((s) => s.key === key)!;
const settled = (l: Launch) => ['completed', 'failed', 'cancelled', 'needs_confirmation'].includes(l.state);
const zoneOf = async (domainId: string) =>
  (await call('GET', `/api/domains/${domainId}`)).json().data.cloudZoneId as string;

describe('stages', () => {
  it("are the contract's stages, in its order", () => {
    expect(STAGES.map((s) => s.key)).toEqual(LAUNCH_STAGES.map((s) => s.key));
  });
});

describe('plan (dryRun)', () => {
  it('answers every stage in order with what it will do, changing nothing', async () => {
    const name = `${unique('plan')}.com`;
    const p = await planOf(full(name));
    expect(p.blockers).toEqual([]);
    expect(p.steps.map((s) => s.key)).toEqual(LAUNCH_STAGES.map((s) => s.key));
    expect(p.steps.find((s) => s.key === 'register')).toMatchObject({ outcome: 'confirm' });
    // The cost as Namecheap prices it now (users.getPricing), before anything is bought.
    expect(p.steps.find((s) => s.key === 'register')!.detail).toBe(
      `Register ${name} for 1 year (this costs money: 10.87 USD at Namecheap's price); the launch stops here until you confirm`,
    );
    expect(p.steps.find((s) => s.key === 'dns')!.detail).toContain(`A ${name} → 127.0.0.1`);
    expect(p.steps.find((s) => s.key === 'content')!.detail).toContain(fx.sourceName);
    const ids = (await call('GET', `/api/domains?search=${name}`)).json().data.items;
    expect(ids).toHaveLength(0);
  });

  it('a name the console already holds: says what it would change, and never buys it as the routine step', async () => {
    const name = `${unique('held')}.com`;
    await create('domains', { domainName: name, status: 'active' });
    const p = await planOf(full(name));
    expect(p.steps.find((s) => s.key === 'domain')).toMatchObject({ outcome: 'confirm' });
    expect(p.steps.find((s) => s.key === 'domain')!.detail).toMatch(
      /^Already a console domain: the launch will set its server to 127\.0\.0\.1 \(was none\), its cloud account \(was none\).*; it stops here until you confirm$/,
    );
    expect(p.steps.find((s) => s.key === 'register')).toMatchObject({ outcome: 'blocked' });
    expect(p.blockers).toEqual([
      {
        stage: 'register',
        message: expect.stringContaining('already a console domain, not at our registrator: registering would buy it'),
      },
    ]);
    // Launched without registering, the same name is not blocked.
    const noBuy = await planOf(full(name, { registration: undefined }));
    expect(noBuy.blockers).toEqual([]);
  });

  it('takes every empty field from the profile, and the records from its DNS template', async () => {
    const template = await create('dns-templates', {
      name: unique('Template'),
      records: [
        { type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: true },
        { type: 'MX', name: '@', content: 'mail.{domain}', ttl: 1, proxied: false, priority: 10 },
      ],
    });
    const profile = await create('launch-profiles', {
      name: unique('Profile'),
      brandId: null,
      serverId: fx.serverId,
      cloudId: fx.cloudId,
      domainRegistratorId: fx.registratorId,
      register: true,
      domainRegistratorContactId: fx.contactId,
      contentSource: { kind: 'copy', domainId: fx.sourceId },
      dnsTemplateId: template._id,
      firewallRuleIds: [fx.ruleId],
      sslMode: 'full',
      tls13: true,
      yandexWebmasterAccountId: fx.yandexId,
    });
    const name = `${unique('profiled')}.com`;
    const p = await planOf({ domainName: name, profileId: profile._id });
    expect(p.blockers).toEqual([]);
    const detail = (key: string) => p.steps.find((s) => s.key === key)!.detail;
    expect(detail('dns')).toBe(`Add A ${name} → 127.0.0.1; MX ${name} → mail.${name}`);
    expect(detail('ssl')).toBe('Set SSL mode Full and TLS 1.3 on');
    expect(detail('content')).toContain(fx.sourceName);
    expect(p.steps.find((s) => s.key === 'register')!.outcome).toBe('confirm');
    // A field given wins over the profile's.
    const over = await planOf({ domainName: name, profileId: profile._id, sslMode: 'strict', tls13: false });
    expect(over.steps.find((s) => s.key === 'ssl')!.detail).toBe('Set SSL mode Full strict');
    const missing = await call('POST', '/api/launches', {
      domainName: name,
      profileId: crypto.randomUUID(),
      dryRun: true,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields.profileId).toBe('The launch profile does not exist');
  });

  it('blocks a name that is not available at the registrar', async () => {
    const name = `${unique('taken')}.com`;
    nc.state.takenElsewhere.add(name);
    const p = await planOf(full(name));
    expect(p.blockers).toEqual([
      { stage: 'register', message: expect.stringContaining('not available at the registrar') },
    ]);
    const res = await call('POST', '/api/launches', full(name));
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/^Register the name: .*not available/);
  });

  it('blocks a full server', async () => {
    const small = await server({ domainsLimitQty: 1 });
    await create('domains', { domainName: `${unique('filler')}.com`, status: 'active', serverId: small });
    const p = await planOf(full(`${unique('full')}.com`, { serverId: small }));
    expect(p.blockers).toEqual([{ stage: 'domain', message: 'Server 127.0.0.1 is full: 1 of 1 domains' }]);
  });

  it('blocks a zone that is already in another account', async () => {
    const email = `${unique('other')}@example.com`;
    const token = `${unique('token')}-0123456789abcdef`;
    cf.addAccount({ email, token });
    const other = (await create('clouds', { email, token }))._id;
    const name = `${unique('elsewhere')}.com`;
    const d = await create('domains', { domainName: name, status: 'active', cloudId: other });
    expect((await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`)).statusCode).toBe(200);
    const p = await planOf(full(name, { registration: null }));
    expect(p.blockers).toEqual([
      { stage: 'zone', message: expect.stringContaining(`already in another account (${email})`) },
    ]);
  });

  it('blocks a copy source that is missing', async () => {
    const p = await planOf(
      full(`${unique('nosrc')}.com`, { content: { type: 'copy', fromDomainId: crypto.randomUUID() } }),
    );
    expect(p.blockers).toEqual([{ stage: 'content', message: 'The copy source domain is missing' }]);
  });

  it('blocks the Yandex stages for a person or token without the Yandex Webmaster rule, and refuses the launch', async () => {
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const both = await t.tokenFor(['cnv:domains', 'cnv:yandex-webmaster']);
    const as = (auth: string, input: object) =>
      t.inject({ method: 'POST', url: '/api/launches', headers: { authorization: auth }, payload: input });
    const name = `${unique('norule')}.com`;
    const before = ya.requests.length;
    const res = await as(domainsOnly, { ...full(name, { registration: null }), dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().data as LaunchPlan;
    const needs = 'Needs the Yandex Webmaster area';
    expect(p.blockers).toEqual([
      { stage: 'yandex-verify', message: needs },
      { stage: 'yandex-sitemap', message: needs },
      { stage: 'yandex-recrawl', message: needs },
    ]);
    expect(ya.requests.length).toBe(before);
    // Without the dry run: refused (403) naming the stage and the area; nothing is created.
    const refused = await as(domainsOnly, full(name, { registration: null }));
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'launch_rule_missing',
      message: `Add and verify the host in Yandex Webmaster: ${needs}`,
    });
    expect((await call('GET', `/api/domains?search=${name}`)).json().data.items).toHaveLength(0);
    // The account given by a launch profile counts the same.
    const profile = await create('launch-profiles', {
      name: unique('Yandex profile'),
      serverId: fx.serverId,
      cloudId: fx.cloudId,
      yandexWebmasterAccountId: fx.yandexId,
    });
    const viaProfile = await as(domainsOnly, { domainName: name, profileId: profile._id });
    expect(viaProfile.statusCode, viaProfile.body).toBe(403);
    // Without an account the stages are skipped and need no rule; with the rule they are planned.
    const none = await as(domainsOnly, {
      ...full(name, { registration: null, yandexWebmasterAccountId: null }),
      dryRun: true,
    });
    expect(none.json().data.blockers).toEqual([]);
    const allowed = await as(both, { ...full(name, { registration: null }), dryRun: true });
    expect(allowed.json().data.blockers).toEqual([]);
  });

  it('blocks the Google stages without the Google Search Console rule; skips them, saying why, without an account', async () => {
    const noGoogle = await t.tokenFor(['cnv:domains', 'cnv:yandex-webmaster']);
    const name = `${unique('nogoogle')}.com`;
    const res = await t.inject({
      method: 'POST',
      url: '/api/launches',
      headers: { authorization: noGoogle },
      payload: { ...full(name, { registration: null, profileId: fx.google.profileId }), dryRun: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    const needs = 'Needs the Google Search Console area';
    expect((res.json().data as LaunchPlan).blockers).toEqual([
      { stage: 'google-verify', message: needs },
      { stage: 'google-sitemap', message: needs },
    ]);
    const p = await planOf(full(name, { registration: null, profileId: fx.google.profileId }));
    expect(p.steps.find((x) => x.key === 'google-verify')).toMatchObject({
      outcome: 'run',
      label: 'Add and verify the property in Google Search Console',
      detail: `Add sc-domain:${name} to Search Console and verify it through a TXT record in the zone`,
    });
    const without = await planOf(full(name, { registration: null }));
    for (const key of ['google-verify', 'google-sitemap'])
      expect(without.steps.find((x) => x.key === key)).toMatchObject({
        outcome: 'skip',
        detail: 'No Google account chosen',
      });
  });

  it('shows a name that mixes scripts in Unicode and ASCII, with the look-alike warning', async () => {
    const p = await planOf(full('paypa\u04cf-test.com', { registration: null }));
    expect(p).toMatchObject({
      domainName: 'xn--paypa-test-25j.com',
      domainNameUnicode: 'paypa\u04cf-test.com',
      nameWarning: expect.stringMatching(/mixes Latin and Cyrillic letters/),
    });
    expect((await planOf(full(`${unique('plain')}.com`, { registration: null }))).nameWarning).toBeNull();
  });

  it('refuses an input it cannot read, per field', async () => {
    const res = await call('POST', '/api/launches', { domainName: 'not a name', dryRun: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.domainName).toMatch(/valid host name/);
    const noContact = await call('POST', '/api/launches', {
      domainName: 'ok.com',
      registration: { domainRegistratorId: fx.registratorId, register: true },
    });
    expect(noContact.statusCode).toBe(400);
    expect(noContact.json().fields['registration.contactId']).toBeDefined();
  });
});

describe('a launch', () => {
  it('stops before the costly registration, waits for the zone, and ends live and verified; run again, it finds everything done', async () => {
    const name = `${unique('live')}.com`;
    // Everything given, but the Google account, which comes from the profile.
    const first = await start(full(name, { profileId: fx.google.profileId }));
    expect(['queued', 'running']).toContain(first.state);
    const paused = await until(first._id, settled);
    expect(paused.state).toBe('needs_confirmation');
    expect(stage(paused, 'domain').state).toBe('done');
    expect(stage(paused, 'register')).toMatchObject({ state: 'needs_confirmation' });
    expect(stage(paused, 'register').detail).toContain('costs money');
    expect(nc.state.accounts.get(fx.apiUser)!.domains.has(name)).toBe(false);
    // What Confirm buys, priced before it is given.
    expect(paused.confirmation).toEqual({
      stage: 'register',
      text: `Register ${name} for 1 year: 10.87 USD at Namecheap's price. It costs money and cannot be undone.`,
      cost: { amount: '10.87', currency: 'USD' },
      priceError: null,
    });

    const confirm = await call('POST', `/api/launches/${first._id}/confirm`);
    expect(confirm.statusCode, confirm.body).toBe(200);
    // The zone is pending until "the name servers point at Cloudflare": the stage waits, visibly.
    const waiting = await until(first._id, (l) => stage(l, 'zone-active').state === 'waiting' || settled(l));
    expect(waiting.state, waiting.error ?? '').toBe('waiting');
    expect(stage(waiting, 'zone-active').waitingFor).toMatch(/Cloudflare to activate the zone/);
    expect(stage(waiting, 'zone-active').since).toBeTruthy();
    expect(stage(waiting, 'zone-active').nextCheckAt).toBeTruthy();
    expect(stage(waiting, 'register').state).toBe('done');
    expect(stage(waiting, 'name-servers').state).toBe('done');
    const zoneId = await zoneOf(waiting.domainId!);
    const ncDomain = nc.state.accounts.get(fx.apiUser)!.domains.get(name)!;
    const cfZone = cf.state.zones.get(zoneId)!;
    expect(ncDomain.nameServers).toEqual([...cf.state.accounts.get(cfZone.accountId)!.nameServers]);
    cf.setZoneStatus(zoneId, 'active');

    const done = await until(first._id, settled);
    expect(done.state, JSON.stringify(done.stages)).toBe('completed');
    expect(done.progress).toEqual({ done: LAUNCH_STAGES.length, total: LAUNCH_STAGES.length });
    for (const s of done.stages) expect(['done', 'already_done'], `${s.key}: ${s.detail}`).toContain(s.state);
    expect(stage(done, 'zone-active').attempts).toBe(1);
    // What each stage made is there, at each provider.
    const zone = cf.state.zones.get(zoneId)!;
    expect(zone.settings.ssl.value).toBe('strict');
    const records = [...zone.dnsRecords.values()].map((r) => `${r.type} ${r.name} ${r.content}`);
    expect(records).toEqual(
      expect.arrayContaining([`A ${name} 127.0.0.1`, `CNAME www.${name} ${name}`, `TXT ${name} v=spf1 -all`]),
    );
    expect(da.domainsOf('web').map((d) => d.name)).toContain(name);
    const dir = path.join(host.rootDir, 'www', name);
    expect(fs.readFileSync(path.join(dir, 'index.html'), 'utf8')).toBe(`<a href="https://${name}/blog/">${name}</a>`);
    expect(fs.readFileSync(path.join(dir, 'about.html'), 'utf8')).toBe(`<h1>About ${name}</h1>`);
    expect(fs.existsSync(path.join(dir, 'logo.bin'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'sitemap.xml'), 'utf8')).toContain(`https://${name}/about.html`);
    expect(stage(done, 'yandex-verify').detail).toMatch(/^Verified/);
    expect(stage(done, 'yandex-sitemap').detail).toBe(`Submitted https://${name}/sitemap.xml`);
    // Google: the domain property (the domain has a zone) verified through its TXT record, the sitemap read.
    expect(done.input.googleSearchAccountId).toBe(fx.google.accountId);
    expect(stage(done, 'google-verify').detail).toContain(
      `Added and verified sc-domain:${name} through TXT ${name} "google-site-verification=`,
    );
    expect(stage(done, 'google-sitemap').detail).toBe(`Submitted https://${name}/sitemap.xml`);
    expect(stage(done, 'google-sitemap').links[0]).toEqual({
      label: 'Google Search Console',
      href: `/domains/${done.domainId}?tab=google-search`,
    });
    expect([...(g.owners.get(`INET_DOMAIN ${name}`) ?? [])]).toEqual([fx.google.email]);
    const property = g.properties.get(`sc-domain:${name}`)!;
    expect(property.addedBy.has(fx.google.email)).toBe(true);
    expect(property.sitemaps.get(`https://${name}/sitemap.xml`)).toMatchObject({ errors: 0, warnings: 0 });
    expect(property.sitemaps.get(`https://${name}/sitemap.xml`)!.urls).toContain(`https://${name}/about.html`);
    expect(stage(done, 'dns').links).toEqual([
      { label: 'Cloudflare zone', href: `/domains/${done.domainId}?tab=cloud` },
    ]);

    // Again on the launched domain: every stage finds its work done.
    const again = await start(full(name, { confirmCostly: false, profileId: fx.google.profileId }));
    const second = await until(again._id, settled);
    expect(second.state, JSON.stringify(second.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
    const states = Object.fromEntries(second.stages.map((s) => [s.key, s.state]));
    for (const key of [
      'domain',
      'register',
      'zone',
      'name-servers',
      'zone-active',
      'dns',
      'ssl',
      'waf',
      'site',
      'content',
      'yandex-verify',
      'yandex-sitemap',
      'google-verify',
      'google-sitemap',
    ])
      expect(states[key], key).toBe('already_done');
    expect(stage(second, 'zone').detail).toMatch(/^Already done: the zone \w+ is linked/);
  }, 90_000);

  it("checks each stage's rule as it runs: Confirm without it is refused, and a run queued without it fails that stage", async () => {
    const name = `${unique('runrule')}.com`;
    // A light launch: registration (it stops to confirm), the panel's site, then Yandex through a file.
    const input = full(name, {
      cloudId: null,
      dnsRecords: [],
      firewallRules: [],
      content: { type: 'none' },
      verification: 'HTML_FILE',
    });
    const first = await until((await start(input))._id, settled);
    expect(first.state, first.error ?? '').toBe('needs_confirmation');
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const as = (action: string) =>
      t.inject({
        method: 'POST',
        url: `/api/launches/${first._id}/${action}`,
        headers: { authorization: domainsOnly },
        payload: {},
      });
    const confirm = await as('confirm');
    expect(confirm.statusCode, confirm.body).toBe(403);
    expect(confirm.json().message).toBe('Add and verify the host in Yandex Webmaster: Needs the Yandex Webmaster area');
    // A run queued with the domains rule alone (as a batch of a domains-only person queues it) does what that rule
    // allows and fails the first Yandex stage, without calling Yandex.
    const row = (await t.c.repos.launches.find(first._id))!;
    await t.c.repos.launches.transition(first._id, ['needs_confirmation'], {
      state: 'queued',
      confirmed: true,
      stages: row.stages.map((s) => (s.state === 'needs_confirmation' ? { ...s, state: 'pending' as const } : s)),
    });
    const yandexCalls = ya.requests.length;
    await t.c.jobEngine.enqueue('launches.run', { launchId: first._id, rules: ['cnv:domains'] });
    const stopped = await until(first._id, (l) => l.state === 'failed', 60_000);
    expect(stopped.error).toBe('Add and verify the host in Yandex Webmaster: Needs the Yandex Webmaster area');
    expect(stage(stopped, 'yandex-verify')).toMatchObject({
      state: 'failed',
      error: 'Needs the Yandex Webmaster area',
    });
    expect(stage(stopped, 'register').state).toBe('done');
    expect(stage(stopped, 'site').state).toBe('done');
    expect(ya.requests.length).toBe(yandexCalls);
    // Retry is refused to the domains-only person the same way.
    expect((await as('retry')).statusCode).toBe(403);
  }, 90_000);

  it('a provider refusal fails its stage with the message; Retry runs that stage again and the launch goes on', async () => {
    const name = `${unique('refused')}.com`;
    const input = full(name, { registration: null, yandexWebmasterAccountId: null, content: { type: 'none' } });
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (z.name === name && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    try {
      da.fail({ kind: 'html_error', count: 100 });
      const l = await start(input);
      const failed = await until(l._id, settled);
      expect(failed.state).toBe('failed');
      expect(stage(failed, 'site').state).toBe('failed');
      expect(stage(failed, 'site').error).toMatch(/DirectAdmin/);
      expect(failed.error).toMatch(/^Create the site on the panel: .*DirectAdmin/);
      expect(stage(failed, 'content').state).toBe('pending');
      const wrong = await call('POST', `/api/launches/${l._id}/steps/dns/retry`);
      expect(wrong.statusCode).toBe(409);
      da.clearFailures();
      const retry = await call('POST', `/api/launches/${l._id}/steps/site/retry`);
      expect(retry.statusCode, retry.body).toBe(200);
      const ok = await until(l._id, settled);
      expect(ok.state).toBe('completed');
      expect(stage(ok, 'site')).toMatchObject({ state: 'done', attempts: 2, error: null });
      // Stages done before the refusal were not run again.
      expect(stage(ok, 'zone').attempts).toBe(1);
      expect(stage(ok, 'content').state).toBe('skipped');
      expect(da.domainsOf('web').map((d) => d.name)).toContain(name);
      // Each ending is told to the alerts once, as a "launch finished" event that links to the launch.
      const alerts = await call('GET', '/api/alerts?state=recent');
      const told = (alerts.json().data.items as Alert[]).filter(
        (a) => a.subjectKind === 'launch' && a.subjectId === l._id,
      );
      expect(told.map((a) => [a.event, a.state, a.severity]).sort()).toEqual([
        ['launch_finished', 'event', 'info'],
        ['launch_finished', 'event', 'warning'],
      ]);
      expect(told.map((a) => a.title).join(' | ')).toMatch(/failed/);
      expect(told.map((a) => a.title).join(' | ')).toMatch(/is live/);
    } finally {
      zoneReady();
      da.clearFailures();
    }
  }, 60_000);

  it('a DNS template with CAA and SRV records: run twice, the zone holds each once and the second run finds them there', async () => {
    // Cloudflare answers these types with `data`, and the content our client rebuilds from it is written its own way
    // (CAA's value quoted; SRV's priority apart): the launch must still see them as the template's records.
    const template = await create('dns-templates', {
      name: unique('Structured'),
      records: [
        { type: 'CAA', name: '@', content: '0 issue letsencrypt.org', ttl: 1, proxied: false },
        { type: 'SRV', name: '_sip._tcp', content: '10 5 5060 sip.{domain}', ttl: 1, proxied: false },
      ],
    });
    const name = `${unique('structured')}.com`;
    const input = full(name, {
      registration: null,
      yandexWebmasterAccountId: null,
      content: { type: 'none' },
      firewallRules: [],
      dnsRecords: [],
      dnsTemplateId: template._id,
    });
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (z.name === name && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    try {
      const first = await until((await start(input))._id, settled);
      expect(first.state, JSON.stringify(first.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
      expect(stage(first, 'dns')).toMatchObject({ state: 'done' });
      expect(stage(first, 'dns').detail).toBe(
        `Added CAA ${name} → 0 issue letsencrypt.org; SRV _sip._tcp.${name} → 10 5 5060 sip.${name}`,
      );
      const second = await until((await start(input))._id, settled);
      expect(second.state, JSON.stringify(second.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
      expect(stage(second, 'dns')).toMatchObject({
        state: 'already_done',
        detail: 'Already done: all 2 records are in the zone',
      });
      const zone = cf.state.zones.get(await zoneOf(second.domainId!))!;
      // Sent as data (SRV's priority inside it, where its schema has it); each once.
      const of = (type: string) =>
        [...zone.dnsRecords.values()].filter((r) => r.type === type).map((r) => [r.name, r.content, r.data]);
      expect(of('CAA')).toEqual([
        [name, '0 issue "letsencrypt.org"', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
      ]);
      expect(of('SRV')).toEqual([
        [`_sip._tcp.${name}`, `5 5060 sip.${name}`, { priority: 10, weight: 5, port: 5060, target: `sip.${name}` }],
      ]);
    } finally {
      zoneReady();
    }
  }, 60_000);

  it("once live, submits the site's root and sitemap to IndexNow for a brand with it on, and tells it in the result", async () => {
    const brand = await create('brands', { name: unique('Indexed'), indexNow: true });
    const name = `${unique('indexed')}.com`;
    const input = full(name, { brandId: brand._id, registration: null, yandexWebmasterAccountId: null });
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (z.name === name && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    try {
      const l = await until((await start(input))._id, settled);
      expect(l.state, l.error ?? '').toBe('completed');
      // The submission follows the launch's end, in the same job.
      await t.c.jobEngine.waitFor(l.jobId!, 30_000);
      const job = (await call('GET', `/api/jobs/${l.jobId}`)).json().data;
      const dir = path.join(host.rootDir, 'www', name);
      const keyFile = fs.readdirSync(dir).find((f) => /^[0-9a-f]{32}\.txt$/.test(f))!;
      const key = keyFile.slice(0, -4);
      expect(fs.readFileSync(path.join(dir, keyFile), 'utf8')).toBe(key);
      expect(indexNow.submissions.filter((x) => x.host === name)).toMatchObject([
        { host: name, key, urls: [`https://${name}/`, `https://${name}/sitemap.xml`], status: 200 },
      ]);
      expect(job.result.indexNow).toMatchObject({ ok: true, message: 'IndexNow: 2 URLs submitted (200 received)' });
      expect(job.summary).toMatch(/ · IndexNow: 2 URLs submitted \(200 received\)$/);
    } finally {
      zoneReady();
    }
  }, 90_000);

  it('resumes after its worker stopped in the middle, from the stage it was in', async () => {
    const name = `${unique('resume')}.com`;
    const input = full(name, { registration: null, yandexWebmasterAccountId: null, content: { type: 'none' } });
    const l = await start(input);
    const waiting = await until(l._id, (x) => stage(x, 'zone-active').state === 'waiting' || settled(x));
    expect(waiting.state, waiting.error ?? '').toBe('waiting');
    // The worker goes away (the steps in flight are handed back), then a worker comes back.
    await t.c.jobEngine.stop(true, 1000);
    const job = await t.c.repos.jobs.find(waiting.jobId!);
    const steps = (job!.steps ?? []) as { key: string; status: string }[];
    expect(steps.find((s) => s.key === 'zone')!.status).toBe('done');
    cf.setZoneStatus(await zoneOf(waiting.domainId!), 'active');
    await t.c.startJobs({ periodic: false });
    const done = await until(l._id, settled);
    expect(done.state, JSON.stringify(done.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
    expect(stage(done, 'zone').attempts).toBe(1);
    expect(stage(done, 'domain').attempts).toBe(1);
    expect(stage(done, 'zone-active').attempts).toBe(2);
  }, 60_000);

  it('cancel stops a waiting launch; the list shows it', async () => {
    const name = `${unique('cancel')}.com`;
    const l = await start(
      full(name, { registration: null, yandexWebmasterAccountId: null, content: { type: 'none' } }),
    );
    await until(l._id, (x) => stage(x, 'zone-active').state === 'waiting' || settled(x));
    const res = await call('POST', `/api/launches/${l._id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.state).toBe('cancelled');
    const list = (await call('GET', `/api/launches?search=${name}`)).json().data;
    expect(list.items.map((x: Launch) => [x._id, x.state])).toEqual([[l._id, 'cancelled']]);
  });
});

describe('many at once', () => {
  /** A batch's shared settings: the fixture's server and cloud, an A record, strict SSL, no content. */
  const batchSettings = () => ({
    serverId: fx.serverId,
    cloudId: fx.cloudId,
    content: { type: 'none' },
    dnsRecords: [{ type: 'A', name: '@', content: '{serverIp}', proxied: true, ttl: 1 }],
    sslMode: 'strict',
  });
  const batchOf = async (id: string) => (await call('GET', `/api/launches/batches/${id}`)).json().data;
  async function batchUntil(id: string, ok: (b: { state: string }) => boolean, ms = 60_000) {
    const end = Date.now() + ms;
    for (;;) {
      const b = await batchOf(id);
      if (ok(b)) return b;
      if (Date.now() > end) throw new Error(`batch stuck: ${JSON.stringify(b)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  it('refuses a name it cannot read, by line', async () => {
    const res = await call('POST', '/api/launches/batches', {
      settings: { cloudId: fx.cloudId },
      names: 'good-one.com\n\nnot a name',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.names).toBe('Line 3: not a name is not a valid host name');
    const csv = await call('POST', '/api/launches/batches', {
      settings: {},
      csv: 'domainName,server\nx-ok.com,192.0.2.250\n',
    });
    expect(csv.statusCode).toBe(400);
    expect(csv.json().fields.csv).toBe('Line 2: no server has the IP address 192.0.2.250');
  });

  it('reports every bad line of a CSV at once, each by its number and in words (issue 47)', async () => {
    const res = await call('POST', '/api/launches/batches', {
      settings: {},
      csv: [
        'domainName,server,copyFrom,sslMode',
        'ok-one.com,,,',
        'not a name,,,',
        'ok-two.com,192.0.2.251,nonexistent-source.com,',
        'ok-three.com,,,strictest',
      ].join('\n'),
    });
    expect(res.statusCode).toBe(400);
    const message = res.json().message as string;
    expect(message).toBe(
      [
        '3 lines are wrong:',
        'Line 3: not a name is not a valid host name',
        'Line 4: no server has the IP address 192.0.2.251; no console domain nonexistent-source.com to copy the content from',
        'Line 5: SSL mode strictest is not one of off, flexible, full, strict',
      ].join('\n'),
    );
    expect(res.json().fields.csv).toBe(message);
  });

  it('plans a CSV row by row (overrides applied, blockers named), runs it, pauses and resumes, and tallies', async () => {
    const names = [1, 2, 3].map(() => `${unique('batch')}.com`);
    const crowded = `${unique('batch-crowded')}.com`;
    const fullIp = `192.0.2.${10 + seq}`;
    const full = (await create('servers', { IPAddress: fullIp, domainsLimitQty: 1 }))._id;
    await create('domains', { domainName: `${unique('filler')}.com`, status: 'active', serverId: full });
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (names.includes(z.name) && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    try {
      const csv = [
        'domainName,sslMode,server',
        `${names[0]},full,`,
        `${names[1]},,`,
        `"${crowded}",,${fullIp}`,
        `${names[2]},flexible,`,
      ].join('\r\n');
      const settings = batchSettings();
      // The crowded name's row puts it on a full server, so its plan is blocked.
      const res = await call('POST', '/api/launches/batches', { settings, csv });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().data._id as string;
      const planned = await batchUntil(id, (b) => b.state !== 'planning');
      expect(planned.state).toBe('planned');
      expect(planned.total).toBe(4);
      const rows = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items;
      expect(rows.map((r: { domainName: string; status: string }) => [r.domainName, r.status])).toEqual([
        [names[0], 'pending'],
        [names[1], 'pending'],
        [crowded, 'blocked'],
        [names[2], 'pending'],
      ]);
      expect(rows[0].overrides).toEqual({ sslMode: 'full' });
      expect(rows[2].overrides).toEqual({ serverId: full });
      expect(rows[2].message).toBe(`Create the domain: Server ${fullIp} is full: 1 of 1 domains`);

      const run = await call('POST', `/api/launches/batches/${id}/run`);
      expect(run.statusCode, run.body).toBe(200);
      const paused = await call('POST', `/api/launches/batches/${id}/pause`);
      expect(paused.statusCode, paused.body).toBe(200);
      expect(paused.json().data.state).toBe('paused');
      expect((await call('POST', `/api/launches/batches/${id}/resume`)).statusCode).toBe(200);
      const done = await batchUntil(id, (b) => b.state === 'completed');
      expect(done.counts).toMatchObject({ done: 3, blocked: 1, failed: 0, pending: 0, running: 0 });
      const all = (await call('GET', `/api/launches/batches/${id}/rows?status=done`)).json().data.items;
      expect(all).toHaveLength(3);
      for (const r of all) expect(r.progress).toEqual({ done: LAUNCH_STAGES.length, total: LAUNCH_STAGES.length });
      const ssl = (name: string) => [...cf.state.zones.values()].find((z) => z.name === name)!.settings.ssl.value;
      expect([ssl(names[0]!), ssl(names[1]!), ssl(names[2]!)]).toEqual(['full', 'strict', 'flexible']);
    } finally {
      zoneReady();
    }
  }, 90_000);

  it("pause stops the batch's job but not the launch under way: its row keeps its launch, and Resume follows that launch to its end", async () => {
    const name = `${unique('batch-pause')}.com`;
    const settings = batchSettings();
    const res = await call('POST', '/api/launches/batches', { settings, names: name });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data._id as string;
    await batchUntil(id, (b) => b.state === 'planned');
    expect((await call('POST', `/api/launches/batches/${id}/run`)).statusCode).toBe(200);
    // The zone stays pending at Cloudflare: the launch waits in its stage, under way.
    const rowOf = async () => (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items[0];
    const end = Date.now() + 30_000;
    let row = await rowOf();
    while (!row.launchId && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 150));
      row = await rowOf();
    }
    expect(row.launchId).toBeTruthy();
    const paused = await call('POST', `/api/launches/batches/${id}/pause`);
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json().data.state).toBe('paused');
    // The row reads as its launch, under way.
    expect(await rowOf()).toMatchObject({ launchId: row.launchId, status: 'running' });
    // The launch goes on as its own job while the batch is paused: the zone turns active, the launch ends.
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (z.name === name && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    onTestFinished(zoneReady);
    const runJob = (await t.c.repos.plans.findAny(id))!.jobId!;
    await t.c.jobEngine.waitFor(runJob, 30_000);
    expect((await t.c.repos.jobs.find(runJob))!.state).toBe('cancelled');
    expect((await until(row.launchId, settled)).state).toBe('completed');
    expect((await batchOf(id)).state).toBe('paused');
    expect((await call('POST', `/api/launches/batches/${id}/resume`)).statusCode).toBe(200);
    const done = await batchUntil(id, (b) => ['completed', 'completed_with_failures', 'failed'].includes(b.state));
    const l = await get(row.launchId);
    expect(
      done,
      JSON.stringify({ error: l.error, stages: l.stages.map((x) => [x.key, x.state, x.error]) }),
    ).toMatchObject({ state: 'completed', counts: { done: 1, failed: 0 } });
    // Followed, not launched again.
    expect(await rowOf()).toMatchObject({ launchId: row.launchId, status: 'done' });
  }, 90_000);

  it('Retry failed tries each failed name once: a launch that refuses its retry keeps its row failed with why, the others go on', async () => {
    const names = [1, 2].map(() => `${unique('batch-retry')}.com`);
    const settings = batchSettings();
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (names.includes(z.name) && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    onTestFinished(() => {
      zoneReady();
      da.clearFailures();
    });
    da.fail({ kind: 'html_error', count: 1000 });
    const res = await call('POST', '/api/launches/batches', { settings, names: names.join('\n') });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data._id as string;
    await batchUntil(id, (b) => b.state === 'planned');
    expect((await call('POST', `/api/launches/batches/${id}/run`)).statusCode).toBe(200);
    // The batch's run has followed both launches to their end (its job is done), not only its counts.
    await t.c.jobEngine.waitFor((await t.c.repos.plans.findAny(id))!.jobId!, 60_000);
    const failed = await batchOf(id);
    expect(failed.counts).toMatchObject({ failed: 2, done: 0 });
    da.clearFailures();
    // The second name's launch ended another way meanwhile: its retry is refused.
    const rows = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items;
    await t.c.repos.launches.update(rows[1].launchId, { state: 'completed' });

    // A batch that failed with an error of its own runs again without it.
    await t.c.repos.plans.updatePlan(id, { state: 'failed', error: 'The batch job failed' });
    const retry = await call('POST', `/api/launches/batches/${id}/retry-failed`);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().data.error).toBeNull();
    const entries = await t.c.database.db.select().from(auditLog).where(eq(auditLog.entityId, id));
    const retried = entries.filter((e) => e.action === 'retry_launch_batch');
    expect(retried.map((e) => e.details)).toEqual([{ names: 2 }]);
    const done = await batchUntil(id, (b) => !['running'].includes(b.state));
    expect(done.counts).toMatchObject({ done: 1, failed: 1 });
    const after = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items;
    expect(after.map((r: { status: string }) => r.status)).toEqual(['done', 'failed']);
    // Why it was not retried is kept on the row (the page shows its launch's own error first).
    expect((await t.c.repos.plans.findItem(id, 2))!.reason).toBe('The launch has already finished');
  }, 90_000);

  it('a batch whose launches wait for their registration reads "Waiting for confirmation (n)", counts from the launches, and Confirm all goes on', async () => {
    const names = [1, 2, 3].map(() => `${unique('confirm')}.com`);
    const zoneReady = cf.afterRequest(() => {
      for (const z of cf.state.zones.values())
        if (names.includes(z.name) && z.status !== 'active') cf.setZoneStatus(z.id, 'active');
    });
    try {
      const settings = {
        serverId: fx.serverId,
        cloudId: fx.cloudId,
        registration: { domainRegistratorId: fx.registratorId, register: true, contactId: fx.contactId, years: 1 },
        content: { type: 'none' },
        dnsRecords: [{ type: 'A', name: '@', content: '{serverIp}', proxied: true, ttl: 1 }],
        sslMode: 'strict',
      };
      // "Confirm the registrations" unticked: each launch stops before its registration.
      const res = await call('POST', '/api/launches/batches', { settings, names: names.join('\n') });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().data._id as string;
      expect((await batchUntil(id, (b) => b.state !== 'planning')).state).toBe('planned');
      expect((await call('POST', `/api/launches/batches/${id}/run`)).statusCode).toBe(200);
      const waiting = await batchUntil(id, (b) => !['planned', 'running'].includes(b.state));
      // Never a green "Completed" over launches that did nothing yet.
      expect(waiting).toMatchObject({
        state: 'waiting_for_confirmation',
        stateText: 'Waiting for confirmation (3)',
        counts: { needs_confirmation: 3, done: 0, running: 0 },
        confirmation: { names: 3, years: 1, registrations: 3, settings: 0, cost: { amount: '32.61', currency: 'USD' } },
      });
      expect(waiting.confirmation.text).toBe(
        "Register 3 names for 1 year each: 3 name-years in all, 32.61 USD in all at Namecheap's price. " +
          'Each registration costs money and cannot be undone.',
      );
      const rows = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items as {
        launchId: string;
        status: string;
        message: string;
      }[];
      for (const r of rows) {
        expect(r.status).toBe('needs_confirmation');
        expect(r.message).toMatch(/^Waiting for confirmation: Registering .+ costs money/);
      }

      // One confirmed on its own page: the batch's counts follow its launch, though no batch job follows it now.
      expect((await call('POST', `/api/launches/${rows[0]!.launchId}/confirm`)).statusCode).toBe(200);
      await until(rows[0]!.launchId, (l) => l.state === 'completed', 60_000);
      const moved = await batchOf(id);
      expect(moved.counts).toMatchObject({ done: 1, needs_confirmation: 2, running: 0 });
      expect(moved.confirmation).toMatchObject({ names: 2, cost: { amount: '21.74', currency: 'USD' } });
      expect(moved.stateText).toBe('Waiting for confirmation (2)');

      const all = await call('POST', `/api/launches/batches/${id}/confirm-all`);
      expect(all.statusCode, all.body).toBe(200);
      const done = await batchUntil(id, (b) => ['completed', 'completed_with_failures', 'failed'].includes(b.state));
      expect(done).toMatchObject({ state: 'completed', stateText: 'Completed', confirmation: null });
      expect(done.counts).toMatchObject({ done: 3, needs_confirmation: 0, failed: 0 });
      const again = await call('POST', `/api/launches/batches/${id}/confirm-all`);
      expect(again.statusCode).toBe(409);
    } finally {
      zoneReady();
    }
  }, 150_000);
});

describe('a batch of a person without the Yandex Webmaster rule', () => {
  it("plans its names with that person's rules, not the console's: the Yandex stages block each row", async () => {
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const name = `${unique('batch-norule')}.com`;
    const res = await t.inject({
      method: 'POST',
      url: '/api/launches/batches',
      headers: { authorization: domainsOnly },
      payload: {
        settings: {
          serverId: fx.serverId,
          cloudId: fx.cloudId,
          content: { type: 'none' },
          yandexWebmasterAccountId: fx.yandexId,
          verification: 'DNS',
        },
        csv: `domainName\r\n${name}`,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data._id as string;
    const end = Date.now() + 60_000;
    let state = 'planning';
    while (state === 'planning' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 150));
      state = (await call('GET', `/api/launches/batches/${id}`)).json().data.state;
    }
    expect(state).toBe('planned');
    const rows = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items;
    expect(rows[0]).toMatchObject({ status: 'blocked' });
    expect(rows[0].message).toContain('Add and verify the host in Yandex Webmaster: Needs the Yandex Webmaster area');
  });
});

describe('a name the console already holds (issue 40)', () => {
  const batchOf = async (id: string) => (await call('GET', `/api/launches/batches/${id}`)).json().data;
  async function batchUntil(id: string, ok: (b: { state: string }) => boolean, ms = 60_000) {
    const end = Date.now() + ms;
    for (;;) {
      const b = await batchOf(id);
      if (ok(b)) return b;
      if (Date.now() > end) throw new Error(`batch stuck: ${JSON.stringify(b)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  const domainOf = async (id: string) => (await call('GET', `/api/domains/${id}`)).json().data;
  const waitingBatch = async (payload: object) => {
    const res = await call('POST', '/api/launches/batches', payload);
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data._id as string;
    expect((await batchUntil(id, (b) => b.state !== 'planning')).state).toBe('planned');
    expect((await call('POST', `/api/launches/batches/${id}/run`)).statusCode).toBe(200);
    return { id, waiting: await batchUntil(id, (b) => !['planned', 'running'].includes(b.state)) };
  };

  it("a launch changes the domain's settings only once the operator confirms that change; Confirm with nothing waiting is refused", async () => {
    const name = `${unique('held-set')}.com`;
    const d = await create('domains', { domainName: name, status: 'active' });
    const input = { domainName: name, serverId: fx.serverId };
    expect((await planOf(input)).steps.find((s) => s.key === 'domain')).toEqual({
      key: 'domain',
      label: 'Create the domain',
      outcome: 'confirm',
      detail:
        'Already a console domain: the launch will set its server to 127.0.0.1 (was none); it stops here until you confirm',
    });
    const l = await start(input);
    const paused = await until(l._id, settled);
    expect(paused.state).toBe('needs_confirmation');
    const detail = `${name} is already a console domain: the launch will set its server to 127.0.0.1 (was none). Confirm to change these settings`;
    expect(stage(paused, 'domain')).toMatchObject({ state: 'needs_confirmation', detail });
    expect(paused.confirmation).toEqual({ stage: 'domain', text: detail, cost: null, priceError: null });
    expect(stage(paused, 'site').state).toBe('pending');
    expect((await domainOf(d._id)).serverId).toBeNull();

    // A confirmation of another stage than the one waiting is refused, and changes nothing.
    const wrong = await call('POST', `/api/launches/${l._id}/confirm`, { stage: 'register' });
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json().message).toBe(
      'Register the name does not wait for a confirmation; Create the domain does. Read the launch again before confirming',
    );
    expect((await domainOf(d._id)).serverId).toBeNull();
    expect((await get(l._id)).state).toBe('needs_confirmation');

    const ok = await call('POST', `/api/launches/${l._id}/confirm`, { stage: 'domain' });
    expect(ok.statusCode, ok.body).toBe(200);
    const done = await until(l._id, settled);
    expect(done.state, JSON.stringify(done.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
    expect(done.settingsConfirmed).toBe(true);
    expect(done.confirmed).toBe(false);
    expect(stage(done, 'domain').detail).toBe(`${name} is in the console; set its server to 127.0.0.1 (was none)`);
    expect((await domainOf(d._id)).serverId).toBe(fx.serverId);

    const again = await call('POST', `/api/launches/${l._id}/confirm`);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('The launch does not wait for a confirmation');
  }, 60_000);

  it("in a batch, a row waiting to change a held domain's settings waits as a registration does; Confirm all changes them", async () => {
    const held = `${unique('held-batch')}.com`;
    const fresh = `${unique('fresh-batch')}.com`;
    const d = await create('domains', { domainName: held, status: 'active' });
    const { id, waiting } = await waitingBatch({ settings: { serverId: fx.serverId }, names: `${held}\n${fresh}` });
    expect(waiting).toMatchObject({
      state: 'waiting_for_confirmation',
      stateText: 'Waiting for confirmation (1)',
      counts: { needs_confirmation: 1, done: 1, running: 0 },
      confirmation: { names: 1, registrations: 0, settings: 1, cost: null, priceError: null },
    });
    expect(waiting.confirmation.text).toBe(
      "Change the settings of 1 existing console domain (server, registrator, …), as each launch's page says.",
    );
    const rows = (await call('GET', `/api/launches/batches/${id}/rows?status=needs_confirmation`)).json().data.items;
    expect(rows.map((r: { domainName: string }) => r.domainName)).toEqual([held]);
    expect(rows[0].message).toBe(
      `Waiting for confirmation: ${held} is already a console domain: the launch will set its server to 127.0.0.1 (was none). Confirm to change these settings`,
    );
    expect((await domainOf(d._id)).serverId).toBeNull();

    const all = await call('POST', `/api/launches/batches/${id}/confirm-all`);
    expect(all.statusCode, all.body).toBe(200);
    const done = await batchUntil(id, (b) => ['completed', 'completed_with_failures', 'failed'].includes(b.state));
    expect(done).toMatchObject({ state: 'completed', confirmation: null, counts: { done: 2 } });
    expect((await domainOf(d._id)).serverId).toBe(fx.serverId);
  }, 90_000);

  it('Confirm all says when the price cannot be read, naming Namecheap, and still counts the name-years', async () => {
    const names = [1, 2].map(() => `${unique('noprice')}.info`);
    const registration = { domainRegistratorId: fx.registratorId, register: true, contactId: fx.contactId, years: 2 };
    nc.fail({ kind: '5xx', command: 'namecheap.users.getpricing', count: 10_000 });
    let id: string;
    try {
      const b = await waitingBatch({ settings: { registration }, names: names.join('\n') });
      id = b.id;
      const reason = 'price unavailable: Namecheap: HTTP 502 from the API';
      expect(b.waiting).toMatchObject({
        state: 'waiting_for_confirmation',
        confirmation: { names: 2, years: 2, registrations: 2, cost: null, priceError: reason },
      });
      expect(b.waiting.confirmation.text).toBe(
        `Register 2 names for 2 years each: 4 name-years in all; ${reason}. Each registration costs money and cannot be undone.`,
      );
      const rows = (await call('GET', `/api/launches/batches/${id}/rows`)).json().data.items;
      expect((await get(rows[0].launchId)).confirmation).toEqual({
        stage: 'register',
        text: `Register ${names[0]} for 2 years: ${reason}. It costs money and cannot be undone.`,
        cost: null,
        priceError: reason,
      });
    } finally {
      nc.clearFailures();
    }
    // A failed read is not kept: once Namecheap answers, the total shows (4.98 a year for .info).
    expect((await batchOf(id)).confirmation).toMatchObject({
      cost: { amount: '19.92', currency: 'USD' },
      priceError: null,
    });
    {
      const c = await call('POST', `/api/launches/batches/${id}/cancel`);
      expect(c.statusCode, c.body).toBe(200);
    }
  }, 90_000);

  it("Confirm all totals the registrations a batch's profile names (each launch's own registration, not the batch's settings)", async () => {
    const profile = await create('launch-profiles', {
      name: unique('Register first'),
      serverId: fx.serverId,
      cloudId: fx.cloudId,
      domainRegistratorId: fx.registratorId,
      register: true,
      domainRegistratorContactId: fx.contactId,
    });
    const names = [1, 2].map(() => `${unique('profiled-batch')}.net`);
    const { id, waiting } = await waitingBatch({ settings: { profileId: profile._id }, names: names.join('\n') });
    expect(waiting.confirmation).toMatchObject({
      names: 2,
      years: 1,
      registrations: 2,
      cost: { amount: '25.96', currency: 'USD' },
      priceError: null,
    });
    expect(waiting.confirmation.text).toContain("2 name-years in all, 25.96 USD in all at Namecheap's price");
    expect((await call('POST', `/api/launches/batches/${id}/cancel`)).statusCode).toBe(200);
  }, 90_000);

  it('a held name not at our registrator: checked at Namecheap (availability, price), then registered on its own only with the cost confirmed', async () => {
    const name = `${unique('alone')}.com`;
    const d = await create('domains', { domainName: name, status: 'active' });
    // The launch never buys it as its routine step; its plan offers the separate action.
    const held = await planOf(full(name));
    expect(held.blockers.map((b) => b.stage)).toEqual(['register']);
    expect(held.registerAlone).toEqual({ domainRegistratorId: fx.registratorId, contactId: fx.contactId, years: 1 });
    const body = { domainName: name, domainRegistratorId: fx.registratorId, years: 1 };
    const check = await call('POST', '/api/launches/registration/check', body);
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json().data).toEqual({
      domainName: name,
      domainNameUnicode: name,
      domainId: d._id,
      available: true,
      reason: null,
      years: 1,
      cost: { amount: '10.87', currency: 'USD' },
      priceError: null,
      text: `${name} is available at Namecheap: registering it for 1 year costs 10.87 USD. It cannot be undone.`,
    });
    expect(nc.requests.some((r) => r.command === 'namecheap.domains.check' && r.params.domainlist === name)).toBe(true);

    // Without the cost confirmed nothing is bought.
    const unconfirmed = await call('POST', '/api/launches/registration', { ...body, contactId: fx.contactId });
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.json().fields).toEqual({
      confirmCost: 'Confirm the cost: registering buys the name and cannot be undone',
    });
    expect(nc.domain(fx.apiUser, name)).toBeUndefined();

    const balance = nc.state.accounts.get(fx.apiUser)!.balance;
    const reg = await call('POST', '/api/launches/registration', {
      ...body,
      contactId: fx.contactId,
      confirmCost: true,
    });
    expect(reg.statusCode, reg.body).toBe(200);
    expect(reg.json().data).toMatchObject({ registered: true, chargedAmount: '10.87' });
    expect(nc.domain(fx.apiUser, name)).toBeDefined();
    expect(balance - nc.state.accounts.get(fx.apiUser)!.balance).toBeCloseTo(10.87);
    expect((await domainOf(d._id)).domainRegistratorId).toBe(fx.registratorId);

    // Now in our account: the launch skips the registration, and a second purchase is refused.
    const after = await planOf(full(name));
    expect(after.blockers).toEqual([]);
    expect(after.registerAlone).toBeNull();
    expect(after.steps.find((s) => s.key === 'register')!.detail).toContain('registration skipped');
    const twice = await call('POST', '/api/launches/registration', {
      ...body,
      contactId: fx.contactId,
      confirmCost: true,
    });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().message).toBe(`${name} is already in the registrator's account: there is nothing to buy`);
  }, 60_000);

  it("a name Namecheap will not register is refused with the registrar's reason, and nothing changes", async () => {
    const name = `${unique('taken')}.com`;
    const d = await create('domains', { domainName: name, status: 'active' });
    nc.state.takenElsewhere.add(name);
    const body = { domainName: name, domainRegistratorId: fx.registratorId, years: 1 };
    const check = await call('POST', '/api/launches/registration/check', body);
    expect(check.statusCode, check.body).toBe(200);
    const reason = 'Namecheap answered that it cannot be registered (domains.check: not available)';
    expect(check.json().data).toMatchObject({
      available: false,
      reason,
      cost: null,
      text: `${name} is not available at Namecheap: ${reason}`,
    });
    const reg = await call('POST', '/api/launches/registration', {
      ...body,
      contactId: fx.contactId,
      confirmCost: true,
    });
    expect(reg.statusCode).toBe(409);
    expect(reg.json().message).toBe(`${name} is not available at Namecheap: ${reason}`);
    expect(nc.domain(fx.apiUser, name)).toBeUndefined();
    expect((await domainOf(d._id)).domainRegistratorId).toBeNull();

    // A TLD Namecheap does not sell: in its own words.
    const odd = await call('POST', '/api/launches/registration/check', { ...body, domainName: `${unique('odd')}.zz` });
    expect(odd.json().data).toMatchObject({ available: false, reason: 'TLD is not supported' });
    // A name the console does not hold goes through a launch; a missing contact is named.
    const fresh = `${unique('fresh')}.com`;
    const notHeld = await call('POST', '/api/launches/registration', {
      ...body,
      domainName: fresh,
      contactId: fx.contactId,
      confirmCost: true,
    });
    expect(notHeld.statusCode).toBe(409);
    expect(notHeld.json().message).toBe(
      `${fresh} is not a console domain: launch it with registration instead, where the launch asks before it buys`,
    );
    const noContact = await call('POST', '/api/launches/registration', { ...body, confirmCost: true });
    expect(noContact.statusCode).toBe(400);
    expect(noContact.json().fields.contactId).toBe('Choose the contact the name is registered with');
  }, 60_000);
});

import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { seedCloudflareDemo, seedNamecheapDemo } from '@fleetdesk/simulators';
import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';
import { hashToken, newToken } from '../lib/tokens.ts';
import { hashPassword } from '../lib/passwords.ts';
import { seedDemoHealth } from './seed-health.ts';
import { seedDemoDashboard } from './seed-dashboard.ts';
import { seedDemoDomains } from './seed-domains.ts';
import { seedDemoImports } from './seed-imports.ts';
import { seedDemoSites } from './seed-sites.ts';
import { seedDemoParsing } from './seed-parsing.ts';
import { seedDemoLaunch } from './seed-launch.ts';
import {
  DEMO_NAMECHEAP_USER,
  DEMO_PROXIES,
  DEMO_SITES_PATH,
  DEMO_SITES_PATH_2,
  DEMO_SSH_EMAIL,
  DEMO_SSH_EMAIL_2,
  DEMO_YANDEX_TOKENS,
  DEMO_GOOGLE_DOMAIN,
  type DemoProviders,
} from './providers.ts';

export const DEMO_REGIONS = [
  'Europe West',
  'Europe East',
  'North America',
  'South America',
  'Asia Pacific',
  'Middle East',
  'Africa',
  'Oceania',
];
export const DEMO_BRANDS = ['Aurora Media', 'Bluefin', 'Cobalt Games', 'Driftwood', 'Evergreen News', 'Fjord Travel'];
/** The demo's brand with IndexNow on (decision 075). */
export const DEMO_INDEXNOW_BRAND = 'Aurora Media';
export const DEMO_CLOUDS = [
  {
    email: 'ops@fleetdesk-demo.com',
    token: 'demo-cloudflare-token-1',
    zones: ['fleetdesk-demo.com', 'fleetdesk-demo.net', 'fleetdesk-demo.org'] as [string, string, string],
  },
  {
    email: 'edge@bluefin-demo.net',
    globalAPIKey: 'demo-global-api-key-2',
    zones: ['bluefin-demo.net', 'bluefin-demo.org', 'bluefin-demo.info'] as [string, string, string],
  },
];

/** Seeds a data directory once: only when it has no users yet. */
export async function seedDemo(c: Container, providers: DemoProviders, log: FastifyBaseLogger) {
  const admin = await c.services.users.ensureAdmin({ username: 'admin', password: 'admin-demo-password' });
  if (!admin.created) {
    log.info('demo data already present; not seeding again');
    return;
  }
  // The demo promises admin / admin, shorter than the production minimum: set it directly.
  await c.repos.users.setPasswordHashByUsername('admin', await hashPassword('admin'));
  const actor = systemActor('demo-seed');
  const regions = [];
  for (const name of DEMO_REGIONS) regions.push(await c.services.regions.create({ name }, actor));
  // Bluefin's limit of the Traffic fell check (30 %): its bluefin-demo.org, whose traffic fell, fails it. The others
  // leave the check off (their default). Aurora Media has IndexNow on: its sites' jobs and launches submit to the
  // demo's IndexNow simulator.
  const brandByName = new Map<string, string>();
  for (const name of DEMO_BRANDS)
    brandByName.set(
      name,
      (
        await c.services.brands.create(
          { name, trafficFallPercent: name === 'Bluefin' ? 30 : null, indexNow: name === DEMO_INDEXNOW_BRAND },
          actor,
        )
      )._id,
    );

  // Proxies: a working one in each of three regions (the demo's forward proxies), and, on purpose, one that stopped
  // answering (nothing listens on port 1), alone in its region, so the proxy check shows a failure that no site or
  // cloud depends on.
  const regionByName = new Map(regions.map((r) => [r.name, r]));
  const proxyRegions: string[] = [];
  for (const [i, x] of DEMO_PROXIES.entries()) {
    const regionId = regionByName.get(x.region)!._id;
    proxyRegions.push(regionId);
    await c.services.proxies.create(
      {
        IPAddress: '127.0.0.1',
        httpPort: providers.proxies[i]!.port,
        proxyType: 'http',
        isHttps: false,
        username: x.username,
        regionId,
      },
      actor,
    );
  }
  await c.services.proxies.create(
    {
      IPAddress: '127.0.0.1',
      httpPort: 1,
      proxyType: 'socks5',
      isHttps: false,
      regionId: regionByName.get('Europe East')!._id,
    },
    actor,
  );

  // Clouds, each backed by an account in the Cloudflare simulator; the second reaches it through the demo proxy.
  const zoneLinks: { name: string; zoneId: string; cloudId: string }[] = [];
  const cloudIds: string[] = [];
  for (const [i, cloud] of DEMO_CLOUDS.entries()) {
    const seeded = seedCloudflareDemo(
      providers.cloudflare,
      { email: cloud.email, token: cloud.token, globalAPIKey: cloud.globalAPIKey },
      cloud.zones,
    );
    const created = await c.services.clouds.create(
      {
        email: cloud.email,
        token: cloud.token,
        globalAPIKey: cloud.globalAPIKey,
        proxyRegionId: i === 1 ? regions[0]!._id : null,
      },
      actor,
    );
    cloudIds.push(created._id);
    // The second zone's traffic fell by two thirds five days ago, so the dashboard has a fall to name (issue 47).
    const fallen = seeded.zones[1];
    if (fallen) {
      const since = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
      providers.cloudflare.setZoneTraffic(fallen.zoneId, { change: { since, factor: 0.35 } });
    }
    // The first two zones of each account get a domain linked to them; the third is left to link by hand.
    for (const z of seeded.zones.slice(0, 2)) zoneLinks.push({ name: z.name, zoneId: z.zoneId, cloudId: created._id });
  }

  // A Cloudflare account whose zones are not in the console yet: something to import.
  await seedDemoImports(c, providers, actor);

  // Servers: two reachable over SSH (the in-process hosts, each with a key already installed; the first also has
  // the hosting panels), and one on a closed port.
  const live = await c.services.servers.create(
    {
      IPAddress: '127.0.0.1',
      email: DEMO_SSH_EMAIL,
      sshPort: providers.sshHost.port,
      domainsPath: DEMO_SITES_PATH,
      // Room for what the demo's visitors (and the browser suite) launch, import and create on it.
      domainsLimitQty: 80,
      username: 'root',
    },
    actor,
  );
  await c.services.servers.generateKey(live._id, 'ed25519', actor);
  // On purpose: a retired server whose SSH no longer answers, with no domains on it, so the Servers screen and the
  // dashboard show an offline server. Has a key, so its connection test fails for the reason that matters:
  // nothing listens on the port.
  const closed = await c.services.servers.create(
    {
      IPAddress: '127.0.0.1',
      email: 'closed-port@fleetdesk.local',
      // A port nothing listens on: ports below 1024 are refused before any connection (decision 013).
      sshPort: await closedPort(),
      domainsPath: '/www',
      domainsLimitQty: 20,
      username: 'root',
    },
    actor,
  );
  await c.services.servers.generateKey(closed._id, 'ed25519', actor);
  // Made after the closed one: the browser suite takes the first 127.0.0.1 server as the live one and the next
  // one on another port as the closed one.
  const web2 = await c.services.servers.create(
    {
      IPAddress: '127.0.0.1',
      email: DEMO_SSH_EMAIL_2,
      sshPort: providers.sshHost2.port,
      domainsPath: DEMO_SITES_PATH_2,
      domainsLimitQty: 60,
      username: 'root',
    },
    actor,
  );
  await c.services.servers.generateKey(web2._id, 'ed25519', actor);
  // People and catalogues: an operator with a narrower role, WAF templates, a registrator and a contact.
  const operators = await c.services.roles.create(
    {
      name: 'Operators',
      rules: ['cnv:domains', 'cnv:clouds', 'cnv:servers', 'cnv:brands', 'cnv:firewallRules'],
      requireTwoFactor: false,
      tokensWithoutExpiry: false,
    },
    actor,
  );
  const operator = await c.services.users.create(
    {
      username: 'operator',
      name: 'Olga Operator',
      email: 'operator@fleetdesk.local',
      password: 'operator-demo',
      status: 'active',
      roles: [operators._id],
    },
    actor,
  );
  await seedAccess(c, operator._id);
  const ruleIds: string[] = [];
  for (const rule of [
    {
      name: 'Challenge bad bots',
      action: 'managed_challenge',
      expression: '(cf.client.bot eq false and cf.threat_score gt 10)',
      defaultPriority: 10,
    },
    {
      name: 'Block admin paths',
      action: 'block',
      expression: '(http.request.uri.path contains "/wp-admin")',
      defaultPriority: 20,
    },
    { name: 'Allow office', action: 'skip', expression: '(ip.src in {203.0.113.0/24})', defaultPriority: 1 },
  ] as const) {
    ruleIds.push((await c.services.firewallRules.create(rule, actor))._id);
  }
  // The registrator talks to the demo's Namecheap simulator (attachDemoNamecheap keeps its port current).
  const registrator = await c.services.domainRegistrators.create(
    {
      name: 'Namecheap sandbox',
      type: 'namecheap',
      credentials: {
        endpointUrl: providers.namecheap.url,
        apiUsername: DEMO_NAMECHEAP_USER,
        apiKey: 'demo-namecheap-key',
      },
    },
    actor,
  );
  const contact = await c.services.domainRegistratorsContacts.create(
    {
      name: 'Default registrant',
      firstName: 'Dana',
      lastName: 'Registrant',
      address1: '1 Example Street',
      city: 'Lisbon',
      state: 'Lisboa',
      postalCode: '1000-001',
      country: 'PT',
      phone: '+351.210000000',
      email: 'registrant@fleetdesk.local',
    },
    actor,
  );
  // The domains live on the reachable servers and check their sites from the regions with a working proxy.
  const domains = await seedDemoDomains(c, actor, { serverIds: [live._id, web2._id], regionIds: proxyRegions });
  await seedDemoDashboard(c, actor);
  await seedDemoRegistrar(c, providers, registrator._id);
  await seedDemoSites(c, providers, [
    { id: live._id, rootDir: providers.sshHost.rootDir, panel: true },
    { id: web2._id, rootDir: providers.sshHost2.rootDir, panel: false },
  ]);
  await seedDemoParsing(c, providers, live._id, regions[0]!._id, brandByName.get(DEMO_INDEXNOW_BRAND)!);
  const [brand] = (await c.services.brands.list({ page: 1, search: '' })).items;
  // The Yandex Webmaster account of the simulator's first user; the zone-linked domains use it.
  const webmaster = await c.services.yandexWebmaster.create(
    { name: 'Demo Yandex Webmaster', apiToken: DEMO_YANDEX_TOKENS[0] },
    actor,
  );
  const zoneLinked: { id: string; name: string; zoneId: string }[] = [];
  for (const z of zoneLinks) {
    const d = await c.services.domains.create(
      {
        domainName: z.name,
        status: 'active',
        cloudId: z.cloudId,
        // The fallen zone of the second account is Bluefin's (its Traffic fell check fails); the others the first's.
        brandId: z.name === 'bluefin-demo.org' ? brandByName.get('Bluefin')! : (brand?._id ?? null),
        yandexWebmasterAccountId: webmaster._id,
      },
      actor,
    );
    await c.services.domains.setCloudZone(d._id, { cloudZoneId: z.zoneId, cloudRulesetId: null }, actor);
    zoneLinked.push({ id: d._id, name: z.name, zoneId: z.zoneId });
  }
  await seedDemoHealth(c, providers, actor, { serverId: live._id, regionId: regions[0]!._id, zoneLinked });
  // The Google account of the demo's first service account, holding fleetdesk-demo.com's verified property.
  const google = await c.services.googleSearch.create(
    { name: 'Demo Google', serviceAccountKey: JSON.stringify(providers.googleKeys[0]) },
    actor,
  );
  const googleDomain = zoneLinked.find((z) => z.name === DEMO_GOOGLE_DOMAIN);
  if (googleDomain)
    await c.services.googleSearch.addProperty(googleDomain.id, { accountId: google._id, kind: 'domain' }, actor);
  await seedDemoLaunch(c, actor, {
    serverId: live._id,
    cloudId: cloudIds[0]!,
    brandId: brand?._id ?? null,
    domainRegistratorId: registrator._id,
    domainRegistratorContactId: contact._id,
    firewallRuleIds: ruleIds,
    yandexWebmasterAccountId: webmaster._id,
  });
  log.info({ domains }, 'demo data seeded');
}

/**
 * The demo Namecheap account holds most of the console's domains tied to the registrator, with the same
 * expiration dates (every sixth is left out, so the Domain Registrator tab shows the unsuccessful answer and its
 * Register link), plus names only the registrar has, to import.
 */
async function seedDemoRegistrar(c: Container, providers: DemoProviders, registratorId: string) {
  const owned: { name: string; expires: string | null }[] = [];
  for (let page = 1; page < 100; page++) {
    const { items } = await c.services.domains.list({ page, search: '' });
    if (!items.length) break;
    for (const d of items) {
      if (d.domainRegistratorId !== registratorId || d.domainNo % 6 === 0) continue;
      owned.push({ name: d.domainName, expires: d.domainRegistratorExpirationDate });
    }
  }
  seedNamecheapDemo(providers.namecheap, { apiUser: DEMO_NAMECHEAP_USER, apiKey: 'demo-namecheap-key' }, owned);
}

/** A loopback port that was free a moment ago: the OS hands one out, and it is closed again at once. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * Access screens (issue 30): an API token of the admin, a role that requires two-factor, and the operator signed
 * in from a laptop, so the sessions screens have someone else's session to show and end.
 */
async function seedAccess(c: Container, operatorId: string) {
  const admin = await c.repos.users.findByUsername('admin');
  if (!admin) return;
  const adminActor = { userId: admin.id, username: admin.username, rules: ['cnv'], requestId: null };
  await c.services.apiTokens.create(
    { name: 'Nightly DNS sync', rules: ['cnv:domains', 'cnv:clouds'], expiresInDays: 90 },
    adminActor,
  );
  await c.services.roles.create(
    {
      name: 'Security officers',
      rules: ['cnv:users', 'cnv:roles'],
      requireTwoFactor: true,
      tokensWithoutExpiry: false,
    },
    systemActor('demo-seed'),
  );
  await c.repos.auth.insertSession({
    tokenHash: hashToken(newToken()),
    userId: operatorId,
    expiresAt: new Date(Date.now() + 12 * 3_600_000),
    ip: '198.51.100.23',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  });
}

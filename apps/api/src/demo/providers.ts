import fs from 'node:fs';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import {
  cloudflareTxtLookup,
  directoryFileLookup,
  startCloudflareSim,
  startDirectAdminSim,
  startForwardProxy,
  startIspManagerSim,
  startNamecheapSim,
  startSshHost,
  startYandexWebmasterSim,
  startIndexNowSim,
  startGoogleSearchSim,
  type GoogleSearchSim,
  startSiteServer,
  demoSiteRoutes,
  generateSelfSignedCert,
  startSmtpCatcher,
  startTelegramSim,
} from '@fleetdesk/simulators';
import { toAsciiDomain } from '@fleetdesk/contract';
import type { Container } from '../container.ts';
import { domainRegistrators, domains, proxies, servers } from '../db/schema/index.ts';
import { systemActor } from '../http/context.ts';

export const DEMO_SSH_EMAIL = 'demo-ssh@fleetdesk.local';
/** The second reachable server: its own in-process SSH host, without a hosting panel. */
export const DEMO_SSH_EMAIL_2 = 'web-2@fleetdesk.local';
export const DEMO_PROXY_USER = 'demo';
/**
 * The demo's working proxies, one forward proxy each, told apart by their user name (attachDemoSsh points each
 * row at its proxy's port). The demo's domains check their sites from these regions.
 */
export const DEMO_PROXIES = [
  { username: DEMO_PROXY_USER, region: 'Europe West' },
  { username: 'demo-americas', region: 'North America' },
  { username: 'demo-apac', region: 'Asia Pacific' },
] as const;
/** The demo panels' accounts: a DirectAdmin admin acting as its user, and ISPmanager's root. */
export const DEMO_DIRECTADMIN = { admin: 'admin', password: 'directadmin-demo', user: 'fleet' };
export const DEMO_ISPMANAGER = { username: 'root', password: 'ispmanager-demo' };
/** Tokens the demo's Yandex Webmaster simulator knows: the first is the seeded account's, the second is free to add. */
export const DEMO_YANDEX_TOKENS = ['demo-yandex-token-1', 'demo-yandex-token-2'] as const;
export const DEMO_TELEGRAM = {
  token: '7000000001:DEMO-bot-token',
  bot: 'fleetdesk_demo_bot',
  chatId: '-1001000000001',
};

/**
 * Hosts of the seeded Yandex account (in the simulator's memory, seeded at each start). The zone-linked console
 * domains are verified, except fleetdesk-demo.net: on purpose, its host lost its verification (health: Yandex host
 * failing; Fix verifies it again through a TXT record in its zone). fleetdesk-demo.org is not a console domain; it
 * waits for verification on the Yandex Webmaster screen.
 */
export const DEMO_YANDEX_HOSTS = {
  verified: ['fleetdesk-demo.com', 'bluefin-demo.net', 'bluefin-demo.org'],
  lostVerification: 'fleetdesk-demo.net',
  unverified: 'fleetdesk-demo.org',
} as const;
/**
 * The demo's sites whose answer or certificate is set here (one HTTPS server plays every demo site, with a
 * certificate per name): one healthy, one answering 500 on purpose, one whose certificate ends in a few days on
 * purpose. The zone-linked domains have no server and answer 200. Every other site is served from its directory
 * on a demo SSH host (see hostedSite below).
 */
export const DEMO_HEALTH_SITES = [
  { name: 'health-ok.example', status: 200, days: 90 },
  { name: 'health-down.example', status: 500, days: 90 },
  { name: 'health-cert.example', status: 200, days: 6 },
  { name: 'fleetdesk-demo.com', status: 200, days: 60 },
  { name: 'fleetdesk-demo.net', status: 200, days: 60 },
  { name: 'bluefin-demo.net', status: 200, days: 60 },
  { name: 'bluefin-demo.org', status: 200, days: 60 },
] as const;

/**
 * The demo's Google service accounts (decision 077): their keys are made once and kept in DATA_DIR under this name
 * (the simulator learns them again at each start). The first is the seeded account's, the second is free to add
 * (the browser test pastes it). Their token_uri is Google's; the demo sends tokens requests to the simulator.
 */
export const DEMO_GOOGLE_KEYS_FILE = 'demo-google-keys.json';
/** The seeded Google account's verified domain property, with a sitemap and 28 days of analytics. */
export const DEMO_GOOGLE_DOMAIN = 'fleetdesk-demo.com';

/** Where each demo SSH host keeps its sites (the servers' domains path): its own root plus this. */
export const DEMO_SITES_PATH = '/www';
export const DEMO_SITES_PATH_2 = '/var/www';

/** An SSH/SFTP host serving DATA_DIR/<dir>; its host key is kept in DATA_DIR so a restarted demo keeps trusting it. */
async function startDemoSshHost(dataDir: string, dir: string, keyName: string, sitesPath: string) {
  const rootDir = path.join(dataDir, dir);
  fs.mkdirSync(path.join(rootDir, sitesPath), { recursive: true });
  const hostKeyFile = path.join(dataDir, keyName);
  const savedKey = fs.existsSync(hostKeyFile) ? fs.readFileSync(hostKeyFile, 'utf8') : undefined;
  const host = await startSshHost({ rootDir, hostKey: savedKey });
  if (!savedKey) fs.writeFileSync(hostKeyFile, host.hostKey, { mode: 0o600 });
  return host;
}

/** A host name as DNS has it (lower-case ASCII labels): nothing else is ever looked up as a site directory. */
const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * Demo mode's providers, all on loopback: two SSH/SFTP hosts serving DATA_DIR/demo-ssh-root and
 * DATA_DIR/demo-ssh-root-2, a Cloudflare simulator whose accounts and zones persist in DATA_DIR, HTTP forward
 * proxies, and one HTTPS server playing the web server of every demo site. The host keys and the Cloudflare state
 * survive restarts, so a demo data directory keeps working.
 */
export async function startDemoProviders(dataDir: string) {
  fs.mkdirSync(dataDir, { recursive: true });
  const sshHost = await startDemoSshHost(dataDir, 'demo-ssh-root', 'demo-ssh-host.key', DEMO_SITES_PATH);
  const sshHost2 = await startDemoSshHost(dataDir, 'demo-ssh-root-2', 'demo-ssh-host-2.key', DEMO_SITES_PATH_2);
  const rootDir = sshHost.rootDir;
  const siteRoots = [path.join(rootDir, DEMO_SITES_PATH), path.join(sshHost2.rootDir, DEMO_SITES_PATH_2)];
  const cloudflare = await startCloudflareSim({ stateFile: path.join(dataDir, 'demo-cloudflare.json') });
  const healthNames = new Map<string, (typeof DEMO_HEALTH_SITES)[number]>(DEMO_HEALTH_SITES.map((x) => [x.name, x]));
  /**
   * What the demo's web server answers for a host name: the sites set above as set, and every site whose directory
   * is on a demo SSH host from that directory (its index.html, or 403 without one, as a web server without
   * directory listing answers). Undefined for a name the demo does not host: DNS would not find it.
   */
  const hostedSite = (host: string): { status: number; body: string } | undefined => {
    const name = host.toLowerCase();
    const fixed = healthNames.get(name);
    if (fixed) return { status: fixed.status, body: `<h1>${fixed.name}</h1>` };
    if (!HOST_NAME.test(name)) return undefined;
    const dir = siteRoots.map((r) => path.join(r, name)).find((d) => fs.existsSync(d));
    if (!dir) return undefined;
    const index = path.join(dir, 'index.html');
    return fs.existsSync(index)
      ? { status: 200, body: fs.readFileSync(index, 'utf8') }
      : { status: 403, body: '<h1>403 Forbidden</h1>' };
  };
  // The proxies reach the demo's sites by name (on loopback, like everything else they reach).
  const resolveName = (host: string) => (hostedSite(host) ? '127.0.0.1' : undefined);
  const forwardProxies = await Promise.all(DEMO_PROXIES.map(() => startForwardProxy({ kind: 'http', resolveName })));
  const proxy = forwardProxies[0]!;
  const certOf = (x: (typeof DEMO_HEALTH_SITES)[number]) =>
    generateSelfSignedCert('Fleetdesk demo CA', { validDays: x.days, dnsNames: [x.name] });
  const healthSite = await startSiteServer({
    routes: {
      '/': (req) =>
        hostedSite(
          String(req.headers.host ?? '')
            .split(':')[0]!
            .toLowerCase(),
        ) ?? { status: 404, body: '<h1>Unknown site</h1>' },
    },
    tls: {
      ...generateSelfSignedCert('Fleetdesk demo CA', { validDays: 90 }),
      byName: new Map(DEMO_HEALTH_SITES.map((x) => [x.name, certOf(x)])),
    },
  });
  // Namecheap's accounts and domains persist too, so registrations and imports survive a restart.
  const namecheap = await startNamecheapSim({ stateFile: path.join(dataDir, 'demo-namecheap.json') });
  // Cloudflare activates a zone once the registrar's name servers point at it. Here the registrar and the edge are
  // two simulators, so this look every two seconds stands in for Cloudflare's own checks (a launch waits on it).
  const activation = setInterval(() => {
    for (const zone of cloudflare.state.zones.values()) {
      if (zone.status !== 'pending') continue;
      const wanted = cloudflare.state.accounts.get(zone.accountId)?.nameServers;
      const registered = [...namecheap.state.accounts.values()].map((a) => a.domains.get(zone.name)).find(Boolean);
      const ns = registered?.nameServers.map((n) => n.toLowerCase()).sort();
      if (
        wanted &&
        ns &&
        ns.join() ===
          [...wanted]
            .map((n) => n.toLowerCase())
            .sort()
            .join()
      )
        cloudflare.setZoneStatus(zone.id, 'active');
    }
  }, 2000);
  activation.unref();
  // The hosting panels keep their sites in DATA_DIR; a missing file means they are new and get sample sites.
  const daState = path.join(dataDir, 'demo-directadmin.json');
  const ispState = path.join(dataDir, 'demo-ispmanager.json');
  const panelsFresh = !fs.existsSync(daState) && !fs.existsSync(ispState);
  const directAdmin = await startDirectAdminSim({
    stateFile: daState,
    users: [
      { username: DEMO_DIRECTADMIN.admin, password: DEMO_DIRECTADMIN.password, level: 'admin' },
      { username: DEMO_DIRECTADMIN.user, password: `${DEMO_DIRECTADMIN.password}-user` },
    ],
  });
  const ispManager = await startIspManagerSim({
    stateFile: ispState,
    users: [{ username: DEMO_ISPMANAGER.username, password: DEMO_ISPMANAGER.password }],
  });
  // Yandex checks DNS verification against the Cloudflare simulator's zones and file verification against the
  // SSH host's site directories (<root>/www/<host name>). Its users and hosts live in memory, seeded at each start.
  const yandexWebmaster = await startYandexWebmasterSim({
    dnsTxtLookup: cloudflareTxtLookup(cloudflare),
    fileLookup: directoryFileLookup((hostname) => path.join(rootDir, 'www', hostname)),
    verifyDelayMs: 1500,
  });
  for (const token of DEMO_YANDEX_TOKENS) yandexWebmaster.addUser(token);
  // IndexNow reads each key file where the demo's web server would serve it from: the site's directory.
  const indexNow = await startIndexNowSim({
    fileLookup: directoryFileLookup((host) =>
      HOST_NAME.test(host) ? siteRoots.map((r) => path.join(r, host)).find((d) => fs.existsSync(d)) : undefined,
    ),
  });
  // Google checks a TXT record in the Cloudflare simulator's zones and a verification file or sitemap in the site's
  // directory; a domain verified for the first time gets 28 days of analytics, as if Google had been counting.
  const googleSearch = await startGoogleSearchSim({
    dnsTxtLookup: cloudflareTxtLookup(cloudflare),
    fileLookup: directoryFileLookup((host) =>
      HOST_NAME.test(host) ? siteRoots.map((r) => path.join(r, host)).find((d) => fs.existsSync(d)) : undefined,
    ),
    analyticsOnVerify: 28,
  });
  const googleKeys = demoGoogleKeys(dataDir, googleSearch);
  seedDemoGoogle(googleSearch, googleKeys[0]!.client_email);
  // A small web site for Domain Parsing to mirror.
  const site = await startSiteServer({ routes: demoSiteRoutes() });
  // A new simulator host reports one CRITICAL problem; the demo's sites have none, so a verified host reads OK.
  const noProblems = (h: { summary: { site_problems: Record<string, number> } }) => {
    h.summary.site_problems.CRITICAL = 0;
  };
  for (const name of DEMO_YANDEX_HOSTS.verified)
    noProblems(yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${name}`, { verified: true }));
  // On purpose: in the account, but its verification is gone (as when a verification record is deleted).
  noProblems(yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS.lostVerification}`));
  yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS.unverified}`);
  // Alerts (issue 29): a local SMTP catcher (the demo inbox, in memory) and the Bot API simulator.
  const smtp = await startSmtpCatcher({ keep: 200 });
  const telegram = await startTelegramSim();
  telegram.addBot(DEMO_TELEGRAM.token, DEMO_TELEGRAM.bot, [DEMO_TELEGRAM.chatId]);
  return {
    smtp,
    telegram,
    sshHost,
    sshHost2,
    cloudflare,
    proxy,
    /** The forward proxy of each of DEMO_PROXIES, in order. */
    proxies: forwardProxies,
    namecheap,
    directAdmin,
    ispManager,
    panelsFresh,
    yandexWebmaster,
    indexNow,
    googleSearch,
    googleKeys,
    site,
    healthSite,
    async close() {
      clearInterval(activation);
      await Promise.allSettled([
        sshHost.close(),
        sshHost2.close(),
        cloudflare.close(),
        ...forwardProxies.map((x) => x.close()),
        namecheap.close(),
        directAdmin.close(),
        ispManager.close(),
        yandexWebmaster.close(),
        indexNow.close(),
        googleSearch.close(),
        site.close(),
        healthSite.close(),
        smtp.close(),
        telegram.close(),
      ]);
    },
  };
}
export type DemoProviders = Awaited<ReturnType<typeof startDemoProviders>>;

/** The demo's two service-account keys: made on the first start and kept (0600), known to the simulator each start. */
function demoGoogleKeys(dataDir: string, sim: GoogleSearchSim) {
  const file = path.join(dataDir, DEMO_GOOGLE_KEYS_FILE);
  if (fs.existsSync(file)) {
    const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as ReturnType<GoogleSearchSim['createServiceAccount']>[];
    for (const k of keys) sim.registerServiceAccount(k);
    return keys;
  }
  const keys = ['fleetdesk-console', 'fleetdesk-free'].map((name) => ({
    ...sim.createServiceAccount(name, { projectId: 'fleetdesk-demo' }),
    token_uri: 'https://oauth2.googleapis.com/token',
  }));
  fs.writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
}

/**
 * What Google knows at each start (the simulator keeps it in memory): the seeded account owns fleetdesk-demo.com's
 * domain property, which has a processed sitemap and 28 days of analytics.
 */
function seedDemoGoogle(sim: GoogleSearchSim, email: string) {
  const siteUrl = `sc-domain:${DEMO_GOOGLE_DOMAIN}`;
  sim.addOwner(DEMO_GOOGLE_DOMAIN, email);
  sim.addProperty(siteUrl, email);
  sim.seedAnalytics(DEMO_GOOGLE_DOMAIN, { days: 28 });
  const pages = [...new Set(sim.analyticsOf(DEMO_GOOGLE_DOMAIN).map((r) => r.page))];
  sim.addSitemap(siteUrl, `https://${DEMO_GOOGLE_DOMAIN}/sitemap.xml`, {
    urls: [...pages, `https://${DEMO_GOOGLE_DOMAIN}/new-page/`],
  });
}

/**
 * Points the demo's servers at this run's SSH hosts and its proxies at this run's forward proxies (their ports
 * change with every start), and plays the operator who copies a server's public key into authorized_keys: every
 * key saved or generated for a 127.0.0.1 server is accepted by both hosts.
 */
export async function attachDemoSsh(c: Container, p: DemoProviders) {
  const db = c.database.db;
  await db.update(servers).set({ sshPort: p.sshHost.port }).where(eq(servers.email, DEMO_SSH_EMAIL));
  await db.update(servers).set({ sshPort: p.sshHost2.port }).where(eq(servers.email, DEMO_SSH_EMAIL_2));
  for (const [i, x] of DEMO_PROXIES.entries())
    await db.update(proxies).set({ httpPort: p.proxies[i]!.port }).where(eq(proxies.username, x.username));
  const hosts = [p.sshHost, p.sshHost2];
  const rows = await db.select().from(servers).where(eq(servers.ipAddress, '127.0.0.1'));
  for (const r of rows) if (r.rsaPublicKey) for (const h of hosts) h.addAuthorizedKey(r.rsaPublicKey);
  c.services.servers.onKeyChanged((r) => {
    if (r.ipAddress === '127.0.0.1' && r.rsaPublicKey) for (const h of hosts) h.addAuthorizedKey(r.rsaPublicKey);
  });
}

/**
 * Each server's connection test and each proxy's check, once, as their periodic jobs do: the ports changed, so
 * the statuses of the last run say nothing, and the first health checks read these (a server never checked reads
 * "unknown"). Real checks against the simulators; nothing is written but what they found.
 */
export async function checkDemoInfrastructure(c: Container) {
  const actor = systemActor('health check');
  for (const s of await c.database.db.select({ id: servers.id }).from(servers))
    await c.services.servers.testConnection(s.id, actor, { audit: false }).catch(() => undefined);
  for (const x of await c.database.db.select({ id: proxies.id }).from(proxies))
    await c.services.proxies.check(x.id, actor, { audit: false }).catch(() => undefined);
  // The zones' traffic (the longest unread), so the first health checks' Traffic fell reads it, not "unknown".
  await c.services.traffic.cycle(() => undefined).catch(() => undefined);
}

export const DEMO_NAMECHEAP_USER = 'fleetdesk-demo';

/** Points the demo registrator at this run's Namecheap simulator (its port changes with every start). */
export async function attachDemoNamecheap(c: Container, p: DemoProviders) {
  await c.database.db
    .update(domainRegistrators)
    .set({ endpointUrl: p.namecheap.url })
    .where(eq(domainRegistrators.apiUsername, DEMO_NAMECHEAP_USER));
}

/**
 * Points the reachable demo server at this run's DirectAdmin and ISPmanager simulators (ports change per run).
 * Its domains' DirectAdmin sites are made with their content (seedDemoSites). On the panels' first start, some
 * sites the console does not know are added to import, one of its domains gets an ISPmanager site, and another one
 * an ISPmanager site whose answer the console cannot read, so each tab state has an example.
 */
export async function attachDemoPanels(c: Container, p: DemoProviders) {
  const [server] = await c.database.db.select().from(servers).where(eq(servers.email, DEMO_SSH_EMAIL));
  if (!server) return;
  const first = !server.directAdminUri || !server.ispmanagerUri;
  await c.database.db
    .update(servers)
    .set({
      directAdminUri: p.directAdmin.url,
      ispmanagerUri: `${p.ispManager.url}/ispmgr`,
      ispmanagerAcceptSelfSigned: true,
      ...(first
        ? {
            directAdminUsername: `${DEMO_DIRECTADMIN.admin}|${DEMO_DIRECTADMIN.user}`,
            directAdminPasswordEnc: c.secrets.encrypt(DEMO_DIRECTADMIN.password),
            ispmanagerUsername: DEMO_ISPMANAGER.username,
            ispmanagerPasswordEnc: c.secrets.encrypt(DEMO_ISPMANAGER.password),
          }
        : {}),
    })
    .where(eq(servers.id, server.id));
  if (!p.panelsFresh) return;
  const names = (
    await c.database.db
      .select({ name: domains.domainName })
      .from(domains)
      .where(eq(domains.serverId, server.id))
      .orderBy(asc(domains.domainNo))
      .limit(5)
  ).map((d) => toAsciiDomain(d.name) ?? d.name);
  // Sites the console does not know yet: something to import from each panel (decision 043).
  for (let i = 1; i <= 6; i++) p.directAdmin.addDomain(DEMO_DIRECTADMIN.user, `da-site-${i}-demo.com`);
  for (let i = 1; i <= 4; i++) p.ispManager.addSite({ name: `isp-site-${i}-demo.com`, owner: 'www-root' });
  const [created, odd] = [names[0], names[4]];
  if (created) p.ispManager.addSite({ name: created, owner: 'www-root' });
  if (odd) {
    p.ispManager.addSite({ name: odd, owner: 'www-root' });
    // A panel build whose form uses the newer site_* names: shown as "info unparsable" with the raw answer.
    p.ispManager.setRawForm(
      odd,
      JSON.stringify({ doc: { $func: 'webdomain.edit', site_name: { $: odd }, site_owner: { $: 'www-root' } } }),
    );
  }
}

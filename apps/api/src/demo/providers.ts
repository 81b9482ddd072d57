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
  startSiteServer,
  demoSiteRoutes,
  generateSelfSignedCert,
  startSmtpCatcher,
  startTelegramSim,
} from '@fleetdesk/simulators';
import { toAsciiDomain } from '@fleetdesk/contract';
import type { Container } from '../container.ts';
import { domainRegistrators, domains, proxies, servers } from '../db/schema/index.ts';

export const DEMO_SSH_EMAIL = 'demo-ssh@fleetdesk.local';
export const DEMO_PROXY_USER = 'demo';
/** The demo panels' accounts: a DirectAdmin admin acting as its user, and ISPmanager's root. */
export const DEMO_DIRECTADMIN = { admin: 'admin', password: 'directadmin-demo', user: 'fleet' };
export const DEMO_ISPMANAGER = { username: 'root', password: 'ispmanager-demo' };
/** Tokens the demo's Yandex Webmaster simulator knows: the first is the seeded account's, the second is free to add. */
export const DEMO_YANDEX_TOKENS = ['demo-yandex-token-1', 'demo-yandex-token-2'] as const;
/** Hosts of the seeded Yandex account: the first verified, the second waiting for verification. */
export const DEMO_TELEGRAM = {
  token: '7000000001:DEMO-bot-token',
  bot: 'fleetdesk_demo_bot',
  chatId: '-1001000000001',
};

export const DEMO_YANDEX_HOSTS = ['fleetdesk-demo.com', 'fleetdesk-demo.org'] as const;
/**
 * The demo's sites over HTTPS for the health checks (one HTTPS server plays them all, with a certificate per
 * name): one healthy, one answering 500, one whose certificate ends in a few days. The zone-linked domains answer
 * 200 too.
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
 * Demo mode's providers, all on loopback: an SSH/SFTP host serving DATA_DIR/demo-ssh-root, a Cloudflare
 * simulator whose accounts and zones persist in DATA_DIR, and an HTTP forward proxy. The host key and the
 * Cloudflare state survive restarts, so a demo data directory keeps working.
 */
export async function startDemoProviders(dataDir: string) {
  fs.mkdirSync(dataDir, { recursive: true });
  const rootDir = path.join(dataDir, 'demo-ssh-root');
  fs.mkdirSync(path.join(rootDir, 'www'), { recursive: true });
  const hostKeyFile = path.join(dataDir, 'demo-ssh-host.key');
  const savedKey = fs.existsSync(hostKeyFile) ? fs.readFileSync(hostKeyFile, 'utf8') : undefined;
  const sshHost = await startSshHost({ rootDir, hostKey: savedKey });
  if (!savedKey) fs.writeFileSync(hostKeyFile, sshHost.hostKey, { mode: 0o600 });
  const cloudflare = await startCloudflareSim({ stateFile: path.join(dataDir, 'demo-cloudflare.json') });
  // The proxy reaches the demo's health sites by name (on loopback, like everything else it reaches).
  const healthNames = new Map<string, (typeof DEMO_HEALTH_SITES)[number]>(DEMO_HEALTH_SITES.map((x) => [x.name, x]));
  const proxy = await startForwardProxy({
    kind: 'http',
    resolveName: (host) => (healthNames.has(host) ? '127.0.0.1' : undefined),
  });
  const certOf = (x: (typeof DEMO_HEALTH_SITES)[number]) =>
    generateSelfSignedCert('Fleetdesk demo CA', { validDays: x.days, dnsNames: [x.name] });
  const healthSite = await startSiteServer({
    routes: {
      '/': (req) => {
        const x = healthNames.get(
          String(req.headers.host ?? '')
            .split(':')[0]!
            .toLowerCase(),
        );
        return { status: x?.status ?? 404, body: x ? `<h1>${x.name}</h1>` : '<h1>Unknown site</h1>' };
      },
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
  // A small web site for Domain Parsing to mirror.
  const site = await startSiteServer({ routes: demoSiteRoutes() });
  yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS[0]}`, { verified: true });
  yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS[1]}`);
  // Alerts (issue 29): a local SMTP catcher (the demo inbox, in memory) and the Bot API simulator.
  const smtp = await startSmtpCatcher({ keep: 200 });
  const telegram = await startTelegramSim();
  telegram.addBot(DEMO_TELEGRAM.token, DEMO_TELEGRAM.bot, [DEMO_TELEGRAM.chatId]);
  return {
    smtp,
    telegram,
    sshHost,
    cloudflare,
    proxy,
    namecheap,
    directAdmin,
    ispManager,
    panelsFresh,
    yandexWebmaster,
    site,
    healthSite,
    async close() {
      clearInterval(activation);
      await Promise.allSettled([
        sshHost.close(),
        cloudflare.close(),
        proxy.close(),
        namecheap.close(),
        directAdmin.close(),
        ispManager.close(),
        yandexWebmaster.close(),
        site.close(),
        healthSite.close(),
        smtp.close(),
        telegram.close(),
      ]);
    },
  };
}
export type DemoProviders = Awaited<ReturnType<typeof startDemoProviders>>;

/**
 * Points the demo's servers at this run's SSH host, and plays the operator who copies a server's public key
 * into authorized_keys: every key saved or generated for a 127.0.0.1 server is accepted by the host.
 */
export async function attachDemoSsh(c: Container, p: DemoProviders) {
  await c.database.db.update(servers).set({ sshPort: p.sshHost.port }).where(eq(servers.email, DEMO_SSH_EMAIL));
  await c.database.db.update(proxies).set({ httpPort: p.proxy.port }).where(eq(proxies.username, DEMO_PROXY_USER));
  const rows = await c.database.db.select().from(servers).where(eq(servers.ipAddress, '127.0.0.1'));
  for (const r of rows) if (r.rsaPublicKey) p.sshHost.addAuthorizedKey(r.rsaPublicKey);
  c.services.servers.onKeyChanged((r) => {
    if (r.ipAddress === '127.0.0.1' && r.rsaPublicKey) p.sshHost.addAuthorizedKey(r.rsaPublicKey);
  });
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
 * On the panels' first start, its first domains get sample sites: three on DirectAdmin, one on ISPmanager, and
 * one ISPmanager site whose answer the console cannot read, so each tab state has an example.
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
  for (const name of names.slice(0, 3)) p.directAdmin.addDomain(DEMO_DIRECTADMIN.user, name);
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

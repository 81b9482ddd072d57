import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import {
  cloudflareTxtLookup,
  directoryFileLookup,
  startCloudflareSim,
  startForwardProxy,
  startSshHost,
  startYandexWebmasterSim,
} from '@fleetdesk/simulators';
import type { Container } from './container.ts';
import { proxies, servers } from './db/schema/index.ts';

export const DEMO_SSH_EMAIL = 'demo-ssh@fleetdesk.local';
export const DEMO_PROXY_USER = 'demo';
/** Tokens the demo's Yandex Webmaster simulator knows: the first is the seeded account's, the second is free to add. */
export const DEMO_YANDEX_TOKENS = ['demo-yandex-token-1', 'demo-yandex-token-2'] as const;
/** Hosts of the seeded Yandex account: the first verified, the second waiting for verification. */
export const DEMO_YANDEX_HOSTS = ['fleetdesk-demo.com', 'fleetdesk-demo.org'] as const;

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
  const proxy = await startForwardProxy({ kind: 'http' });
  // Yandex checks DNS verification against the Cloudflare simulator's zones and file verification against the
  // SSH host's site directories (<root>/www/<host name>). Its users and hosts live in memory, seeded at each start.
  const yandexWebmaster = await startYandexWebmasterSim({
    dnsTxtLookup: cloudflareTxtLookup(cloudflare),
    fileLookup: directoryFileLookup((hostname) => path.join(rootDir, 'www', hostname)),
    verifyDelayMs: 1500,
  });
  for (const token of DEMO_YANDEX_TOKENS) yandexWebmaster.addUser(token);
  yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS[0]}`, { verified: true });
  yandexWebmaster.addHost(DEMO_YANDEX_TOKENS[0], `https://${DEMO_YANDEX_HOSTS[1]}`);
  return {
    sshHost,
    cloudflare,
    proxy,
    yandexWebmaster,
    async close() {
      await Promise.allSettled([sshHost.close(), cloudflare.close(), proxy.close(), yandexWebmaster.close()]);
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

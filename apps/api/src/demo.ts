import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { startCloudflareSim, startForwardProxy, startNamecheapSim, startSshHost } from '@fleetdesk/simulators';
import type { Container } from './container.ts';
import { domainRegistrators, proxies, servers } from './db/schema/index.ts';

export const DEMO_SSH_EMAIL = 'demo-ssh@fleetdesk.local';
export const DEMO_PROXY_USER = 'demo';

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
  // Namecheap's accounts and domains persist too, so registrations and imports survive a restart.
  const namecheap = await startNamecheapSim({ stateFile: path.join(dataDir, 'demo-namecheap.json') });
  return {
    sshHost,
    cloudflare,
    proxy,
    namecheap,
    async close() {
      await Promise.allSettled([sshHost.close(), cloudflare.close(), proxy.close(), namecheap.close()]);
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

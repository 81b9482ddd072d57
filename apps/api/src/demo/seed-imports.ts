import { eq } from 'drizzle-orm';
import type { Container } from '../container.ts';
import { servers } from '../db/schema/index.ts';
import type { Actor } from '../http/context.ts';
import { DEMO_SSH_EMAIL, type DemoProviders } from './providers.ts';

/** A Cloudflare account the console does not know yet: its zones are there to import (decision 043). */
export const DEMO_IMPORT_CLOUD = { email: 'imports@harbor-demo.com', token: 'demo-cloudflare-token-imports' };
/** More than one page of /zones (Cloudflare lists at most 50 a page), so an import pages to the end. */
export const DEMO_IMPORT_ZONES = 64;

export const demoImportZoneName = (i: number) => `harbor-${String(i).padStart(3, '0')}-demo.com`;

/** Seeds the import account in the Cloudflare simulator, with a few records per zone, and its cloud. */
export async function seedDemoImports(c: Container, providers: DemoProviders, actor: Actor) {
  const sim = providers.cloudflare;
  const { accountId } = sim.addAccount({
    email: DEMO_IMPORT_CLOUD.email,
    token: DEMO_IMPORT_CLOUD.token,
    name: 'Harbor',
  });
  for (let i = 1; i <= DEMO_IMPORT_ZONES; i++) {
    const name = demoImportZoneName(i);
    const z = sim.addZone(accountId, name, { status: i % 9 === 0 ? 'pending' : 'active' });
    sim.addDnsRecord(z.zoneId, { type: 'A', name: '@', content: `198.51.100.${i % 250}`, proxied: true, ttl: 1 });
    sim.addDnsRecord(z.zoneId, { type: 'CNAME', name: 'www', content: name, proxied: true, ttl: 1 });
    sim.addDnsRecord(z.zoneId, { type: 'MX', name: '@', content: `mail.${name}`, priority: 10, ttl: 3600 });
    sim.addDnsRecord(z.zoneId, { type: 'TXT', name: '@', content: 'v=spf1 mx -all', ttl: 3600 });
  }
  await c.services.clouds.create({ email: DEMO_IMPORT_CLOUD.email, token: DEMO_IMPORT_CLOUD.token }, actor);
}

type Log = { info(obj: unknown, msg?: string): void; warn(obj: unknown, msg?: string): void };

/**
 * Once the job engine runs, on a demo database without imports: an import of the demo server's DirectAdmin sites,
 * planned and left to read and run, and a zone files export of the domains with a zone, so both screens have
 * something to show. The Cloudflare account above stays for the operator to import. In the background.
 */
export function seedDemoImportPlans(c: Container, log: Log, actor: Actor): void {
  const run = async () => {
    if ((await c.services.imports.list(1)).itemsCount > 0) return;
    const [server] = await c.database.db.select().from(servers).where(eq(servers.email, DEMO_SSH_EMAIL));
    if (server) await c.services.imports.create({ source: 'directadmin', sourceId: server.id }, actor);
    await c.services.zoneExports.start({ filter: { hasZone: true } } as never, actor);
    log.info({ imports: server ? 1 : 0, zoneExports: 1 }, 'demo imports seeded');
  };
  void run().catch((err: unknown) =>
    log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, 'demo imports not seeded'),
  );
}

import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';
import { domainDirName } from '../files/content/index.ts';
import { DEMO_DIRECTADMIN, DEMO_HEALTH_SITES, type DemoProviders } from './providers.ts';

/**
 * The demo's deliberate health problems (issues 28 and 40), one per domain, each with a way out in the console:
 * - health-down.example: its site answers 500 (Site over HTTPS failing).
 * - health-cert.example: its certificate ends in 6 days (Site over HTTPS warning).
 * - health-empty.example: its content directory exists but holds nothing (Content directory failing; upload or
 *   copy a site into it).
 * - fleetdesk-demo.com: TLS 1.3 was turned on through the console, then off at Cloudflare behind its back
 *   (failing; Fix on its Health tab).
 * - bluefin-demo.net: its SSL mode was set to Full through the console, then to Flexible at Cloudflare (failing;
 *   Fix, or "Fix all" from the dashboard).
 * Elsewhere: fleetdesk-demo.net's Yandex host lost its verification (providers.ts), cobalt-travel.fr's registration
 * ends in 5 days and two more within the month (seed-dashboard.ts). health-ok.example is the healthy example.
 * The periodic job checks them at start.
 */
export async function seedDemoHealth(
  c: Container,
  providers: DemoProviders,
  actor: Actor,
  o: { serverId: string; regionId: string; zoneLinked: { id: string; name: string; zoneId: string }[] },
) {
  const www = path.join(providers.sshHost.rootDir, 'www');
  for (const site of DEMO_HEALTH_SITES.filter((x) => x.name.endsWith('.example'))) {
    await c.services.domains.create(
      {
        domainName: site.name,
        status: 'active',
        serverId: o.serverId,
        parserProxyRegionId: o.regionId,
      },
      actor,
    );
    // Their sites exist on the live server's DirectAdmin, with a page (the answer and certificate are set in
    // DEMO_HEALTH_SITES).
    providers.directAdmin.addDomain(DEMO_DIRECTADMIN.user, site.name);
    const dir = path.join(www, domainDirName(site.name));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>${site.name}</title><h1>${site.name}</h1>\n`);
  }
  // On purpose: a site on the panel whose directory exists but holds nothing (no proxy region, so its HTTPS check
  // does not run: the one problem is the empty directory).
  await c.services.domains.create(
    { domainName: 'health-empty.example', status: 'active', serverId: o.serverId },
    actor,
  );
  providers.directAdmin.addDomain(DEMO_DIRECTADMIN.user, 'health-empty.example');
  fs.mkdirSync(path.join(www, domainDirName('health-empty.example')), { recursive: true });

  const zone = (name: string) => {
    const z = o.zoneLinked.find((x) => x.name === name);
    const inSim = z && providers.cloudflare.state.zones.get(z.zoneId);
    if (!z || !inSim) throw new Error(`the demo zone ${name} is missing`);
    return { id: z.id, settings: inSim.settings };
  };
  // On purpose, TLS 1.3 drift: set through the console, then changed at Cloudflare's dashboard.
  const tls = zone('fleetdesk-demo.com');
  await c.services.cloudFlare.setTls13(tls.id, 'on', actor);
  tls.settings.tls_1_3.value = 'off';
  // On purpose, SSL mode drift: Full set through the console, then Flexible at Cloudflare's dashboard. The demo's
  // fleet plan sets SSL on the first account's zones only (seed-fleet.ts), so this one stays drifted.
  const ssl = zone('bluefin-demo.net');
  await c.services.cloudFlare.setSsl(ssl.id, 'full', actor);
  ssl.settings.ssl.value = 'flexible';
}

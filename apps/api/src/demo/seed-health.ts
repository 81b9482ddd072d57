import fs from 'node:fs';
import path from 'node:path';
import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';
import { domainDirName } from '../files/content/index.ts';
import { DEMO_DIRECTADMIN, DEMO_HEALTH_SITES, type DemoProviders } from './providers.ts';

/**
 * Demo domains in each health state (issue 28): a healthy site, one answering 500, one whose certificate ends in
 * days, one with an empty content directory; and two zones whose TLS 1.3 was set through the console, then
 * changed at Cloudflare behind its back (failing, with Fix and Fix all). The periodic job checks them at start.
 */
export async function seedDemoHealth(
  c: Container,
  providers: DemoProviders,
  actor: Actor,
  o: { serverId: string; regionId: string; zoneLinked: { id: string; zoneId: string }[] },
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
    // Their sites exist on the live server's DirectAdmin (health-empty.example's does not).
    providers.directAdmin.addDomain(DEMO_DIRECTADMIN.user, site.name);
    const dir = path.join(www, domainDirName(site.name));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>${site.name}</title><h1>${site.name}</h1>\n`);
  }
  // A site whose directory exists but holds nothing.
  await c.services.domains.create(
    { domainName: 'health-empty.example', status: 'active', serverId: o.serverId },
    actor,
  );
  fs.mkdirSync(path.join(www, domainDirName('health-empty.example')), { recursive: true });

  // TLS 1.3 (the demo's fleet plan sets every zone's SSL mode, so SSL would not stay drifted): on two zones of two
  // accounts, so the Health tab's Fix and "Fix all" (a fleet plan of each domain's own expected value) both show.
  for (const drifted of [o.zoneLinked[0], o.zoneLinked[2]]) {
    if (!drifted) continue;
    await c.services.cloudFlare.setTls13(drifted.id, 'on', actor);
    const zone = providers.cloudflare.state.zones.get(drifted.zoneId);
    // Changed at Cloudflare's dashboard, not through the console.
    if (zone) zone.settings.tls_1_3.value = 'off';
  }
}

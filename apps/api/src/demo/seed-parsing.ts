import fs from 'node:fs';
import path from 'node:path';
import { inArray } from 'drizzle-orm';
import { systemActor } from '../http/context.ts';
import type { Container } from '../container.ts';
import { DEMO_DIRECTADMIN, type DemoProviders } from './providers.ts';
import { domainDirName } from '../files/content/index.ts';
import { domains } from '../db/schema/index.ts';

/**
 * The demo's parsing examples, both parsing the demo's sample site (served on loopback, see demoSiteRoutes):
 * one with the parser disabled and nothing parsed yet (Domain Parsing asks to confirm), one with it enabled,
 * fetching through the demo proxy's region, parsed once at the first start so its page shows a finished parse.
 */
export const DEMO_PARSING_DOMAINS = { confirm: 'coffee-mirror.com', parsed: 'coffee-mirror.net' } as const;

export async function seedDemoParsing(
  c: Container,
  providers: DemoProviders,
  serverId: string,
  regionId: string,
  /** The parsed mirror's brand: it has IndexNow on, so the first parse's pages are submitted (decision 075). */
  brandId: string,
) {
  const actor = systemActor('demo-seed');
  const parserURL = `${providers.site.url}/`;
  const make = (domainName: string, extra: object) =>
    c.services.domains.create({ domainName, status: 'active', serverId, parserURL, ...extra }, actor);
  await make(DEMO_PARSING_DOMAINS.confirm, { parserEnabled: false, isSinglePage: false });
  const parsed = await make(DEMO_PARSING_DOMAINS.parsed, {
    parserEnabled: true,
    parserProxyRegionId: regionId,
    brandId,
  });
  // Each has its site on the panel and a holding page until its first parse replaces it (a site that exists,
  // so its health checks pass before and after).
  for (const name of Object.values(DEMO_PARSING_DOMAINS)) {
    const dir = path.join(providers.sshHost.rootDir, 'www', domainDirName(name));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      `<!doctype html><title>${name}</title><h1>${name}</h1><p>A mirror of the coffee site, waiting for its first parse.</p>\n`,
    );
    providers.directAdmin.addDomain(DEMO_DIRECTADMIN.user, name);
  }
  return parsed._id;
}

/**
 * The demo site's port changes with every start: points the parsing domains' parser URLs at this run's. Called
 * once the job engine runs: the domain meant to show a finished parse gets its first one queued.
 */
export async function attachDemoParsing(c: Container, providers: DemoProviders) {
  const rows = await c.database.db
    .update(domains)
    .set({ parserUrl: `${providers.site.url}/` })
    .where(inArray(domains.domainName, Object.values(DEMO_PARSING_DOMAINS)))
    .returning({ id: domains.id, name: domains.domainName, progress: domains.parsingProgress });
  const parsed = rows.find((r) => r.name === DEMO_PARSING_DOMAINS.parsed);
  if (parsed && !parsed.progress)
    await c.services.jobs
      .startForDomain('domains.parsing', parsed.id, {}, systemActor('demo-seed'))
      .catch(() => undefined);
}

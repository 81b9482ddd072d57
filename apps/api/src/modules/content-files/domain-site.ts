import { PassThrough } from 'node:stream';
import type { JobProgress } from '@fleetdesk/contract';
import type { SshPool } from '../../files/ssh/index.ts';
import { domainDirPath, linkTally, openDomainContentFs, type ContentFs } from '../../files/content/index.ts';
import { PermanentJobError } from '../../lib/jobs.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { DomainsRepository } from '../domains/domains.repository.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ServersRepository } from '../servers/servers.repository.ts';
import type { ServersService } from '../servers/servers.service.ts';
import type { IndexNowService } from '../indexnow/indexnow.service.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ContentSnapshotsService } from '../content-snapshots/content-snapshots.service.ts';
import { NO_HTML_FILES, urlOf, writeSitemaps, type SitemapUrl } from './sitemap-writer.ts';

/** The file a parse keeps in a directory while it writes there (a launch's site stage knows it as its own). */
export const PARSING_MARKER = '.fleetdesk-parsing';

export type DomainJobDeps = {
  ssh: SshPool;
  domainsRepo: Pick<DomainsRepository, 'findRow'>;
  serversRepo: Pick<ServersRepository, 'findRow'>;
  servers: Pick<ServersService, 'sshTarget'>;
  domains: Pick<DomainsService, 'update' | 'getFirewallRules' | 'saveFirewallRules' | 'get'>;
  cloudFlare: Pick<CloudFlareService, 'createZone' | 'linkZone' | 'updateFirewallRules'>;
  /** Tells IndexNow of a domain's changed pages after a job (decision 075); absent, nothing is sent. */
  indexNow?: Pick<IndexNowService, 'afterChange'>;
  /** Keeps what a copy replaces on its target, for Restore (decision 078); absent, nothing is kept. */
  snapshots?: Pick<ContentSnapshotsService, 'begin'>;
  audit?: Pick<AuditService, 'record'>;
};

const HTML = /\.html?$/i;

/** A domain's content directory on its server, through the content-file layer (decision 020). */
export type DomainDir = { domainId: string; domainName: string; dir: string; fs: ContentFs };

/** A job that reads a domain's directory stops here, for good, when there is none. */
export async function requireDir(d: DomainDir) {
  if (!(await d.fs.rootExists())) {
    throw new PermanentJobError(`The directory of ${d.domainName} does not exist on its server (${d.dir})`);
  }
}

/** A domain's content directory: `<server.domainsPath>/<domainName>` (ASCII form), on its server. */
export async function domainDirOf(deps: DomainJobDeps, domainId: string): Promise<DomainDir> {
  const d = await deps.domainsRepo.findRow(domainId);
  if (!d) throw new PermanentJobError('The domain no longer exists');
  if (!d.serverId) throw new PermanentJobError(`${d.domainName} has no server`);
  const server = await deps.serversRepo.findRow(d.serverId);
  if (!server?.domainsPath) throw new PermanentJobError(`The server of ${d.domainName} has no domains path`);
  const target = await deps.servers.sshTarget(d.serverId);
  const fs = openDomainContentFs(deps.ssh, target, { domainsPath: server.domainsPath }, d.domainName);
  return { domainId, domainName: d.domainName, dir: domainDirPath(server.domainsPath, d.domainName), fs };
}

/**
 * Walks the domain directory's HTML files and writes sitemap.xml (or an index): the job above, and a launch's
 * sitemap stage.
 */
export async function generateSitemap(
  deps: DomainJobDeps,
  domainId: string,
  signal: AbortSignal,
  progress: (p: JobProgress, o?: { force?: boolean }) => Promise<void> = async () => undefined,
  /** Receives the URLs listed, with their last change (for IndexNow's changed pages). */
  listed?: (urls: SitemapUrl[]) => void,
) {
  const dir = await domainDirOf(deps, domainId);
  const urls: SitemapUrl[] = [];
  let scanned = 0;
  const links = linkTally();
  await requireDir(dir);
  for await (const e of dir.fs.walk('', { signal, onLink: links.onLink })) {
    scanned++;
    if (e.type === 'file' && HTML.test(e.path))
      urls.push({ loc: urlOf(dir.domainName, e.path), lastmod: new Date(e.mtime * 1000) });
    if (scanned % 200 === 0)
      await progress({ done: urls.length, total: null, unit: 'URLs', step: 'scan', message: 'Scanning files' });
  }
  // No HTML file to list: the job fails, naming the links it skipped where every page was one.
  if (!urls.length) {
    const skipped = links.note();
    throw new PermanentJobError(
      skipped ? `${NO_HTML_FILES}; ${skipped.note}: ${skipped.paths.join(', ')}` : NO_HTML_FILES,
    );
  }
  await progress(
    { done: urls.length, total: urls.length, unit: 'URLs', step: 'write', message: 'Writing sitemaps' },
    { force: true },
  );
  // Each file is written atomically (temp file, then rename), so crawlers never read half a sitemap.
  const result = await writeSitemaps(urls, {
    baseUrl: `https://${dir.domainName}`,
    open: (name) => {
      const out = new PassThrough();
      return { out, done: dir.fs.writeAtomic(name, out, { mkdirs: false }) };
    },
  });
  await progress(
    { done: urls.length, total: urls.length, unit: 'URLs', message: `Wrote ${result.files.join(', ')}` },
    { force: true },
  );
  listed?.(urls);
  const skippedLinks = links.note();
  return skippedLinks ? { ...result, skippedLinks } : result;
}

import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { IdSchema, type JobProgress } from '@fleetdesk/contract';
import { systemActor, type Actor } from '../../http/context.ts';
import { ConflictError } from '../../http/errors.ts';
import type { SshPool } from '../../files/ssh/index.ts';
import type { CloudFlareService } from '../../modules/cloud-flare/cloud-flare.service.ts';
import type { DomainsRepository } from '../../modules/domains/domains.repository.ts';
import type { DomainsService } from '../../modules/domains/domains.service.ts';
import type { ServersRepository } from '../../modules/servers/servers.repository.ts';
import type { ServersService } from '../../modules/servers/servers.service.ts';
import { PermanentJobError, defineJob, type JobContext } from '../registry.ts';
import { copyTree, domainDirPath, linkTally, openDomainContentFs, type ContentFs } from '../../files/content/index.ts';
import { NO_HTML_FILES, urlOf, writeSitemaps, type SitemapUrl } from './sitemap-writer.ts';

export type DomainJobDeps = {
  ssh: SshPool;
  domainsRepo: Pick<DomainsRepository, 'findRow'>;
  serversRepo: Pick<ServersRepository, 'findRow'>;
  servers: Pick<ServersService, 'sshTarget'>;
  domains: Pick<DomainsService, 'update' | 'getFirewallRules' | 'saveFirewallRules' | 'get'>;
  cloudFlare: Pick<CloudFlareService, 'createZone' | 'linkZone' | 'updateFirewallRules'>;
};

const HTML = /\.html?$/i;

/** Who the audit trail names for what a job does: the job and the user who started it. */
const jobActor = (ctx: JobContext<unknown>): Actor =>
  systemActor(`job #${ctx.previous.jobNo}${ctx.previous.createdBy ? ` (${ctx.previous.createdBy})` : ''}`);

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

/** Generate sitemap: walks the domain directory's HTML files and writes sitemap.xml (or an index). */
export const generateSitemapJob = (deps: DomainJobDeps) =>
  defineJob({
    kind: 'domains.generate-sitemap',
    area: 'cnv:domains',
    payload: z.object({ domainId: IdSchema }),
    domainOf: (p) => p.domainId,
    retry: { limit: 2, delaySeconds: 10, backoff: true },
    timeoutSeconds: 60 * 60,
    async handler(ctx) {
      return generateSitemap(deps, ctx.payload.domainId, ctx.signal, (p, o) => ctx.progress(p, o));
    },
  });

/**
 * Walks the domain directory's HTML files and writes sitemap.xml (or an index): the job above, and a launch's
 * sitemap stage.
 */
export async function generateSitemap(
  deps: DomainJobDeps,
  domainId: string,
  signal: AbortSignal,
  progress: (p: JobProgress, o?: { force?: boolean }) => Promise<void> = async () => undefined,
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
  const skippedLinks = links.note();
  return skippedLinks ? { ...result, skippedLinks } : result;
}

/** Copy content files: the whole tree to the target domain's directory, file by file, streamed. */
async function copyFiles(deps: DomainJobDeps, ctx: JobContext<unknown>, fromId: string, toId: string) {
  const [from, to] = [await domainDirOf(deps, fromId), await domainDirOf(deps, toId)];
  await requireDir(from);
  const summary = await copyTree(from.fs, to.fs, {
    signal: ctx.signal,
    onProgress: (p) =>
      ctx.progress({
        done: p.files,
        total: p.filesTotal,
        unit: 'files',
        bytesDone: p.bytes,
        bytesTotal: p.bytesTotal,
        step: 'files',
        message: p.current ? `Copying ${p.current}` : 'Done',
      }),
  });
  // Every file failed: nothing was copied, and the job says why rather than "completed".
  const first = summary.failed[0];
  if (summary.files === 0 && first)
    throw new PermanentJobError(`No file copied: every file failed; the first, ${first.path}: ${first.error}`);
  // Some failed: "Completed with failures" by the one rule (outcomes.ts); the sentence names the files.
  const failed = summary.failedCount;
  return { ...summary, tally: { total: summary.files + failed, changed: summary.files, same: 0, skipped: 0, failed } };
}

const TargetPayload = z.object({ domainId: IdSchema, targetDomainId: IdSchema });

export const copyContentFilesJob = (deps: DomainJobDeps) =>
  defineJob({
    kind: 'domains.copy-content-files',
    area: 'cnv:domains',
    payload: TargetPayload.extend({ targetDomainName: z.string().max(300).optional() }),
    domainOf: (p) => p.domainId,
    retry: { limit: 1, delaySeconds: 10, backoff: true },
    timeoutSeconds: 6 * 60 * 60,
    async handler(ctx) {
      const summary = await copyFiles(
        deps,
        ctx as JobContext<unknown>,
        ctx.payload.domainId,
        ctx.payload.targetDomainId,
      );
      return summary;
    },
  });

export const REPLACEMENT_STEPS = [
  { key: 'zone', label: "Create the target's zone in the source's cloud (or link it)" },
  { key: 'waf', label: "Copy the source's WAF rule set to the target and push it" },
  { key: 'files', label: 'Copy the files' },
] as const;

/**
 * Domain replacement: one job, three steps, each run once. A failed step stops the job with its reason; Resume
 * runs again from that step. The Cloudflare work goes through the Cloudflare service (audited, proxied).
 */
export const replacementJob = (deps: DomainJobDeps) =>
  defineJob({
    kind: 'domains.replacement',
    area: 'cnv:domains',
    payload: TargetPayload.extend({
      targetDomainName: z.string().max(300).optional(),
      createCloudFlareZone: z.boolean(),
      copyCloudFlareFirewallRules: z.boolean(),
      copyFiles: z.boolean(),
    }),
    domainOf: (p) => p.domainId,
    steps: (p) =>
      REPLACEMENT_STEPS.filter(
        (s) =>
          (s.key === 'zone' && p.createCloudFlareZone) ||
          (s.key === 'waf' && p.copyCloudFlareFirewallRules) ||
          (s.key === 'files' && p.copyFiles),
      ).map((s) => ({ ...s })),
    resumable: true,
    // Steps are resumed by the operator, not retried blindly: a Cloudflare refusal needs a person.
    retry: { limit: 0, delaySeconds: 0, backoff: false },
    timeoutSeconds: 6 * 60 * 60,
    async handler(ctx) {
      const { domainId, targetDomainId: targetId } = ctx.payload;
      const actor = jobActor(ctx as JobContext<unknown>);
      const out: Record<string, unknown> = { ...(ctx.previous.result ?? {}) };
      if (ctx.payload.createCloudFlareZone) {
        await ctx.step('zone', async () => {
          const source = await deps.domains.get(domainId);
          const target = await deps.domains.get(targetId);
          if (!source.cloudId)
            throw new Error(`${source.domainName} has no cloud, so there is no account to create the zone in`);
          if (target.cloudZoneId) {
            out.zone = { cloudZoneId: target.cloudZoneId, how: 'already set' };
            return;
          }
          if (target.cloudId !== source.cloudId)
            await deps.domains.update(targetId, { cloudId: source.cloudId }, actor);
          try {
            const z = await deps.cloudFlare.createZone(targetId, actor);
            out.zone = { cloudZoneId: z.cloudZoneId, how: 'created', nameServers: z.nameServers };
          } catch (err) {
            const existing = err instanceof ConflictError ? err.fields?.cloudZoneId : undefined;
            if (!existing) throw err;
            await deps.cloudFlare.linkZone(targetId, existing, actor);
            out.zone = { cloudZoneId: existing, how: 'linked' };
          }
        });
      }
      if (ctx.payload.copyCloudFlareFirewallRules) {
        await ctx.step('waf', async () => {
          const rules = await deps.domains.getFirewallRules(domainId);
          await deps.domains.saveFirewallRules(
            targetId,
            { cloudFirewallRules: rules.map((r) => ({ ruleId: r.ruleId, priority: r.priority })) },
            actor,
          );
          const pushed = await deps.cloudFlare.updateFirewallRules(targetId, actor);
          out.waf = { rules: rules.length, pushed };
        });
      }
      if (ctx.payload.copyFiles) {
        await ctx.step('files', async () => {
          out.files = await copyFiles(deps, ctx as JobContext<unknown>, domainId, targetId);
        });
      }
      return out;
    },
  });

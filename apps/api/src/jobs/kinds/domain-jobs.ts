import { z } from 'zod';
import { IdSchema } from '@fleetdesk/contract';
import { systemActor, type Actor } from '../../http/context.ts';
import { ConflictError } from '../../http/errors.ts';
import { PermanentJobError, defineJob, type JobContext } from '../registry.ts';
import { copyTree, type CopySummary } from '../../files/content/index.ts';
import {
  domainDirOf,
  generateSitemap,
  requireDir,
  type DomainDir,
  type DomainJobDeps,
} from '../../modules/content-files/domain-site.ts';
import type { SitemapUrl } from '../../modules/content-files/sitemap-writer.ts';

export { domainDirOf, generateSitemap, requireDir, type DomainDir, type DomainJobDeps };

/** Who the audit trail names for what a job does: the job and the user who started it. */
const jobActor = (ctx: JobContext<unknown>): Actor =>
  systemActor(`job #${ctx.previous.jobNo}${ctx.previous.createdBy ? ` (${ctx.previous.createdBy})` : ''}`);

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
      let listed: SitemapUrl[] = [];
      const result = await generateSitemap(
        deps,
        ctx.payload.domainId,
        ctx.signal,
        (p, o) => ctx.progress(p, o),
        (urls) => (listed = urls),
      );
      // The pages changed since the last submission, by their modification time, and the sitemap itself.
      const indexNow = await deps.indexNow?.afterChange(ctx.payload.domainId, {
        changedSince: (last) =>
          listed.filter((u) => !last || !u.lastmod || u.lastmod.getTime() > last.getTime()).map((u) => u.loc),
      });
      return indexNow ? { ...result, indexNow } : result;
    },
  });

/**
 * Copy content files: the whole tree to the target domain's directory, file by file, streamed. What it replaces on
 * the target is kept in a snapshot, and the copy is audited on the target, so Restore can put it back (decision 078).
 */
async function copyFiles(deps: DomainJobDeps, ctx: JobContext<unknown>, fromId: string, toId: string) {
  const [from, to] = [await domainDirOf(deps, fromId), await domainDirOf(deps, toId)];
  await requireDir(from);
  const recorder = await deps.snapshots?.begin(toId, 'copy');
  let summary: CopySummary | null = null;
  try {
    summary = await copyTree(from.fs, to.fs, {
      recorder,
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
  } finally {
    // Audited on the target even when the copy stopped part way: what it wrote is restorable all the same.
    const snapshot = await recorder?.finish();
    if (snapshot && deps.audit && ('snapshot' in snapshot || (summary?.files ?? 0) > 0)) {
      await deps.audit.record(jobActor(ctx), {
        action: 'content_files_copy',
        entity: 'domains',
        entityId: toId,
        details: {
          domainName: to.domainName,
          from: from.domainName,
          jobNo: ctx.previous.jobNo,
          ...(summary ? { files: summary.files, failed: summary.failedCount } : { outcome: 'stopped' }),
          ...snapshot,
        },
      });
    }
  }
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
      // The target's site changed; which pages is not known, so its root and sitemap are submitted.
      const indexNow = summary.files > 0 ? await deps.indexNow?.afterChange(ctx.payload.targetDomainId) : null;
      return indexNow ? { ...summary, indexNow } : summary;
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
        const copied = (out.files as { files?: number } | undefined)?.files ?? 0;
        const indexNow = copied > 0 ? await deps.indexNow?.afterChange(targetId) : null;
        if (indexNow) out.indexNow = indexNow;
      }
      return out;
    },
  });

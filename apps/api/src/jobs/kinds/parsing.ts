import { z } from 'zod';
import { IdSchema, plural, type ParsingProgress } from '@fleetdesk/contract';
import type { ProxyEndpoint } from '../../integrations/proxy/index.ts';
import type { DomainsRepository } from '../../modules/domains/domains.repository.ts';
import type { ProxiesService } from '../../modules/proxies/proxies.service.ts';
import { createFetcher, DEFAULT_USER_AGENT, mirrorSite, type MirrorProgress } from '../../parser/index.ts';
import { PermanentJobError, defineJob } from '../registry.ts';
import { PARSING_MARKER, domainDirOf, type DomainJobDeps } from '../../modules/content-files/domain-site.ts';
import { urlOf } from '../../modules/content-files/sitemap-writer.ts';

export { PARSING_MARKER };

export type ParserLimits = {
  concurrency: number;
  timeoutMs: number;
  retries: number;
  maxFileBytes: number;
  maxJobBytes: number;
  maxPages: number;
  /** Verify the sites' TLS certificates (the tests' self-signed sites turn it off). */
  rejectUnauthorized?: boolean;
  /** The job's own limit; a crashed worker's job comes back after it. */
  jobTimeoutSeconds?: number;
};

export type ParsingJobDeps = DomainJobDeps & {
  domainsRepo: Pick<DomainsRepository, 'findRow' | 'findById' | 'update'>;
  proxies: Pick<ProxiesService, 'endpointsInRegion'>;
  limits: ParserLimits;
};

/**
 * The marker an attempt leaves in the domain directory while it runs. Its modification time is the server's own
 * clock at the start of the job, so a resumed attempt knows which files this job wrote (newer) and which are older
 * copies to replace. The parser never writes hidden names, so it cannot collide with a page.
 */
const MAX_FAILED_SHOWN = 500;
const HTML_PAGE = /\.html?$/i;
/** Pages remembered for IndexNow, at most (its own bound per job is lower). */
const MAX_PAGES_SUBMITTED = 100_000;
/** pg-boss's retries of a failed attempt (every proxy down, SSH lost); each resumes. */
const PARSING_RETRIES = 2;
const TEMP_FILE = /(^|\/)\.[^/]*\.[0-9a-f]{12}\.fdtmp$/;
const FLUSH_MS = 500;

type Payload = { domainId: string; confirmParserDisabled?: boolean };

/**
 * Domain parsing: mirrors parserURL into the domain's directory over SFTP (decision 028), through a healthy proxy
 * of parserProxyRegion or directly. Progress goes to the domain's parsingProgress (what the parsing page polls)
 * and to the job. A retry or a resume skips what this job already wrote.
 */
export const parsingJob = (deps: ParsingJobDeps) =>
  defineJob<Payload>({
    kind: 'domains.parsing',
    area: 'cnv:domains',
    payload: z.object({ domainId: IdSchema, confirmParserDisabled: z.boolean().optional() }),
    domainOf: (p) => p.domainId,
    resumable: true,
    retry: { limit: PARSING_RETRIES, delaySeconds: 15, backoff: true },
    timeoutSeconds: Math.max(1, Math.round(deps.limits.jobTimeoutSeconds ?? 12 * 60 * 60)),
    async handler(ctx) {
      const { domainId } = ctx.payload;
      const domain = await deps.domainsRepo.findById(domainId);
      if (!domain) throw new PermanentJobError('The domain no longer exists');
      const row = await deps.domainsRepo.findRow(domainId);
      const prior = (row?.parsingProgress ?? null) as (ParsingProgress & { since?: number }) | null;
      if (!domain.parserURL) throw new PermanentJobError(`${domain.domainName} has no parser URL`);
      const startUrl = new URL(domain.parserURL);
      const dir = await domainDirOf(deps, domainId);
      if (!(await dir.fs.rootExists()))
        throw new PermanentJobError(`The directory of ${domain.domainName} does not exist on its server`);

      let endpoints: ProxyEndpoint[] = [];
      let route = 'directly (no parser proxy region is set)';
      if (domain.parserProxyRegionId) {
        endpoints = await deps.proxies.endpointsInRegion(domain.parserProxyRegionId);
        const region = domain.parserProxyRegion?.name ?? 'the parser proxy region';
        if (!endpoints.length)
          throw new PermanentJobError(`The parser proxy region ${region} has no usable proxy; add one or check them`);
        route = `through ${endpoints.length} ${endpoints.length === 1 ? 'proxy' : 'proxies'} of ${region}`;
      }

      // A resumed attempt of this same job keeps what it wrote; a new job replaces everything.
      const resuming = prior?.jobId === ctx.jobId && typeof prior.since === 'number';
      let since = resuming ? prior.since! : 0;
      const alreadyWritten = new Set<string>();
      if (resuming) {
        // Temp files of writes the crash interrupted are removed; the content layer names them `.<name>.<hex>.fdtmp`.
        const leftovers: string[] = [];
        for await (const e of dir.fs.walk('')) {
          if (e.type !== 'file' || e.path === PARSING_MARKER) continue;
          if (TEMP_FILE.test(e.path)) leftovers.push(e.path);
          else if (e.mtime >= since) alreadyWritten.add(e.path);
        }
        for (const f of leftovers) await dir.fs.remove(f).catch(() => undefined);
      } else {
        await dir.fs.writeAtomic(PARSING_MARKER, `${ctx.jobId}\n`, { mkdirs: false });
        since = (await dir.fs.stat(PARSING_MARKER))?.mtime ?? Math.floor(Date.now() / 1000);
      }

      const events: string[] = (resuming ? prior.events : undefined) ?? [];
      let state: ParsingProgress & { since: number } = {
        jobId: ctx.jobId,
        jobNo: ctx.previous.jobNo,
        state: 'running',
        startUrl: startUrl.href,
        route,
        pagesFound: 0,
        pagesDone: 0,
        assets: 0,
        bytes: resuming ? (prior.bytes ?? 0) : 0,
        errors: 0,
        skipped: 0,
        pending: 1,
        message: resuming
          ? `Resuming: ${alreadyWritten.size} files written earlier are kept; fetching ${route}`
          : `Fetching ${route}`,
        events,
        since,
      };
      const bytesBefore = resuming ? (prior.bytes ?? 0) : 0;
      const save = async () => {
        await deps.domainsRepo.update(domainId, { parsingProgress: state });
        await ctx.progress({
          done: state.pagesDone + state.assets,
          total: state.pagesDone + state.assets + state.pending,
          unit: 'files',
          bytesDone: state.bytes,
          message: state.message,
        });
      };
      await deps.domainsRepo.update(domainId, {
        parsingProgress: state,
        ...(resuming ? {} : { parsingStartDate: new Date() }),
        parsingEndDate: null,
      });

      const fetcher = createFetcher({
        proxies: endpoints,
        concurrency: deps.limits.concurrency,
        timeoutMs: deps.limits.timeoutMs,
        retries: deps.limits.retries,
        backoffMs: 500,
        maxFileBytes: deps.limits.maxFileBytes,
        userAgent: DEFAULT_USER_AGENT,
        rejectUnauthorized: deps.limits.rejectUnauthorized ?? true,
      });
      // One SFTP channel for every write of the job, each directory checked once (the content layer's writer).
      const writer = await dir.fs.openWriter();
      let lastFlush = 0;
      let flushing: Promise<void> | null = null;
      const onProgress = (p: MirrorProgress) => {
        events.push(...fetcher.takeEvents());
        if (events.length > 50) events.splice(0, events.length - 50);
        state = { ...state, ...p, bytes: bytesBefore + p.bytes, events };
        const now = Date.now();
        if (flushing || now - lastFlush < FLUSH_MS) return;
        lastFlush = now;
        flushing = save()
          .catch(() => undefined)
          .finally(() => (flushing = null));
      };

      // The pages this job writes, for IndexNow (decision 075): its changed URLs.
      const pages = new Set<string>();
      try {
        const result = await mirrorSite({
          startUrl,
          singlePage: domain.isSinglePage,
          fetcher,
          concurrency: deps.limits.concurrency,
          maxPages: deps.limits.maxPages,
          maxJobBytes: Math.max(0, deps.limits.maxJobBytes - bytesBefore),
          signal: ctx.signal,
          alreadyWritten,
          write: async (path, body) => {
            await writer.write(path, body, { maxBytes: deps.limits.maxFileBytes, label: path });
            if (HTML_PAGE.test(path) && pages.size < MAX_PAGES_SUBMITTED) pages.add(path);
          },
          onProgress,
          maxFailuresKept: MAX_FAILED_SHOWN,
        });
        await flushing;
        events.push(...fetcher.takeEvents());
        const saved = result.pagesDone + result.assets;
        // A parse that saved nothing (and kept nothing from before) did not parse: it fails with the fetch's reason.
        if (saved === 0 && alreadyWritten.size === 0 && result.errors > 0) {
          const first = result.failed[0];
          // The parsing page lists which URLs failed, as it does for a parse that saved some.
          state = { ...state, failed: result.failed, errors: result.errors, pending: 0 };
          throw new PermanentJobError(
            `Nothing saved: ${plural(result.errors, 'URL')} failed` + (first ? `; ${first.url}: ${first.reason}` : ''),
          );
        }
        await dir.fs.remove(PARSING_MARKER).catch(() => undefined);
        state = {
          ...state,
          ...result,
          bytes: bytesBefore + result.bytes,
          state: 'completed',
          pending: 0,
          events,
          failed: result.failed,
          stoppedBy: result.stoppedBy,
          message:
            `Done: ${result.pagesDone} pages and ${result.assets} requisites saved` +
            (result.errors ? `, ${result.errors} failed` : '') +
            (result.stoppedBy ? `; stopped early: ${result.stoppedBy}` : ''),
        };
        await deps.domainsRepo.update(domainId, { parsingProgress: state, parsingEndDate: new Date() });
        await ctx.progress(
          { done: saved, total: saved, unit: 'files', bytesDone: state.bytes, message: state.message },
          { force: true },
        );
        for (const p of alreadyWritten) if (HTML_PAGE.test(p) && pages.size < MAX_PAGES_SUBMITTED) pages.add(p);
        const indexNow =
          pages.size > 0
            ? await deps.indexNow?.afterChange(domainId, { urls: [...pages].map((p) => urlOf(dir.domainName, p)) })
            : null;
        return {
          ...(indexNow ? { indexNow } : {}),
          pagesDone: result.pagesDone,
          assets: result.assets,
          bytes: state.bytes,
          errors: result.errors,
          skipped: result.skipped,
          stoppedBy: result.stoppedBy,
          failed: result.failed.slice(0, 100),
          // The end state by the one rule (outcomes.ts): some URLs failed, "Completed with failures".
          tally: { total: saved + result.errors, changed: saved, same: 0, skipped: 0, failed: result.errors },
        };
      } catch (err) {
        await flushing;
        events.push(...fetcher.takeEvents());
        const cancelled = ctx.signal.aborted;
        const message = cancelled ? 'Cancelled' : err instanceof Error ? err.message : String(err);
        // The marker stays, so a resume (or pg-boss's retry) keeps what this job wrote.
        // attempt counts every run of the job (Resumes too), so after a Resume this may say failed before a retry.
        const retrying = !cancelled && !(err instanceof PermanentJobError) && ctx.attempt <= PARSING_RETRIES;
        state = {
          ...state,
          state: cancelled ? 'cancelled' : retrying ? 'queued' : 'failed',
          error: message,
          message: retrying ? `${message}; it is tried again shortly` : message,
          events,
        };
        await deps.domainsRepo
          .update(domainId, { parsingProgress: state, ...(retrying ? {} : { parsingEndDate: new Date() }) })
          .catch(() => undefined);
        throw err;
      } finally {
        writer.close();
        await fetcher.close();
      }
    },
  });

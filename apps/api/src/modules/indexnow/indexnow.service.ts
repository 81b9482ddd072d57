import { randomBytes } from 'node:crypto';
import { plural, type IndexNowJobResult } from '@fleetdesk/contract';
import {
  IndexNowError,
  INDEXNOW_BATCH,
  INDEXNOW_MAX_URL_CHARS,
  meaningOf,
  type IndexNowAnswer,
  type IndexNowClient,
} from '../../integrations/indexnow/index.ts';

/** At most this many URLs go out after one job (five full batches); the rest wait for the next change. */
export const INDEXNOW_MAX_URLS_PER_JOB = 5 * INDEXNOW_BATCH;
const SAMPLE = 20;

/** What a job changed on the site, as far as it knows. */
export type IndexNowChange = {
  /** The changed pages' URLs, when the job knows them. */
  urls?: string[];
  /** Or: the pages changed since the last submission (a sitemap job knows each page's last change). */
  changedSince?: (last: Date | null) => string[];
};

export type IndexNowDeps = {
  repo: {
    keyOf(domainId: string, fresh: () => string): Promise<{ key: string; lastSubmittedAt: Date | null }>;
    submitted(domainId: string, at: Date): Promise<void>;
  };
  client: Pick<IndexNowClient, 'submit'>;
  /** The domain's ASCII name and brand, or undefined when it is gone. */
  domainOf: (domainId: string) => Promise<{ domainName: string; brandId: string | null } | undefined>;
  /** Whether the brand has IndexNow on. */
  brandOn: (brandId: string) => Promise<boolean>;
  /** Writes a small file in the root of the domain's content directory (the content-file layer, over SFTP). */
  writeRootFile: (domainId: string, name: string, content: string) => Promise<void>;
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A new key: 32 hex digits, inside the protocol's 8–128 characters of a-z, A-Z, 0-9 and "-". */
const freshKey = () => randomBytes(16).toString('hex');

/**
 * IndexNow after a change (issue 46, decision 075): for a domain whose brand has it on, the key file is written
 * to the site, then the changed URLs (or the site's root and sitemap) are submitted. It never throws: what
 * happened is the answer, for the job's result, and a failure there never fails the job.
 */
export function createIndexNowService(deps: IndexNowDeps) {
  return {
    async afterChange(domainId: string, change: IndexNowChange = {}): Promise<IndexNowJobResult | null> {
      const d = await deps.domainOf(domainId).catch(() => undefined);
      if (!d?.brandId || !(await deps.brandOn(d.brandId).catch(() => false))) return null;
      const host = d.domainName.toLowerCase();
      const base = `https://${host}`;
      const out: IndexNowJobResult = { ok: false, message: '', host, what: '', urls: 0, sample: [], answers: [] };
      let key: string;
      let last: Date | null;
      try {
        ({ key, lastSubmittedAt: last } = await deps.repo.keyOf(domainId, freshKey));
        // Written each time: a parse, a copy or a new directory may have left the site without it.
        await deps.writeRootFile(domainId, `${key}.txt`, key);
      } catch (err) {
        return { ...out, message: `IndexNow: not submitted: the key file could not be written (${messageOf(err)})` };
      }
      const known = change.urls ?? change.changedSince?.(last);
      const picked = known ? [...known, `${base}/sitemap.xml`] : [`${base}/`, `${base}/sitemap.xml`];
      // Only URLs of the host (the engines refuse the whole batch otherwise), each once, within the bounds.
      const urls = [...new Set(picked)].filter(
        (u) => u.length <= INDEXNOW_MAX_URL_CHARS && (u === base || u.startsWith(`${base}/`)),
      );
      const sent = urls.slice(0, INDEXNOW_MAX_URLS_PER_JOB);
      out.what =
        (known ? 'the pages changed and the sitemap' : "the site's root and sitemap") +
        (sent.length < urls.length
          ? `; the first ${sent.length.toLocaleString('en-US')} of ${urls.length.toLocaleString('en-US')}`
          : '');
      out.sample = sent.slice(0, SAMPLE);
      const at = new Date();
      let answers: IndexNowAnswer[];
      try {
        answers = await deps.client.submit({ host, key, urls: sent });
      } catch (err) {
        const before = err instanceof IndexNowError ? err.answersBefore : [];
        const status = err instanceof IndexNowError ? (err.upstreamStatus ?? null) : null;
        const refused = err instanceof IndexNowError && err.refused && status !== null;
        const taken = before.reduce((n, a) => n + a.urls, 0);
        const reason = refused
          ? `refused (${status} ${meaningOf(status!)})`
          : `failed (${messageOf(err).replace(/^IndexNow /, '')})`;
        return {
          ...out,
          urls: taken,
          answers: [
            ...before,
            {
              urls: Math.min(INDEXNOW_BATCH, sent.length - taken),
              status,
              meaning: refused ? meaningOf(status!) : messageOf(err),
            },
          ],
          message: `IndexNow: ${reason}` + (taken ? ` after ${plural(taken, 'URL')} submitted` : ''),
        };
      }
      await deps.repo.submitted(domainId, at).catch(() => undefined);
      // A 202 anywhere says the key is not checked yet: the weaker answer is the one told.
      const shown = answers.find((a) => a.status === 202) ?? answers[answers.length - 1]!;
      return {
        ...out,
        ok: true,
        urls: sent.length,
        answers,
        message: `IndexNow: ${plural(sent.length, 'URL')} submitted (${shown.status} ${shown.meaning})`,
      };
    },
  };
}
export type IndexNowService = ReturnType<typeof createIndexNowService>;

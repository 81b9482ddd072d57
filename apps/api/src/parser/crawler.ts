import { rewriteCss } from './css.ts';
import { FetchError, NoRouteError, type Fetcher, type FetchedResponse } from './fetcher.ts';
import { resolveRef, rewriteHtml, sniffCharset } from './html.ts';
import { localPathOf, refKindOf, relativeLink, type RefKind } from './url-to-path.ts';

export type MirrorFailure = { url: string; reason: string };

export type MirrorProgress = {
  pagesFound: number;
  pagesDone: number;
  assets: number;
  bytes: number;
  errors: number;
  /** Files an earlier attempt wrote, kept as they are. */
  skipped: number;
  /** URLs waiting or in flight (pages and requisites). */
  pending: number;
};

export type MirrorResult = MirrorProgress & {
  failed: MirrorFailure[];
  /** Set when the job's size or page limit stopped the crawl early. */
  stoppedBy: string | null;
};

export type MirrorOptions = {
  startUrl: URL;
  singlePage: boolean;
  fetcher: Fetcher;
  concurrency: number;
  maxPages: number;
  maxJobBytes: number;
  signal: AbortSignal;
  /** Writes one file (domain-relative path); the parser never builds a remote path itself. */
  write: (path: string, body: Buffer) => Promise<void>;
  /** Files an earlier attempt of this job wrote: requisites are not fetched again, pages are not written again. */
  alreadyWritten?: ReadonlySet<string>;
  onProgress?: (p: MirrorProgress) => void;
  /** Most failures kept for the report; the count goes on. */
  maxFailuresKept?: number;
};

const MAX_REDIRECTS = 10;
const HTML_TYPE = /^(text\/html|application\/xhtml\+xml)/i;
const CSS_TYPE = /^text\/css/i;

/** Same site: the same host name and explicit port; http and https of a host are one site. */
export const sameSite = (a: URL, b: URL) => a.hostname.toLowerCase() === b.hostname.toLowerCase() && a.port === b.port;

const clean = (u: URL) => {
  const c = new URL(u.href);
  c.hash = '';
  return c;
};

type Item = { url: URL; kind: RefKind; path: string };

/**
 * Mirrors a site: the start page, then (unless singlePage) every page of the same site it links to, breadth first,
 * each with its requisites (CSS and what the CSS references, JS, images, srcset, fonts, icons). Pages and CSS are
 * rewritten so every link into the site is relative to the copy; links off the site are left as they are and never
 * fetched. Runs `concurrency` fetches at once; a failed URL is reported with its reason and the crawl goes on.
 */
export async function mirrorSite(o: MirrorOptions): Promise<MirrorResult> {
  const start = clean(o.startUrl);
  const maxKept = o.maxFailuresKept ?? 500;
  const done = o.alreadyWritten ?? new Set<string>();
  const queue: Item[] = [];
  /** Every local path queued so far: two URLs with one file (`/a` and `/a/`, http and https) are fetched once. */
  const queued = new Set<string>();
  const failed: MirrorFailure[] = [];
  const p: MirrorProgress = { pagesFound: 0, pagesDone: 0, assets: 0, bytes: 0, errors: 0, skipped: 0, pending: 0 };
  let stoppedBy: string | null = null;
  /** The job's size limit was reached: nothing more is fetched; what is left is counted. */
  let full = false;
  let notFetched = 0;
  let fatal: unknown = null;

  const fail = (url: URL | string, reason: string) => {
    p.errors++;
    if (failed.length < maxKept) failed.push({ url: String(url), reason });
  };

  const enqueue = (url: URL, declared: RefKind): string => {
    const kind = refKindOf(url, declared);
    const path = localPathOf(url, kind);
    if (queued.has(path)) return path;
    if (kind === 'page') {
      if (p.pagesFound >= o.maxPages) {
        stoppedBy ??= `the page limit of ${o.maxPages} was reached`;
        return path;
      }
      p.pagesFound++;
    }
    queued.add(path);
    queue.push({ url: clean(url), kind, path });
    p.pending++;
    wake();
    return path;
  };

  /** The rewrite of one reference from the file at `from` (null leaves it as it is: off-site). */
  const mapper =
    (from: string, follow: boolean) =>
    (u: URL, declared: RefKind): string | null => {
      if (!sameSite(u, start)) return null;
      const kind = refKindOf(u, declared);
      // Links are followed only when crawling; a requisite is always fetched (a linked PDF is a link).
      const target = follow || declared === 'asset' ? enqueue(u, declared) : localPathOf(u, kind);
      return relativeLink(from, target, u.hash);
    };

  /** Fetches a URL, following redirects within the site; answers the final URL and its response. */
  const fetchFollowing = async (url: URL): Promise<{ final: URL; res: FetchedResponse }> => {
    const seen = new Set<string>([url.href]);
    let at = url;
    for (let hop = 0; ; hop++) {
      const res = await o.fetcher.get(at, o.signal);
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && typeof location === 'string') {
        const next = resolveRef(location, at);
        if (!next)
          throw new FetchError(
            `redirects to an address that cannot be fetched (${location.slice(0, 200)})`,
            'http',
            res.status,
          );
        next.hash = '';
        if (!sameSite(next, start)) throw new FetchError(`redirects off the site, to ${next.host}`, 'http', res.status);
        if (seen.has(next.href)) throw new FetchError('redirect loop', 'http', res.status);
        if (hop >= MAX_REDIRECTS) throw new FetchError(`more than ${MAX_REDIRECTS} redirects`, 'http', res.status);
        seen.add(next.href);
        at = next;
        continue;
      }
      return { final: at, res };
    }
  };

  const handle = async (item: Item) => {
    const isCss = item.kind === 'asset' && /\.css$/i.test(item.path);
    const written = done.has(item.path);
    // A requisite an earlier attempt wrote is kept; pages and CSS are fetched again for their links.
    if (written && item.kind === 'asset' && !isCss) {
      p.assets++;
      p.skipped++;
      return;
    }
    let final: URL;
    let res: FetchedResponse;
    try {
      ({ final, res } = await fetchFollowing(item.url));
    } catch (err) {
      if (err instanceof FetchError) return fail(item.url, err.message);
      throw err;
    }
    if (res.status < 200 || res.status >= 300) return fail(item.url, `HTTP ${res.status}`);
    if (p.bytes + res.body.length > o.maxJobBytes) {
      full = true;
      stoppedBy = `the job's size limit of ${o.maxJobBytes} bytes was reached`;
      return fail(item.url, 'not saved: the job size limit was reached');
    }
    const type = String(res.headers['content-type'] ?? '');
    let body = res.body;
    const looksHtml = HTML_TYPE.test(type) || (!type && item.kind === 'page');
    if (item.kind === 'page' && looksHtml) {
      const charset = sniffCharset(type, res.body);
      const text = new TextDecoder(charset).decode(res.body);
      body = Buffer.from(
        rewriteHtml(text, final, mapper(item.path, !o.singlePage), { wasUtf8: charset === 'utf-8' }),
        'utf8',
      );
    } else if (CSS_TYPE.test(type) || isCss) {
      const text = new TextDecoder(sniffCharset(type, Buffer.alloc(0))).decode(res.body);
      const map = mapper(item.path, true);
      body = Buffer.from(
        rewriteCss(text, (ref) => {
          const u = resolveRef(ref, final);
          return u ? map(u, 'asset') : null;
        }),
        'utf8',
      );
    }
    if (written) {
      p.skipped++;
      if (item.kind === 'page') p.pagesDone++;
      else p.assets++;
      return;
    }
    // The write goes on while this slot fetches the next URL; the number of writes in flight is bounded.
    while (writing >= maxWrites) await new Promise<void>((r) => writeWaiters.push(r));
    writing++;
    const w = o
      .write(item.path, body)
      .then(
        () => {
          p.bytes += body.length;
          if (item.kind === 'page') p.pagesDone++;
          else p.assets++;
        },
        (err: unknown) => {
          // A refusal of this one file (a name taken by a directory) is the URL's; anything else (SSH down) stops
          // the job, which its retry resumes.
          const status = (err as { status?: unknown }).status;
          if (typeof status === 'number' && status >= 400 && status < 500)
            fail(item.url, `not saved: ${(err as Error).message}`);
          else fatal ??= err;
        },
      )
      .finally(() => {
        writing--;
        writeWaiters.shift()?.();
        writes.delete(w);
        o.onProgress?.({ ...p, pending: p.pending + writing });
      });
    writes.add(w);
  };

  const maxWrites = Math.max(8, o.concurrency * 4);
  let writing = 0;
  const writeWaiters: (() => void)[] = [];
  const writes = new Set<Promise<void>>();

  // A small worker pool over a growing queue: workers sleep while others may still add URLs.
  let active = 0;
  let waiters: (() => void)[] = [];
  function wake() {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  }
  const worker = async () => {
    for (;;) {
      if (fatal || o.signal.aborted) return;
      const item = queue.shift();
      if (!item) {
        if (active === 0) return wake();
        await new Promise<void>((r) => waiters.push(r));
        continue;
      }
      active++;
      try {
        if (full) notFetched++;
        else await handle(item);
      } catch (err) {
        if (err instanceof NoRouteError || o.signal.aborted) fatal ??= err;
        else fail(item.url, err instanceof Error ? err.message : String(err));
      } finally {
        active--;
        p.pending--;
        o.onProgress?.({ ...p, pending: p.pending + writing });
        if (active === 0 && !queue.length) wake();
      }
    }
  };

  enqueue(start, 'page');
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  while (writes.size) await Promise.all([...writes]);
  o.signal.throwIfAborted();
  if (fatal) throw fatal;
  if (notFetched) fail(start, `${notFetched} more URLs were not fetched: ${stoppedBy}`);
  return { ...p, failed, stoppedBy };
}

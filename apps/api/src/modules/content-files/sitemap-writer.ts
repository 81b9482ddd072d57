import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { SitemapIndexStream, SitemapStream } from 'sitemap';

/** The sitemaps protocol's limits per file: 50,000 URLs and 50 MB (52,428,800 bytes) uncompressed. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export const NO_HTML_FILES = 'The domain directory has no HTML files, so there is nothing to list in a sitemap';

export type SitemapUrl = { loc: string; lastmod?: Date | null };
export type SitemapResult = { files: string[]; urlCount: number; index: string | null };

const xmlEscapedLength = (s: string) =>
  Buffer.byteLength(s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
// The XML around one <url> entry: tags, a lastmod date-time and whitespace, with room to spare.
const ENTRY_OVERHEAD = 128;
// Header with namespaces and the closing tag.
const FILE_OVERHEAD = 1024;

/** Splits URLs into files that each stay within both limits. */
export function planSitemaps(urls: SitemapUrl[], maxUrls = SITEMAP_MAX_URLS, maxBytes = SITEMAP_MAX_BYTES) {
  const chunks: SitemapUrl[][] = [];
  let current: SitemapUrl[] = [];
  let bytes = FILE_OVERHEAD;
  for (const u of urls) {
    const size = xmlEscapedLength(u.loc) + ENTRY_OVERHEAD;
    if (current.length && (current.length >= maxUrls || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = FILE_OVERHEAD;
    }
    current.push(u);
    bytes += size;
  }
  if (current.length || !chunks.length) chunks.push(current);
  return chunks;
}

/** Where one file goes: a stream, and optionally a promise that settles once the file is really stored. */
export type SitemapSink = { out: Writable; done?: Promise<unknown> };

async function pipeTo(stream: SitemapStream | SitemapIndexStream, sink: SitemapSink, write: () => Promise<void>) {
  const { out } = sink;
  const flushed = new Promise<void>((resolve, reject) => {
    out.once('close', resolve);
    out.once('finish', resolve);
    out.once('error', reject);
    stream.once('error', reject);
  });
  // A sink that fails early (the server refused the file) must not leave the writer waiting for drain.
  sink.done?.catch((err: unknown) => stream.destroy(err as Error));
  stream.pipe(out);
  await write();
  stream.end();
  await flushed;
  await sink.done;
}

/**
 * Writes sitemap.xml, or, above the protocol's limits, sitemap-1.xml … sitemap-N.xml and a sitemap.xml index
 * pointing at them. XML comes from the `sitemap` library; `open` gives the destination of each file.
 */
export async function writeSitemaps(
  urls: SitemapUrl[],
  opts: {
    baseUrl: string;
    open: (name: string) => SitemapSink | Promise<SitemapSink>;
    maxUrls?: number;
    maxBytes?: number;
    onFile?: (name: string, urls: number) => Promise<void> | void;
  },
): Promise<SitemapResult> {
  if (!urls.length) throw new Error(NO_HTML_FILES);
  const chunks = planSitemaps(urls, opts.maxUrls, opts.maxBytes);
  const writeChunk = async (name: string, chunk: SitemapUrl[]) => {
    const sm = new SitemapStream({ xmlns: { news: false, xhtml: false, image: false, video: false } });
    await pipeTo(sm, await opts.open(name), async () => {
      for (const u of chunk) {
        const ok = sm.write({ url: u.loc, ...(u.lastmod ? { lastmod: u.lastmod.toISOString() } : {}) });
        if (!ok) await once(sm, 'drain');
      }
    });
    await opts.onFile?.(name, chunk.length);
  };
  if (chunks.length === 1) {
    await writeChunk('sitemap.xml', chunks[0]!);
    return { files: ['sitemap.xml'], urlCount: urls.length, index: null };
  }
  const names = chunks.map((_, i) => `sitemap-${i + 1}.xml`);
  for (const [i, chunk] of chunks.entries()) await writeChunk(names[i]!, chunk);
  const index = new SitemapIndexStream();
  const now = new Date().toISOString();
  await pipeTo(index, await opts.open('sitemap.xml'), async () => {
    for (const n of names) index.write({ url: `${opts.baseUrl}/${n}`, lastmod: now });
  });
  return { files: ['sitemap.xml', ...names], urlCount: urls.length, index: 'sitemap.xml' };
}

/** https://host/a%20b/c.html from a path relative to the domain directory; index.html stands for its folder. */
export function urlOf(host: string, relPath: string): string {
  const parts = relPath.split('/').filter(Boolean);
  if (parts.length && /^index\.html?$/i.test(parts[parts.length - 1]!)) {
    parts.pop();
    return `https://${host}/${parts.map(encodeURIComponent).join('/')}${parts.length ? '/' : ''}`;
  }
  return `https://${host}/${parts.map(encodeURIComponent).join('/')}`;
}

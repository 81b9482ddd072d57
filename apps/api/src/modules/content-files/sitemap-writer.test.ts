import { PassThrough } from 'node:stream';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  NO_HTML_FILES,
  SITEMAP_MAX_URLS,
  planSitemaps,
  urlOf,
  writeSitemaps,
  type SitemapUrl,
} from './sitemap-writer.ts';

/** Collects each file written, in memory. */
function sink() {
  const files = new Map<string, string>();
  return {
    files,
    open(name: string) {
      const p = new PassThrough();
      let text = '';
      p.on('data', (d) => (text += String(d)));
      p.on('end', () => files.set(name, text));
      p.resume();
      return { out: p };
    },
  };
}
const parser = new XMLParser({ isArray: (name) => name === 'url' || name === 'sitemap' });

describe('sitemap writer', () => {
  it('writes one sitemap.xml with percent-encoded URLs and last-modified times', async () => {
    const s = sink();
    const when = new Date('2026-01-02T03:04:05Z');
    const res = await writeSitemaps(
      [
        { loc: urlOf('example.com', 'index.html'), lastmod: when },
        { loc: urlOf('example.com', 'a b/ä&.html'), lastmod: when },
        { loc: urlOf('example.com', 'docs/index.htm') },
      ],
      { baseUrl: 'https://example.com', open: s.open },
    );
    await new Promise((r) => setImmediate(r));
    expect(res).toEqual({ files: ['sitemap.xml'], urlCount: 3, index: null });
    const doc = parser.parse(s.files.get('sitemap.xml')!);
    expect(doc.urlset.url.map((u: { loc: string }) => u.loc)).toEqual([
      'https://example.com/',
      'https://example.com/a%20b/%C3%A4%26.html',
      'https://example.com/docs/',
    ]);
    expect(doc.urlset.url[0].lastmod).toBe('2026-01-02T03:04:05.000Z');
  });

  it('splits above 50,000 URLs into numbered sitemaps and an index', async () => {
    const urls: SitemapUrl[] = Array.from({ length: SITEMAP_MAX_URLS + 1 }, (_, i) => ({
      loc: `https://example.com/p/${i}.html`,
    }));
    const s = sink();
    const res = await writeSitemaps(urls, { baseUrl: 'https://example.com', open: s.open });
    await new Promise((r) => setImmediate(r));
    expect(res).toEqual({
      files: ['sitemap.xml', 'sitemap-1.xml', 'sitemap-2.xml'],
      urlCount: 50_001,
      index: 'sitemap.xml',
    });
    expect(parser.parse(s.files.get('sitemap-1.xml')!).urlset.url).toHaveLength(50_000);
    expect(parser.parse(s.files.get('sitemap-2.xml')!).urlset.url).toHaveLength(1);
    const index = parser.parse(s.files.get('sitemap.xml')!);
    expect(index.sitemapindex.sitemap.map((x: { loc: string }) => x.loc)).toEqual([
      'https://example.com/sitemap-1.xml',
      'https://example.com/sitemap-2.xml',
    ]);
  });

  it('splits by size too: no file above the byte limit', () => {
    const long = 'x'.repeat(2000);
    const urls = Array.from({ length: 100 }, (_, i) => ({ loc: `https://example.com/${long}/${i}` }));
    const chunks = planSitemaps(urls, SITEMAP_MAX_URLS, 50_000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toHaveLength(100);
    for (const c of chunks) expect(c.length * (2000 + 40 + 128) + 1024).toBeLessThanOrEqual(50_000);
  });

  it('refuses a site without HTML files, and writes nothing', async () => {
    const s = sink();
    await expect(writeSitemaps([], { baseUrl: 'https://example.com', open: s.open })).rejects.toThrow(NO_HTML_FILES);
    expect(s.files.size).toBe(0);
  });
});

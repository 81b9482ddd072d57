import net from 'node:net';
import path from 'node:path';
import { parseDocument } from 'htmlparser2';
import { Element, type ChildNode } from 'domhandler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { generatedSite, startSiteServer, tinyPng, type SiteServer } from '@fleetdesk/simulators/site/index.ts';
import type { ProxyEndpoint } from '../integrations/proxy/index.ts';
import { rewriteCss } from './css.ts';
import { createFetcher, DEFAULT_USER_AGENT, type FetcherOptions } from './fetcher.ts';
import { mirrorSite, type MirrorResult } from './crawler.ts';
import { localPathOf, relativeLink } from './url-to-path.ts';

const CHALLENGE = `<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><div id="challenge-platform">Checking your browser</div><script>window._cf_chl_opt={}</script></body></html>`;

/** The multi-page test site: nested pages, CSS with url() and @import, srcset, fonts, icons, and traps. */
function testSite(): Record<string, { status?: number; headers?: Record<string, string>; body?: string | Buffer }> {
  return {
    '/': {
      body: `<!doctype html><html><head><meta charset="utf-8"><title>Home</title>
<link rel="stylesheet" href="/css/site.css"><link rel="icon" href="/favicon.ico">
<script src="js/app.js"></script>
<style>.hero{background:url('/img/hero.png')}</style></head>
<body><a href="/about">About</a> <a href="/blog/">Blog</a> <a href="/blog/post-1.html#top">Post</a>
<a href="https://elsewhere.example/x">Away</a> <a href="mailto:a@b.c">Mail</a> <a href="#frag">Here</a>
<a href="/list?page=2&amp;sort=a">Page 2</a> <a href="/files/guide.pdf">Guide</a>
<img src="/img/logo.png" srcset="/img/logo.png 1x, /img/logo@2x.png 2x" alt="">
<div style="background-image: url(/img/bg.png)"></div>
<img src="https://cdn.elsewhere.example/pic.png"></body></html>`,
    },
    '/about': {
      body: `<html><head><base href="/about/"><link rel="stylesheet" href="../css/site.css"></head>
<body><a href="../">Home</a><a href="team.html">Team</a><img src="../img/logo.png"></body></html>`,
    },
    '/about/team.html': { body: '<html><body><a href="/">Home</a></body></html>' },
    '/blog/': { body: '<html><body><a href="post-1.html">1</a><a href="/blog/post-2.html">2</a></body></html>' },
    '/blog/post-1.html': { body: '<html><body><p>one</p><a href="../blog/">Blog</a></body></html>' },
    '/blog/post-2.html': { body: '<html><body><p>two</p><a href="/missing.html">gone</a></body></html>' },
    '/list?page=2&sort=a': { body: '<html><body><a href="/">Home</a></body></html>' },
    '/files/guide.pdf': { body: Buffer.from('%PDF-1.4 test') },
    '/css/site.css': {
      body: `@import "parts/fonts.css";\nbody{background:url("../img/bg.png") no-repeat}\n.x{background:url(data:image/png;base64,AAAA)}`,
    },
    '/css/parts/fonts.css': {
      body: `@font-face{font-family:F;src:url(/fonts/f.woff2) format("woff2"), url('../../fonts/f.woff?v=2')}`,
    },
    '/fonts/f.woff2': { body: Buffer.from('wOF2') },
    '/fonts/f.woff?v=2': { body: Buffer.from('wOFF') },
    '/js/app.js': { body: 'console.log(1)' },
    '/favicon.ico': { body: tinyPng(1) },
    '/img/hero.png': { body: tinyPng(2) },
    '/img/logo.png': { body: tinyPng(3) },
    '/img/logo@2x.png': { body: tinyPng(4) },
    '/img/bg.png': { body: tinyPng(5) },
  };
}

let site: SiteServer;
let traps: SiteServer;
let slow: SiteServer;

const fetcherOpts = (extra: Partial<FetcherOptions> = {}): FetcherOptions => ({
  proxies: [],
  concurrency: 4,
  timeoutMs: 2000,
  retries: 1,
  backoffMs: 10,
  maxFileBytes: 1024 * 1024,
  userAgent: DEFAULT_USER_AGENT,
  rejectUnauthorized: true,
  ...extra,
});

async function mirror(start: string, extra: { singlePage?: boolean; fetcher?: Partial<FetcherOptions> } = {}) {
  const files = new Map<string, Buffer>();
  const fetcher = createFetcher(fetcherOpts(extra.fetcher));
  try {
    const result = await mirrorSite({
      startUrl: new URL(start),
      singlePage: extra.singlePage ?? false,
      fetcher,
      concurrency: 4,
      maxPages: 1000,
      maxJobBytes: 50 * 1024 * 1024,
      signal: new AbortController().signal,
      write: async (p, body) => {
        expect(files.has(p), `${p} written twice`).toBe(false);
        files.set(p, body);
      },
    });
    return { files, result, events: fetcher.takeEvents() };
  } finally {
    await fetcher.close();
  }
}

/** Every href/src/srcset reference of a saved page, resolved against the page's own location in the copy. */
function localRefs(file: string, html: string): string[] {
  const out: string[] = [];
  const stack: ChildNode[] = [...parseDocument(html).children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!(n instanceof Element)) continue;
    for (const a of ['href', 'src']) {
      const v = n.attribs[a];
      if (v && !/^(https?:|mailto:|#)/.test(v)) out.push(v);
    }
    if (n.attribs.srcset) out.push(...n.attribs.srcset.split(',').map((s) => s.trim().split(/\s+/)[0]!));
    stack.push(...n.children);
  }
  return out.map((r) => decodeURIComponent(path.posix.join(path.posix.dirname(`/${file}`), r.split('#')[0]!)).slice(1));
}

beforeAll(async () => {
  site = await startSiteServer({ routes: testSite() });
  traps = await startSiteServer({
    routes: {
      '/': {
        body: `<a href="/loop-a">loop</a><a href="/gone">404</a><a href="/broken">500</a><a href="/slow">slow</a>
<a href="/away">away</a><a href="/..%2F..%2Fetc%2Fpasswd">enc</a><a href="/a/../../../../etc/hosts">dots</a>
<a href="/%2e%2e/%2e%2e/x.html">dots2</a><a href="/.htaccess">hidden</a><a href="/guard">guard</a>`,
      },
      '/loop-a': { status: 302, headers: { location: '/loop-b' } },
      '/loop-b': { status: 301, headers: { location: '/loop-a' } },
      '/broken': { status: 500, body: 'oops' },
      '/away': { status: 302, headers: { location: 'https://elsewhere.example/' } },
      '/..%2F..%2Fetc%2Fpasswd': { body: '<p>encoded</p>' },
      '/etc/hosts': { body: 'hosts' },
      '/x.html': { body: '<p>x</p>' },
      '/.htaccess': { body: 'Deny from all' },
      '/guard': { status: 403, headers: { server: 'cloudflare' }, body: CHALLENGE },
    },
    hang: ['/slow'],
  });
  slow = await startSiteServer({ routes: generatedSite(3, 2), delayMs: 30 });
});
afterAll(async () => {
  await Promise.all([site?.close(), traps?.close(), slow?.close()]);
});

describe('url to path', () => {
  const at = (u: string, kind: 'page' | 'asset' = 'page') => localPathOf(new URL(u, 'http://s.test'), kind);
  it('maps pages to files a static server finds and requisites to their paths', () => {
    expect(at('/')).toBe('index.html');
    expect(at('/a/b')).toBe('a/b/index.html');
    expect(at('/a/b/')).toBe('a/b/index.html');
    expect(at('/a/b.html')).toBe('a/b.html');
    expect(at('/a/b.php')).toBe('a/b.php/index.html');
    expect(at('/list?p=2')).toBe('list/index@p=2.html');
    expect(at('/css/s.css?v=3', 'asset')).toBe('css/s@v=3.css');
    expect(at('/%D0%BF%D0%BE%D1%81%D1%82/', 'page')).toBe('пост/index.html');
  });
  it('never leaves the directory: encoded slashes, dots and hidden names are made safe', () => {
    for (const u of ['/..%2F..%2Fetc%2Fpasswd', '/a/%2e%2e/%2e%2e/b', '/%00x', '/a\\..\\b', '/.htaccess', '/..']) {
      for (const kind of ['page', 'asset'] as const) {
        const p = at(u, kind);
        expect(p.split('/')).not.toContain('..');
        expect(p).not.toMatch(/^\/|\\|\0/);
        expect(p.split('/').every((s) => !s.startsWith('.'))).toBe(true);
      }
    }
    expect(at('/..%2F..%2Fetc%2Fpasswd', 'asset')).toBe('_._.._etc_passwd');
    expect(Buffer.byteLength(at(`/${'я'.repeat(300)}`, 'asset'))).toBeLessThanOrEqual(200);
  });
  it('links relatively, keeping the fragment', () => {
    expect(relativeLink('blog/post.html', 'css/site.css')).toBe('../css/site.css');
    expect(relativeLink('index.html', 'about/index.html', '#x')).toBe('about/index.html#x');
    expect(relativeLink('a/index.html', 'a/index.html')).toBe('index.html');
  });
});

describe('css', () => {
  it('rewrites url() and @import with a tokenizer and keeps everything else', () => {
    const css = `@import url("a.css") screen;@import 'b.css';\n/* url(c.png) */ .x{background:url( d.png )}.y{content:"url(e.png)"}`;
    const seen: string[] = [];
    const out = rewriteCss(css, (u) => {
      seen.push(u);
      return `L/${u}`;
    });
    expect(seen).toEqual(['a.css', 'b.css', 'd.png']);
    expect(out).toContain('@import url("L/a.css") screen;');
    expect(out).toContain(`@import "L/b.css";`);
    expect(out).toContain('/* url(c.png) */');
    expect(out).toContain('.y{content:"url(e.png)"}');
  });
});

describe('mirror', () => {
  let r: Awaited<ReturnType<typeof mirror>>;
  beforeAll(async () => {
    r = await mirror(`${site.url}/`);
  });

  it('saves every page and requisite of a multi-page site', () => {
    expect([...r.files.keys()].sort()).toEqual(
      [
        'index.html',
        'about/index.html',
        'about/team.html',
        'blog/index.html',
        'blog/post-1.html',
        'blog/post-2.html',
        'list/index@page=2&sort=a.html',
        'files/guide.pdf',
        'css/site.css',
        'css/parts/fonts.css',
        'fonts/f.woff2',
        'fonts/f@v=2.woff',
        'js/app.js',
        'favicon.ico',
        'img/hero.png',
        'img/logo.png',
        'img/logo@2x.png',
        'img/bg.png',
      ].sort(),
    );
    expect(r.result.pagesDone).toBe(7);
    expect(r.result.failed).toEqual([{ url: `${site.url}/missing.html`, reason: 'HTTP 404' }]);
    expect(r.files.get('img/logo.png')).toEqual(tinyPng(3));
  });

  it('rewrites links so that every one resolves inside the copy', () => {
    for (const [file, body] of r.files) {
      if (!file.endsWith('.html')) continue;
      for (const ref of localRefs(file, body.toString())) {
        if (ref === 'missing.html') continue;
        expect(r.files.has(ref), `${file} → ${ref}`).toBe(true);
      }
    }
    const home = r.files.get('index.html')!.toString();
    expect(home).toContain('href="about/index.html"');
    expect(home).toContain('href="blog/post-1.html#top"');
    expect(home).toContain('srcset="img/logo.png 1x, img/logo@2x.png 2x"');
    expect(home).toContain('url(&quot;img/hero.png&quot;)'.replace(/&quot;/g, '"'));
    expect(home).toContain('https://elsewhere.example/x');
    expect(home).toContain('https://cdn.elsewhere.example/pic.png');
    expect(home).toContain('mailto:a@b.c');
    expect(r.files.get('about/index.html')!.toString()).not.toContain('<base href');
    const css = r.files.get('css/parts/fonts.css')!.toString();
    expect(css).toContain('url("../../fonts/f.woff2")');
    expect(css).toContain('url("../../fonts/f@v=2.woff")');
  });

  it('mirrors a single page with its requisites only', async () => {
    const one = await mirror(`${site.url}/`, { singlePage: true });
    const saved = [...one.files.keys()];
    expect(saved.filter((f) => f.endsWith('.html'))).toEqual(['index.html']);
    expect(saved).toContain('css/parts/fonts.css');
    expect(saved).toContain('img/logo@2x.png');
    expect(saved).not.toContain('files/guide.pdf');
    expect(one.files.get('index.html')!.toString()).toContain('href="about/index.html"');
  });

  it('reports loops, 404, 500, timeouts, off-site redirects and challenges, and never writes outside', async () => {
    const t = await mirror(`${traps.url}/`, { fetcher: { timeoutMs: 300, retries: 1 } });
    const reasons = Object.fromEntries(t.result.failed.map((f) => [new URL(f.url).pathname, f.reason]));
    expect(reasons['/loop-a']).toBe('redirect loop');
    expect(reasons['/gone']).toBe('HTTP 404');
    expect(reasons['/broken']).toBe('HTTP 500');
    expect(reasons['/slow']).toMatch(/timed out/);
    expect(reasons['/away']).toBe('redirects off the site, to elsewhere.example');
    expect(reasons['/guard']).toBe('Cloudflare challenge page (bot protection); not saved');
    expect(traps.hits.get('/broken')).toBe(2);
    expect(traps.hits.get('/slow')).toBe(2);
    for (const f of t.files.keys()) {
      expect(f.split('/')).not.toContain('..');
      expect(f.startsWith('.') || f.includes('/.')).toBe(false);
    }
    expect([...t.files.keys()].sort()).toEqual(
      ['index.html', '_._.._etc_passwd/index.html', 'etc/hosts/index.html', 'x.html', '_htaccess'].sort(),
    );
    expect(t.files.get('index.html')!.toString()).not.toContain('Just a moment');
  });
});

describe('charsets', () => {
  it('reads a windows-1251 page and writes it as UTF-8, saying so in its meta', async () => {
    const cp1251 = new Map([...'Привет'].map((ch, i) => [ch, [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2][i]!]));
    const body = Buffer.concat([
      Buffer.from(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><body><p>',
      ),
      Buffer.from([...'Привет'].map((ch) => cp1251.get(ch)!)),
      Buffer.from('</p></body></html>'),
    ]);
    const ru = await startSiteServer({ routes: { '/': { body, headers: { 'content-type': 'text/html' } } } });
    try {
      const r = await mirror(`${ru.url}/`);
      const html = r.files.get('index.html')!.toString('utf8');
      expect(html).toContain('<p>Привет</p>');
      expect(html).toContain('content="text/html; charset=utf-8"');
    } finally {
      await ru.close();
    }
  });
});

describe('proxies', () => {
  const proxies: ForwardProxy[] = [];
  let deadPort: number;
  beforeAll(async () => {
    proxies.push(
      await startForwardProxy({ kind: 'http', username: 'u1', password: 'p:1@x' }),
      await startForwardProxy({ kind: 'socks5', username: 'u2', password: 'p2' }),
    );
    // A port nobody listens on: a dead proxy.
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    deadPort = (s.address() as net.AddressInfo).port;
    await new Promise((r) => s.close(r));
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
  });
  const ep = (p: ForwardProxy, kind: 'http' | 'socks5', username: string, password: string): ProxyEndpoint => ({
    proxyType: kind,
    isHttps: false,
    IPAddress: '127.0.0.1',
    httpPort: p.port,
    username,
    password,
  });

  it.each([
    ['http', 0, 'u1', 'p:1@x'],
    ['socks5', 1, 'u2', 'p2'],
  ] as const)('mirrors through a %s proxy with credentials', async (kind, i, user, pass) => {
    const before = proxies[i]!.requests;
    const r = await mirror(`${slow.url}/`, { fetcher: { proxies: [ep(proxies[i]!, kind, user, pass)] } });
    expect(r.result.errors).toBe(0);
    expect(r.files.size).toBe(30);
    expect(proxies[i]!.requests).toBeGreaterThan(before);
  });

  it('moves past a dead proxy and one with wrong credentials to a good one', async () => {
    const dead: ProxyEndpoint = { ...ep(proxies[0]!, 'http', '', ''), httpPort: deadPort };
    const wrong = ep(proxies[0]!, 'http', 'u1', 'nope');
    const r = await mirror(`${slow.url}/`, {
      fetcher: { proxies: [dead, wrong, ep(proxies[1]!, 'socks5', 'u2', 'p2')] },
    });
    expect(r.result.errors).toBe(0);
    expect(r.files.size).toBe(30);
    expect(r.events.join('\n')).toMatch(new RegExp(`127.0.0.1:${deadPort}: connection failed`));
    expect(r.events.join('\n')).toMatch(/proxy authentication failed \(407\)/);
  });

  it('fails the whole crawl when every proxy is dead', async () => {
    const dead: ProxyEndpoint = { ...ep(proxies[0]!, 'http', '', ''), httpPort: deadPort };
    await expect(mirror(`${slow.url}/`, { fetcher: { proxies: [dead] } })).rejects.toThrow(
      /Every proxy of the region failed/,
    );
  });
});

export type { MirrorResult };

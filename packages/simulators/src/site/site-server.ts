import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

/** One answer of the site: a status, headers and a body (a string is sent as UTF-8). */
export type SiteAnswer = { status?: number; headers?: Record<string, string>; body?: string | Buffer };

export type SiteOptions = {
  /** The site's answers by path (with the query string, as the request names it). */
  routes: Record<string, SiteAnswer | ((req: http.IncomingMessage) => SiteAnswer)>;
  /** Waits this long before every answer (a slow site). */
  delayMs?: number;
  /** Paths that never answer (a hanging page). */
  hang?: string[];
  /**
   * Serve HTTPS with this key and certificate (the health checks read its issuer and end date); `byName` gives
   * other names their own certificate (SNI), so one site can play several domains.
   */
  tls?: { key: string; cert: string; byName?: Map<string, { key: string; cert: string }> };
};

export type SiteServer = {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests per path, for tests that check what was (not) fetched. */
  readonly hits: Map<string, number>;
  /** Replaces the certificate of an HTTPS site (a renewal, or one near expiry). */
  setTls(pair: { key: string; cert: string }): void;
  close(): Promise<void>;
};

const TYPES: [RegExp, string][] = [
  [/\.html?$/i, 'text/html; charset=utf-8'],
  [/\.css$/i, 'text/css; charset=utf-8'],
  [/\.m?js$/i, 'text/javascript; charset=utf-8'],
  [/\.png$/i, 'image/png'],
  [/\.jpe?g$/i, 'image/jpeg'],
  [/\.svg$/i, 'image/svg+xml'],
  [/\.woff2$/i, 'font/woff2'],
  [/\.ico$/i, 'image/x-icon'],
];
/** The Content-Type a static server would send for a path (directories and extensionless paths are HTML). */
export function contentTypeOf(path: string): string {
  const p = path.split('?')[0]!;
  return (
    TYPES.find(([re]) => re.test(p))?.[1] ??
    (/\.[a-z0-9]+$/i.test(p) ? 'application/octet-stream' : 'text/html; charset=utf-8')
  );
}

/** A small web site on 127.0.0.1 for the parser's tests, the demo and the benchmark. Unknown paths answer 404. */
export async function startSiteServer(opts: SiteOptions): Promise<SiteServer> {
  const hits = new Map<string, number>();
  const hang = new Set(opts.hang ?? []);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (hang.has(path)) return;
    const answer = () => {
      const route = opts.routes[path];
      const a = typeof route === 'function' ? route(req) : route;
      if (!a) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        return res.end('<h1>Not found</h1>');
      }
      const body = a.body ?? '';
      res.writeHead(a.status ?? 200, {
        'content-type': contentTypeOf(path),
        'content-length': String(Buffer.byteLength(body)),
        ...a.headers,
      });
      res.end(body);
    };
    if (opts.delayMs) setTimeout(answer, opts.delayMs);
    else answer();
  };
  const byName = opts.tls?.byName;
  const server = opts.tls
    ? https.createServer(
        {
          key: opts.tls.key,
          cert: opts.tls.cert,
          SNICallback: (name, cb) => {
            const pair = byName?.get(name.toLowerCase());
            cb(null, pair ? tls.createSecureContext(pair) : undefined);
          },
        },
        handler,
      )
    : http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    hits,
    setTls(pair) {
      if (!(server instanceof https.Server)) throw new Error('not an HTTPS site');
      server.setSecureContext(pair);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 1×1 PNG with a distinct byte, so each generated image is a different file. */
export function tinyPng(seed: number): Buffer {
  const base = Buffer.from(
    '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
      '1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e5273a7a0000000049454e44ae426082',
    'hex',
  );
  return Buffer.concat([base, Buffer.from(`fd${seed}`)]);
}

/**
 * The benchmark's site: `pages` pages (`/`, `/p/1.html`…), each linking to `links` others and referencing
 * two stylesheets, two scripts and five images of its own (10 files a page).
 */
export function generatedSite(pages: number, links = 10): SiteOptions['routes'] {
  const routes: SiteOptions['routes'] = {};
  const pageUrl = (i: number) => (i === 0 ? '/' : `/p/${i}.html`);
  for (let i = 0; i < pages; i++) {
    const linked = Array.from({ length: links }, (_, k) => pageUrl((i * 7 + k * 13 + 1) % pages));
    const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>Page ${i}</title>
<link rel="stylesheet" href="/css/${i}-a.css"><link rel="stylesheet" href="/css/${i}-b.css">
<script src="/js/${i}-a.js"></script><script src="/js/${i}-b.js"></script></head>
<body><h1>Page ${i}</h1>
<nav>${linked.map((u) => `<a href="${u}">${u}</a>`).join(' ')}</nav>
${Array.from({ length: 5 }, (_, k) => `<img src="/img/${i}-${k}.png" alt="">`).join('\n')}
<p>${'Lorem ipsum dolor sit amet. '.repeat(40)}</p>
</body></html>`;
    routes[pageUrl(i)] = { body: html };
    for (const s of ['a', 'b']) {
      routes[`/css/${i}-${s}.css`] = { body: `body{margin:0}\nh1{color:#333}\n.p${i}${s}{padding:${i}px}\n` };
      routes[`/js/${i}-${s}.js`] = { body: `console.log(${JSON.stringify(`page ${i} ${s}`)});\n` };
    }
    for (let k = 0; k < 5; k++) routes[`/img/${i}-${k}.png`] = { body: tinyPng(i * 10 + k) };
  }
  return routes;
}

import { setTimeout as sleep } from 'node:timers/promises';
import zlib from 'node:zlib';
import { Agent, request, type Dispatcher } from 'undici';
import { createProxyDispatcher, proxyAddress, type ProxyEndpoint } from '../integrations/proxy/index.ts';
import { detectChallenge } from './challenge.ts';

export type FetcherOptions = {
  /** Proxies to go through, healthy first; empty means direct. */
  proxies: ProxyEndpoint[];
  concurrency: number;
  /** Per request: connect, headers and body each. */
  timeoutMs: number;
  /** Retries after the first try, for timeouts, 5xx and 429 (with backoff). */
  retries: number;
  /** First backoff delay; doubles on each retry, with jitter. */
  backoffMs: number;
  maxFileBytes: number;
  userAgent: string;
  /** Verify TLS certificates of the site (and of https proxies). */
  rejectUnauthorized: boolean;
};

export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

export type FetchedResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Which route answered: `direct` or the proxy's host:port (never credentials). */
  via: string;
};

/** A failure of one URL, with the reason the operator sees. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly kind: 'http' | 'timeout' | 'network' | 'too_large' | 'challenge',
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Every route is gone (each proxy of the region failed to connect or refused us): the job cannot go on. */
export class NoRouteError extends Error {}

type Route = { label: string; dispatcher: Dispatcher; dead: string | null; proxy: boolean };

type ErrLike = { code?: string; name?: string; message?: string; cause?: unknown };
const chain = (err: unknown): ErrLike[] => {
  const out: ErrLike[] = [];
  for (let e = err; e && typeof e === 'object' && out.length < 6; e = (e as ErrLike).cause) out.push(e as ErrLike);
  return out;
};
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);
const PROXY_DOWN =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|EPIPE|Socks5|socks/i;

/** Classifies a thrown request error: the proxy itself failed (move on), or the URL failed (retry it). */
function classify(err: unknown, route: Route): { proxyFault: string | null; timeout: boolean; message: string } {
  const errs = chain(err);
  const text = errs.map((e) => `${e.code ?? ''} ${e.message ?? ''}`).join(' | ');
  const timeout = errs.some((e) => e.name === 'TimeoutError' || TIMEOUT_CODES.has(e.code ?? ''));
  if (route.proxy) {
    if (/\(407\)|Authentication failed|no accepted authentication/i.test(text))
      return { proxyFault: 'proxy authentication failed (407)', timeout: false, message: text };
    const tunnel = /Proxy response \((\d+)\)/.exec(text);
    // The proxy answered but could not reach the site: the site's problem, not the proxy's.
    if (tunnel) return { proxyFault: null, timeout: false, message: `proxy could not reach the site (${tunnel[1]})` };
    const connectTimeout = errs.some((e) => e.code === 'UND_ERR_CONNECT_TIMEOUT');
    if (connectTimeout || (!timeout && PROXY_DOWN.test(text)))
      return { proxyFault: connectTimeout ? 'connection timed out' : 'connection failed', timeout, message: text };
  }
  const code = errs.find((e) => e.code)?.code;
  return {
    proxyFault: null,
    timeout,
    message: timeout ? 'timed out' : `connection failed${code ? ` (${code})` : ''}`,
  };
}

function decode(body: Buffer, encoding: string | undefined, max: number): Buffer {
  const enc = (encoding ?? '').trim().toLowerCase();
  const opts = { maxOutputLength: max };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(body, opts);
    if (enc === 'deflate') return zlib.inflateSync(body, opts);
    if (enc === 'br') return zlib.brotliDecompressSync(body, opts);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new FetchError(`larger than the limit of ${max} bytes`, 'too_large');
    throw new FetchError(`could not be decompressed (${enc})`, 'network');
  }
  return body;
}

/**
 * Fetches URLs through the proxies of a region (or directly), with keep-alive connections, a timeout per request,
 * retries with backoff for timeouts, 5xx and 429, and a size cap per file. A proxy that cannot connect or answers
 * 407 is dropped for the rest of the job and the request moves to the next one; a challenge page moves the request
 * to the next proxy too (the site may block one exit address), and is reported when every route got one.
 * Redirects are not followed here: the crawler decides whether they stay on the site.
 */
export function createFetcher(opts: FetcherOptions) {
  const routes: Route[] = opts.proxies.length
    ? opts.proxies.map((p) => ({
        label: proxyAddress(p),
        dispatcher: createProxyDispatcher(p, {
          connectTimeoutMs: opts.timeoutMs,
          rejectUnauthorized: opts.rejectUnauthorized,
        }),
        dead: null,
        proxy: true,
      }))
    : [
        {
          label: 'direct',
          dispatcher: new Agent({
            connections: opts.concurrency,
            keepAliveTimeout: 10_000,
            connect: { timeout: opts.timeoutMs, rejectUnauthorized: opts.rejectUnauthorized },
          }),
          dead: null,
          proxy: false,
        },
      ];
  /** The route new requests start on; moves on when one dies or gets blocked. */
  let current = 0;
  const events: string[] = [];

  const pick = (exclude: Set<Route>): Route | null => {
    for (let i = 0; i < routes.length; i++) {
      const r = routes[(current + i) % routes.length]!;
      if (!r.dead && !exclude.has(r)) return r;
    }
    return null;
  };
  const kill = (r: Route, why: string) => {
    if (r.dead) return;
    r.dead = why;
    events.push(`Proxy ${r.label}: ${why}; moved to the next proxy`);
    if (routes[current] === r) current = (current + 1) % routes.length;
  };

  async function once(url: URL, route: Route, signal: AbortSignal): Promise<FetchedResponse> {
    const res = await request(url, {
      method: 'GET',
      dispatcher: route.dispatcher,
      headers: {
        'user-agent': opts.userAgent,
        accept: 'text/html,application/xhtml+xml,text/css,*/*;q=0.8',
        'accept-encoding': 'gzip, deflate, br',
      },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      signal: AbortSignal.any([signal, AbortSignal.timeout(opts.timeoutMs * 3)]),
    });
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxFileBytes) {
      res.body.destroy();
      throw new FetchError(`larger than the limit of ${opts.maxFileBytes} bytes`, 'too_large', res.statusCode);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > opts.maxFileBytes) {
        res.body.destroy();
        throw new FetchError(`larger than the limit of ${opts.maxFileBytes} bytes`, 'too_large', res.statusCode);
      }
      chunks.push(c);
    }
    const enc = res.headers['content-encoding'];
    const body = decode(Buffer.concat(chunks), typeof enc === 'string' ? enc : undefined, opts.maxFileBytes);
    return { status: res.statusCode, headers: res.headers, body, via: route.label };
  }

  return {
    routes: () => routes.map((r) => ({ label: r.label, dead: r.dead })),
    /** Route changes since the last call (proxy dropped, moved on), for the job's progress. */
    takeEvents: () => events.splice(0),
    direct: !opts.proxies.length,

    /** One URL, answered with any status (redirects and errors included); throws FetchError or NoRouteError. */
    async get(url: URL, signal: AbortSignal): Promise<FetchedResponse> {
      const tried = new Set<Route>();
      let attempt = 0;
      let lastChallenge: string | null = null;
      for (;;) {
        signal.throwIfAborted();
        const route = pick(tried);
        if (!route) {
          if (lastChallenge) throw new FetchError(`${lastChallenge} page (bot protection); not saved`, 'challenge');
          const why = routes.map((r) => `${r.label}: ${r.dead ?? 'blocked'}`).join('; ');
          throw new NoRouteError(`Every proxy of the region failed (${why})`);
        }
        let res: FetchedResponse;
        try {
          res = await once(url, route, signal);
        } catch (err) {
          if (err instanceof FetchError) throw err;
          signal.throwIfAborted();
          const c = classify(err, route);
          if (c.proxyFault) {
            kill(route, c.proxyFault);
            continue;
          }
          if (attempt++ < opts.retries) {
            await sleep(backoff(attempt), undefined, { signal });
            continue;
          }
          throw new FetchError(
            c.timeout ? `timed out after ${opts.timeoutMs} ms` : c.message,
            c.timeout ? 'timeout' : 'network',
          );
        }
        if (res.status === 407 && route.proxy) {
          kill(route, 'proxy authentication failed (407)');
          continue;
        }
        const challenge = detectChallenge(res.status, res.headers, res.body);
        if (challenge) {
          lastChallenge = challenge;
          tried.add(route);
          if (route.proxy) {
            events.push(`Proxy ${route.label}: ${challenge} at ${url.pathname}; trying the next proxy`);
            if (routes[current] === route) current = (current + 1) % routes.length;
          }
          continue;
        }
        if ((res.status >= 500 || res.status === 429) && attempt++ < opts.retries) {
          const retryAfter = Number(res.headers['retry-after']);
          const wait = Number.isFinite(retryAfter) ? Math.min(retryAfter * 1000, 30_000) : backoff(attempt);
          await sleep(wait, undefined, { signal });
          continue;
        }
        return res;
      }
    },
    async close() {
      await Promise.all(routes.map((r) => r.dispatcher.destroy().catch(() => undefined)));
    },
  };

  function backoff(attempt: number) {
    const base = opts.backoffMs * 2 ** (attempt - 1);
    return Math.round(base / 2 + Math.random() * base);
  }
}
export type Fetcher = ReturnType<typeof createFetcher>;

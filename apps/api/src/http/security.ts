import crypto from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, RouteOptions } from 'fastify';
import helmet from 'helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { databaseRateLimitStore } from './rate-limit-store.ts';
import { AppError, RateLimitedError } from './errors.ts';

/** The Fastify server options that bound what one client can hold open (decision 013). */
export function serverLimits(
  config: Config,
): Pick<
  FastifyServerOptions,
  | 'trustProxy'
  | 'bodyLimit'
  | 'requestTimeout'
  | 'connectionTimeout'
  | 'keepAliveTimeout'
  | 'maxRequestsPerSocket'
  | 'clientErrorHandler'
> & { http: { headersTimeout: number; connectionsCheckingInterval: number } } {
  const requestMs = config.REQUEST_TIMEOUT_SECONDS * 1000;
  return {
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    bodyLimit: config.BODY_LIMIT_KB * 1024,
    // The whole request, body included, must arrive within this time: a trickled body is cut off.
    requestTimeout: requestMs,
    // A socket that sends and receives nothing for this long is closed.
    connectionTimeout: config.CONNECTION_IDLE_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_SECONDS * 1000,
    maxRequestsPerSocket: 1000,
    clientErrorHandler,
    http: {
      headersTimeout: Math.min(requestMs, 20_000),
      // Node checks the two timeouts above on this interval (30 s by default, longer than short timeouts).
      connectionsCheckingInterval: Math.max(250, Math.min(5000, Math.floor(requestMs / 4))),
    },
  };
}

/**
 * A request Node could not parse (headers too large, bad syntax, a timeout) is answered here, outside Fastify. The
 * socket is closed after the answer, so it says `Connection: close`: a keep-alive client then opens a new socket
 * for its next request instead of writing into a closed one ("socket hang up").
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message, code] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive', 'request_timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request line and headers are too large', 'headers_too_large']
        : [400, 'The request could not be read', 'bad_request'];
  const body = JSON.stringify({ message, code });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  // Whatever the client still sends is not read; the socket goes once the answer is out (or at once if stuck).
  socket.destroySoon();
}

/**
 * A hop count trusts that many proxies nearest to the server, as Express does (Fastify 5 ignores a bare number).
 * Addresses are safer: a client that reaches the server directly cannot pose as a trusted proxy.
 */
export function trustProxyOption(tp: Config['TRUST_PROXY']): FastifyServerOptions['trustProxy'] {
  return typeof tp === 'number' ? (_address: string, hop: number) => hop < tp : tp;
}

/** The body limit of the public sign-in: a username and a password. */
export const LOGIN_BODY_LIMIT = 4 * 1024;

/**
 * Depth of the deepest array/object in JSON text, in one pass without parsing: refusing deep nesting before
 * JSON.parse keeps a small hostile body from costing parse time and stack. Returns early past `limit`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

const NONCE = Symbol('cspNonce');

/** The style nonce of this answer, made once per response. */
export function cspNonce(res: ServerResponse): string {
  const r = res as ServerResponse & { [NONCE]?: string };
  return (r[NONCE] ??= crypto.randomBytes(18).toString('base64'));
}

// The console loads nothing from elsewhere: every directive is 'self' or narrower.
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Off: over plain HTTP on a LAN it would send every asset request to an HTTPS port that does not exist.
  upgradeInsecureRequests: null,
};
const HELMET_COMMON = {
  referrerPolicy: { policy: 'no-referrer' as const },
  // HSTS only matters over HTTPS, where it belongs to the TLS-terminating proxy's configuration.
  strictTransportSecurity: false,
};
/**
 * The security headers, each middleware built once (the Fastify plugin rebuilt helmet on every request: 6% of
 * the API's CPU under load, issue 15). API answers are never pages: their policy is one fixed text. Pages get a
 * style nonce, since CodeMirror adds a <style> element that carries it (the SPA page names it in a meta tag).
 */
const apiHeaders = helmet({
  ...HELMET_COMMON,
  contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
});
const pageHeaders = helmet({
  ...HELMET_COMMON,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      ...CSP_DIRECTIVES,
      styleSrc: ["'self'", (_req: IncomingMessage, res: ServerResponse) => `'nonce-${cspNonce(res)}'`],
    },
  },
});

/** Swagger UI styles its elements inline; only /api/docs gets that, nothing else is relaxed. */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; form-action 'self'; frame-ancestors 'none'";

const isApi = (url: string) => url.startsWith('/api/') || url.startsWith('/auth/');
const SIGN_IN_ROUTES = new Set([
  '/auth/login',
  '/auth/login/two-factor',
  '/auth/oidc/start',
  '/auth/oidc/callback',
  '/auth/oidc/exchange',
]);
const isDocs = (url: string) => url === '/api/docs' || url.startsWith('/api/docs/');

/** Routes whose work is costly (CPU, outbound connections, whole-table reads): limited per user and route. */
export function isExpensiveRoute(method: string, url: string): boolean {
  if (method === 'POST' && /\/rsa-key\/generate$/.test(url)) return true;
  if (method === 'POST' && /\/test-connection$/.test(url)) return true;
  if (method === 'POST' && /^\/api\/proxies\/:id\/check$/.test(url)) return true;
  // Health "Check now": a dozen provider calls for one domain, or a job over a selection.
  if (method === 'POST' && /^\/api\/(domains\/:id\/)?health\/check$/.test(url)) return true;
  // A channel's test message: an outbound SMTP, HTTP or Bot API call.
  if (method === 'POST' && /^\/api\/notification-channels\/:id\/test$/.test(url)) return true;
  if (method === 'GET' && /\/export$/.test(url)) return true;
  // A zone file's preview: up to 5 MB read on the reader's thread, then compared with the zone.
  if (method === 'POST' && /\/cloud-flare\/zone-file\/preview$/.test(url)) return true;
  return false;
}

const MINUTE = 60_000;

/**
 * Security headers, rate limits and body rules. Call before any route is registered and before the auth guard,
 * so the per-address limit runs before a token costs a database read.
 */
export async function installSecurity(app: FastifyInstance, config: Config, database?: Database) {
  app.addHook('onRequest', (req, reply, done) => {
    (isApi(req.url) ? apiHeaders : pageHeaders)(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });

  app.addHook('onSend', async (req, reply) => {
    const url = req.url.split('?')[0] ?? '';
    // API answers may carry revealed secrets or personal data: never kept by a browser or a shared cache.
    if (isApi(url)) reply.header('cache-control', 'no-store');
    if (isDocs(url)) reply.header('content-security-policy', DOCS_CSP);
  });

  installJsonParser(app, config.JSON_MAX_DEPTH);

  // On PostgreSQL several API processes may serve one address: they count in the database (decision 036). The
  // embedded database belongs to one process, which counts in memory.
  const shared = database?.driver === 'postgres' ? databaseRateLimitStore(database) : undefined;
  if (shared) app.addHook('onClose', async () => shared.close());
  await app.register(fastifyRateLimit, { global: false, ...(shared ? { store: shared.Store } : {}) });
  const limiter = (max: number, what: string) => {
    const check = app.createRateLimit({ max, timeWindow: MINUTE, keyGenerator: (req) => keyOf(req) });
    return async (req: FastifyRequest, key: string) => {
      (req as FastifyRequest & { rateKey?: string }).rateKey = key;
      const r = await check(req);
      if (!r.isAllowed && r.isExceeded) {
        const wait = Math.max(1, r.ttlInSeconds);
        throw new RateLimitedError(`Too many ${what}. Try again in ${wait} second${wait === 1 ? '' : 's'}.`, wait);
      }
    };
  };
  const keyOf = (req: FastifyRequest) => (req as FastifyRequest & { rateKey?: string }).rateKey ?? req.ip;

  const perAddress = limiter(config.RATE_LIMIT_ADDRESS_PER_MINUTE, 'requests from your address');
  const perUser = limiter(config.RATE_LIMIT_PER_MINUTE, 'requests');
  const perLogin = limiter(config.RATE_LIMIT_LOGIN_PER_MINUTE, 'sign-in attempts from your address');
  const perExpensive = limiter(config.RATE_LIMIT_EXPENSIVE_PER_MINUTE, 'requests for this action');
  const perToken = limiter(config.RATE_LIMIT_TOKEN_PER_MINUTE, 'requests with this API token');

  app.addHook('onRequest', async (req) => perAddress(req, `a:${req.ip}`));

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isApi(route.url) || isDocs(route.url)) return;
    const methods = [route.method].flat().map(String);
    const hooks: ((req: FastifyRequest, reply: FastifyReply) => Promise<void>)[] = [];
    // The password step, the code step and single sign-on's steps share the per-address sign-in limit.
    if (SIGN_IN_ROUTES.has(route.url)) {
      route.bodyLimit ??= LOGIN_BODY_LIMIT;
      hooks.push(async (req) => perLogin(req, `l:${req.ip}`));
    }
    // Route-level hooks run after the app's, so the auth guard has named the user by now.
    hooks.push(async (req) => {
      // A personal API token has its own limit, apart from its owner's (decision 042).
      if (req.actor?.tokenId) await perToken(req, `t:${req.actor.tokenId}`);
      else if (req.actor?.userId) await perUser(req, `u:${req.actor.userId}`);
    });
    if (methods.some((m) => isExpensiveRoute(m, route.url))) {
      hooks.push(async (req) => perExpensive(req, `x:${req.actor?.userId ?? req.ip}:${route.url}`));
    }
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [...existing, ...hooks] as RouteOptions['onRequest'];
  });
}

/**
 * Fastify's own JSON parser (prototype-poisoning checks included), behind a nesting-depth check that answers 400
 * before anything is parsed.
 */
function installJsonParser(app: FastifyInstance, maxDepth: number) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && jsonDepthExceeds(body, maxDepth)) {
      done(new AppError(400, 'json_too_deep', `JSON nested deeper than ${maxDepth} levels is not accepted`), undefined);
      return;
    }
    parse(req, body as string, done);
  });
}

/**
 * A request URL as it may be logged: the path and the names of its query parameters, never their values (a
 * token, a key or a search for a person's name may ride in a query string).
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = new Set<string>();
  for (const part of url.slice(q + 1).split('&')) {
    if (names.size >= 20) break;
    const raw = part.split('=')[0] ?? '';
    if (!raw) continue;
    let name: string;
    try {
      name = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      name = raw;
    }
    names.add(name.slice(0, 40));
  }
  return `${url.slice(0, q)}${names.size ? `?${[...names].map(encodeURIComponent).join('&')}` : ''}`;
}

/** Fastify's request log fields, with the URL through loggableUrl. */
export function loggableRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: loggableUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

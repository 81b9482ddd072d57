import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from '../http-body.ts';
import { listenOnLoopback } from '../http-server.ts';

/**
 * A wire-level Yandex Webmaster API v4 on loopback (shared/docs/integrations/yandex-webmaster.md): users by OAuth
 * token, hosts, verification (DNS and HTML_FILE checked through hooks, META_TAG always fails), summary, important
 * URLs, sitemaps, user-added sitemaps and recrawl with a daily quota. Errors use Yandex's envelope and codes.
 */

export type VerificationState = 'NONE' | 'VERIFIED' | 'IN_PROGRESS' | 'VERIFICATION_FAILED' | 'INTERNAL_ERROR';
export type VerifierType = 'DNS' | 'HTML_FILE' | 'META_TAG';
const VERIFIERS: VerifierType[] = ['META_TAG', 'HTML_FILE', 'DNS'];

export interface SimHost {
  hostId: string;
  asciiUrl: string;
  unicodeUrl: string;
  verification: {
    uin: string;
    state: VerificationState;
    type?: string;
    latest?: string;
    failInfo?: { reason: string; message: string };
    /** When an IN_PROGRESS check completes (ms since epoch). */
    checkAt?: number;
  };
  summary: {
    sqi: number;
    excluded_pages_count: number;
    searchable_pages_count: number;
    site_problems: Record<string, number>;
  };
  importantUrls: Record<string, unknown>[];
  sitemaps: Record<string, unknown>[];
  userSitemaps: { sitemap_id: string; sitemap_url: string; added_date: string }[];
  recrawl: { task_id: string; url: string; added_time: string; state: 'IN_PROGRESS' | 'DONE' | 'FAILED' }[];
  /** Recrawls used per UTC day (yyyy-mm-dd). */
  recrawlUsed: Record<string, number>;
}

export interface SimUser {
  userId: number;
  token: string;
  hosts: Map<string, SimHost>;
  hostsLimit: number;
}

export interface YandexWebmasterSimOptions {
  port?: number;
  /** The recrawl quota per host per day (Yandex: depends on the site; 20 for small ones). */
  dailyRecrawlQuota?: number;
  /** How long a started verification stays IN_PROGRESS. Default 300 ms. */
  verifyDelayMs?: number;
  /** DNS TXT values of a host name; DNS verification passes when `yandex-verification: <uin>` is among them. */
  dnsTxtLookup?: (hostname: string) => string[] | Promise<string[]>;
  /** The body the site serves at /<fileName>, or undefined; HTML_FILE verification needs `Verification: <uin>` in it. */
  fileLookup?: (hostname: string, fileName: string) => string | undefined | Promise<string | undefined>;
  now?: () => number;
}

export interface YandexWebmasterFailure {
  kind: '5xx' | '429' | 'slow' | 'html' | 'no_host_id';
  count?: number;
  delayMs?: number;
}

export interface YandexWebmasterSim {
  /** Base URL ending in /v4. */
  url: string;
  port: number;
  users: Map<string, SimUser>;
  addUser(token: string, opts?: { hostsLimit?: number }): { userId: number };
  /** Adds a host as if through the API; `verified` skips the check (demo seeds). */
  addHost(token: string, hostUrl: string, opts?: { verified?: boolean }): SimHost;
  setDnsTxtLookup(fn: YandexWebmasterSimOptions['dnsTxtLookup']): void;
  setFileLookup(fn: YandexWebmasterSimOptions['fileLookup']): void;
  /** How long verifications started from now stay IN_PROGRESS (Yandex checks when it gets to it). */
  setVerifyDelay(ms: number): void;
  fail(f: YandexWebmasterFailure): void;
  /** Paths of the requests seen (never a token). */
  requests: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

class YErr extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const MAX_BODY = 64 * 1024;
const HOST_RE = /^(?:(https?):\/\/)?([a-z0-9.-]+|xn--[a-z0-9.-]+)(?::(\d{1,5}))?\/?$/i;

/** `https://Example.com` → host id `https:example.com:443` and the canonical URL. */
export function parseHostUrl(raw: string): { hostId: string; url: string; hostname: string } | undefined {
  const m = HOST_RE.exec(raw.trim());
  if (!m) return undefined;
  const scheme = (m[1] ?? 'http').toLowerCase();
  const hostname = m[2]!.toLowerCase().replace(/\.$/, '');
  if (!hostname.includes('.')) return undefined;
  const port = m[3] ? Number(m[3]) : scheme === 'https' ? 443 : 80;
  if (port < 1 || port > 65535) return undefined;
  const defPort = scheme === 'https' ? 443 : 80;
  return {
    hostId: `${scheme}:${hostname}:${port}`,
    url: `${scheme}://${hostname}${port === defPort ? '' : `:${port}`}/`,
    hostname,
  };
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Yandex's own date format, with a comma before the milliseconds. */
const ydate = (ms: number) => new Date(ms).toISOString().replace('.', ',').replace('Z', '+0000');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function startYandexWebmasterSim(opts: YandexWebmasterSimOptions = {}): Promise<YandexWebmasterSim> {
  const users = new Map<string, SimUser>();
  const now = opts.now ?? (() => Date.now());
  const quota = opts.dailyRecrawlQuota ?? 20;
  let verifyDelayMs = opts.verifyDelayMs ?? 300;
  let dnsTxtLookup = opts.dnsTxtLookup;
  let fileLookup = opts.fileLookup;
  let nextUserId = 1_000_000 + Math.floor(Math.random() * 1000);
  const failures: { f: YandexWebmasterFailure; left: number }[] = [];
  const requests: YandexWebmasterSim['requests'] = [];

  const addUser = (token: string, o: { hostsLimit?: number } = {}) => {
    const existing = users.get(token);
    if (existing) return { userId: existing.userId };
    const u: SimUser = { userId: nextUserId++, token, hosts: new Map(), hostsLimit: o.hostsLimit ?? 1703 };
    users.set(token, u);
    return { userId: u.userId };
  };

  const newHost = (p: { hostId: string; url: string; hostname: string }): SimHost => {
    const t = now();
    return {
      hostId: p.hostId,
      asciiUrl: p.url,
      unicodeUrl: p.url,
      verification: { uin: randomBytes(8).toString('hex'), state: 'NONE' },
      summary: {
        sqi: 10 + (p.hostname.length % 40) * 5,
        excluded_pages_count: 3 + (p.hostname.length % 7),
        searchable_pages_count: 40 + p.hostname.length * 3,
        site_problems: { FATAL: 0, CRITICAL: 1, POSSIBLE_PROBLEM: 2, RECOMMENDATION: 3 },
      },
      importantUrls: [
        {
          url: p.url,
          update_date: ydate(t),
          change_indicators: ['SEARCH_STATUS'],
          indexing_status: { status: 'HTTP_2XX', http_code: 200, access_date: ydate(t - 86_400_000) },
          search_status: {
            title: p.hostname,
            description: `Home page of ${p.hostname}`,
            last_access: ydate(t - 86_400_000),
            excluded_url_status: 'NOTHING_FOUND',
            searchable: true,
            target_url: p.url,
          },
        },
      ],
      sitemaps: [
        {
          sitemap_id: randomBytes(4).toString('hex'),
          sitemap_url: `${p.url}sitemap.xml`,
          last_access_date: ydate(t - 3_600_000),
          errors_count: 0,
          urls_count: 42,
          children_count: 0,
          sources: ['ROBOTS_TXT'],
          sitemap_type: 'SITEMAP',
        },
      ],
      userSitemaps: [],
      recrawl: [],
      recrawlUsed: {},
    };
  };

  const addHostTo = (u: SimUser, hostUrl: string): SimHost => {
    const p = parseHostUrl(hostUrl);
    if (!p)
      throw new YErr(400, 'FIELD_VALIDATION_ERROR', 'host_url is not a valid site address', {
        field_name: 'host_url',
        field_value: hostUrl,
      });
    const had = u.hosts.get(p.hostId);
    if (had)
      throw new YErr(409, 'HOST_ALREADY_ADDED', 'Host already added', {
        host_id: p.hostId,
        verified: had.verification.state === 'VERIFIED',
      });
    if (u.hosts.size >= u.hostsLimit)
      throw new YErr(403, 'HOSTS_LIMIT_EXCEEDED', 'Too many hosts', { limit: u.hostsLimit });
    const h = newHost(p);
    u.hosts.set(p.hostId, h);
    return h;
  };

  const hostnameOf = (h: SimHost) => h.hostId.split(':')[1]!;

  /** Completes a due check: reads the marker through the hooks. */
  async function settle(h: SimHost) {
    const v = h.verification;
    if (v.state !== 'IN_PROGRESS' || (v.checkAt ?? 0) > now()) return;
    v.checkAt = undefined;
    v.latest = ydate(now());
    try {
      let ok = false;
      let reason = 'META_TAG_NOT_FOUND';
      if (v.type === 'DNS') {
        const values = dnsTxtLookup ? await dnsTxtLookup(hostnameOf(h)) : [];
        ok = values.some((x) => x.replace(/^"|"$/g, '').trim() === `yandex-verification: ${v.uin}`);
        reason = 'DNS_RECORD_NOT_FOUND';
      } else if (v.type === 'HTML_FILE') {
        const body = fileLookup ? await fileLookup(hostnameOf(h), `yandex_${v.uin}.html`) : undefined;
        ok = !!body && body.includes(`Verification: ${v.uin}`);
        reason = 'WRONG_HTML_PAGE_CONTENT';
      }
      if (ok) {
        v.state = 'VERIFIED';
        v.failInfo = undefined;
      } else {
        v.state = 'VERIFICATION_FAILED';
        v.failInfo = { reason, message: `The ${v.type} check did not find the verification code ${v.uin}` };
      }
    } catch {
      v.state = 'INTERNAL_ERROR';
    }
  }

  const hostJson = (h: SimHost, full = false) => ({
    host_id: h.hostId,
    ascii_host_url: h.asciiUrl,
    unicode_host_url: h.unicodeUrl,
    verified: h.verification.state === 'VERIFIED',
    main_mirror: null,
    ...(full && h.verification.state === 'VERIFIED' ? { host_data_status: 'OK' } : {}),
  });
  const verificationJson = (h: SimHost) => {
    const v = h.verification;
    return {
      verification_uin: v.uin,
      verification_state: v.state,
      ...(v.type ? { verification_type: v.type } : {}),
      ...(v.state !== 'NONE' && v.latest ? { latest_verification_time: v.latest } : {}),
      ...(v.state === 'VERIFICATION_FAILED' && v.failInfo ? { fail_info: v.failInfo } : {}),
      applicable_verifiers: v.state === 'VERIFIED' ? [] : VERIFIERS,
    };
  };

  async function handle(method: string, path: string, q: URLSearchParams, body: unknown, token: string | undefined) {
    if (!token) throw new YErr(401, 'INVALID_OAUTH_TOKEN', 'OAuth token is missing');
    const u = users.get(token);
    if (!u) throw new YErr(403, 'INVALID_OAUTH_TOKEN', 'OAuth token is invalid');
    const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (seg[0] !== 'v4') throw new YErr(404, 'RESOURCE_NOT_FOUND', 'Unknown path');
    if (seg.length === 2 && seg[1] === 'user' && method === 'GET') return [200, { user_id: u.userId }] as const;
    if (seg[1] !== 'user' || seg.length < 4 || seg[3] !== 'hosts')
      throw new YErr(404, 'RESOURCE_NOT_FOUND', 'Unknown path');
    if (seg[2] !== String(u.userId))
      throw new YErr(403, 'INVALID_USER_ID', `Invalid user id. ${u.userId} should be used.`, {
        available_user_id: u.userId,
      });
    if (seg.length === 4) {
      if (method === 'GET') {
        for (const h of u.hosts.values()) await settle(h);
        return [200, { hosts: [...u.hosts.values()].map((h) => hostJson(h)) }] as const;
      }
      if (method === 'POST') {
        if (!isObject(body) || typeof body.host_url !== 'string')
          throw new YErr(400, 'ENTITY_VALIDATION_ERROR', 'host_url is required');
        return [201, { host_id: addHostTo(u, body.host_url).hostId }] as const;
      }
      throw new YErr(405, 'METHOD_NOT_ALLOWED', 'Method not allowed');
    }
    const hostId = seg[4]!;
    const h = u.hosts.get(hostId);
    if (!h) throw new YErr(404, 'HOST_NOT_FOUND', 'Host not found', { host_id: hostId });
    await settle(h);
    const rest = seg.slice(5).join('/');
    if (rest === '') {
      if (method === 'GET') return [200, hostJson(h, true)] as const;
      if (method === 'DELETE') {
        u.hosts.delete(hostId);
        return [204, undefined] as const;
      }
    }
    if (rest === 'verification') {
      if (method === 'GET') return [200, verificationJson(h)] as const;
      if (method === 'POST') {
        const type = q.get('verification_type') ?? '';
        if (!VERIFIERS.includes(type as VerifierType))
          throw new YErr(400, 'FIELD_VALIDATION_ERROR', 'verification_type is not applicable', {
            field_name: 'verification_type',
            field_value: type,
          });
        if (h.verification.state === 'IN_PROGRESS')
          throw new YErr(409, 'VERIFICATION_ALREADY_IN_PROGRESS', 'Verification is already in progress');
        if (h.verification.state === 'VERIFIED')
          throw new YErr(409, 'HOST_ALREADY_VERIFIED', 'Host is already verified');
        Object.assign(h.verification, {
          state: 'IN_PROGRESS',
          type,
          latest: ydate(now()),
          failInfo: undefined,
          checkAt: now() + verifyDelayMs,
        });
        return [200, { ...verificationJson(h), applicable_verifiers: [type] }] as const;
      }
    }
    // Everything below needs verified rights.
    if (h.verification.state !== 'VERIFIED')
      throw new YErr(404, 'HOST_NOT_VERIFIED', 'Host is not verified', { host_id: hostId });
    if (rest === 'summary' && method === 'GET') return [200, h.summary] as const;
    if (rest === 'important-urls' && method === 'GET') return [200, { urls: h.importantUrls }] as const;
    if (rest === 'sitemaps' && method === 'GET') {
      const limit = boundedInt(q.get('limit'), 10, 1, 100, 'limit');
      const from = q.get('from');
      let list = h.sitemaps;
      if (from) list = list.slice(list.findIndex((s) => s.sitemap_id === from) + 1);
      return [200, { sitemaps: list.slice(0, limit) }] as const;
    }
    if (rest === 'user-added-sitemaps') {
      if (method === 'GET') {
        const limit = boundedInt(q.get('limit'), 100, 1, 100, 'limit');
        return [200, { sitemaps: h.userSitemaps.slice(0, limit), count: h.userSitemaps.length }] as const;
      }
      if (method === 'POST') {
        const url = isObject(body) && typeof body.url === 'string' ? body.url : '';
        if (!urlOfHost(url, h)) throw new YErr(400, 'INVALID_URL', 'The url is not a page of this host');
        if (h.userSitemaps.some((s) => s.sitemap_url === url))
          throw new YErr(409, 'SITEMAP_ALREADY_ADDED', 'Sitemap already added', { host_id: hostId });
        const s = { sitemap_id: randomBytes(6).toString('hex'), sitemap_url: url, added_date: ydate(now()) };
        h.userSitemaps.push(s);
        return [201, { sitemap_id: s.sitemap_id }] as const;
      }
    }
    if (seg[5] === 'user-added-sitemaps' && seg.length === 7 && method === 'DELETE') {
      const i = h.userSitemaps.findIndex((s) => s.sitemap_id === seg[6]);
      if (i < 0) throw new YErr(404, 'SITEMAP_NOT_ADDED', 'Sitemap not added', { host_id: hostId, sitemap_id: seg[6] });
      h.userSitemaps.splice(i, 1);
      return [204, undefined] as const;
    }
    if (rest === 'recrawl/quota' && method === 'GET') {
      const used = h.recrawlUsed[dayOf(now())] ?? 0;
      return [200, { daily_quota: quota, quota_remainder: Math.max(0, quota - used) }] as const;
    }
    if (rest === 'recrawl/queue') {
      if (method === 'GET') {
        const limit = boundedInt(q.get('limit'), 50, 1, 1000, 'limit');
        const offset = boundedInt(q.get('offset'), 0, 0, 1_000_000, 'offset');
        // A task is done a little after it was queued.
        for (const t of h.recrawl)
          if (t.state === 'IN_PROGRESS' && now() - Date.parse(t.added_time.replace(',', '.')) > 60_000)
            t.state = 'DONE';
        return [200, { tasks: [...h.recrawl].reverse().slice(offset, offset + limit) }] as const;
      }
      if (method === 'POST') {
        const url = isObject(body) && typeof body.url === 'string' ? body.url : '';
        if (!urlOfHost(url, h)) throw new YErr(400, 'INVALID_URL', 'The url is not a page of this host');
        const day = dayOf(now());
        const used = h.recrawlUsed[day] ?? 0;
        if (used >= quota) throw new YErr(429, 'QUOTA_EXCEEDED', 'Daily recrawl quota exceeded');
        if (h.recrawl.some((t) => t.url === url && t.state === 'IN_PROGRESS'))
          throw new YErr(409, 'URL_ALREADY_ADDED', 'URL already added for recrawl');
        h.recrawlUsed = { [day]: used + 1 };
        const t = {
          task_id: randomUUID(),
          url,
          added_time: new Date(now()).toISOString(),
          state: 'IN_PROGRESS' as const,
        };
        h.recrawl.push(t);
        if (h.recrawl.length > 1000) h.recrawl.shift();
        return [202, { task_id: t.task_id, quota_remainder: quota - used - 1 }] as const;
      }
    }
    throw new YErr(404, 'RESOURCE_NOT_FOUND', 'Unknown path');
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const send = (status: number, payload: unknown) => {
        requests.push({ method: req.method ?? 'GET', path: url.pathname, status });
        if (requests.length > 10_000) requests.shift();
        if (payload === undefined) {
          res.writeHead(status).end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(payload));
      };
      const failure = failures[0];
      // A create-host answer without its id: waits for the create-host call itself.
      const waits = failure?.f.kind === 'no_host_id' && !(req.method === 'POST' && /\/hosts\/?$/.test(url.pathname));
      if (failure && !waits) {
        if (--failure.left <= 0) failures.shift();
        if (failure.f.kind === 'slow') await new Promise((r) => setTimeout(r, failure.f.delayMs ?? 2000));
        else if (failure.f.kind === '5xx')
          return send(503, { error_code: 'INTERNAL_ERROR', error_message: 'Service unavailable' });
        else if (failure.f.kind === '429') {
          res.setHeader('retry-after', '0');
          return send(429, { error_code: 'TOO_MANY_REQUESTS_ERROR', error_message: 'Too many requests' });
        } else if (failure.f.kind === 'html') {
          requests.push({ method: req.method ?? 'GET', path: url.pathname, status: 502 });
          return res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        } else if (failure.f.kind === 'no_host_id') {
          return send(201, {});
        }
      }
      let text = '';
      try {
        text = await readBody(req, MAX_BODY);
      } catch {
        return send(413, { error_code: 'ENTITY_VALIDATION_ERROR', error_message: 'Request body too large' });
      }
      let body: unknown;
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          return send(400, { error_code: 'ENTITY_VALIDATION_ERROR', error_message: 'Body is not valid JSON' });
        }
      }
      const auth = req.headers.authorization ?? '';
      const token = /^OAuth (\S+)$/.exec(auth)?.[1];
      try {
        const [status, payload] = await handle(req.method ?? 'GET', url.pathname, url.searchParams, body, token);
        send(status, payload);
      } catch (err) {
        if (err instanceof YErr) send(err.status, { error_code: err.code, error_message: err.message, ...err.extra });
        else send(500, { error_code: 'INTERNAL_ERROR', error_message: 'Internal error' });
      }
    })();
  });
  const { port, close } = await listenOnLoopback(server, opts.port);

  return {
    url: `http://127.0.0.1:${port}/v4`,
    port,
    users,
    requests,
    addUser,
    addHost(token, hostUrl, o = {}) {
      const u = users.get(token);
      if (!u) throw new Error('Unknown token');
      const p = parseHostUrl(hostUrl);
      const h = (p && u.hosts.get(p.hostId)) || addHostTo(u, hostUrl);
      if (o.verified) Object.assign(h.verification, { state: 'VERIFIED', type: 'DNS', latest: ydate(now()) });
      return h;
    },
    setDnsTxtLookup(fn) {
      dnsTxtLookup = fn;
    },
    setFileLookup(fn) {
      fileLookup = fn;
    },
    setVerifyDelay(ms) {
      verifyDelayMs = ms;
    },
    fail(f) {
      failures.push({ f, left: f.count ?? 1 });
    },
    close,
  };
}

function boundedInt(raw: string | null, def: number, min: number, max: number, name: string) {
  if (raw === null || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new YErr(400, 'FIELD_VALIDATION_ERROR', `${name} must be between ${min} and ${max}`, {
      field_name: name,
      field_value: raw,
    });
  return n;
}

/** A URL on the host's own site (scheme and host name as the host id has them). */
function urlOfHost(raw: string, h: SimHost): boolean {
  try {
    const u = new URL(raw);
    const [scheme, hostname] = h.hostId.split(':');
    return u.protocol === `${scheme}:` && u.hostname === hostname;
  } catch {
    return false;
  }
}

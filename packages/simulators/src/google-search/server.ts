import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  verify,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from '../http-body.ts';
import { createFailureQueue, listenOnLoopback } from '../http-server.ts';

/**
 * Google's token endpoint, Search Console API (webmasters/v3 and v1 urlInspection) and Site Verification API v1
 * on loopback, as the discovery documents give them (shared/docs/integrations/google-search.md). Service accounts
 * are known by their public keys: a token is given only for an RS256 assertion they signed, with the right aud,
 * iss, scope and lifetime. Verification reads the TXT record or the file through hooks; per-site quotas answer
 * 429 RESOURCE_EXHAUSTED; every error is Google's `{ error: { code, message, status, errors } }`.
 */

export const GOOGLE_SIM_SCOPES = {
  webmasters: 'https://www.googleapis.com/auth/webmasters',
  webmastersReadonly: 'https://www.googleapis.com/auth/webmasters.readonly',
  siteverification: 'https://www.googleapis.com/auth/siteverification',
  siteverificationVerifyOnly: 'https://www.googleapis.com/auth/siteverification.verify_only',
} as const;

export type PermissionLevel = 'siteOwner' | 'siteFullUser' | 'siteRestrictedUser' | 'siteUnverifiedUser';

export interface SimSitemap {
  path: string;
  lastSubmitted: string;
  lastDownloaded?: string;
  isPending: boolean;
  isSitemapsIndex: boolean;
  type?: string;
  warnings: number;
  errors: number;
  urls: string[];
}

export interface SimAnalyticsRow {
  date: string;
  query: string;
  page: string;
  country: string;
  device: string;
  clicks: number;
  impressions: number;
  /** Sum of positions weighted by impressions (position = positionSum / impressions). */
  positionSum: number;
}

export interface SimProperty {
  siteUrl: string;
  /** Who added the property in Search Console (by client_email); their permission follows their ownership. */
  addedBy: Set<string>;
  /** Users given access in Search Console's settings (by client_email). */
  users: Map<string, PermissionLevel>;
  sitemaps: Map<string, SimSitemap>;
}

export interface GoogleSearchSimOptions {
  port?: number;
  /** DNS TXT values at a host name; DNS_TXT verification passes when the token is among them. */
  dnsTxtLookup?: (hostname: string) => string[] | Promise<string[]>;
  /** The body the site serves at /<fileName>, or undefined: FILE verification and sitemap reads use it. */
  fileLookup?: (hostname: string, fileName: string) => string | undefined | Promise<string | undefined>;
  /** Search Analytics queries a minute per site (Google: about 1,200). */
  analyticsPerMinute?: number;
  /** URL inspections a minute and a day per site (Google: 600 and 2,000). */
  inspectionsPerMinute?: number;
  inspectionsPerDay?: number;
  /** Days of analytics a domain gets when it is first verified and Google has none for it (the demo's). */
  analyticsOnVerify?: number;
  now?: () => number;
}

export interface GoogleSearchFailure {
  kind: '5xx' | 'slow' | 'html';
  count?: number;
  delayMs?: number;
}

/** A service-account key file as Google's console gives it. */
export interface SimServiceAccountKey {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

export interface GoogleSearchSim {
  /** The Search Console root (webmasters/v3/…, v1/urlInspection/…). */
  url: string;
  /** The Site Verification base (…/siteVerification/v1). */
  siteVerificationUrl: string;
  /** The token endpoint. */
  tokenUrl: string;
  port: number;
  properties: Map<string, SimProperty>;
  /** Verified owners by resource (`INET_DOMAIN example.com` or `SITE https://example.com/`). */
  owners: Map<string, Set<string>>;
  /** A new service account with a fresh RSA key; its key file names this simulator's token endpoint. */
  createServiceAccount(name?: string, opts?: { projectId?: string; scopes?: string[] }): SimServiceAccountKey;
  /** Knows an existing key (one saved by the demo); answers its client_email. */
  registerServiceAccount(key: { client_email: string; private_key: string; private_key_id: string }): string;
  /** Makes `email` a verified owner of a domain (INET_DOMAIN), as a verification would. */
  addOwner(domain: string, email: string): void;
  /** A property in Search Console, added by `email` (as PUT sites does). */
  addProperty(siteUrl: string, email: string): SimProperty;
  /** Gives a user access in Search Console's settings. */
  grant(siteUrl: string, email: string, level: PermissionLevel): void;
  addSitemap(siteUrl: string, path: string, sitemap: Partial<SimSitemap>): void;
  /** A plausible series of `days` days for a domain: every property of the domain reads it. */
  seedAnalytics(domain: string, opts?: { days?: number; seed?: string; pages?: string[]; queries?: string[] }): void;
  analyticsOf(domain: string): SimAnalyticsRow[];
  setDnsTxtLookup(fn: GoogleSearchSimOptions['dnsTxtLookup']): void;
  setFileLookup(fn: GoogleSearchSimOptions['fileLookup']): void;
  setQuota(q: { analyticsPerMinute?: number; inspectionsPerMinute?: number; inspectionsPerDay?: number }): void;
  /** Tokens given so far stop working (as when Google revokes them): the next call answers 401. */
  revokeTokens(): void;
  fail(f: GoogleSearchFailure): void;
  /** The requests seen: method, path and status (never a token or an assertion). */
  requests: { method: string; path: string; status: number }[];
  tokensIssued: number;
  close(): Promise<void>;
}

class GErr extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
    readonly reason = 'invalid',
  ) {
    super(message);
  }
}
/** An OAuth error of the token endpoint (RFC 6749 §5.2). */
class OAuthErr extends Error {
  constructor(
    readonly httpStatus: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

const MAX_BODY = 256 * 1024;
const DOMAIN_RE = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Google refuses JSON fields its schema does not name ("Invalid JSON payload received. Unknown name …"). */
function onlyFields(body: unknown, allowed: readonly string[]) {
  if (!isObject(body)) return;
  const unknown = Object.keys(body).find((k) => !allowed.includes(k));
  if (unknown)
    throw new GErr(
      400,
      'INVALID_ARGUMENT',
      `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`,
    );
}

/** `sc-domain:example.com` or a URL-prefix `https://example.com/`: its kind and domain, or undefined. */
export function parseSiteUrl(siteUrl: string): { kind: 'domain' | 'url'; host: string; prefix?: string } | undefined {
  if (siteUrl.startsWith('sc-domain:')) {
    const host = siteUrl.slice('sc-domain:'.length);
    return DOMAIN_RE.test(host) ? { kind: 'domain', host } : undefined;
  }
  try {
    const u = new URL(siteUrl);
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !u.pathname.endsWith('/') || u.search || u.hash)
      return undefined;
    if (u.href !== siteUrl || !DOMAIN_RE.test(u.hostname)) return undefined;
    return { kind: 'url', host: u.hostname, prefix: u.href };
  } catch {
    return undefined;
  }
}

/** Whether a page URL belongs to a property. */
function belongs(pageUrl: string, site: { kind: 'domain' | 'url'; host: string; prefix?: string }) {
  try {
    const u = new URL(pageUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return false;
    if (site.kind === 'url') return u.href.startsWith(site.prefix!);
    return u.hostname === site.host || u.hostname.endsWith(`.${site.host}`);
  } catch {
    return false;
  }
}

/** A deterministic stream of numbers in [0, 1) from a seed (the analytics look the same at every start). */
function prng(seed: string) {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 1_000_000) / 1_000_000;
  };
}

export async function startGoogleSearchSim(opts: GoogleSearchSimOptions = {}): Promise<GoogleSearchSim> {
  const now = opts.now ?? (() => Date.now());
  let dnsTxtLookup = opts.dnsTxtLookup;
  let fileLookup = opts.fileLookup;
  const quota = {
    analyticsPerMinute: opts.analyticsPerMinute ?? 1200,
    inspectionsPerMinute: opts.inspectionsPerMinute ?? 600,
    inspectionsPerDay: opts.inspectionsPerDay ?? 2000,
  };
  const failures = createFailureQueue<GoogleSearchFailure>();
  const requests: GoogleSearchSim['requests'] = [];
  /** Service accounts by key id: the public key, the email, the scopes it may be given. */
  const keys = new Map<string, { email: string; publicKey: KeyObject; scopes: string[] | null }>();
  const tokens = new Map<string, { email: string; scopes: string[]; expiresAt: number }>();
  const properties = new Map<string, SimProperty>();
  const owners = new Map<string, Set<string>>();
  const webResources = new Map<string, { type: 'SITE' | 'INET_DOMAIN'; identifier: string }>();
  const analytics = new Map<string, SimAnalyticsRow[]>();
  /** Calls counted per site and window: `<kind> <site> <window start>`. */
  const counters = new Map<string, number>();
  let tokensIssued = 0;
  let port = 0;
  const tokenUrl = () => `http://127.0.0.1:${port}/token`;

  // ------------------------------------------------------------------ ownership and permissions
  const resourceKey = (type: 'SITE' | 'INET_DOMAIN', identifier: string) => `${type} ${identifier}`;
  const ownsDomain = (email: string, host: string) => {
    const labels = host.split('.');
    for (let i = 0; i < labels.length - 1; i++)
      if (owners.get(resourceKey('INET_DOMAIN', labels.slice(i).join('.')))?.has(email)) return true;
    return false;
  };
  const permissionOf = (email: string, siteUrl: string): PermissionLevel | null => {
    const site = parseSiteUrl(siteUrl);
    if (!site) return null;
    const owner =
      ownsDomain(email, site.host) || (site.kind === 'url' && owners.get(resourceKey('SITE', siteUrl))?.has(email));
    const p = properties.get(siteUrl);
    if (owner) return 'siteOwner';
    const granted = p?.users.get(email);
    if (granted) return granted;
    return p?.addedBy.has(email) ? 'siteUnverifiedUser' : null;
  };
  const noPermission = (siteUrl: string) =>
    new GErr(
      403,
      'PERMISSION_DENIED',
      `User does not have sufficient permission for site '${siteUrl}'. See also: https://support.google.com/webmasters/answer/2451999.`,
      'forbidden',
    );
  const RANK: Record<PermissionLevel, number> = {
    siteOwner: 3,
    siteFullUser: 2,
    siteRestrictedUser: 1,
    siteUnverifiedUser: 0,
  };
  /** The property, for a caller with at least `least` on it. */
  const propertyFor = (email: string, siteUrl: string, least: PermissionLevel) => {
    const site = parseSiteUrl(siteUrl);
    if (!site) throw new GErr(400, 'INVALID_ARGUMENT', `'${siteUrl}' is not a valid Search Console site URL.`);
    const level = permissionOf(email, siteUrl);
    const p = properties.get(siteUrl);
    if (!p || !level || RANK[level] < RANK[least]) throw noPermission(siteUrl);
    return { p, site };
  };

  const addProperty = (siteUrl: string, email: string) => {
    let p = properties.get(siteUrl);
    if (!p) {
      p = { siteUrl, addedBy: new Set(), users: new Map(), sitemaps: new Map() };
      properties.set(siteUrl, p);
    }
    p.addedBy.add(email);
    return p;
  };

  // ------------------------------------------------------------------ quotas
  const count = (what: string, siteUrl: string, windowMs: number, limit: number, label: string) => {
    const k = `${what} ${siteUrl} ${Math.floor(now() / windowMs)}`;
    const n = (counters.get(k) ?? 0) + 1;
    if (n > limit)
      throw new GErr(
        429,
        'RESOURCE_EXHAUSTED',
        `Quota exceeded for quota metric '${label}' of service 'searchconsole.googleapis.com' for site '${siteUrl}'.`,
        'rateLimitExceeded',
      );
    counters.set(k, n);
    if (counters.size > 10_000) counters.delete(counters.keys().next().value!);
  };

  // ------------------------------------------------------------------ analytics
  const seedAnalytics: GoogleSearchSim['seedAnalytics'] = (domain, o = {}) => {
    const days = Math.min(Math.max(o.days ?? 28, 1), 500);
    const rnd = prng(o.seed ?? domain);
    const pages = (o.pages ?? ['', 'about/', 'blog/', 'contact/', 'pricing/']).map((p) => `https://${domain}/${p}`);
    const name = domain.split('.')[0]!.replace(/-/g, ' ');
    const queries = o.queries ?? [
      name,
      `${name} review`,
      `${name} login`,
      `what is ${name}`,
      `${name} price`,
      `best ${name}`,
    ];
    const base = 40 + Math.floor(rnd() * 160);
    const rows: SimAnalyticsRow[] = [];
    // Google's data lags: the last two days are not in yet.
    for (let d = days + 1; d >= 2; d--) {
      const date = dayOf(now() - d * DAY);
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      const dayFactor =
        (weekday === 0 || weekday === 6 ? 0.7 : 1) * (0.85 + rnd() * 0.3) * (1 + (days - d) / (days * 4));
      for (const [qi, query] of queries.entries()) {
        const page = pages[qi % pages.length]!;
        const impressions = Math.round((base * dayFactor * 6) / (qi + 1));
        if (impressions <= 0) continue;
        const position = 1.5 + qi * 2.2 + rnd() * 3;
        const ctr = Math.max(0.005, 0.32 / position);
        rows.push({
          date,
          query,
          page,
          country: qi % 3 === 0 ? 'usa' : qi % 3 === 1 ? 'deu' : 'gbr',
          device: qi % 2 === 0 ? 'DESKTOP' : 'MOBILE',
          clicks: Math.round(impressions * ctr),
          impressions,
          positionSum: position * impressions,
        });
      }
    }
    analytics.set(domain, rows);
  };

  const DIMENSIONS = ['date', 'query', 'page', 'country', 'device', 'searchAppearance'] as const;
  const TYPES = ['web', 'image', 'video', 'news', 'discover', 'googleNews'];
  const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

  function queryAnalytics(site: { kind: 'domain' | 'url'; host: string; prefix?: string }, body: unknown) {
    if (!isObject(body)) throw new GErr(400, 'INVALID_ARGUMENT', 'Request body is required.');
    onlyFields(body, [
      'startDate',
      'endDate',
      'dimensions',
      'type',
      'searchType',
      'dimensionFilterGroups',
      'aggregationType',
      'rowLimit',
      'startRow',
      'dataState',
    ]);
    if (
      body.aggregationType !== undefined &&
      !['auto', 'byPage', 'byProperty', 'byNewsShowcasePanel'].includes(body.aggregationType as string)
    )
      throw new GErr(400, 'INVALID_ARGUMENT', `Invalid value at 'aggregation_type' (${String(body.aggregationType)}).`);
    if (body.dataState !== undefined && !['final', 'all', 'hourly_all'].includes(body.dataState as string))
      throw new GErr(400, 'INVALID_ARGUMENT', `Invalid value at 'data_state' (${String(body.dataState)}).`);
    const { startDate, endDate } = body;
    if (typeof startDate !== 'string' || !DATE_RE.test(startDate) || Number.isNaN(Date.parse(startDate)))
      throw new GErr(400, 'INVALID_ARGUMENT', 'startDate must be in the format YYYY-MM-DD.');
    if (typeof endDate !== 'string' || !DATE_RE.test(endDate) || Number.isNaN(Date.parse(endDate)))
      throw new GErr(400, 'INVALID_ARGUMENT', 'endDate must be in the format YYYY-MM-DD.');
    if (endDate < startDate) throw new GErr(400, 'INVALID_ARGUMENT', 'endDate must not be before startDate.');
    const dims = body.dimensions ?? [];
    if (
      !Array.isArray(dims) ||
      dims.some((d) => !DIMENSIONS.includes(d as never)) ||
      new Set(dims).size !== dims.length
    )
      throw new GErr(400, 'INVALID_ARGUMENT', `dimensions must be distinct values of ${DIMENSIONS.join(', ')}.`);
    if (body.type !== undefined && !TYPES.includes(body.type as string))
      throw new GErr(400, 'INVALID_ARGUMENT', `type must be one of ${TYPES.join(', ')}.`);
    const rowLimit = body.rowLimit ?? 1000;
    if (!Number.isInteger(rowLimit) || (rowLimit as number) < 1 || (rowLimit as number) > 25_000)
      throw new GErr(400, 'INVALID_ARGUMENT', 'rowLimit must be between 1 and 25000.');
    const startRow = body.startRow ?? 0;
    if (!Number.isInteger(startRow) || (startRow as number) < 0)
      throw new GErr(400, 'INVALID_ARGUMENT', 'startRow must be a non-negative integer.');
    if (dims.includes('searchAppearance') && dims.length > 1)
      throw new GErr(400, 'INVALID_ARGUMENT', 'searchAppearance cannot be grouped with other dimensions.');
    // Only web search is counted here; other types have no data.
    const source = body.type === undefined || body.type === 'web' ? (analytics.get(site.host) ?? []) : [];
    const groups = new Map<string, { keys: string[]; clicks: number; impressions: number; positionSum: number }>();
    for (const r of source) {
      if (r.date < startDate || r.date > endDate || !belongs(r.page, site)) continue;
      const keys = (dims as string[]).map((d) =>
        d === 'searchAppearance' ? 'NONE' : String(r[d as 'date' | 'query' | 'page' | 'country' | 'device']),
      );
      const k = JSON.stringify(keys);
      const g = groups.get(k) ?? { keys, clicks: 0, impressions: 0, positionSum: 0 };
      g.clicks += r.clicks;
      g.impressions += r.impressions;
      g.positionSum += r.positionSum;
      groups.set(k, g);
    }
    const rows = [...groups.values()].map((g) => ({
      ...(dims.length ? { keys: g.keys } : {}),
      clicks: g.clicks,
      impressions: g.impressions,
      ctr: g.impressions ? g.clicks / g.impressions : 0,
      position: g.impressions ? g.positionSum / g.impressions : 0,
    }));
    // By date when the date is a dimension, otherwise by clicks, most first (as Google sorts).
    if (dims[0] === 'date') rows.sort((a, b) => (a.keys![0]! < b.keys![0]! ? -1 : 1));
    else rows.sort((a, b) => b.clicks - a.clicks || b.impressions - a.impressions);
    const page = rows.slice(startRow as number, (startRow as number) + (rowLimit as number));
    return page.length
      ? { rows: page, responseAggregationType: site.kind === 'domain' ? 'byProperty' : 'byPage' }
      : { responseAggregationType: 'byProperty' };
  }

  // ------------------------------------------------------------------ sitemaps
  async function readSitemap(sm: SimSitemap) {
    let body: string | undefined;
    try {
      const u = new URL(sm.path);
      const name = u.pathname.replace(/^\//, '');
      body = fileLookup ? await fileLookup(u.hostname, name) : undefined;
    } catch {
      body = undefined;
    }
    sm.isPending = false;
    if (body === undefined) {
      sm.errors = 1;
      sm.urls = [];
      return;
    }
    sm.lastDownloaded = new Date(now()).toISOString();
    const locs = [...body.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/g)].map((m) => m[1]!).slice(0, 50_000);
    sm.isSitemapsIndex = /<sitemapindex[\s>]/.test(body);
    sm.type = sm.isSitemapsIndex ? 'sitemapsIndex' : 'sitemap';
    sm.errors = /<(urlset|sitemapindex)[\s>]/.test(body) ? 0 : 1;
    sm.warnings = locs.length ? 0 : 1;
    sm.urls = locs;
  }
  const sitemapJson = (sm: SimSitemap) => ({
    path: sm.path,
    lastSubmitted: sm.lastSubmitted,
    ...(sm.lastDownloaded ? { lastDownloaded: sm.lastDownloaded } : {}),
    isPending: sm.isPending,
    isSitemapsIndex: sm.isSitemapsIndex,
    ...(sm.type ? { type: sm.type } : {}),
    warnings: String(sm.warnings),
    errors: String(sm.errors),
    ...(sm.isPending
      ? {}
      : {
          contents: [
            {
              type: 'web',
              submitted: String(sm.urls.length),
              indexed: String(sm.urls.filter((u) => knownPage(u)).length),
            },
          ],
        }),
  });
  /** A page Google has seen: in the analytics of its domain. */
  const knownPage = (pageUrl: string) => {
    try {
      const host = new URL(pageUrl).hostname;
      for (const [domain, rows] of analytics)
        if (host === domain || host.endsWith(`.${domain}`)) if (rows.some((r) => r.page === pageUrl)) return true;
    } catch {
      return false;
    }
    return false;
  };

  // ------------------------------------------------------------------ the token endpoint
  function issueToken(form: URLSearchParams) {
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      throw new OAuthErr(400, 'unsupported_grant_type', 'Invalid grant_type: ' + (form.get('grant_type') ?? ''));
    const assertion = form.get('assertion') ?? '';
    const parts = assertion.split('.');
    if (parts.length !== 3) throw new OAuthErr(400, 'invalid_request', 'Invalid JWT: the assertion is not a JWT.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new OAuthErr(400, 'invalid_request', 'Invalid JWT: the header or claims are not JSON.');
    }
    if (header.alg !== 'RS256') throw new OAuthErr(400, 'invalid_grant', 'Invalid JWT: alg must be RS256.');
    const k = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
    if (!k || claims.iss !== k.email) throw new OAuthErr(400, 'invalid_grant', 'Invalid JWT Signature.');
    const ok = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      k.publicKey,
      Buffer.from(parts[2]!, 'base64url'),
    );
    if (!ok) throw new OAuthErr(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== tokenUrl())
      throw new OAuthErr(400, 'invalid_grant', `Invalid JWT: the aud claim must be ${tokenUrl()}.`);
    const t = Math.floor(now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isInteger(iat) || !Number.isInteger(exp) || exp <= t || iat > t + 300 || exp - iat > 3600 || exp <= iat)
      throw new OAuthErr(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    if (!scopes.length) throw new OAuthErr(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    if (k.scopes && scopes.some((s) => !k.scopes!.includes(s)))
      throw new OAuthErr(
        400,
        'unauthorized_client',
        'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      );
    const token = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    tokens.set(token, { email: k.email, scopes, expiresAt: now() + 3599_000 });
    if (tokens.size > 10_000) tokens.delete(tokens.keys().next().value!);
    tokensIssued++;
    return { access_token: token, expires_in: 3599, token_type: 'Bearer' };
  }

  // ------------------------------------------------------------------ the APIs
  const needScope = (held: string[], ...any: string[]) => {
    if (!any.some((s) => held.includes(s)))
      throw new GErr(
        403,
        'PERMISSION_DENIED',
        'Request had insufficient authentication scopes.',
        'insufficientPermissions',
      );
  };
  const READ = [GOOGLE_SIM_SCOPES.webmasters, GOOGLE_SIM_SCOPES.webmastersReadonly];
  const WRITE = [GOOGLE_SIM_SCOPES.webmasters];
  const VERIFY = [GOOGLE_SIM_SCOPES.siteverification, GOOGLE_SIM_SCOPES.siteverificationVerifyOnly];

  const verificationToken = (type: string, identifier: string, method: string) =>
    createHash('sha256').update(`${type}|${identifier}|${method}|${port}`).digest('hex').slice(0, 16);

  function siteOfBody(v: unknown): { type: 'SITE' | 'INET_DOMAIN'; identifier: string } {
    const site = isObject(v) ? v.site : undefined;
    if (!isObject(site) || (site.type !== 'SITE' && site.type !== 'INET_DOMAIN') || typeof site.identifier !== 'string')
      throw new GErr(400, 'INVALID_ARGUMENT', 'site.type must be SITE or INET_DOMAIN and site.identifier is required.');
    const identifier = site.identifier.toLowerCase();
    if (site.type === 'INET_DOMAIN' ? !DOMAIN_RE.test(identifier) : parseSiteUrl(site.identifier)?.kind !== 'url')
      throw new GErr(
        400,
        'INVALID_ARGUMENT',
        `The site identifier '${site.identifier}' is not valid for ${site.type}.`,
      );
    return { type: site.type, identifier: site.type === 'SITE' ? site.identifier : identifier };
  }
  // The discovery document names DNS, Google's reference DNS_TXT: both are taken for a domain.
  const DNS_METHODS = ['DNS_TXT', 'DNS'];

  async function checkPlaced(site: { type: 'SITE' | 'INET_DOMAIN'; identifier: string }, method: string) {
    const token = verificationToken(site.type, site.identifier, method);
    if (site.type === 'INET_DOMAIN') {
      if (!DNS_METHODS.includes(method))
        throw new GErr(400, 'INVALID_ARGUMENT', `The verification method ${method} is not valid for INET_DOMAIN.`);
      const values = dnsTxtLookup ? await dnsTxtLookup(site.identifier) : [];
      return values.some((v) => v.replace(/^"|"$/g, '').trim() === `google-site-verification=${token}`);
    }
    if (method !== 'FILE')
      throw new GErr(400, 'INVALID_ARGUMENT', `The verification method ${method} is not supported here for SITE.`);
    const host = new URL(site.identifier).hostname;
    const body = fileLookup ? await fileLookup(host, `google${token}.html`) : undefined;
    return !!body && body.includes(`google${token}.html`);
  }

  async function handleApi(
    method: string,
    path: string,
    q: URLSearchParams,
    body: unknown,
    bearer: string | undefined,
  ) {
    const t = bearer ? tokens.get(bearer) : undefined;
    if (!t || t.expiresAt <= now())
      throw new GErr(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        'authError',
      );
    const email = t.email;
    const seg = path.split('/').filter(Boolean);

    // Site Verification v1
    if (seg[0] === 'siteVerification' && seg[1] === 'v1') {
      const rest = seg.slice(2).map(decodeURIComponent);
      // getToken and insert take either scope; list, get, update, patch and delete the full one only.
      const verifyOnly = method === 'POST' && rest.length === 1 && (rest[0] === 'token' || rest[0] === 'webResource');
      if (verifyOnly) needScope(t.scopes, ...VERIFY);
      else needScope(t.scopes, GOOGLE_SIM_SCOPES.siteverification);
      if (rest.length === 1 && rest[0] === 'token' && method === 'POST') {
        onlyFields(body, ['site', 'verificationMethod']);
        const site = siteOfBody(body);
        const m = isObject(body) && typeof body.verificationMethod === 'string' ? body.verificationMethod : '';
        const ok = site.type === 'INET_DOMAIN' ? DNS_METHODS.includes(m) : m === 'FILE' || m === 'META';
        if (!ok)
          throw new GErr(400, 'INVALID_ARGUMENT', `The verification method '${m}' is not valid for ${site.type}.`);
        const token = verificationToken(site.type, site.identifier, m === 'DNS' ? 'DNS_TXT' : m);
        if (site.type === 'INET_DOMAIN')
          return [200, { method: m, token: `google-site-verification=${token}` }] as const;
        return [
          200,
          {
            method: m,
            token: m === 'FILE' ? `google${token}.html` : `<meta name="google-site-verification" content="${token}" />`,
          },
        ] as const;
      }
      if (rest[0] !== 'webResource') throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
      if (rest.length === 1 && method === 'POST') {
        onlyFields(body, ['id', 'site', 'owners']);
        const m = q.get('verificationMethod') ?? '';
        if (!m) throw new GErr(400, 'INVALID_ARGUMENT', 'Required parameter: verificationMethod');
        const site = siteOfBody(body);
        const placed = await checkPlaced(site, m === 'DNS' ? 'DNS_TXT' : m);
        if (!placed)
          throw new GErr(
            400,
            'INVALID_ARGUMENT',
            site.type === 'INET_DOMAIN'
              ? `The necessary verification token could not be found in the DNS records of ${site.identifier}.`
              : `The necessary verification token could not be found on your site ${site.identifier}.`,
            'badRequest',
          );
        const key = resourceKey(site.type, site.identifier);
        const set = owners.get(key) ?? new Set<string>();
        set.add(email);
        owners.set(key, set);
        const id = site.type === 'INET_DOMAIN' ? `dns://${site.identifier}` : site.identifier;
        webResources.set(id, site);
        if (opts.analyticsOnVerify) {
          const host = site.type === 'INET_DOMAIN' ? site.identifier : new URL(site.identifier).hostname;
          if (!analytics.has(host)) seedAnalytics(host, { days: opts.analyticsOnVerify });
        }
        return [200, { id, site, owners: [...set] }] as const;
      }
      if (rest.length === 1 && method === 'GET') {
        const items = [...webResources.entries()]
          .filter(([, s]) => owners.get(resourceKey(s.type, s.identifier))?.has(email))
          .map(([id, site]) => ({ id, site, owners: [...owners.get(resourceKey(site.type, site.identifier))!] }));
        return [200, { items }] as const;
      }
      if (rest.length === 2) {
        const s = webResources.get(rest[1]!);
        const set = s && owners.get(resourceKey(s.type, s.identifier));
        if (!s || !set?.has(email)) throw new GErr(404, 'NOT_FOUND', 'You are not an owner of this site.', 'notFound');
        if (method === 'GET') return [200, { id: rest[1], site: s, owners: [...set] }] as const;
        if (method === 'DELETE') {
          set.delete(email);
          return [204, undefined] as const;
        }
      }
      throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
    }

    // Search Console v1: URL Inspection
    if (path === '/v1/urlInspection/index:inspect') {
      if (method !== 'POST') throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
      needScope(t.scopes, ...READ);
      if (!isObject(body) || typeof body.inspectionUrl !== 'string' || typeof body.siteUrl !== 'string')
        throw new GErr(400, 'INVALID_ARGUMENT', 'inspectionUrl and siteUrl are required.');
      onlyFields(body, ['inspectionUrl', 'siteUrl', 'languageCode']);
      const { site } = propertyFor(email, body.siteUrl, 'siteRestrictedUser');
      if (!belongs(body.inspectionUrl, site))
        throw new GErr(
          400,
          'INVALID_ARGUMENT',
          `URL '${body.inspectionUrl}' does not belong to property '${body.siteUrl}'.`,
        );
      count('inspect-min', body.siteUrl, 60_000, quota.inspectionsPerMinute, 'Inspections per minute per site');
      count('inspect-day', body.siteUrl, DAY, quota.inspectionsPerDay, 'Inspections per day per site');
      const url = body.inspectionUrl;
      const p = properties.get(body.siteUrl)!;
      const inSitemaps = [...p.sitemaps.values()].filter((s) => s.urls.includes(url)).map((s) => s.path);
      const known = knownPage(url);
      const link = `https://search.google.com/search-console/inspect?resource_id=${encodeURIComponent(body.siteUrl)}&id=${createHash('sha256').update(url).digest('base64url').slice(0, 22)}`;
      return [
        200,
        {
          inspectionResult: {
            inspectionResultLink: link,
            indexStatusResult: known
              ? {
                  verdict: 'PASS',
                  coverageState: inSitemaps.length ? 'Submitted and indexed' : 'Indexed, not submitted in sitemap',
                  robotsTxtState: 'ALLOWED',
                  indexingState: 'INDEXING_ALLOWED',
                  lastCrawlTime: new Date(now() - 3 * DAY).toISOString(),
                  pageFetchState: 'SUCCESSFUL',
                  googleCanonical: url,
                  userCanonical: url,
                  crawledAs: 'MOBILE',
                  ...(inSitemaps.length ? { sitemap: inSitemaps } : {}),
                }
              : {
                  verdict: 'NEUTRAL',
                  coverageState: inSitemaps.length ? 'Discovered - currently not indexed' : 'URL is unknown to Google',
                  robotsTxtState: 'ROBOTS_TXT_STATE_UNSPECIFIED',
                  indexingState: 'INDEXING_STATE_UNSPECIFIED',
                  pageFetchState: 'PAGE_FETCH_STATE_UNSPECIFIED',
                  ...(inSitemaps.length ? { sitemap: inSitemaps } : {}),
                },
            ...(known ? { mobileUsabilityResult: { verdict: 'PASS' } } : {}),
          },
        },
      ] as const;
    }

    // Search Console webmasters/v3
    if (seg[0] !== 'webmasters' || seg[1] !== 'v3' || seg[2] !== 'sites')
      throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
    if (seg.length === 3) {
      if (method !== 'GET') throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
      needScope(t.scopes, ...READ);
      const siteEntry = [...properties.keys()]
        .map((siteUrl) => ({ siteUrl, permissionLevel: permissionOf(email, siteUrl) }))
        .filter((e) => e.permissionLevel);
      return [200, siteEntry.length ? { siteEntry } : {}] as const;
    }
    const siteUrl = decodeURIComponent(seg[3]!);
    const rest = seg.slice(4).map(decodeURIComponent);
    if (rest.length === 0) {
      if (method === 'PUT') {
        needScope(t.scopes, ...WRITE);
        if (!parseSiteUrl(siteUrl))
          throw new GErr(400, 'INVALID_ARGUMENT', `'${siteUrl}' is not a valid Search Console site URL.`);
        addProperty(siteUrl, email);
        return [204, undefined] as const;
      }
      needScope(t.scopes, ...(method === 'GET' ? READ : WRITE));
      const level = permissionOf(email, siteUrl);
      const p = properties.get(siteUrl);
      if (!p || !level) throw noPermission(siteUrl);
      if (method === 'GET') return [200, { siteUrl, permissionLevel: level }] as const;
      if (method === 'DELETE') {
        p.addedBy.delete(email);
        p.users.delete(email);
        if (!p.addedBy.size && !p.users.size) properties.delete(siteUrl);
        return [204, undefined] as const;
      }
      throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
    }
    if (rest[0] === 'searchAnalytics' && rest[1] === 'query' && rest.length === 2 && method === 'POST') {
      needScope(t.scopes, ...READ);
      const { site } = propertyFor(email, siteUrl, 'siteRestrictedUser');
      count('analytics', siteUrl, 60_000, quota.analyticsPerMinute, 'Search Analytics queries per minute per site');
      return [200, queryAnalytics(site, body)] as const;
    }
    if (rest[0] === 'sitemaps') {
      if (rest.length === 1 && method === 'GET') {
        needScope(t.scopes, ...READ);
        const { p } = propertyFor(email, siteUrl, 'siteRestrictedUser');
        const list = [...p.sitemaps.values()];
        return [200, list.length ? { sitemap: list.map(sitemapJson) } : {}] as const;
      }
      if (rest.length === 2) {
        const feedpath = rest[1]!;
        if (method === 'GET') {
          needScope(t.scopes, ...READ);
          const { p } = propertyFor(email, siteUrl, 'siteRestrictedUser');
          const sm = p.sitemaps.get(feedpath);
          if (!sm) throw new GErr(404, 'NOT_FOUND', 'Requested entity was not found.', 'notFound');
          return [200, sitemapJson(sm)] as const;
        }
        needScope(t.scopes, ...WRITE);
        const { p, site } = propertyFor(email, siteUrl, 'siteFullUser');
        if (method === 'PUT') {
          if (!belongs(feedpath, site))
            throw new GErr(400, 'INVALID_ARGUMENT', `Sitemap '${feedpath}' is not within property '${siteUrl}'.`);
          const sm: SimSitemap = {
            path: feedpath,
            lastSubmitted: new Date(now()).toISOString(),
            isPending: true,
            isSitemapsIndex: false,
            warnings: 0,
            errors: 0,
            urls: [],
          };
          p.sitemaps.set(feedpath, sm);
          if (p.sitemaps.size > 500) p.sitemaps.delete(p.sitemaps.keys().next().value!);
          await readSitemap(sm);
          return [204, undefined] as const;
        }
        if (method === 'DELETE') {
          if (!p.sitemaps.delete(feedpath))
            throw new GErr(404, 'NOT_FOUND', 'Requested entity was not found.', 'notFound');
          return [204, undefined] as const;
        }
      }
    }
    throw new GErr(404, 'NOT_FOUND', 'Unknown path.', 'notFound');
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        requests.push({ method, path: url.pathname, status });
        if (requests.length > 10_000) requests.shift();
        if (payload === undefined) return void res.writeHead(status, headers).end();
        res
          .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers })
          .end(JSON.stringify(payload));
      };
      const gerr = (e: GErr) =>
        send(e.code, {
          error: {
            code: e.code,
            message: e.message,
            status: e.status,
            errors: [{ message: e.message, domain: 'global', reason: e.reason }],
          },
        });
      const failure = failures.next();
      if (failure?.kind === 'slow') await failures.wait(failure.delayMs ?? 2000);
      else if (failure?.kind === '5xx')
        return gerr(new GErr(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'backendError'));
      else if (failure?.kind === 'html') {
        requests.push({ method, path: url.pathname, status: 502 });
        return res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
      }
      let text = '';
      try {
        text = await readBody(req, MAX_BODY);
      } catch {
        return gerr(new GErr(413, 'INVALID_ARGUMENT', 'Request payload size exceeds the limit.'));
      }
      if (url.pathname === '/token') {
        if (method !== 'POST') return send(405, { error: 'invalid_request', error_description: 'Method not allowed' });
        try {
          const ct = String(req.headers['content-type'] ?? '');
          if (!ct.startsWith('application/x-www-form-urlencoded'))
            throw new OAuthErr(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
          return send(200, issueToken(new URLSearchParams(text)), { 'cache-control': 'no-store' });
        } catch (err) {
          if (err instanceof OAuthErr)
            return send(err.httpStatus, { error: err.error, error_description: err.description });
          return send(500, { error: 'internal_failure', error_description: 'Internal error' });
        }
      }
      let body: unknown;
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          return gerr(new GErr(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
        }
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      try {
        const [status, payload] = await handleApi(method, url.pathname, url.searchParams, body, bearer);
        send(status, payload);
      } catch (err) {
        if (err instanceof GErr) gerr(err);
        else gerr(new GErr(500, 'INTERNAL', 'Internal error encountered.', 'backendError'));
      }
    })();
  });
  const listening = await listenOnLoopback(server, opts.port);
  port = listening.port;

  const registerServiceAccount: GoogleSearchSim['registerServiceAccount'] = (key) => {
    const publicKey = createPublicKey(createPrivateKey(key.private_key));
    keys.set(key.private_key_id, { email: key.client_email, publicKey, scopes: null });
    return key.client_email;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    siteVerificationUrl: `http://127.0.0.1:${port}/siteVerification/v1`,
    tokenUrl: tokenUrl(),
    port,
    properties,
    owners,
    requests,
    get tokensIssued() {
      return tokensIssued;
    },
    createServiceAccount(name = `sa-${randomBytes(4).toString('hex')}`, o = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const projectId = o.projectId ?? 'fleetdesk-sim';
      const key: SimServiceAccountKey = {
        type: 'service_account',
        project_id: projectId,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: `${name}@${projectId}.iam.gserviceaccount.com`,
        client_id: String(100_000_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e15))),
        token_uri: tokenUrl(),
      };
      keys.set(key.private_key_id, { email: key.client_email, publicKey, scopes: o.scopes ?? null });
      return key;
    },
    registerServiceAccount,
    addOwner(domain, email) {
      const k = resourceKey('INET_DOMAIN', domain.toLowerCase());
      const set = owners.get(k) ?? new Set<string>();
      set.add(email);
      owners.set(k, set);
      webResources.set(`dns://${domain.toLowerCase()}`, { type: 'INET_DOMAIN', identifier: domain.toLowerCase() });
    },
    addProperty,
    grant(siteUrl, email, level) {
      const p = properties.get(siteUrl) ?? addProperty(siteUrl, email);
      p.users.set(email, level);
    },
    addSitemap(siteUrl, path, sm) {
      const p = properties.get(siteUrl);
      if (!p) throw new Error(`No property ${siteUrl}`);
      p.sitemaps.set(path, {
        path,
        lastSubmitted: new Date(now() - 5 * DAY).toISOString(),
        lastDownloaded: new Date(now() - 4 * DAY).toISOString(),
        isPending: false,
        isSitemapsIndex: false,
        type: 'sitemap',
        warnings: 0,
        errors: 0,
        urls: [],
        ...sm,
      });
    },
    seedAnalytics,
    analyticsOf: (domain) => analytics.get(domain) ?? [],
    setDnsTxtLookup(fn) {
      dnsTxtLookup = fn;
    },
    setFileLookup(fn) {
      fileLookup = fn;
    },
    setQuota(q) {
      Object.assign(quota, Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)));
    },
    revokeTokens() {
      tokens.clear();
    },
    fail(f) {
      failures.push(f);
    },
    async close() {
      failures.close();
      await listening.close();
    },
  };
}

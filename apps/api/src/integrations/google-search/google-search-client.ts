import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { fetch as undiciFetch } from 'undici';
import {
  GOOGLE_SCOPES,
  type GoogleInspection,
  type GoogleServiceAccountKey,
  type GoogleSitemap,
} from '@fleetdesk/contract';
import { AppError, UpstreamError } from '../../http/errors.ts';
import { providerFetch } from '../provider-calls.ts';

const PROVIDER = 'Google Search Console';
/** Answers larger than this are refused rather than parsed: no Search Console answer comes close. */
const MAX_BODY_CHARS = 5 * 1024 * 1024;
/** A token is renewed this long before Google says it expires. */
const REFRESH_MARGIN_MS = 60_000;
/** Tokens kept at most (one per key in use); the oldest is dropped past it. */
const MAX_CACHED_TOKENS = 500;

export interface GoogleSearchClientOptions {
  /** The Search Console API's root, e.g. https://searchconsole.googleapis.com */
  searchConsoleUrl: string;
  /** The Site Verification API's base, e.g. https://www.googleapis.com/siteVerification/v1 */
  siteVerificationUrl: string;
  /** When set, tokens are asked for here instead of at the key's token_uri (the demo's and tests' simulator). */
  tokenUrl?: string;
  /** Per attempt. Default 15 s. */
  timeoutMs?: number;
  /** Retries of idempotent calls (GET, PUT, DELETE) on 5xx and network failures. Default 2. */
  maxRetries?: number;
  fetchImpl?: typeof undiciFetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Google's error envelope `{ error: { code, status, message } }`, as the console shows it. */
export class GoogleApiError extends AppError {
  constructor(
    readonly httpStatus: number,
    readonly googleStatus: string,
    readonly googleMessage: string,
    retryAfterSeconds?: number,
  ) {
    super(
      statusFor(httpStatus),
      `google.${googleStatus}`,
      `${PROVIDER}: ${googleStatus}${googleMessage ? `: ${googleMessage}` : ''}`,
      undefined,
      httpStatus === 429 ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds ?? 60))) } : undefined,
    );
  }
}

/** The token endpoint refused the key (`{ error, error_description }`, RFC 6749 §5.2). */
export class GoogleTokenError extends AppError {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(
      502,
      'google.token_refused',
      `Google refused the service account key: ${error}${description ? `: ${description}` : ''}`,
    );
  }
}

// Google's 4xx keep their meaning for the operator (bad input, not found, quota); a refusal of the account's rights
// is the console's configuration problem, so a bad gateway, never a 401 or 403 that would read as the operator's own.
function statusFor(status: number) {
  if (status === 400 || status === 404 || status === 409 || status === 429) return status;
  return 502;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const IDEMPOTENT = new Set<Method>(['GET', 'PUT', 'DELETE']);

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** The key's RS256 assertion for the token endpoint (RFC 7523 §2.1), valid for an hour. */
export function signAssertion(key: GoogleServiceAccountKey, privateKey: KeyObject, aud: string, nowMs: number) {
  const iat = Math.floor(nowMs / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.private_key_id }));
  const claims = b64url(
    JSON.stringify({ iss: key.client_email, scope: GOOGLE_SCOPES.join(' '), aud, iat, exp: iat + 3600 }),
  );
  const input = `${header}.${claims}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), privateKey))}`;
}

/** The key's private key as node:crypto reads it; a clear error when it is not an RSA key. */
export function readPrivateKey(pem: string): KeyObject {
  let k: KeyObject;
  try {
    k = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new Error('The private_key cannot be read as a PEM private key');
  }
  if (k.asymmetricKeyType !== 'rsa') throw new Error('The private_key must be an RSA key');
  return k;
}

export function createGoogleSearchClient(opts: GoogleSearchClientOptions) {
  const consoleBase = opts.searchConsoleUrl.replace(/\/+$/, '');
  const verifyBase = opts.siteVerificationUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRetries = opts.maxRetries ?? 2;
  const doFetch = providerFetch('google-search', opts.fetchImpl ?? undiciFetch);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  // Access tokens by a hash of the key and where it is sent (never the key itself).
  const tokens = new Map<string, { token: string; expiresAt: number }>();

  const tokenUrlOf = (key: GoogleServiceAccountKey) => opts.tokenUrl ?? key.token_uri;
  const cacheKey = (key: GoogleServiceAccountKey) =>
    createHash('sha256')
      .update(`${key.client_email}\n${key.private_key_id}\n${tokenUrlOf(key)}\n${key.private_key}`)
      .digest('hex');

  /** One HTTP exchange with a deadline and a size limit; JSON or nothing. */
  async function exchange(
    url: string,
    init: { method: Method; headers: Record<string, string>; body?: string },
    what: string,
  ): Promise<{ status: number; json: unknown; retryAfter: string | null }> {
    let res: Awaited<ReturnType<typeof doFetch>>;
    let text: string;
    try {
      res = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      text = await res.text();
    } catch (err) {
      const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new UpstreamError(
        PROVIDER,
        timeout
          ? `${what} did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`
          : `${what} could not be reached`,
        { timeout, code: timeout ? 'upstream_timeout' : 'upstream_unreachable' },
      );
    }
    if (text.length > MAX_BODY_CHARS) throw new UpstreamError(PROVIDER, `${what} sent an oversized answer`);
    let json: unknown = undefined;
    if (text.trim()) {
      try {
        json = JSON.parse(text);
      } catch {
        throw new UpstreamError(PROVIDER, `${what} answered ${res.status} with something other than JSON`, {
          upstreamStatus: res.status,
        });
      }
    }
    return { status: res.status, json, retryAfter: res.headers.get('retry-after') };
  }

  /** A fresh access token from the token endpoint (OAuth 2.0 JWT bearer, RFC 7523). */
  async function requestToken(key: GoogleServiceAccountKey) {
    let privateKey: KeyObject;
    try {
      privateKey = readPrivateKey(key.private_key);
    } catch (err) {
      throw new GoogleTokenError('invalid_key', (err as Error).message);
    }
    const aud = tokenUrlOf(key);
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: signAssertion(key, privateKey, aud, now()),
    }).toString();
    const { status, json } = await exchange(
      aud,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      },
      "Google's token endpoint",
    );
    const o = (json ?? {}) as Record<string, unknown>;
    if (status >= 400) {
      if (typeof o.error === 'string')
        throw new GoogleTokenError(o.error, typeof o.error_description === 'string' ? o.error_description : '');
      throw new UpstreamError(PROVIDER, `Google's token endpoint answered ${status}`, { upstreamStatus: status });
    }
    const expiresIn = typeof o.expires_in === 'number' ? o.expires_in : Number(o.expires_in);
    if (typeof o.access_token !== 'string' || !o.access_token || !Number.isFinite(expiresIn))
      throw new UpstreamError(PROVIDER, "Google's token endpoint answered without an access token");
    return { token: o.access_token, expiresAt: now() + expiresIn * 1000 };
  }

  async function accessToken(key: GoogleServiceAccountKey, fresh = false): Promise<string> {
    const k = cacheKey(key);
    const cached = tokens.get(k);
    if (!fresh && cached && cached.expiresAt - REFRESH_MARGIN_MS > now()) return cached.token;
    const t = await requestToken(key);
    tokens.delete(k);
    if (tokens.size >= MAX_CACHED_TOKENS) tokens.delete(tokens.keys().next().value!);
    tokens.set(k, t);
    return t.token;
  }

  /** One API call: the cached token (renewed once on a 401), retries of idempotent calls on 5xx. */
  async function call<T>(key: GoogleServiceAccountKey, method: Method, url: string, body?: unknown): Promise<T> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const token = await accessToken(key);
      let r: Awaited<ReturnType<typeof exchange>>;
      try {
        r = await exchange(
          url,
          {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            body: body !== undefined ? JSON.stringify(body) : undefined,
          },
          PROVIDER,
        );
      } catch (err) {
        // Only a call that never reached Google is sent again; a timeout may have done its work.
        const unreachable = err instanceof UpstreamError && err.code === 'upstream_unreachable';
        if (unreachable && IDEMPOTENT.has(method) && attempt < maxRetries) {
          await sleep(backoff(attempt));
          continue;
        }
        throw err;
      }
      if (r.status === 401 && !renewed) {
        // The token was revoked or expired early: one fresh token, then the call again.
        renewed = true;
        tokens.delete(cacheKey(key));
        continue;
      }
      if (r.status >= 500 && IDEMPOTENT.has(method) && attempt < maxRetries) {
        await sleep(backoff(attempt));
        continue;
      }
      if (r.status >= 400) {
        const e = (r.json as { error?: Record<string, unknown> } | undefined)?.error;
        if (e && typeof e === 'object' && typeof e.message === 'string') {
          const status = typeof e.status === 'string' ? e.status : `HTTP_${r.status}`;
          throw new GoogleApiError(r.status, status, e.message, retryAfterSeconds(r.retryAfter));
        }
        throw new UpstreamError(PROVIDER, `${PROVIDER} answered ${r.status}`, { upstreamStatus: r.status });
      }
      return r.json as T;
    }
  }

  const site = (siteUrl: string) => `${consoleBase}/webmasters/v3/sites/${encodeURIComponent(siteUrl)}`;
  const objectOr = <T>(v: unknown, what: string): T => {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new UpstreamError(PROVIDER, `${PROVIDER} answered without ${what}`);
    return v as T;
  };

  return {
    /** A fresh token for the key (no cache): saving an account proves the key this way. */
    async checkKey(key: GoogleServiceAccountKey) {
      const t = await requestToken(key);
      tokens.set(cacheKey(key), t);
    },
    accessToken,

    // ------------------------------------------------------------ Search Console: sites
    async listSites(key: GoogleServiceAccountKey): Promise<{ siteUrl: string; permissionLevel: string }[]> {
      const r = await call<{ siteEntry?: { siteUrl: string; permissionLevel: string }[] }>(
        key,
        'GET',
        `${consoleBase}/webmasters/v3/sites`,
      );
      return Array.isArray(r?.siteEntry) ? r.siteEntry : [];
    },
    async addSite(key: GoogleServiceAccountKey, siteUrl: string) {
      await call(key, 'PUT', site(siteUrl));
    },
    getSite: async (key: GoogleServiceAccountKey, siteUrl: string) =>
      objectOr<{ siteUrl: string; permissionLevel: string }>(await call(key, 'GET', site(siteUrl)), 'the site'),
    async deleteSite(key: GoogleServiceAccountKey, siteUrl: string) {
      await call(key, 'DELETE', site(siteUrl));
    },

    // ------------------------------------------------------------ sitemaps
    async listSitemaps(key: GoogleServiceAccountKey, siteUrl: string): Promise<GoogleSitemap[]> {
      const r = await call<{ sitemap?: GoogleSitemap[] }>(key, 'GET', `${site(siteUrl)}/sitemaps`);
      return Array.isArray(r?.sitemap) ? r.sitemap : [];
    },
    async submitSitemap(key: GoogleServiceAccountKey, siteUrl: string, feedpath: string) {
      await call(key, 'PUT', `${site(siteUrl)}/sitemaps/${encodeURIComponent(feedpath)}`);
    },
    async deleteSitemap(key: GoogleServiceAccountKey, siteUrl: string, feedpath: string) {
      await call(key, 'DELETE', `${site(siteUrl)}/sitemaps/${encodeURIComponent(feedpath)}`);
    },

    // ------------------------------------------------------------ Search Analytics and URL Inspection
    async searchAnalytics(
      key: GoogleServiceAccountKey,
      siteUrl: string,
      q: { startDate: string; endDate: string; dimensions: string[]; rowLimit?: number; type?: string },
    ): Promise<{ keys: string[]; clicks: number; impressions: number; ctr: number; position: number }[]> {
      const r = await call<{
        rows?: { keys: string[]; clicks: number; impressions: number; ctr: number; position: number }[];
      }>(key, 'POST', `${site(siteUrl)}/searchAnalytics/query`, { type: 'web', ...q });
      return Array.isArray(r?.rows) ? r.rows : [];
    },
    async inspect(key: GoogleServiceAccountKey, siteUrl: string, inspectionUrl: string): Promise<GoogleInspection> {
      const r = await call<{ inspectionResult?: GoogleInspection }>(
        key,
        'POST',
        `${consoleBase}/v1/urlInspection/index:inspect`,
        { inspectionUrl, siteUrl, languageCode: 'en-US' },
      );
      return objectOr<GoogleInspection>(r?.inspectionResult, 'an inspection result');
    },

    // ------------------------------------------------------------ Site Verification
    async verificationToken(
      key: GoogleServiceAccountKey,
      site: { type: 'SITE' | 'INET_DOMAIN'; identifier: string },
      method: 'DNS_TXT' | 'FILE',
    ): Promise<string> {
      const r = await call<{ token?: unknown }>(key, 'POST', `${verifyBase}/token`, {
        site,
        verificationMethod: method,
      });
      if (typeof r?.token !== 'string' || !r.token)
        throw new UpstreamError(PROVIDER, 'Google Site Verification answered without a token');
      return r.token;
    },
    async verifySite(
      key: GoogleServiceAccountKey,
      site: { type: 'SITE' | 'INET_DOMAIN'; identifier: string },
      method: 'DNS_TXT' | 'FILE',
    ): Promise<{ id: string; owners: string[] }> {
      const r = await call<{ id?: unknown; owners?: unknown }>(
        key,
        'POST',
        `${verifyBase}/webResource?verificationMethod=${encodeURIComponent(method)}`,
        { site },
      );
      if (typeof r?.id !== 'string')
        throw new UpstreamError(PROVIDER, 'Google Site Verification answered without an id');
      return { id: r.id, owners: Array.isArray(r.owners) ? r.owners.filter((o) => typeof o === 'string') : [] };
    },
  };
}
export type GoogleSearchClient = ReturnType<typeof createGoogleSearchClient>;

const backoff = (attempt: number) => Math.min(2000, 250 * 2 ** attempt);

function retryAfterSeconds(v: string | null): number | undefined {
  if (!v) return undefined;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return n;
  const d = Date.parse(v);
  return Number.isFinite(d) ? Math.max(0, (d - Date.now()) / 1000) : undefined;
}

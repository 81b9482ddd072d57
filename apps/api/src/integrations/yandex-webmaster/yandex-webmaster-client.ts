import { createHash } from 'node:crypto';
import { fetch as undiciFetch } from 'undici';
import { providerFetch } from '../provider-calls.ts';
import { refuseUnsendable } from '../credentials.ts';
import type {
  HostSummary,
  ImportantUrl,
  RecrawlQuota,
  RecrawlTask,
  Sitemap,
  UserSitemap,
  Verification,
  WebmasterHost,
  YandexVerificationType,
} from '@fleetdesk/contract';
import { AppError, UpstreamError } from '../../http/errors.ts';

const PROVIDER = 'Yandex Webmaster';
/** Answers larger than this are refused rather than parsed: no Webmaster answer comes close. */
const MAX_BODY_CHARS = 5 * 1024 * 1024;

export interface YandexWebmasterClientOptions {
  /** e.g. https://api.webmaster.yandex.net/v4 */
  baseUrl: string;
  /** Per attempt. Default 15 s. */
  timeoutMs?: number;
  /** Retries of idempotent calls (GET, DELETE) on 5xx and 429. Default 2. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for. Default 10 s. */
  maxRetryWaitMs?: number;
  fetchImpl?: typeof undiciFetch;
  sleep?: (ms: number) => Promise<void>;
}

/** What a call acts with: the token, and the token owner's user id when it is already known. */
export interface WebmasterCredentials {
  token: string;
  userId?: string | null;
  /** Told when the user id was found (or corrected), so the caller can keep it. */
  onUserId?: (userId: string) => void | Promise<void>;
}

/** Yandex's error envelope, as the console shows it: "Yandex API Error" with error_code and error_message. */
export class YandexApiError extends AppError {
  constructor(
    readonly httpStatus: number,
    readonly errorCode: string,
    readonly errorMessage: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(
      statusFor(httpStatus),
      `yandex.${errorCode}`,
      `Yandex API Error: ${errorCode}${errorMessage ? `: ${errorMessage}` : ''}`,
    );
  }
}

// Yandex's 4xx keep their meaning for the operator (not found, conflict, bad url, quota); a refused token
// is the console's configuration problem, so it is a bad gateway, never a 401 that would sign the operator out.
function statusFor(status: number) {
  if (status === 400 || status === 404 || status === 409 || status === 429) return status;
  return 502;
}

type Method = 'GET' | 'POST' | 'DELETE';
const IDEMPOTENT = new Set<Method>(['GET', 'DELETE']);

const tokenKey = (token: string) => createHash('sha256').update(token).digest('hex');

export function createYandexWebmasterClient(opts: YandexWebmasterClientOptions) {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRetries = opts.maxRetries ?? 2;
  const maxRetryWaitMs = opts.maxRetryWaitMs ?? 10_000;
  const doFetch = providerFetch('yandex-webmaster', opts.fetchImpl ?? undiciFetch);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // user ids by token hash (never the token itself), so each token costs one GET /user per process.
  const userIds = new Map<string, string>();

  async function raw(
    token: string,
    method: Method,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    refuseUnsendable(PROVIDER, 'API token', token, 'token');
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let text: string;
      let retryAfter: string | null = null;
      try {
        const res = await doFetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `OAuth ${token}`,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        if (IDEMPOTENT.has(method) && attempt < maxRetries && !timeout) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new UpstreamError(
          PROVIDER,
          timeout
            ? `Yandex Webmaster did not answer within ${Math.round(timeoutMs / 1000)} s`
            : 'Yandex Webmaster could not be reached',
          { timeout },
        );
      }
      const retriable = status >= 500 || status === 429;
      if (retriable && IDEMPOTENT.has(method) && attempt < maxRetries) {
        const wait = retryAfterMs(retryAfter) ?? backoff(attempt);
        if (wait <= maxRetryWaitMs) {
          await sleep(wait);
          continue;
        }
      }
      if (text.length > MAX_BODY_CHARS) throw new UpstreamError(PROVIDER, 'Yandex Webmaster sent an oversized answer');
      let json: unknown = undefined;
      if (text.trim()) {
        try {
          json = JSON.parse(text);
        } catch {
          throw new UpstreamError(PROVIDER, `Yandex Webmaster answered ${status} with something other than JSON`, {
            upstreamStatus: status,
          });
        }
      }
      if (status >= 400) {
        const e = (json ?? {}) as Record<string, unknown>;
        if (typeof e.error_code === 'string') {
          const { error_code, error_message, ...extra } = e;
          throw new YandexApiError(status, error_code, typeof error_message === 'string' ? error_message : '', extra);
        }
        throw new UpstreamError(PROVIDER, `Yandex Webmaster answered ${status}`, { upstreamStatus: status });
      }
      return { status, json };
    }
  }

  async function userId(c: WebmasterCredentials): Promise<string> {
    const key = tokenKey(c.token);
    const known = userIds.get(key) ?? c.userId ?? undefined;
    if (known) return known;
    const { json } = await raw(c.token, 'GET', '/user');
    const id = (json as { user_id?: unknown })?.user_id;
    if (typeof id !== 'number' && typeof id !== 'string')
      throw new UpstreamError(PROVIDER, 'Yandex Webmaster did not name the user');
    userIds.set(key, String(id));
    await c.onUserId?.(String(id));
    return String(id);
  }

  /** A call under /user/{user-id}; a stale cached id (INVALID_USER_ID) is replaced once and the call repeated. */
  async function call<T>(c: WebmasterCredentials, method: Method, sub: string, body?: unknown): Promise<T> {
    const uid = await userId(c);
    try {
      return (await raw(c.token, method, `/user/${encodeURIComponent(uid)}${sub}`, body)).json as T;
    } catch (err) {
      if (err instanceof YandexApiError && err.errorCode === 'INVALID_USER_ID') {
        userIds.delete(tokenKey(c.token));
        const fresh = await userId({ ...c, userId: null });
        if (fresh !== uid)
          return (await raw(c.token, method, `/user/${encodeURIComponent(fresh)}${sub}`, body)).json as T;
      }
      throw err;
    }
  }

  const host = (hostId: string) => `/hosts/${encodeURIComponent(hostId)}`;
  const qs = (q: Record<string, string | number | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
    const s = p.toString();
    return s ? `?${s}` : '';
  };

  return {
    userId,
    forgetUserId: (token: string) => userIds.delete(tokenKey(token)),
    async listHosts(c: WebmasterCredentials): Promise<WebmasterHost[]> {
      return (await call<{ hosts?: WebmasterHost[] }>(c, 'GET', '/hosts'))?.hosts ?? [];
    },
    async addHost(c: WebmasterCredentials, hostUrl: string): Promise<{ host_id: string }> {
      const r = await call<{ host_id?: unknown }>(c, 'POST', '/hosts', { host_url: hostUrl });
      if (typeof r?.host_id !== 'string' || !r.host_id)
        throw new UpstreamError(PROVIDER, 'Yandex Webmaster added the host but did not return its host id');
      return { host_id: r.host_id };
    },
    getHost: (c: WebmasterCredentials, hostId: string) => call<WebmasterHost>(c, 'GET', host(hostId)),
    async deleteHost(c: WebmasterCredentials, hostId: string) {
      await call(c, 'DELETE', host(hostId));
    },
    summary: (c: WebmasterCredentials, hostId: string) => call<HostSummary>(c, 'GET', `${host(hostId)}/summary`),
    async importantUrls(c: WebmasterCredentials, hostId: string): Promise<ImportantUrl[]> {
      return (await call<{ urls?: ImportantUrl[] }>(c, 'GET', `${host(hostId)}/important-urls`))?.urls ?? [];
    },
    /** All the robot's sitemaps, following the `from` cursor for at most `maxPages` pages of 100. */
    async sitemaps(c: WebmasterCredentials, hostId: string, maxPages = 10): Promise<Sitemap[]> {
      const out: Sitemap[] = [];
      let from: string | undefined;
      for (let i = 0; i < maxPages; i++) {
        const page =
          (await call<{ sitemaps?: Sitemap[] }>(c, 'GET', `${host(hostId)}/sitemaps${qs({ limit: 100, from })}`))
            ?.sitemaps ?? [];
        out.push(...page);
        if (page.length < 100) break;
        from = page[page.length - 1]!.sitemap_id;
      }
      return out;
    },
    async userSitemaps(c: WebmasterCredentials, hostId: string): Promise<{ sitemaps: UserSitemap[]; count: number }> {
      const r = await call<{ sitemaps?: UserSitemap[]; count?: number }>(
        c,
        'GET',
        `${host(hostId)}/user-added-sitemaps${qs({ limit: 100 })}`,
      );
      return { sitemaps: r?.sitemaps ?? [], count: r?.count ?? r?.sitemaps?.length ?? 0 };
    },
    async addUserSitemap(c: WebmasterCredentials, hostId: string, url: string): Promise<{ sitemap_id: string }> {
      const r = await call<{ sitemap_id?: unknown }>(c, 'POST', `${host(hostId)}/user-added-sitemaps`, { url });
      if (typeof r?.sitemap_id !== 'string')
        throw new UpstreamError(PROVIDER, 'Yandex Webmaster did not return the sitemap id');
      return { sitemap_id: r.sitemap_id };
    },
    async deleteUserSitemap(c: WebmasterCredentials, hostId: string, sitemapId: string) {
      await call(c, 'DELETE', `${host(hostId)}/user-added-sitemaps/${encodeURIComponent(sitemapId)}`);
    },
    recrawlQuota: (c: WebmasterCredentials, hostId: string) =>
      call<RecrawlQuota>(c, 'GET', `${host(hostId)}/recrawl/quota`),
    async recrawlQueue(c: WebmasterCredentials, hostId: string, limit = 100): Promise<RecrawlTask[]> {
      return (
        (await call<{ tasks?: RecrawlTask[] }>(c, 'GET', `${host(hostId)}/recrawl/queue${qs({ limit })}`))?.tasks ?? []
      );
    },
    recrawl: (c: WebmasterCredentials, hostId: string, url: string) =>
      call<{ task_id: string; quota_remainder: number }>(c, 'POST', `${host(hostId)}/recrawl/queue`, { url }),
    verification: (c: WebmasterCredentials, hostId: string) =>
      call<Verification>(c, 'GET', `${host(hostId)}/verification`),
    verify: (c: WebmasterCredentials, hostId: string, type: YandexVerificationType) =>
      call<Verification>(c, 'POST', `${host(hostId)}/verification${qs({ verification_type: type })}`),
  };
}
export type YandexWebmasterClient = ReturnType<typeof createYandexWebmasterClient>;

const backoff = (attempt: number) => Math.min(2000, 250 * 2 ** attempt);

function retryAfterMs(v: string | null): number | undefined {
  if (!v) return undefined;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return n * 1000;
  const d = Date.parse(v);
  return Number.isFinite(d) ? Math.max(0, d - Date.now()) : undefined;
}

import { createHash } from 'node:crypto';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { providerFetch } from '../provider-calls.ts';
import { refuseUnsendable } from '../credentials.ts';
import { RateLimitedError, UpstreamError } from '../../http/errors.ts';
import { fromRecordAnswer, toRecordBody } from './record-body.ts';
import {
  createBudgetLanes,
  createRequestBudget,
  type BudgetTake,
  type RequestBudget,
  type RequestBudgetOptions,
} from './request-budget.ts';
import type {
  CfAccount,
  CfGraphqlError,
  CfTrafficPeriod,
  CfDnsBatch,
  CfDnsBatchResult,
  CfDnsRecord,
  CfDnsRecordInput,
  CfEnvelope,
  CfResponseInfo,
  CfRuleInput,
  CfRuleset,
  CfRulesetPhase,
  CfRulesetSummary,
  CfSetting,
  CfSettingId,
  CfSettingValue,
  CfZone,
  CloudflareCredentials,
} from './types.ts';

const PROVIDER = 'Cloudflare';

export interface CloudflareClientOptions {
  /** e.g. https://api.cloudflare.com/client/v4 (no trailing slash needed). */
  baseUrl: string;
  /** Per attempt, covering connect, headers and body. Default 15 s. */
  timeoutMs?: number;
  /**
   * Per credential; default 1200 requests per 5 minutes, Cloudflare's own limit. Exhausted → fails at once.
   * `interactiveReserve` and `ownerShare` are the shares of decision 015 (see request-budget.ts).
   */
  budget?: { requests: number; windowMs: number; interactiveReserve?: number; ownerShare?: number; marginMs?: number };
  /** Where the budget is counted; default in this process. The container shares it through the database. */
  budgetStore?: (budget: RequestBudgetOptions) => RequestBudget;
  /** Told of each request sent, by its credentials' budget key (the per-minute counts a fleet run's chart draws). */
  onSent?: (key: string) => void;
  /** Who the current call spends budget for and at which priority (read from the async context); default interactive. */
  budgetContext?: () => BudgetTake | undefined;
  /** Retries of idempotent calls (GET, PUT, DELETE) on 5xx and 429. Default 2, as Cloudflare's SDK does. */
  maxRetries?: number;
  /** A retry-after longer than this is not waited for; the call fails with the wait in its message. Default 30 s. */
  maxRetryWaitMs?: number;
  /**
   * Routes for attempt 0, 1, …: the dispatcher (proxy) to use, or undefined when there is none left.
   * On a connection failure (or a proxy handshake that never finishes) the next one is tried; an idempotent call
   * that times out through one route is also tried through the next. Without it, calls go direct.
   */
  dispatcherFor?: (attempt: number) => Dispatcher | undefined | Promise<Dispatcher | undefined>;
  fetchImpl?: typeof undiciFetch;
  sleep?: (ms: number) => Promise<void>;
  /** Default records per DNS batch call when the caller does not give the zone's own limit (200, the Free plan's). */
  dnsBatchLimit?: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Query = Record<string, string | number | boolean | undefined>;

interface RawResponse {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

const IDEMPOTENT = new Set<Method>(['GET', 'PUT', 'DELETE']);
// Codes Cloudflare uses for a bad or insufficient credential: 10000 auth error, 9103 unknown key/email,
// 9106/9109 missing or invalid access, 6003 (+6102/6103/6111) badly formed auth headers.
const AUTH_CODES = new Set([10000, 9103, 9106, 9109, 6003, 6102, 6103, 6111]);
// Errors raised before a request reached the server: resending is safe even for POST.
const PRE_SEND_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_PRX_TLS',
  // The proxy hung up before opening the tunnel (proxy-dispatcher.ts): the request never left.
  'UND_ERR_PRX_CONN',
  'ERR_SOCKS_CONNECTION_REFUSED',
]);
// Errors that may come after the request was sent: resent only for idempotent calls.
const MID_FLIGHT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function errorChain(err: unknown): { code?: string; message: string; name: string }[] {
  const out: { code?: string; message: string; name: string }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    // The socks client's SocksClientError keeps the name 'Error': its class names it.
    const name = e.name === 'Error' ? e.constructor.name || e.name : e.name;
    out.push({ code: typeof code === 'string' ? code : undefined, message: e.message, name });
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** 'pre-send' | 'mid-flight' | null (not a connection failure). */
function connectionFailureKind(err: unknown): 'pre-send' | 'mid-flight' | null {
  const chain = errorChain(err);
  // SOCKS dispatchers rethrow socket errors without their code, so the code is also looked for in the message.
  const codeOf = (e: { code?: string; message: string }) =>
    e.code ?? /\b(E[A-Z_]+|UND_ERR_[A-Z_]+)\b/.exec(e.message)?.[1];
  for (const e of chain) {
    const code = codeOf(e);
    if (code && PRE_SEND_CODES.has(code)) return 'pre-send';
    // undici's ProxyAgent: "Proxy response (407) !== 200 when HTTP Tunneling"; SOCKS dispatchers: SocksClientError.
    if (/proxy|socks|tunnel/i.test(e.message) || /socks/i.test(e.name)) return 'pre-send';
  }
  for (const e of chain) {
    const code = codeOf(e);
    if (code && MID_FLIGHT_CODES.has(code)) return 'mid-flight';
  }
  return null;
}

/** The innermost useful message, without anything that looks like URL credentials. */
function describeConnectionError(err: unknown): string {
  const chain = errorChain(err);
  const inner = [...chain].reverse().find((e) => e.message && e.message !== 'fetch failed');
  const text = inner
    ? inner.code && !inner.message.includes(inner.code)
      ? `${inner.code} ${inner.message}`
      : inner.message
    : 'unknown error';
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}

/** The budget's key of a set of credentials: a hash, never the secret itself. */
export function credentialKey(creds: CloudflareCredentials): string {
  const h = createHash('sha256');
  if (creds.token) h.update(`token\0${creds.token}`);
  else h.update(`key\0${(creds.email ?? '').toLowerCase()}\0${creds.globalAPIKey ?? ''}`);
  return h.digest('hex').slice(0, 32);
}

function authHeaders(creds: CloudflareCredentials): Record<string, string> {
  refuseUnsendable(PROVIDER, 'API token', creds.token, 'token');
  refuseUnsendable(PROVIDER, 'global API key', creds.globalAPIKey, 'token');
  if (creds.token) return { authorization: `Bearer ${creds.token}` };
  if (creds.email && creds.globalAPIKey) return { 'x-auth-email': creds.email, 'x-auth-key': creds.globalAPIKey };
  throw new UpstreamError(PROVIDER, 'Cloudflare: the cloud has neither an API token nor an email and global API key', {
    code: 'upstream_auth_missing',
  });
}

/** "code message (at /pointer)": the pointer says which rule or field Cloudflare refused. */
function describeOne(e: CfResponseInfo): string {
  const pointer = typeof e.source?.pointer === 'string' && e.source.pointer ? ` (at ${e.source.pointer})` : '';
  return `${e.code} ${e.message}${pointer}`;
}

function describeInfo(e: CfResponseInfo): string {
  const chain = (e.error_chain ?? []).map(describeOne).join('; ');
  return chain ? `${describeOne(e)}: ${chain}` : describeOne(e);
}

/** The <title> of an HTML page, cut down and stripped of markup, to say what the edge answered. */
function htmlTitle(text: string): string | undefined {
  const m = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(text.slice(0, 20_000));
  const title = m?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? title.slice(0, 120) : undefined;
}

function retryAfterMs(headers: RawResponse['headers']): number | undefined {
  const v = headers.get('retry-after');
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function parseEnvelope(text: string): CfEnvelope<unknown> | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    if (
      typeof body === 'object' &&
      body !== null &&
      'success' in body &&
      Array.isArray((body as CfEnvelope<unknown>).errors)
    ) {
      return body as CfEnvelope<unknown>;
    }
  } catch {
    // Not JSON: Cloudflare's edge answers some 5xx with an HTML page.
  }
  return undefined;
}

/** A GraphQL answer: `{ data, errors }` (errors null or absent when there are none). */
function parseGraphqlAnswer(text: string): { data?: unknown; errors?: CfGraphqlError[] | null } | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body !== 'object' || body === null || !('data' in body || 'errors' in body)) return undefined;
    const errors = (body as { errors?: unknown }).errors;
    // The v4 envelope also has `errors` (with codes); only GraphQL's carry no `success`.
    if ('success' in body) return undefined;
    return {
      data: (body as { data?: unknown }).data,
      errors: Array.isArray(errors) ? (errors as CfGraphqlError[]) : null,
    };
  } catch {
    return undefined;
  }
}

/** "message (at viewer.zones.0.httpRequests1dGroups)": the path says which node was refused. */
function describeGraphqlError(e: CfGraphqlError): string {
  const message = typeof e.message === 'string' ? e.message.slice(0, 300) : 'unknown error';
  const path = Array.isArray(e.path) && e.path.length > 0 ? ` (at ${e.path.join('.')})` : '';
  return `${message}${path}`;
}

const TRAFFIC_FIELDS = `sum { requests pageViews threats bytes cachedRequests responseStatusMap { edgeResponseStatus requests } }
        uniq { uniques }`;

/** Cloudflare's published query shape for a zone's daily HTTP traffic (GraphQL Analytics, httpRequests1dGroups). */
export const TRAFFIC_DAYS_QUERY = `query ZoneTrafficDays($zoneTag: string!, $since: Date!, $until: Date!, $limit: uint64!) {
  viewer {
    zones(filter: { zoneTag: $zoneTag }) {
      httpRequests1dGroups(limit: $limit, filter: { date_geq: $since, date_leq: $until }, orderBy: [date_ASC]) {
        dimensions { date }
        ${TRAFFIC_FIELDS}
      }
    }
  }
}`;

/** The same per hour (httpRequests1hGroups), over [since, until). */
export const TRAFFIC_HOURS_QUERY = `query ZoneTrafficHours($zoneTag: string!, $since: Time!, $until: Time!, $limit: uint64!) {
  viewer {
    zones(filter: { zoneTag: $zoneTag }) {
      httpRequests1hGroups(limit: $limit, filter: { datetime_geq: $since, datetime_lt: $until }, orderBy: [datetime_ASC]) {
        dimensions { datetime }
        ${TRAFFIC_FIELDS}
      }
    }
  }
}`;

type TrafficGroupAnswer = {
  dimensions?: { date?: string; datetime?: string };
  sum?: Partial<Record<'requests' | 'pageViews' | 'threats' | 'bytes' | 'cachedRequests', number>> & {
    responseStatusMap?: { edgeResponseStatus?: number; requests?: number }[];
  };
  uniq?: { uniques?: number };
};

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

function trafficPeriodOf(g: TrafficGroupAnswer): CfTrafficPeriod | undefined {
  const at = g.dimensions?.date ?? g.dimensions?.datetime;
  if (typeof at !== 'string') return undefined;
  return {
    at,
    requests: count(g.sum?.requests),
    pageViews: count(g.sum?.pageViews),
    threats: count(g.sum?.threats),
    bytes: count(g.sum?.bytes),
    cachedRequests: count(g.sum?.cachedRequests),
    uniques: count(g.uniq?.uniques),
    statuses: (g.sum?.responseStatusMap ?? [])
      .filter((s) => typeof s.edgeResponseStatus === 'number')
      .map((s) => ({ status: s.edgeResponseStatus as number, requests: count(s.requests) })),
  };
}

const DNS_BATCH_KINDS = ['deletes', 'patches', 'puts', 'posts'] as const;
type DnsBatchKind = (typeof DNS_BATCH_KINDS)[number];

/** The fields of a rule the OpenAPI schema marks readOnly (rulesets_Rule): Cloudflare sets them, never the caller. */
export const RULE_READ_ONLY = new Set(['version', 'last_updated', 'categories']);

/** A later part of a split DNS change failed; the earlier parts were applied (and are described here). */
export class DnsBatchPartError extends UpstreamError {
  readonly part: number;
  readonly parts: number;
  /** Cloudflare's answers for the parts that were applied. */
  readonly applied: CfDnsBatchResult;
  /** What those parts sent. */
  readonly appliedInput: CfDnsBatch;
  constructor(
    override readonly cause: UpstreamError,
    o: { part: number; parts: number; applied: CfDnsBatchResult; appliedInput: CfDnsBatch },
  ) {
    super(PROVIDER, `${cause.message} (in part ${o.part} of ${o.parts})`, {
      code: cause.code,
      upstreamStatus: cause.upstreamStatus,
      upstreamCode: cause.upstreamCode,
      timeout: cause.status === 504,
    });
    this.part = o.part;
    this.parts = o.parts;
    this.applied = o.applied;
    this.appliedInput = o.appliedInput;
  }
}

export type CloudflareClient = ReturnType<typeof createCloudflareClient>;

export function createCloudflareClient(opts: CloudflareClientOptions) {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxRetries = opts.maxRetries ?? 2;
  const maxRetryWaitMs = opts.maxRetryWaitMs ?? 30_000;
  const fetchImpl = providerFetch('cloudflare', opts.fetchImpl ?? undiciFetch);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const budgetOpts = opts.budget ?? { requests: 1200, windowMs: 5 * 60_000 };
  const budget = (opts.budgetStore ?? createRequestBudget)(budgetOpts);
  const lanes = createBudgetLanes(budget, { sleep });
  const dnsBatchLimit = opts.dnsBatchLimit ?? 200;
  const accountIds = new Map<string, string>();

  /** Defence in depth: Cloudflare does not echo credentials, but nothing we raise may ever carry one. */
  const scrub = (message: string, creds: CloudflareCredentials): string => {
    let m = message;
    for (const secret of [creds.token, creds.globalAPIKey]) {
      if (secret && secret.length >= 4) m = m.split(secret).join('[redacted]');
    }
    return m;
  };

  const upstream = (
    creds: CloudflareCredentials,
    message: string,
    o: ConstructorParameters<typeof UpstreamError>[2] = {},
  ): UpstreamError => new UpstreamError(PROVIDER, scrub(message, creds), o);

  const errorFor = (creds: CloudflareCredentials, res: RawResponse, method: Method): UpstreamError => {
    const env = parseEnvelope(res.text);
    const first = env?.errors[0];
    const detail = env && env.errors.length > 0 ? env.errors.map(describeInfo).join('; ') : `HTTP ${res.status}`;
    const o = { upstreamStatus: res.status, upstreamCode: first?.code };
    if (res.status === 429) {
      // Cloudflare refuses a rate-limited call before acting on it, so a write was not applied and may be resent.
      const wait = retryAfterMs(res.headers);
      const after = wait !== undefined ? `; retry after ${Math.ceil(wait / 1000)} s` : '';
      const write = method === 'GET' ? '' : '; nothing was changed, so it can be retried';
      return upstream(creds, `Cloudflare: rate limited (${detail})${write}${after}`, {
        ...o,
        code: 'upstream_rate_limited',
      });
    }
    // Only Cloudflare's own JSON can say the credentials are wrong; an HTML 401/403 comes from the edge in front.
    if (env && env.errors.some((e) => AUTH_CODES.has(e.code))) {
      return upstream(
        creds,
        `Cloudflare: authentication failed (${detail}) — check the cloud's API token or email and global API key`,
        { ...o, code: 'upstream_auth_failed' },
      );
    }
    if (!env) {
      const title = htmlTitle(res.text);
      const page = title ? ` "${title}"` : '';
      if (res.status === 401 || res.status === 403) {
        return upstream(
          creds,
          `Cloudflare: HTTP ${res.status} from Cloudflare's edge, not the API (an HTML page${page}): the request was blocked before it reached the API, for example because the address it comes from (the proxy's) is blocked; the API token was not checked`,
          { ...o, code: 'upstream_blocked' },
        );
      }
      return upstream(creds, `Cloudflare: HTTP ${res.status} from the API (not a JSON answer)`, o);
    }
    if (res.status === 401 || res.status === 403) {
      return upstream(creds, `Cloudflare: permission denied (${detail})`, { ...o, code: 'upstream_forbidden' });
    }
    return upstream(creds, `Cloudflare: ${detail}`, o);
  };

  /** One HTTP exchange, moving to the next route when a connection cannot be made. */
  const send = async (
    creds: CloudflareCredentials,
    method: Method,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    resendable: boolean,
  ): Promise<RawResponse> => {
    let lastError: unknown;
    let timeouts = 0;
    for (let attempt = 0; ; attempt++) {
      const dispatcher = opts.dispatcherFor ? await opts.dispatcherFor(attempt) : undefined;
      if (attempt > 0 && dispatcher === undefined) {
        if (timeouts === attempt) {
          throw upstream(
            creds,
            `Cloudflare: timed out after ${timeoutMs} ms through each of ${attempt} route${attempt === 1 ? '' : 's'}`,
            { timeout: true },
          );
        }
        throw upstream(
          creds,
          `Cloudflare: could not connect (${describeConnectionError(lastError)}; tried ${attempt} route${attempt === 1 ? '' : 's'})`,
          { code: 'upstream_unreachable' },
        );
      }
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const res = await fetchImpl(url, { method, headers, body, signal, dispatcher });
        const text = await res.text();
        return { status: res.status, headers: res.headers, text };
      } catch (err) {
        if (signal.aborted) {
          // A proxy that took the request and never answered: an idempotent call may go through the next one.
          if (dispatcher !== undefined && resendable) {
            lastError = err;
            timeouts++;
            continue;
          }
          throw upstream(creds, `Cloudflare: timed out after ${timeoutMs} ms`, { timeout: true });
        }
        const kind = connectionFailureKind(err);
        const canMove = opts.dispatcherFor && (kind === 'pre-send' || (kind === 'mid-flight' && resendable));
        if (!canMove) {
          throw upstream(creds, `Cloudflare: could not connect (${describeConnectionError(err)})`, {
            code: 'upstream_unreachable',
          });
        }
        lastError = err;
      }
    }
  };

  /**
   * One call within the credentials' budget: a slot per attempt, retries of transient answers (5xx, 429) for
   * calls that may be resent. Returns the last answer, whatever its status.
   */
  const exchange = async (
    creds: CloudflareCredentials,
    method: Method,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
    resendable: boolean,
  ): Promise<RawResponse> => {
    const key = credentialKey(creds);
    const budgetCtx = opts.budgetContext?.();
    for (let retry = 0; ; retry++) {
      // Background work (a fleet job) waits in its account's line for its slot, within its bound, rather than failing.
      const slot = await lanes.take(key, budgetCtx);
      if (!slot.ok) {
        const per = `${budgetOpts.requests} requests per ${Math.round(budgetOpts.windowMs / 1000)} s`;
        const what =
          slot.reason === 'owner_share'
            ? `your share of this account's request budget used up (${per}, shared with the other operators)`
            : slot.reason === 'background_share'
              ? `the background share of this account's request budget used up (${per}; the rest is kept for operators)`
              : `request budget for this account used up (${per})`;
        // Our own limit, not Cloudflare's answer: a 429 with Retry-After, like every other rate limit.
        const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
        throw new RateLimitedError(`Cloudflare: ${what}; try again in ${seconds} s`, seconds, 'upstream_rate_limited');
      }
      opts.onSent?.(key);
      const res = await send(creds, method, url, headers, payload, resendable);
      const transient = res.status === 429 || res.status >= 500;
      // Cloudflare refuses a rate-limited call before acting on it: background work retries its writes too.
      const retryable = resendable || (res.status === 429 && budgetCtx?.priority === 'background');
      if (transient && retryable && retry < maxRetries) {
        // Honour retry-after; otherwise back off 0.5 s, 1 s, 2 s … with jitter.
        const wait = retryAfterMs(res.headers) ?? Math.round(500 * 2 ** retry * (0.75 + Math.random() / 2));
        if (wait <= maxRetryWaitMs) {
          await sleep(wait);
          continue;
        }
      }
      return res;
    }
  };

  const call = async <T>(
    creds: CloudflareCredentials,
    method: Method,
    path: string,
    o: { query?: Query; body?: unknown } = {},
  ): Promise<CfEnvelope<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(creds) };
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const search = qs.toString();
    const url = `${baseUrl}${path}${search ? `?${search}` : ''}`;
    const res = await exchange(creds, method, url, headers, payload, IDEMPOTENT.has(method));
    if (res.status < 200 || res.status >= 300) throw errorFor(creds, res, method);
    const env = parseEnvelope(res.text);
    if (!env) {
      throw upstream(creds, `Cloudflare: unexpected answer (HTTP ${res.status}, not the API envelope)`, {
        upstreamStatus: res.status,
      });
    }
    if (!env.success) throw errorFor(creds, res, method);
    return env as CfEnvelope<T>;
  };

  /**
   * A query of the GraphQL Analytics API (POST /graphql). A query only reads, so it may be resent like a GET.
   * Its refusals come as GraphQL `errors` (often in a 200 answer); each becomes an UpstreamError naming Cloudflare.
   */
  const graphql = async <T>(creds: CloudflareCredentials, query: string, variables: Record<string, unknown>) => {
    const headers = { accept: 'application/json', 'content-type': 'application/json', ...authHeaders(creds) };
    const res = await exchange(
      creds,
      'POST',
      `${baseUrl}/graphql`,
      headers,
      JSON.stringify({ query, variables }),
      true,
    );
    const answer = parseGraphqlAnswer(res.text);
    const errors = answer?.errors ?? [];
    if (errors.length > 0) {
      const detail = errors.map(describeGraphqlError).join('; ');
      throw upstream(creds, `Cloudflare analytics refused the query: ${detail}`, {
        upstreamStatus: res.status,
        code: 'upstream_refused',
      });
    }
    if (res.status < 200 || res.status >= 300) throw errorFor(creds, res, 'POST');
    if (!answer || answer.data === null || answer.data === undefined) {
      throw upstream(creds, `Cloudflare analytics: unexpected answer (HTTP ${res.status}, no data)`, {
        upstreamStatus: res.status,
      });
    }
    return answer.data as T;
  };

  /** Page-number pagination: follows total_pages when given, else stops at the first short page. */
  const all = async <T>(creds: CloudflareCredentials, path: string, query: Query, perPage: number): Promise<T[]> => {
    const out: T[] = [];
    for (let page = 1; page <= 10_000; page++) {
      const env = await call<T[]>(creds, 'GET', path, { query: { ...query, page, per_page: perPage } });
      const items = Array.isArray(env.result) ? env.result : [];
      out.push(...items);
      const totalPages = env.result_info?.total_pages;
      if (totalPages !== undefined ? page >= totalPages : items.length < perPage) break;
      if (items.length === 0) break;
    }
    return out;
  };

  const zonePath = (zoneId: string) => `/zones/${encodeURIComponent(zoneId)}`;

  const client = {
    async listAccounts(creds: CloudflareCredentials): Promise<CfAccount[]> {
      return all<CfAccount>(creds, '/accounts', {}, 50);
    },

    /** The configured account id, else the only account the credentials see (cached per credentials). */
    async getAccountId(creds: CloudflareCredentials): Promise<string> {
      if (creds.accountId) return creds.accountId;
      const key = credentialKey(creds);
      const cached = accountIds.get(key);
      if (cached) return cached;
      let accounts: CfAccount[];
      try {
        accounts = await client.listAccounts(creds);
      } catch (err) {
        if (err instanceof UpstreamError && err.upstreamCode === 1001) {
          throw upstream(
            creds,
            'Cloudflare: this API token belongs to an account and cannot list accounts (1001); set the account id on the cloud',
            { upstreamStatus: err.upstreamStatus, upstreamCode: 1001 },
          );
        }
        throw err;
      }
      const [only, ...rest] = accounts;
      if (!only) throw upstream(creds, 'Cloudflare: the credentials give access to no account');
      // Picking one of several accounts silently could create zones in the wrong one.
      if (rest.length > 0) {
        throw upstream(
          creds,
          `Cloudflare: the credentials give access to ${accounts.length} accounts; set the account id on the cloud`,
        );
      }
      accountIds.set(key, only.id);
      return only.id;
    },

    async listZones(
      creds: CloudflareCredentials,
      filter: { name?: string; status?: CfZone['status']; accountId?: string } = {},
    ): Promise<CfZone[]> {
      const accountId = filter.accountId ?? creds.accountId ?? undefined;
      return all<CfZone>(creds, '/zones', { name: filter.name, status: filter.status, 'account.id': accountId }, 50);
    },

    /** One page of the account's zones, names containing `search` (Cloudflare's `contains:` operator). */
    async listZonesPage(
      creds: CloudflareCredentials,
      q: { search?: string; page: number; perPage: number; accountId?: string },
    ): Promise<{ zones: CfZone[]; totalCount: number }> {
      const search = q.search?.trim().toLowerCase();
      const env = await call<CfZone[]>(creds, 'GET', '/zones', {
        query: {
          name: search ? `contains:${search}` : undefined,
          'account.id': q.accountId ?? creds.accountId ?? undefined,
          order: 'name',
          page: q.page,
          per_page: q.perPage,
        },
      });
      const zones = Array.isArray(env.result) ? env.result : [];
      const totalCount = env.result_info?.total_count ?? (q.page - 1) * q.perPage + zones.length;
      return { zones, totalCount };
    },

    async findZoneByName(creds: CloudflareCredentials, name: string): Promise<CfZone | null> {
      const wanted = name.trim().toLowerCase();
      const env = await call<CfZone[]>(creds, 'GET', '/zones', {
        query: { name: wanted, 'account.id': creds.accountId ?? undefined, per_page: 5 },
      });
      return env.result.find((z) => z.name.toLowerCase() === wanted) ?? null;
    },

    async createZone(creds: CloudflareCredentials, name: string): Promise<CfZone> {
      const accountId = await client.getAccountId(creds);
      const env = await call<CfZone>(creds, 'POST', '/zones', {
        body: { name: name.trim().toLowerCase(), account: { id: accountId }, type: 'full' },
      });
      return env.result;
    },

    async getZone(creds: CloudflareCredentials, zoneId: string): Promise<CfZone> {
      return (await call<CfZone>(creds, 'GET', zonePath(zoneId))).result;
    },

    async deleteZone(creds: CloudflareCredentials, zoneId: string): Promise<{ id: string }> {
      return (await call<{ id: string }>(creds, 'DELETE', zonePath(zoneId))).result;
    },

    async getSetting<S extends CfSettingId>(
      creds: CloudflareCredentials,
      zoneId: string,
      setting: S,
    ): Promise<CfSetting<S>> {
      return (await call<CfSetting<S>>(creds, 'GET', `${zonePath(zoneId)}/settings/${setting}`)).result;
    },

    async setSetting<S extends CfSettingId>(
      creds: CloudflareCredentials,
      zoneId: string,
      setting: S,
      value: CfSettingValue<S>,
    ): Promise<CfSetting<S>> {
      const path = `${zonePath(zoneId)}/settings/${setting}`;
      return (await call<CfSetting<S>>(creds, 'PATCH', path, { body: { value } })).result;
    },

    /** Every record of the zone, all pages. */
    async listDnsRecords(
      creds: CloudflareCredentials,
      zoneId: string,
      filter: { type?: string; name?: string } = {},
    ): Promise<CfDnsRecord[]> {
      const list = await all<CfDnsRecord>(
        creds,
        `${zonePath(zoneId)}/dns_records`,
        { type: filter.type, name: filter.name },
        100,
      );
      return list.map(fromRecordAnswer);
    },

    async getDnsRecord(creds: CloudflareCredentials, zoneId: string, recordId: string): Promise<CfDnsRecord> {
      const path = `${zonePath(zoneId)}/dns_records/${encodeURIComponent(recordId)}`;
      return fromRecordAnswer((await call<CfDnsRecord>(creds, 'GET', path)).result);
    },

    async createDnsRecord(
      creds: CloudflareCredentials,
      zoneId: string,
      record: CfDnsRecordInput,
    ): Promise<CfDnsRecord> {
      const path = `${zonePath(zoneId)}/dns_records`;
      return fromRecordAnswer((await call<CfDnsRecord>(creds, 'POST', path, { body: toRecordBody(record) })).result);
    },

    async patchDnsRecord(
      creds: CloudflareCredentials,
      zoneId: string,
      recordId: string,
      fields: Partial<CfDnsRecordInput>,
    ): Promise<CfDnsRecord> {
      const path = `${zonePath(zoneId)}/dns_records/${encodeURIComponent(recordId)}`;
      return fromRecordAnswer((await call<CfDnsRecord>(creds, 'PATCH', path, { body: toRecordBody(fields) })).result);
    },

    async putDnsRecord(
      creds: CloudflareCredentials,
      zoneId: string,
      recordId: string,
      record: CfDnsRecordInput,
    ): Promise<CfDnsRecord> {
      const path = `${zonePath(zoneId)}/dns_records/${encodeURIComponent(recordId)}`;
      return fromRecordAnswer((await call<CfDnsRecord>(creds, 'PUT', path, { body: toRecordBody(record) })).result);
    },

    async deleteDnsRecord(creds: CloudflareCredentials, zoneId: string, recordId: string): Promise<{ id: string }> {
      const path = `${zonePath(zoneId)}/dns_records/${encodeURIComponent(recordId)}`;
      return (await call<{ id: string }>(creds, 'DELETE', path)).result;
    },

    /**
     * A change set in all-or-nothing batches (deletes → patches → puts → posts) of at most `limit` records, the
     * zone plan's (see batchLimitFor). Each part is atomic on its own; when a later part fails, the error is a
     * DnsBatchPartError that carries what the earlier parts applied, so the caller can undo it. An empty change
     * set sends nothing.
     */
    async batchDns(
      creds: CloudflareCredentials,
      zoneId: string,
      batch: CfDnsBatch,
      o: { limit?: number } = {},
    ): Promise<CfDnsBatchResult> {
      const limit = Math.max(1, Math.floor(o.limit ?? dnsBatchLimit));
      const ops = DNS_BATCH_KINDS.flatMap((kind) => (batch[kind] ?? []).map((item) => ({ kind, item })));
      const chunks: (typeof ops)[] = [];
      for (let i = 0; i < ops.length; i += limit) chunks.push(ops.slice(i, i + limit));
      const result: CfDnsBatchResult = { deletes: [], patches: [], puts: [], posts: [], batches: chunks.length };
      for (const [index, chunk] of chunks.entries()) {
        const body: Partial<Record<DnsBatchKind, unknown[]>> = {};
        for (const { kind, item } of chunk) (body[kind] ??= []).push(kind === 'deletes' ? item : toRecordBody(item));
        try {
          const env = await call<Partial<Record<DnsBatchKind, CfDnsRecord[]>>>(
            creds,
            'POST',
            `${zonePath(zoneId)}/dns_records/batch`,
            { body },
          );
          for (const kind of DNS_BATCH_KINDS) result[kind].push(...(env.result?.[kind] ?? []).map(fromRecordAnswer));
        } catch (err) {
          if (chunks.length === 1 || !(err instanceof UpstreamError)) throw err;
          const sent = chunks.slice(0, index).flat();
          const appliedInput: CfDnsBatch = {};
          for (const { kind, item } of sent) (appliedInput[kind] ??= [] as never[]).push(item as never);
          throw new DnsBatchPartError(err, { part: index + 1, parts: chunks.length, applied: result, appliedInput });
        }
      }
      return result;
    },

    /** Records one DNS batch may hold in this zone: 200 on Free, 3,500 on paid plans (cloudflare.md §11). */
    batchLimitFor(zone: Pick<CfZone, 'plan'>): number {
      const plan = `${zone.plan?.legacy_id ?? ''} ${zone.plan?.name ?? ''}`.toLowerCase();
      if (/\b(pro|business|enterprise)\b/.test(plan)) return 3_500;
      return 200;
    },

    /** The phase's entry-point ruleset, or null when none was created yet (404 with 10003). */
    async getEntrypointRuleset(
      creds: CloudflareCredentials,
      zoneId: string,
      phase: CfRulesetPhase,
    ): Promise<CfRuleset | null> {
      try {
        return (await call<CfRuleset>(creds, 'GET', `${zonePath(zoneId)}/rulesets/phases/${phase}/entrypoint`)).result;
      } catch (err) {
        // A 404 about the zone itself (7003, could not route) is an error, not an empty phase.
        const missing =
          err instanceof UpstreamError &&
          (err.upstreamCode === 10003 || (err.upstreamStatus === 404 && err.upstreamCode !== 7003));
        if (missing) return null;
        throw err;
      }
    },

    /** Replaces the phase's whole rule list (rules left out are deleted); creates the entry point when absent. */
    async putEntrypointRuleset(
      creds: CloudflareCredentials,
      zoneId: string,
      phase: CfRulesetPhase,
      rules: CfRuleInput[],
    ): Promise<CfRuleset> {
      // Only the read-only fields of a fetched rule are dropped: everything else (exposed_credential_check,
      // ratelimit, fields newer than this code) goes back exactly as it came.
      const clean = rules.map((r) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(r)) if (!RULE_READ_ONLY.has(k) && v !== undefined) out[k] = v;
        return out as CfRuleInput;
      });
      const path = `${zonePath(zoneId)}/rulesets/phases/${phase}/entrypoint`;
      return (await call<CfRuleset>(creds, 'PUT', path, { body: { rules: clean } })).result;
    },

    async listRulesets(creds: CloudflareCredentials, zoneId: string): Promise<CfRulesetSummary[]> {
      return (await call<CfRulesetSummary[]>(creds, 'GET', `${zonePath(zoneId)}/rulesets`)).result;
    },

    async purgeEverything(creds: CloudflareCredentials, zoneId: string): Promise<{ id: string }> {
      const env = await call<{ id: string }>(creds, 'POST', `${zonePath(zoneId)}/purge_cache`, {
        body: { purge_everything: true },
      });
      return env.result;
    },

    /**
     * The zone's HTTP traffic per day (UTC) from `since` to `until` inclusive (YYYY-MM-DD), one GraphQL query.
     * Days without traffic are absent, as Cloudflare leaves them out.
     */
    async zoneTrafficDays(
      creds: CloudflareCredentials,
      zoneId: string,
      range: { since: string; until: string },
    ): Promise<CfTrafficPeriod[]> {
      const data = await graphql<{ viewer?: { zones?: { httpRequests1dGroups?: TrafficGroupAnswer[] }[] } }>(
        creds,
        TRAFFIC_DAYS_QUERY,
        { zoneTag: zoneId, since: range.since, until: range.until, limit: 1000 },
      );
      const groups = data.viewer?.zones?.[0]?.httpRequests1dGroups ?? [];
      return groups.flatMap((g) => trafficPeriodOf(g) ?? []);
    },

    /** The same per hour over [since, until) (RFC 3339 times). */
    async zoneTrafficHours(
      creds: CloudflareCredentials,
      zoneId: string,
      range: { since: string; until: string },
    ): Promise<CfTrafficPeriod[]> {
      const data = await graphql<{ viewer?: { zones?: { httpRequests1hGroups?: TrafficGroupAnswer[] }[] } }>(
        creds,
        TRAFFIC_HOURS_QUERY,
        { zoneTag: zoneId, since: range.since, until: range.until, limit: 1000 },
      );
      const groups = data.viewer?.zones?.[0]?.httpRequests1hGroups ?? [];
      return groups.flatMap((g) => trafficPeriodOf(g) ?? []);
    },

    /** Requests left in these credentials' current budget window (Prometheus gauge). */
    async budgetLeft(creds: CloudflareCredentials): Promise<number> {
      return budget.left(credentialKey(creds));
    },
  };
  return client;
}

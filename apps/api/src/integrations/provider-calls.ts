import { fetch as undiciFetch } from 'undici';
import { Counter, Histogram, Registry } from 'prom-client';

/**
 * The one place every provider HTTP call passes through: each call is counted (provider, outcome, status), timed,
 * and logged once at info with the provider, the operation, the status and the time. Never a URL's query,
 * a header or a body: credentials travel there (Namecheap's ApiKey in the query, tokens in headers).
 */
export type ProviderName =
  | 'cloudflare'
  | 'namecheap'
  | 'directadmin'
  | 'ispmanager'
  | 'yandex-webmaster'
  | 'google-search'
  | 'indexnow'
  | 'proxy'
  | 'telegram'
  | 'webhook';
type Logger = { info(obj: object, msg?: string): void };
type Fetch = typeof undiciFetch;

/** Process-wide: the calls of every client and container in this process (scraped with the app's metrics). */
export const providerRegistry = new Registry();
const calls = new Counter({
  name: 'fleetdesk_provider_calls_total',
  help: 'Provider calls by provider, outcome (ok, http_error, network_error, timeout) and HTTP status',
  labelNames: ['provider', 'outcome', 'status'] as const,
  registers: [providerRegistry],
});
const seconds = new Histogram({
  name: 'fleetdesk_provider_call_duration_seconds',
  help: 'Provider call latency by provider and outcome',
  labelNames: ['provider', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [providerRegistry],
});

let logger: Logger | null = null;
/** The logger the calls go to (the API's, or the worker's); until set, calls are counted but not logged. */
export function setProviderCallLogger(log: Logger | null) {
  logger = log;
}

const ID_SEGMENT = /^(?:[0-9a-f]{16,}|[0-9a-f-]{36}|\d+)$/i;

/**
 * The operation of a call, safe to log: the method and the path with ids shown as :id, plus for RPC-style
 * providers the command or function name (never any other query parameter).
 */
export function operationOf(provider: ProviderName, method: string, rawUrl: string, body?: unknown): string {
  let u: URL;
  try {
    u = new URL(rawUrl);
  } catch {
    return method;
  }
  // A webhook's path may itself be its credential (as chat services' hook URLs are); Telegram's holds the token.
  if (provider === 'webhook') return `${method} ${u.host}`;
  const path = u.pathname
    .split('/')
    .map((s) => (ID_SEGMENT.test(s) ? ':id' : provider === 'telegram' && s.startsWith('bot') ? 'bot:token' : s))
    .join('/')
    .slice(0, 200);
  const param = provider === 'namecheap' ? 'Command' : provider === 'ispmanager' ? 'func' : null;
  // Their command travels in the query or in a form body; only that one parameter is read.
  const form = typeof body === 'string' && body.length <= 1_000_000 ? new URLSearchParams(body) : null;
  const command = param ? (u.searchParams.get(param) ?? form?.get(param) ?? null) : null;
  return `${method} ${path}${command ? ` ${command.slice(0, 80)}` : ''}`;
}

function outcomeOf(status: number | null, err: unknown): string {
  if (status !== null) return status < 400 ? 'ok' : 'http_error';
  const name = (err as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network_error';
}

/** Records one finished call (also for callers that do not use fetch, such as the proxy check). */
export function recordProviderCall(
  provider: ProviderName,
  operation: string,
  startedAt: number,
  status: number | null,
  err?: unknown,
) {
  const ms = Math.round(performance.now() - startedAt);
  const outcome = outcomeOf(status, err);
  calls.inc({ provider, outcome, status: status === null ? 'none' : String(status) });
  seconds.observe({ provider, outcome }, ms / 1000);
  logger?.info({ provider, operation, status, outcome, ms }, 'provider call');
}

/** A fetch for one provider's client: the same as undici's, observed. The operation may be named per call. */
export function providerFetch(provider: ProviderName, base: Fetch = undiciFetch): Fetch {
  const observed = async (input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as { url: string }).url;
    const operation = operationOf(provider, method, url, init?.body);
    const t0 = performance.now();
    try {
      const res = await base(input, init);
      recordProviderCall(provider, operation, t0, res.status);
      return res;
    } catch (err) {
      recordProviderCall(provider, operation, t0, null, err);
      throw err;
    }
  };
  return observed as Fetch;
}

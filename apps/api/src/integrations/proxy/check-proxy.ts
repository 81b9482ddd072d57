import { providerFetch } from '../provider-calls.ts';
import { proxyPortRefusal } from '../../lib/probe-ports.ts';
import { createProxyDispatcher, proxyAddress, type ProxyEndpoint } from './proxy-dispatcher.ts';

// Observed like every provider call (counted, timed, logged once).
const fetch = providerFetch('proxy');

export type ProxyCheckResult = { ok: boolean; latencyMs: number | null; error: string | null; checkedAt: Date };

export type ProxyCheckOptions = { timeoutMs?: number; rejectUnauthorized?: boolean };

type ErrorLike = { name?: string; code?: string; message?: string; cause?: unknown };

/** Walks err.cause links: undici wraps the socket error that names what really happened. */
function causes(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  for (let e = err; e && typeof e === 'object' && out.length < 6; e = (e as ErrorLike).cause) out.push(e as ErrorLike);
  return out;
}

const SYSTEM_CODE = /\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+|[A-Z_]*CERT[A-Z_]*|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+)\b/g;

function describeFailure(err: unknown, p: ProxyEndpoint, target: URL, timeoutMs: number): string {
  const chain = causes(err);
  const text = chain.map((e) => e.message ?? '').join(' | ');
  // The socks client reports socket errors in its message only, so codes are read from messages too.
  const codes = new Set([...chain.map((e) => e.code ?? ''), ...(text.match(SYSTEM_CODE) ?? [])]);
  const proxy = proxyAddress(p);

  if (chain.some((e) => e.name === 'TimeoutError') || codes.has('UND_ERR_CONNECT_TIMEOUT') || codes.has('ETIMEDOUT')) {
    return `Timed out after ${timeoutMs} ms`;
  }
  if (/\(407\)/.test(text)) return 'Proxy authentication failed (407)';
  if (/Socks5 Authentication failed/i.test(text))
    return 'Proxy authentication failed (the username or password was rejected)';
  if (/no accepted authentication type/i.test(text)) {
    return 'Proxy authentication failed (the proxy does not accept the offered login method)';
  }
  const tunnel = /Proxy response \((\d+)\)/.exec(text);
  if (tunnel) return `Proxy could not open a tunnel to ${target.host} (${tunnel[1]})`;
  const socksRejected = /Socks5 proxy rejected connection - (\w+)/.exec(text);
  if (socksRejected) return `Proxy could not reach ${target.host} (SOCKS5: ${socksRejected[1]})`;
  if (codes.has('ECONNREFUSED')) return `Proxy refused the connection (${proxy})`;
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return `Proxy host ${p.IPAddress} could not be resolved`;
  if (codes.has('EHOSTUNREACH') || codes.has('ENETUNREACH')) return `Proxy ${proxy} is unreachable`;
  const tls = [...codes].find((c) => /CERT|TLS|SSL/.test(c));
  if (tls) return `The TLS certificate was not accepted (${tls})`;
  // UND_ERR_PRX_CONN: an http proxy hung up before its CONNECT reply (proxy-dispatcher.ts); "Socket closed": the
  // socks client's word for a SOCKS5 proxy that did so during its handshake.
  if (
    ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_PRX_CONN', 'EPIPE'].some((c) => codes.has(c)) ||
    /Socket closed/.test(text)
  ) {
    return `Proxy ${proxy} closed the connection`;
  }
  const first = chain.find((e) => e.message && e.message !== 'fetch failed');
  return `Proxy check failed: ${first?.message ?? 'unknown error'}`;
}

/** Hides the password if any layer quoted it back, whether plain or percent-encoded. */
function scrub(message: string, p: ProxyEndpoint): string {
  let out = message;
  for (const secret of [p.password, p.password && encodeURIComponent(p.password)]) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}

/**
 * Fetches checkUrl through the proxy. ok when an answer arrives with a status below 500; 407 is reported as an
 * authentication failure. Never throws.
 */
export async function checkProxy(
  p: ProxyEndpoint,
  checkUrl: string,
  opts: ProxyCheckOptions = {},
): Promise<ProxyCheckResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const checkedAt = new Date();
  // Only the proxy's own port, and not one of another well-known service (decision 013).
  const refused = proxyPortRefusal(p.httpPort);
  if (refused) return { ok: false, latencyMs: null, error: refused, checkedAt };
  const target = new URL(checkUrl);
  const dispatcher = createProxyDispatcher(p, {
    connectTimeoutMs: timeoutMs,
    rejectUnauthorized: opts.rejectUnauthorized,
  });
  const started = performance.now();
  try {
    const res = await fetch(target, { dispatcher, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    const latencyMs = Math.round(performance.now() - started);
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 407)
      return { ok: false, latencyMs: null, error: 'Proxy authentication failed (407)', checkedAt };
    if (res.status >= 500) {
      return { ok: false, latencyMs, error: `The check URL answered ${res.status} through the proxy`, checkedAt };
    }
    return { ok: true, latencyMs, error: null, checkedAt };
  } catch (err) {
    return { ok: false, latencyMs: null, error: scrub(describeFailure(err, p, target, timeoutMs), p), checkedAt };
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
}

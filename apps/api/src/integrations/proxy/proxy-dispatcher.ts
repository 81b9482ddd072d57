import net from 'node:net';
import { socksDispatcher } from 'fetch-socks';
import { Pool, ProxyAgent, type Dispatcher } from 'undici';

export type ProxyEndpoint = {
  proxyType: 'http' | 'socks5';
  /** For http proxies: speak TLS to the proxy itself (an https:// proxy). Ignored for socks5. */
  isHttps: boolean;
  IPAddress: string;
  httpPort: number;
  username?: string | null;
  password?: string | null;
};

export type ProxyDispatcherOptions = {
  /**
   * Limit for the TCP (and TLS) connection to the proxy, the proxy's handshake (the HTTP CONNECT reply, the
   * SOCKS5 negotiation) and the TLS connection through it. Default 10 s.
   */
  connectTimeoutMs?: number;
  /** Verify TLS certificates of the proxy and of the target. Default true. */
  rejectUnauthorized?: boolean;
};

/** `host:port` of the proxy, IPv6 bracketed; safe to show (no credentials). */
export function proxyAddress(p: Pick<ProxyEndpoint, 'IPAddress' | 'httpPort'>): string {
  return `${net.isIPv6(p.IPAddress) ? `[${p.IPAddress}]` : p.IPAddress}:${p.httpPort}`;
}

/**
 * An undici dispatcher that sends every request through the proxy. Pass it to undici's own `fetch`
 * (Node's global fetch bundles another undici whose dispatchers are not interchangeable).
 */
export function createProxyDispatcher(p: ProxyEndpoint, opts: ProxyDispatcherOptions = {}): Dispatcher {
  const timeout = opts.connectTimeoutMs ?? 10_000;
  const rejectUnauthorized = opts.rejectUnauthorized ?? true;
  const username = p.username ?? '';
  const password = p.password ?? '';

  if (p.proxyType === 'socks5') {
    // ProxyAgent('socks5://user:pass@…') does not decode credentials, so they are passed explicitly.
    return socksDispatcher(
      {
        type: 5,
        host: p.IPAddress,
        port: p.httpPort,
        ...(username ? { userId: username, password } : {}),
      },
      { connect: { timeout, rejectUnauthorized } },
    );
  }

  return new ProxyAgent({
    uri: `${p.isHttps ? 'https' : 'http'}://${proxyAddress(p)}`,
    // A ready header instead of user:pass in the URI: no percent-encoding pitfalls, and the URI stays secret-free.
    ...(username ? { token: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` } : {}),
    proxyTls: { timeout, rejectUnauthorized },
    requestTls: { timeout, rejectUnauthorized },
    connect: { timeout },
    // The CONNECT request goes through this pool: without a headers timeout, a proxy that accepts the connection
    // and never replies would hold the call until the caller's own deadline, leaving no time for the next proxy.
    clientFactory: (origin, options) =>
      handshakeBounded(new Pool(origin, { ...options, headersTimeout: timeout }), timeout),
  });
}

/**
 * The pool's CONNECT fails with a headers timeout when the proxy never replies; it is reported as a connect
 * timeout, which callers know happened before the request itself was sent (so it is safe to try another route).
 */
function handshakeBounded(pool: Pool, timeout: number): Pool {
  const connect = pool.connect.bind(pool) as (o: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const bounded = async (o: Dispatcher.ConnectOptions) => {
    try {
      return await connect(o);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'UND_ERR_HEADERS_TIMEOUT') throw err;
      throw Object.assign(
        new Error(`Proxy handshake timed out after ${timeout} ms (no CONNECT reply)`, { cause: err }),
        {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        },
      );
    }
  };
  (pool as unknown as { connect: typeof bounded }).connect = bounded;
  return pool;
}

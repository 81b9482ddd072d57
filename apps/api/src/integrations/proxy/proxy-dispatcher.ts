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
    // Its failures are made final too (handshakeBounded), so a proxy that hangs up gets one CONNECT, not thousands.
    clientFactory: (origin, options) =>
      handshakeBounded(new Pool(origin, { ...options, headersTimeout: timeout }), timeout),
  });
}

/**
 * The codes undici's client takes for a connection lost by chance: a request that fails to connect with one of
 * them stays queued and the client connects again at once, with no limit and no delay (client.js `onError`).
 */
const RECONNECTED_ON = new Set(['UND_ERR_SOCKET', 'UND_ERR_INFO']);

/**
 * Makes the CONNECT handshake's failures final, so the request fails instead of being retried:
 * - A proxy that never replies fails the pool's CONNECT with a headers timeout; it is reported as a connect
 *   timeout, which callers know happened before the request itself was sent (so it is safe to try another route).
 * - A proxy that reads the CONNECT and hangs up fails it with `UND_ERR_SOCKET` ("other side closed"). Passed on
 *   as it is, the ProxyAgent's client keeps the request queued and connects again, each time sending a new
 *   CONNECT with the password: one 10 s check made 38,064 connections (issue 42; undici issue 3897, whose fix is
 *   not in 7.30.2). It is reported as `UND_ERR_PRX_CONN`, the code undici's own fix gives it, with the socket error
 *   as cause: the tunnel was never opened, so nothing was sent to the target either.
 */
function handshakeBounded(pool: Pool, timeout: number): Pool {
  const connect = pool.connect.bind(pool) as (o: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const bounded = async (o: Dispatcher.ConnectOptions) => {
    try {
      return await connect(o);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT') {
        throw Object.assign(
          new Error(`Proxy handshake timed out after ${timeout} ms (no CONNECT reply)`, { cause: err }),
          { code: 'UND_ERR_CONNECT_TIMEOUT' },
        );
      }
      if (typeof code === 'string' && RECONNECTED_ON.has(code)) {
        throw Object.assign(
          new Error('Proxy closed the connection before opening the tunnel (no CONNECT reply)', { cause: err }),
          { code: 'UND_ERR_PRX_CONN' },
        );
      }
      throw err;
    }
  };
  (pool as unknown as { connect: typeof bounded }).connect = bounded;
  return pool;
}

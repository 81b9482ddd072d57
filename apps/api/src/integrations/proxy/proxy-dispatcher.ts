import net from 'node:net';
import { socksDispatcher } from 'fetch-socks';
import { ProxyAgent, type Dispatcher } from 'undici';

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
  /** Limit for the TCP (and TLS) connection to the proxy and through it. Default 10 s. */
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
  });
}

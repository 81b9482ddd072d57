import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { fetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkProxy } from './check-proxy.ts';
import { createProxyDispatcher, proxyAddress, type ProxyEndpoint } from './proxy-dispatcher.ts';

const PASSWORD = 'p@ss:w/rd%20&';
let target: http.Server;
let checkUrl: string;
let proxies: ForwardProxy[] = [];

beforeAll(async () => {
  target = http.createServer((req, res) => {
    res.statusCode = req.url === '/broken' ? 503 : req.url === '/missing' ? 404 : 200;
    res.end('checked');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  checkUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));
afterEach(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
});

async function proxy(opts: Parameters<typeof startForwardProxy>[0]): Promise<ForwardProxy> {
  const p = await startForwardProxy(opts);
  proxies.push(p);
  return p;
}

const endpoint = (kind: 'http' | 'socks5', port: number, over: Partial<ProxyEndpoint> = {}): ProxyEndpoint => ({
  proxyType: kind,
  isHttps: false,
  IPAddress: '127.0.0.1',
  httpPort: port,
  username: null,
  password: null,
  ...over,
});

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.each(['http', 'socks5'] as const)('checkProxy through a %s proxy', (kind) => {
  it('succeeds without credentials and measures latency', async () => {
    const p = await proxy({ kind });
    const result = await checkProxy(endpoint(kind, p.port), checkUrl, { timeoutMs: 5_000 });
    expect(result).toMatchObject({ ok: true, error: null });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.checkedAt).toBeInstanceOf(Date);
    expect(p.requests).toBe(1);
  });

  it('succeeds with credentials that need encoding', async () => {
    const p = await proxy({ kind, username: 'fleet user', password: PASSWORD });
    const result = await checkProxy(endpoint(kind, p.port, { username: 'fleet user', password: PASSWORD }), checkUrl, {
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: true, error: null });
    expect(p.requests).toBe(1);
  });

  it('reports wrong or missing credentials without revealing the password', async () => {
    const p = await proxy({ kind, username: 'fleet', password: 'right' });
    const wrong = await checkProxy(endpoint(kind, p.port, { username: 'fleet', password: PASSWORD }), checkUrl);
    expect(wrong).toMatchObject({ ok: false, latencyMs: null });
    expect(wrong.error).toMatch(
      kind === 'http' ? /^Proxy authentication failed \(407\)$/ : /^Proxy authentication failed/,
    );
    expect(wrong.error).not.toContain(PASSWORD);
    expect(wrong.error).not.toContain(encodeURIComponent(PASSWORD));
    const none = await checkProxy(endpoint(kind, p.port), checkUrl);
    expect(none.error).toMatch(/^Proxy authentication failed/);
    expect(p.requests).toBe(0);
  });

  it('reports a dead proxy', async () => {
    const port = await closedPort();
    const result = await checkProxy(endpoint(kind, port, { username: 'u', password: PASSWORD }), checkUrl);
    expect(result).toMatchObject({
      ok: false,
      latencyMs: null,
      error: `Proxy refused the connection (127.0.0.1:${port})`,
    });
  });

  it('times out on a proxy that accepts and never answers', async () => {
    const silent = net.createServer(() => undefined);
    const sockets: net.Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      const result = await checkProxy(endpoint(kind, (silent.address() as AddressInfo).port), checkUrl, {
        timeoutMs: 300,
      });
      expect(result).toMatchObject({ ok: false, error: 'Timed out after 300 ms' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  // Issue 42: undici reconnected without limit when the CONNECT's connection was closed (thousands of connections,
  // each with the password, until the timeout).
  it('makes one attempt at a proxy that reads the request and hangs up', async () => {
    let connections = 0;
    let received = '';
    const hangsUp = net.createServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.once('data', (d) => {
        received += d.toString('latin1');
        s.destroy();
      });
    });
    await new Promise<void>((r) => hangsUp.listen(0, '127.0.0.1', r));
    const port = (hangsUp.address() as AddressInfo).port;
    try {
      for (const url of [checkUrl, `https://127.0.0.1:${await closedPort()}/`]) {
        connections = 0;
        const started = Date.now();
        const result = await checkProxy(endpoint(kind, port, { username: 'u', password: PASSWORD }), url, {
          timeoutMs: 3_000,
        });
        expect(connections, url).toBe(1);
        expect(result).toMatchObject({ ok: false, error: `Proxy 127.0.0.1:${port} closed the connection` });
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      if (kind === 'http') expect(received).toMatch(/^CONNECT 127\.0\.0\.1:\d+ HTTP\/1\.1\r\n/);
    } finally {
      await new Promise<void>((r) => hangsUp.close(() => r()));
    }
  });

  it('is ok below 500 and not ok from 500 on, and reports an unreachable target', async () => {
    const p = await proxy({ kind });
    expect((await checkProxy(endpoint(kind, p.port), `${checkUrl}missing`)).ok).toBe(true);
    const broken = await checkProxy(endpoint(kind, p.port), `${checkUrl}broken`);
    expect(broken).toMatchObject({ ok: false, error: 'The check URL answered 503 through the proxy' });
    const port = await closedPort();
    const dead = await checkProxy(endpoint(kind, p.port), `http://127.0.0.1:${port}/`);
    expect(dead.ok).toBe(false);
    expect(dead.error).toMatch(new RegExp(`^Proxy could not (open a tunnel to|reach) 127\\.0\\.0\\.1:${port}`));
  });

  it('sends requests made with the dispatcher through the proxy', async () => {
    const p = await proxy({ kind });
    const dispatcher = createProxyDispatcher(endpoint(kind, p.port));
    try {
      const res = await fetch(checkUrl, { dispatcher });
      expect(await res.text()).toBe('checked');
      expect(p.requests).toBe(1);
    } finally {
      await dispatcher.destroy();
    }
  });
});

describe('https proxies', () => {
  it('connect over TLS, verifying the certificate unless told not to', async () => {
    const p = await proxy({ kind: 'http', tls: true, username: 'u', password: PASSWORD });
    const ep = endpoint('http', p.port, { isHttps: true, username: 'u', password: PASSWORD });
    expect(await checkProxy(ep, checkUrl, { rejectUnauthorized: false })).toMatchObject({ ok: true });
    const strict = await checkProxy(ep, checkUrl);
    expect(strict.ok).toBe(false);
    expect(strict.error).toMatch(/^The TLS certificate was not accepted \(\w+\)$/);
  });
});

describe('proxyAddress and createProxyDispatcher', () => {
  it('brackets IPv6 addresses', async () => {
    expect(proxyAddress({ IPAddress: '::1', httpPort: 3128 })).toBe('[::1]:3128');
    expect(proxyAddress({ IPAddress: '127.0.0.1', httpPort: 3128 })).toBe('127.0.0.1:3128');
    // ProxyAgent rejects an unbracketed IPv6 URI, so building one proves the bracketing reaches it.
    const d = createProxyDispatcher(endpoint('http', 3128, { IPAddress: '::1', isHttps: true }));
    await d.destroy();
  });
});

import { createServer, type Server, type Socket } from 'node:net';
import { ProxyAgent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { UpstreamError } from '../../http/errors.ts';
import { createProxyDispatcher, type ProxyEndpoint } from '../proxy/index.ts';
import { createCloudflareClient } from './cloudflare-client.ts';

const TOKEN = 'tok_proxy_0123456789abcdefghijklmnopqrstuv';
const PROXY_PASSWORD = 'pr0xy-s3cret';
const creds = { token: TOKEN };

let sim: CloudflareSim;
let httpProxy: ForwardProxy;
let socksProxy: ForwardProxy;
let deadPort: number;
let dropper: Server;
let blackHole: Server;
let stuckTunnel: Server;
let hangsUp: Server;
let hangUps = 0;
const held: Socket[] = [];
const dispatchers: Dispatcher[] = [];

function endpoint(p: Partial<ProxyEndpoint> & { httpPort: number }): ProxyEndpoint {
  return { proxyType: 'http', isHttps: false, IPAddress: '127.0.0.1', username: 'ops', password: PROXY_PASSWORD, ...p };
}

/** A client whose routes are the given proxies, tried in order. */
function clientThrough(proxies: ProxyEndpoint[]) {
  const made = proxies.map((p) => createProxyDispatcher(p, { connectTimeoutMs: 2_000 }));
  dispatchers.push(...made);
  const tried: number[] = [];
  const client = createCloudflareClient({
    baseUrl: sim.url,
    timeoutMs: 5_000,
    dispatcherFor: (attempt) => {
      tried.push(attempt);
      return made[attempt];
    },
  });
  return { client, tried };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  sim = await startCloudflareSim();
  sim.addAccount({ email: 'proxy@example.com', token: TOKEN });
  httpProxy = await startForwardProxy({ kind: 'http', username: 'ops', password: PROXY_PASSWORD });
  socksProxy = await startForwardProxy({ kind: 'socks5', username: 'ops', password: PROXY_PASSWORD });
  deadPort = await freePort();
  // A proxy that opens the tunnel, then drops the connection as soon as the request arrives through it:
  // the request may have reached the server, so only idempotent calls may be sent again elsewhere.
  dropper = createServer((socket: Socket) => {
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.once('data', () => socket.destroy());
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', () => resolve()));
  // A "black hole": accepts the connection, reads the handshake (CONNECT or SOCKS greeting) and never answers.
  blackHole = createServer((socket: Socket) => {
    held.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
  // Opens the tunnel, then swallows the request sent through it: the call hangs after it was sent.
  stuckTunnel = createServer((socket: Socket) => {
    held.push(socket);
    socket.once('data', () => socket.write('HTTP/1.1 200 Connection Established\r\n\r\n'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => stuckTunnel.listen(0, '127.0.0.1', () => resolve()));
  // Reads the handshake (CONNECT or SOCKS greeting) and hangs up, counting the connections it gets.
  hangsUp = createServer((socket: Socket) => {
    hangUps++;
    socket.once('data', () => socket.destroy());
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hangsUp.listen(0, '127.0.0.1', () => resolve()));
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.close().catch(() => undefined)));
  await Promise.all([sim?.close(), httpProxy?.close(), socksProxy?.close()]);
  await new Promise((resolve) => dropper?.close(resolve));
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => blackHole?.close(resolve));
  await new Promise((resolve) => stuckTunnel?.close(resolve));
  await new Promise((resolve) => hangsUp?.close(resolve));
});

describe('Cloudflare client through proxies', () => {
  it('goes through an http proxy with credentials', async () => {
    const before = httpProxy.requests;
    const { client, tried } = clientThrough([endpoint({ httpPort: httpProxy.port })]);
    expect(await client.listAccounts(creds)).toHaveLength(1);
    expect(httpProxy.requests).toBeGreaterThan(before);
    expect(tried).toEqual([0]);
  });

  it('goes through a socks5 proxy with credentials', async () => {
    const before = socksProxy.requests;
    const { client } = clientThrough([endpoint({ proxyType: 'socks5', httpPort: socksProxy.port })]);
    expect(await client.listZones(creds)).toEqual([]);
    expect(socksProxy.requests).toBeGreaterThan(before);
  });

  it('moves on when the first proxy is dead', async () => {
    const before = socksProxy.requests;
    const { client, tried } = clientThrough([
      endpoint({ httpPort: deadPort }),
      endpoint({ proxyType: 'socks5', httpPort: socksProxy.port }),
    ]);
    expect(await client.listAccounts(creds)).toHaveLength(1);
    expect(tried).toEqual([0, 1]);
    expect(socksProxy.requests).toBe(before + 1);
  });

  it('moves on when the first proxy refuses its credentials (407), and sends a POST once', async () => {
    const { client, tried } = clientThrough([
      endpoint({ httpPort: httpProxy.port, password: 'wrong' }),
      endpoint({ httpPort: httpProxy.port }),
    ]);
    const posts = () => sim.state.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const zone = await client.createZone({ ...creds, accountId: [...sim.state.accounts.keys()][0] }, 'via-proxy.com');
    expect(zone.name).toBe('via-proxy.com');
    expect(tried).toEqual([0, 1]);
    expect(posts()).toBe(before + 1);
  });

  it('fails clearly, without proxy credentials in the message, when every proxy is dead', async () => {
    const { client, tried } = clientThrough([
      endpoint({ httpPort: deadPort }),
      endpoint({ proxyType: 'socks5', httpPort: deadPort }),
    ]);
    const err = await client.listAccounts(creds).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    const e = err as UpstreamError;
    expect(e.message).toMatch(/^Cloudflare: could not connect \(.+; tried 2 routes\)$/);
    expect(e.code).toBe('upstream_unreachable');
    expect(e.message).not.toContain(PROXY_PASSWORD);
    expect(e.message).not.toContain(TOKEN);
    expect(tried).toEqual([0, 1, 2]);
  });

  it('after a connection lost mid-request, moves a GET to the next proxy but never resends a POST', async () => {
    const dropperPort = (dropper.address() as { port: number }).port;
    const routes = () => {
      const made = [
        new ProxyAgent({ uri: `http://127.0.0.1:${dropperPort}` }),
        createProxyDispatcher(endpoint({ httpPort: httpProxy.port })),
      ];
      dispatchers.push(...made);
      return made;
    };
    const getRoutes = routes();
    const get = createCloudflareClient({ baseUrl: sim.url, timeoutMs: 5_000, dispatcherFor: (a) => getRoutes[a] });
    expect(await get.listAccounts(creds)).toHaveLength(1);

    const postRoutes = routes();
    const tried: number[] = [];
    const post = createCloudflareClient({
      baseUrl: sim.url,
      timeoutMs: 5_000,
      dispatcherFor: (a) => {
        tried.push(a);
        return postRoutes[a];
      },
    });
    const accountId = [...sim.state.accounts.keys()][0];
    const err = await post.createZone({ ...creds, accountId }, 'dropped.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).message).toMatch(/^Cloudflare: could not connect \(/);
    expect(tried).toEqual([0]);
  });

  // Issue 42: undici reconnected without limit to a proxy that hung up before its CONNECT reply, sending the
  // password each time, until the call's timeout; and a POST then could not move on (it might have been sent).
  it.each(['http', 'socks5'] as const)(
    'a %s proxy that hangs up during the handshake gets one connection, and even a POST moves on',
    async (proxyType) => {
      const posts = () => sim.state.requests.filter((r) => r.method === 'POST').length;
      const before = posts();
      hangUps = 0;
      const { client, tried } = clientThrough([
        endpoint({ proxyType, httpPort: (hangsUp.address() as { port: number }).port }),
        endpoint({ httpPort: httpProxy.port }),
      ]);
      const started = Date.now();
      const accountId = [...sim.state.accounts.keys()][0];
      const zone = await client.createZone({ ...creds, accountId }, `hang-up-${proxyType}.com`);
      expect(zone.status).toBe('pending');
      expect(hangUps).toBe(1);
      expect(tried).toEqual([0, 1]);
      expect(posts()).toBe(before + 1);
      expect(Date.now() - started).toBeLessThan(2_000);
    },
  );

  it('goes direct when there is no proxy for the first attempt', async () => {
    const { client, tried } = clientThrough([]);
    expect(await client.listAccounts(creds)).toHaveLength(1);
    expect(tried).toEqual([0]);
  });

  describe('a proxy that accepts the connection and never answers', () => {
    const port = (server: Server) => (server.address() as { port: number }).port;

    it.each(['http', 'socks5'] as const)(
      'a %s black hole: the handshake times out and even a POST moves on to the next proxy',
      async (proxyType) => {
        const posts = () => sim.state.requests.filter((r) => r.method === 'POST').length;
        const before = posts();
        const { client, tried } = clientThrough([
          endpoint({ proxyType, httpPort: port(blackHole) }),
          endpoint({ httpPort: httpProxy.port }),
        ]);
        const started = Date.now();
        const accountId = [...sim.state.accounts.keys()][0];
        const zone = await client.createZone({ ...creds, accountId }, `black-hole-${proxyType}.com`);
        expect(zone.status).toBe('pending');
        expect(tried).toEqual([0, 1]);
        expect(posts()).toBe(before + 1);
        // The 2 s handshake limit, not the 5 s call timeout, decided when to move on.
        expect(Date.now() - started).toBeLessThan(4_900);
      },
    );

    it('a GET that hangs after it was sent moves on; a POST does not (it may have been applied)', async () => {
      const short = (routes: ProxyEndpoint[]) => {
        const made = routes.map((p) => createProxyDispatcher(p, { connectTimeoutMs: 2_000 }));
        dispatchers.push(...made);
        const tried: number[] = [];
        const client = createCloudflareClient({
          baseUrl: sim.url,
          timeoutMs: 600,
          dispatcherFor: (a) => {
            tried.push(a);
            return made[a];
          },
        });
        return { client, tried };
      };
      const g = short([endpoint({ httpPort: port(stuckTunnel) }), endpoint({ httpPort: httpProxy.port })]);
      expect(await g.client.listAccounts(creds)).toHaveLength(1);
      expect(g.tried).toEqual([0, 1]);

      const p = short([endpoint({ httpPort: port(stuckTunnel) }), endpoint({ httpPort: httpProxy.port })]);
      const accountId = [...sim.state.accounts.keys()][0];
      const err = await p.client.createZone({ ...creds, accountId }, 'stuck-post.com').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).message).toBe('Cloudflare: timed out after 600 ms');
      expect(p.tried).toEqual([0]);

      const all = short([endpoint({ httpPort: port(stuckTunnel) }), endpoint({ httpPort: port(stuckTunnel) })]);
      const both = await all.client.listZones(creds).catch((e: unknown) => e);
      expect((both as UpstreamError).message).toBe('Cloudflare: timed out after 600 ms through each of 2 routes');
      expect((both as UpstreamError).status).toBe(504);
    });
  });
});

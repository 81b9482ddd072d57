import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { loopbackTarget } from './loopback.ts';
import { generateSelfSignedCert } from './self-signed-cert.ts';
import { handleSocks5 } from './socks5-server.ts';

export type ForwardProxyOptions = {
  kind: 'http' | 'socks5';
  username?: string;
  password?: string;
  /** Listen over TLS with a self-signed certificate generated at start (see `cert`). */
  tls?: boolean;
  /**
   * Names the proxy may reach besides loopback addresses (the demo's and tests' sites): a name to a loopback
   * address. What it returns passes the loopback rule too, so nothing ever leaves the machine.
   */
  resolveName?: (host: string) => string | undefined;
};

export type ForwardProxy = {
  port: number;
  /** `http://`, `https://` or `socks5://127.0.0.1:<port>`, without credentials. */
  url: string;
  /** Tunnelled or forwarded connections so far (only those that passed authentication and the loopback rule). */
  readonly requests: number;
  /** The PEM certificate when `tls` is set, for clients that want to trust it instead of skipping verification. */
  cert: string | null;
  close(): Promise<void>;
};

const REALM = 'Basic realm="fleetdesk test proxy"';

function splitHostPort(authority: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority);
  if (!m?.[1] || !m[2]) return null;
  return { host: m[1], port: Number(m[2]) };
}

/**
 * A forward proxy on 127.0.0.1 for tests: HTTP (CONNECT tunnels and absolute-URI forwarding) or SOCKS5.
 * It forwards only to loopback addresses and refuses everything else.
 */
export async function startForwardProxy(opts: ForwardProxyOptions): Promise<ForwardProxy> {
  const sockets = new Set<Duplex>();
  let requests = 0;
  const track = (s: Duplex) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const tunnel = (client: Duplex, upstream: net.Socket) => {
    requests++;
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };

  const credentialsOk = (header: string | undefined): boolean => {
    if (opts.username === undefined) return true;
    const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
    if (!m?.[1]) return false;
    return Buffer.from(m[1], 'base64').toString('utf8') === `${opts.username}:${opts.password ?? ''}`;
  };

  const keyPair = opts.tls ? generateSelfSignedCert() : null;
  const targetOf = (host: string) => loopbackTarget(opts.resolveName?.(host.toLowerCase()) ?? host);
  let server: net.Server;

  if (opts.kind === 'socks5') {
    const onConnection = (socket: net.Socket) => {
      track(socket);
      handleSocks5(socket, {
        username: opts.username,
        password: opts.password,
        onTunnel: tunnel,
        targetOf,
      }).catch(() => socket.destroy());
    };
    server = keyPair ? tls.createServer(keyPair, onConnection) : net.createServer(onConnection);
  } else {
    const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!credentialsOk(req.headers['proxy-authorization'])) {
        res.writeHead(407, { 'proxy-authenticate': REALM, 'content-type': 'text/plain' });
        return void res.end('Proxy authentication required\n');
      }
      let url: URL;
      try {
        url = new URL(req.url ?? '');
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return void res.end('A proxy request needs an absolute URI\n');
      }
      const target = targetOf(url.hostname);
      if (url.protocol !== 'http:' || !target) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        return void res.end('This test proxy forwards only to loopback http:// addresses\n');
      }
      requests++;
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      const upstream = http.request(
        { host: target, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`Upstream failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}\n`);
      });
      req.pipe(upstream);
    };

    const httpServer = keyPair ? https.createServer(keyPair, forward) : http.createServer(forward);
    httpServer.on('connection', (socket: net.Socket) => track(socket));
    httpServer.on('secureConnection', (socket: tls.TLSSocket) => track(socket));
    httpServer.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const answer = (status: string, extra = '') =>
        socket.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\n\r\n`);
      if (!credentialsOk(req.headers['proxy-authorization'])) {
        return answer('407 Proxy Authentication Required', `Proxy-Authenticate: ${REALM}\r\n`);
      }
      const dest = splitHostPort(req.url ?? '');
      const target = dest && targetOf(dest.host);
      if (!dest || !target) return answer('403 Forbidden');
      const upstream = net.connect({ host: target, port: dest.port, noDelay: true });
      upstream.once('error', () => {
        if (socket.writable) answer('502 Bad Gateway');
      });
      upstream.once('connect', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        tunnel(socket, upstream);
      });
    });
    server = httpServer;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const scheme = opts.kind === 'socks5' ? 'socks5' : keyPair ? 'https' : 'http';

  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    cert: keyPair?.cert ?? null,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

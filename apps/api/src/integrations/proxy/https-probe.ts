import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { SocksClient } from 'socks';
import { proxyAddress, type ProxyEndpoint } from './proxy-dispatcher.ts';

export type HttpsProbeResult = {
  status: number;
  timeMs: number;
  issuer: string | null;
  validTo: Date | null;
  /** The certificate chain verified against the system's roots (and the name matched). */
  trusted: boolean;
  trustError: string | null;
};

const issuerName = (i: tls.Certificate | undefined) =>
  (i && (i.O || i.CN) ? [i.O, i.CN].filter(Boolean).join(' / ') : null) ?? null;

/** Where a probe failed: at the proxy (try another) or at the site (the check's answer). */
export class ProbeError extends Error {
  constructor(
    message: string,
    readonly stage: 'proxy' | 'site',
  ) {
    super(message);
  }
}

/** A TCP tunnel to host:port through the proxy (HTTP CONNECT, over TLS for an https proxy, or SOCKS5). */
async function tunnel(p: ProxyEndpoint, host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  if (p.proxyType === 'socks5') {
    const { socket } = await SocksClient.createConnection({
      proxy: {
        host: p.IPAddress,
        port: p.httpPort,
        type: 5,
        ...(p.username ? { userId: p.username, password: p.password ?? '' } : {}),
      },
      command: 'connect',
      destination: { host, port },
      timeout: timeoutMs,
    }).catch((err: unknown) => {
      const m = err instanceof Error ? err.message : String(err);
      // The proxy answered but could not reach the site: that is the site's failure.
      throw new ProbeError(m, /rejected connection/i.test(m) ? 'site' : 'proxy');
    });
    return socket;
  }
  const headers: Record<string, string> = { host: `${host}:${port}` };
  if (p.username) {
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${p.username}:${p.password ?? ''}`).toString('base64')}`;
  }
  const req = (p.isHttps ? https : http).request({
    host: p.IPAddress,
    port: p.httpPort,
    method: 'CONNECT',
    path: `${host}:${port}`,
    headers,
    timeout: timeoutMs,
    agent: false,
  });
  return new Promise((resolve, reject) => {
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      const status = res.statusCode ?? 0;
      // 502-504: the proxy could not reach the site.
      const stage = status >= 502 && status <= 504 ? 'site' : 'proxy';
      const where = stage === 'site' ? 'the site could not be reached through' : 'refused by';
      reject(new ProbeError(`${where} the proxy ${proxyAddress(p)} (CONNECT ${status})`, stage));
    });
    req.once('timeout', () =>
      req.destroy(new ProbeError(`the proxy ${proxyAddress(p)} did not answer in ${timeoutMs} ms`, 'proxy')),
    );
    req.once('error', (err) => reject(err instanceof ProbeError ? err : new ProbeError(err.message, 'proxy')));
    req.end();
  });
}

/**
 * One GET of https://host/ through the proxy: the status, the time to the answer's headers, the certificate's
 * issuer and end date, and whether it is trusted. The body is not read. Throws when no answer comes.
 */
export async function probeHttps(
  p: ProxyEndpoint,
  host: string,
  opts: { port?: number; timeoutMs?: number } = {},
): Promise<HttpsProbeResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const port = opts.port ?? 443;
  const started = performance.now();
  const raw = await tunnel(p, host, port, timeoutMs);
  // Verified by hand below, so an untrusted certificate is still read and reported rather than hidden.
  const sock = tls.connect({ socket: raw, servername: host, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no TLS handshake in ${timeoutMs} ms`)), timeoutMs);
      sock.once('secureConnect', () => {
        clearTimeout(t);
        resolve();
      });
      sock.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
    const cert = sock.getPeerCertificate();
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request({
        host,
        port,
        path: '/',
        method: 'GET',
        headers: { host, 'user-agent': 'Fleetdesk health check' },
        // No agent: the request goes over this socket (an agent would open its own connection).
        createConnection: () => sock,
        timeout: timeoutMs,
      });
      req.once('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      });
      req.once('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
      req.once('error', reject);
      req.end();
    });
    const validTo = cert?.valid_to ? new Date(cert.valid_to) : null;
    return {
      status,
      timeMs: Math.round(performance.now() - started),
      issuer: issuerName(cert?.issuer),
      validTo: validTo && !Number.isNaN(validTo.getTime()) ? validTo : null,
      trusted: sock.authorized,
      trustError: sock.authorized ? null : String(sock.authorizationError ?? 'not trusted'),
    };
  } finally {
    sock.destroy();
    raw.destroy();
  }
}

import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startForwardProxy, type ForwardProxy } from './index.ts';
import { ipv6Bytes, loopbackTarget } from './loopback.ts';

let target: http.Server;
let targetPort: number;
let proxy: ForwardProxy | undefined;

/**
 * A safety net under the code being tested: any outbound connection to a host that is not loopback throws before a
 * socket exists, so even a broken loopback rule cannot send traffic off the machine. Tests assert it never fired.
 */
const blocked: string[] = [];
function guardHost(host: unknown) {
  const h = String(host ?? 'localhost');
  if (!(h === 'localhost' || h.startsWith('127.') || h === '::1')) {
    blocked.push(h);
    throw new Error(`test guard: refused to connect to ${h}`);
  }
}
const realConnect = net.connect;
const realRequest = http.request;
vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
  const first = args[0];
  guardHost(typeof first === 'object' && first !== null ? (first as net.TcpNetConnectOpts).host : args[1]);
  return (realConnect as (...a: unknown[]) => net.Socket)(...args);
}) as typeof net.connect);
vi.spyOn(http, 'request').mockImplementation(((...args: unknown[]) => {
  const first = args[0];
  guardHost(
    typeof first === 'object' && first !== null && !(first instanceof URL)
      ? (first as http.RequestOptions).host
      : new URL(String(first)).hostname,
  );
  return (realRequest as (...a: unknown[]) => http.ClientRequest)(...args);
}) as typeof http.request);

beforeAll(async () => {
  target = http.createServer((req, res) => res.end(`hello ${req.method} ${req.url}`));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetPort = (target.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  expect(blocked).toEqual([]);
});

/** Reads from a socket until `done` says the collected text is complete, or 5 s pass. */
function readUntil(socket: net.Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(text)}`)), 5_000);
    const finish = () => {
      clearTimeout(timer);
      resolve(text);
    };
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (done(text)) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

function connectTo(p: ForwardProxy): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = p.cert
      ? tls.connect({ host: '127.0.0.1', port: p.port, ca: p.cert, servername: 'localhost' }, () => resolve(socket))
      : net.connect({ host: '127.0.0.1', port: p.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** CONNECT through the proxy, then one GET inside the tunnel; returns the whole exchange as text. */
async function viaConnect(p: ForwardProxy, authority: string, auth?: string): Promise<string> {
  const socket = await connectTo(p);
  const authLine = auth ? `Proxy-Authorization: Basic ${Buffer.from(auth).toString('base64')}\r\n` : '';
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authLine}\r\n`);
  const head = await readUntil(socket, (t) => t.includes('\r\n\r\n'));
  if (!head.startsWith('HTTP/1.1 200')) {
    socket.destroy();
    return head;
  }
  socket.write('GET /inside HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const body = await readUntil(socket, (t) => t.includes('hello'));
  socket.destroy();
  return head + body;
}

async function viaForward(p: ForwardProxy, url: string, auth?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = auth
      ? { 'proxy-authorization': `Basic ${Buffer.from(auth).toString('base64')}` }
      : {};
    const req = http.request({ host: '127.0.0.1', port: p.port, path: url, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('http forward proxy', () => {
  it('tunnels CONNECT and forwards absolute URIs to loopback, counting both', async () => {
    proxy = await startForwardProxy({ kind: 'http' });
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
    expect(await viaConnect(proxy, `127.0.0.1:${targetPort}`)).toMatch(/^HTTP\/1.1 200[\s\S]*hello GET \/inside/);
    expect(await viaForward(proxy, `http://localhost:${targetPort}/plain?x=1`)).toEqual({
      status: 200,
      body: 'hello GET /plain?x=1',
    });
    expect(proxy.requests).toBe(2);
  });

  it('asks for credentials with 407 and accepts the right ones', async () => {
    proxy = await startForwardProxy({ kind: 'http', username: 'u', password: 'p:w' });
    expect(await viaConnect(proxy, `127.0.0.1:${targetPort}`)).toMatch(
      /^HTTP\/1.1 407[\s\S]*Proxy-Authenticate: Basic/,
    );
    expect(await viaConnect(proxy, `127.0.0.1:${targetPort}`, 'u:wrong')).toMatch(/^HTTP\/1.1 407/);
    expect((await viaForward(proxy, `http://127.0.0.1:${targetPort}/`)).status).toBe(407);
    expect(await viaConnect(proxy, `127.0.0.1:${targetPort}`, 'u:p:w')).toMatch(/hello GET/);
    expect((await viaForward(proxy, `http://127.0.0.1:${targetPort}/`, 'u:p:w')).status).toBe(200);
    expect(proxy.requests).toBe(2);
  });

  it('refuses destinations off the loopback without connecting', async () => {
    proxy = await startForwardProxy({ kind: 'http' });
    expect(await viaConnect(proxy, '192.0.2.1:443')).toMatch(/^HTTP\/1.1 403/);
    expect(await viaConnect(proxy, 'example.invalid:443')).toMatch(/^HTTP\/1.1 403/);
    expect((await viaForward(proxy, 'http://198.51.100.1/')).status).toBe(403);
    expect(proxy.requests).toBe(0);
  });

  it('answers 502 when the loopback target refuses', async () => {
    proxy = await startForwardProxy({ kind: 'http' });
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await viaConnect(proxy, `127.0.0.1:${deadPort}`)).toMatch(/^HTTP\/1.1 502/);
  });

  it('listens over TLS with a generated certificate', async () => {
    proxy = await startForwardProxy({ kind: 'http', tls: true });
    expect(proxy.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy.cert).toMatch(/BEGIN CERTIFICATE/);
    expect(await viaConnect(proxy, `127.0.0.1:${targetPort}`)).toMatch(/hello GET \/inside/);
  });
});

/** A hand-written SOCKS5 client, so the server is checked byte by byte. */
async function socks(
  p: ForwardProxy,
  address: Buffer,
  auth?: { user: string; pass: string },
): Promise<{ methodReply: number[]; authReply?: number[]; connectReply?: number[]; body?: string }> {
  const socket = await connectTo(p);
  const queue: Buffer[] = [];
  let notify: (() => void) | null = null;
  let closed = false;
  socket.on('data', (d: Buffer) => {
    queue.push(d);
    notify?.();
  });
  socket.on('close', () => {
    closed = true;
    notify?.();
  });
  const read = async (n: number): Promise<number[]> => {
    const deadline = Date.now() + 5_000;
    while (Buffer.concat(queue).length < n && !closed && Date.now() < deadline) {
      await new Promise<void>((r) => {
        notify = r;
        setTimeout(r, 100);
      });
    }
    const all = Buffer.concat(queue);
    queue.length = 0;
    if (all.length > n) queue.push(all.subarray(n));
    return [...all.subarray(0, n)];
  };
  try {
    socket.write(Buffer.from([5, 2, 0x00, 0x02]));
    const methodReply = await read(2);
    if (methodReply[1] === 0xff) return { methodReply };
    let authReply: number[] | undefined;
    if (methodReply[1] === 0x02) {
      const u = Buffer.from(auth?.user ?? '');
      const pw = Buffer.from(auth?.pass ?? '');
      socket.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([pw.length]), pw]));
      authReply = await read(2);
      if (authReply[1] !== 0) return { methodReply, authReply };
    }
    socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address]));
    const connectReply = await read(10);
    if (connectReply[1] !== 0) return { methodReply, authReply, connectReply };
    socket.write('GET /socks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const body = (await readUntil(socket, (t) => t.includes('hello'))) || Buffer.concat(queue).toString();
    return { methodReply, authReply, connectReply, body };
  } finally {
    socket.destroy();
  }
}

const port2 = (port: number) => Buffer.from([port >> 8, port & 0xff]);
const ipv4 = (ip: string, port: number) => Buffer.concat([Buffer.from([1, ...ip.split('.').map(Number)]), port2(port)]);
const domain = (name: string, port: number) =>
  Buffer.concat([Buffer.from([3, name.length]), Buffer.from(name), port2(port)]);
const ipv6 = (ip: string, port: number) => Buffer.concat([Buffer.from([4]), ipv6Bytes(ip) as Buffer, port2(port)]);

describe('socks5 forward proxy', () => {
  it('connects without authentication to IPv4, domain and IPv6 (mapped) loopback addresses', async () => {
    proxy = await startForwardProxy({ kind: 'socks5' });
    expect(proxy.url).toBe(`socks5://127.0.0.1:${proxy.port}`);
    for (const address of [
      ipv4('127.0.0.1', targetPort),
      domain('localhost', targetPort),
      ipv6('::ffff:127.0.0.1', targetPort),
    ]) {
      const r = await socks(proxy, address);
      expect(r.methodReply).toEqual([5, 0]);
      expect(r.connectReply?.[1]).toBe(0);
      expect(r.body).toMatch(/hello GET \/socks/);
    }
    expect(proxy.requests).toBe(3);
  });

  it('checks username and password (RFC 1929)', async () => {
    proxy = await startForwardProxy({ kind: 'socks5', username: 'user', password: 'secret' });
    const wrong = await socks(proxy, ipv4('127.0.0.1', targetPort), { user: 'user', pass: 'nope' });
    expect(wrong.methodReply).toEqual([5, 2]);
    expect(wrong.authReply).toEqual([1, 1]);
    const right = await socks(proxy, ipv4('127.0.0.1', targetPort), { user: 'user', pass: 'secret' });
    expect(right.authReply).toEqual([1, 0]);
    expect(right.body).toMatch(/hello/);
    expect(proxy.requests).toBe(1);
  });

  it('refuses non-loopback destinations (ruleset) and reports refused targets', async () => {
    proxy = await startForwardProxy({ kind: 'socks5' });
    expect((await socks(proxy, ipv4('203.0.113.1', 80))).connectReply?.[1]).toBe(2);
    expect((await socks(proxy, domain('example.invalid', 80))).connectReply?.[1]).toBe(2);
    expect((await socks(proxy, ipv6('2001:db8::1', 80))).connectReply?.[1]).toBe(2);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect((await socks(proxy, ipv4('127.0.0.1', deadPort))).connectReply?.[1]).toBe(5);
    expect(proxy.requests).toBe(0);
  });

  it('works over TLS too', async () => {
    proxy = await startForwardProxy({ kind: 'socks5', tls: true });
    expect((await socks(proxy, ipv4('127.0.0.1', targetPort))).body).toMatch(/hello/);
  });
});

describe('loopbackTarget', () => {
  it('accepts loopback forms only', () => {
    expect(loopbackTarget('localhost')).toBe('127.0.0.1');
    expect(loopbackTarget('127.0.0.9')).toBe('127.0.0.9');
    expect(loopbackTarget('[::1]')).toBe('::1');
    expect(loopbackTarget('0:0:0:0:0:ffff:7f00:1')).toBe('127.0.0.1');
    for (const h of ['10.0.0.1', '192.168.0.1', '::ffff:10.0.0.1', 'fe80::1', '::', 'example.com']) {
      expect(loopbackTarget(h)).toBeNull();
    }
  });
});

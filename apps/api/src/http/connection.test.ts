import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, pageEncoding } from '../app.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { loggableUrl } from './security.ts';

/** What an outside review found at the HTTP layer (issue 26): resets after 431/400, query strings in the log. */
let t: TestApp;
let web: FastifyInstance;
let port: number;
const logs: string[] = [];
beforeAll(async () => {
  t = await createTestApp();
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-web-'));
  // About the size of the real page (1.2 KB).
  const filler = Array.from({ length: 30 }, (_, i) => `<link rel="modulepreload" href="/assets/chunk-${i}.js">`);
  fs.writeFileSync(
    path.join(dist, 'index.html'),
    `<!doctype html><html><head><meta name="csp-nonce" content="__CSP_NONCE__" />${filler.join('')}</head><body><div id="root"></div></body></html>`,
  );
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  web = await buildApp(t.c, { logger: { level: 'info', stream }, webDist: dist });
  await web.listen({ port: 0, host: '127.0.0.1' });
  port = (web.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await web?.close();
  await t?.close();
});

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string; socket: net.Socket };
const get = (agent: http.Agent, url: string, headers: http.OutgoingHttpHeaders = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, agent, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socket: req.socket! }));
    });
    req.on('error', reject);
  });

describe('keep-alive clients after a request the server cannot parse', () => {
  it('a 20 KB query string gets 431 with Connection: close, and the next request on the agent succeeds', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, '/healthz');
      expect(first.status).toBe(200);
      const big = await get(agent, `/healthz?q=${'a'.repeat(20 * 1024)}`);
      expect(big.status).toBe(431);
      expect(big.headers.connection).toBe('close');
      expect(JSON.parse(big.body)).toMatchObject({ code: 'headers_too_large' });
      // Without Connection: close the agent would reuse the closed socket: "socket hang up".
      for (let i = 0; i < 3; i++) expect((await get(agent, '/healthz')).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('a request line that is not HTTP gets 400 with Connection: close', async () => {
    const { default: netModule } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const s = netModule.connect(port, '127.0.0.1');
      let text = '';
      s.on('data', (d) => (text += String(d)));
      s.on('close', () => resolve(text));
      s.on('error', () => undefined);
      s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  });
});

describe('request logs', () => {
  it('keep the path and the names of query parameters, never their values', async () => {
    const agent = new http.Agent({ keepAlive: false });
    await get(agent, '/auth/me?token=s3cr3t-t0ken-value&page=2&api_key=k3y-value');
    const text = logs.join('');
    expect(text).not.toContain('s3cr3t-t0ken-value');
    expect(text).not.toContain('k3y-value');
    expect(text).toContain('"url":"/auth/me?token&page&api_key"');
    agent.destroy();
  });

  it('loggableUrl', () => {
    expect(loggableUrl('/a/b')).toBe('/a/b');
    expect(loggableUrl('/a?x=1&y=2&x=3')).toBe('/a?x&y');
    expect(loggableUrl('/a?password=hunter2')).toBe('/a?password');
    expect(loggableUrl('/a?%E0%A4%A=1&=2&b')).toBe('/a?%25E0%25A4%25A&b');
  });
});

describe('the index page', () => {
  it('is compressed, like every other answer over 1 KB', async () => {
    const agent = new http.Agent({ keepAlive: false });
    for (const url of ['/', '/domains']) {
      const res = await get(agent, url, { 'accept-encoding': 'br, gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['content-encoding']).toBe('br');
      expect(zlib.brotliDecompressSync(Buffer.from(res.body, 'latin1')).toString()).toMatch(/^<!doctype html>/);
      const plain = await get(agent, url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toContain('<div id="root">');
    }
    agent.destroy();
  });
});

describe('pageEncoding', () => {
  it('prefers br, then gzip, and honours q=0', () => {
    expect(pageEncoding('gzip, deflate, br')).toBe('br');
    expect(pageEncoding('gzip')).toBe('gzip');
    expect(pageEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(pageEncoding('identity')).toBeUndefined();
    expect(pageEncoding(undefined)).toBeUndefined();
  });
});

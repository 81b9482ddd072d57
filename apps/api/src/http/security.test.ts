import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../config.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { buildApp } from '../app.ts';
import { isExpensiveRoute, jsonDepthExceeds } from './security.ts';

describe('jsonDepthExceeds', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[[[', b: '\\"[[[[' }), 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
  });
});

describe('TRUST_PROXY', () => {
  const parse = (v: string) => loadConfig({ TRUST_PROXY: v }, { dotenv: false }).TRUST_PROXY;
  it('accepts off, on, a hop count, and addresses or CIDRs', () => {
    expect(parse('')).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('10.0.0.1, 192.168.0.0/16,::1,loopback')).toEqual(['10.0.0.1', '192.168.0.0/16', '::1', 'loopback']);
  });
  it('refuses anything else, naming the variable', () => {
    for (const bad of ['proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/2', '1000']) {
      expect(() => parse(bad)).toThrow(ConfigError);
      expect(() => parse(bad)).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('production defaults', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { productionRateLimits: true });
  });
  afterAll(async () => t?.close());

  it('are what the README documents', () => {
    expect(t.config).toMatchObject({
      RATE_LIMIT_PER_MINUTE: 600,
      RATE_LIMIT_ADDRESS_PER_MINUTE: 1200,
      RATE_LIMIT_LOGIN_PER_MINUTE: 30,
      RATE_LIMIT_EXPENSIVE_PER_MINUTE: 10,
      BODY_LIMIT_KB: 1024,
      JSON_MAX_DEPTH: 32,
      REQUEST_TIMEOUT_SECONDS: 30,
      MAX_CONNECTIONS: 1000,
      TRUST_PROXY: false,
    });
    expect(t.app.server.maxConnections).toBe(1000);
    expect(t.app.server.requestTimeout).toBe(30_000);
  });

  it('sends strict security headers, and no-store on API answers', async () => {
    const res = await t.inject({ method: 'GET', url: '/auth/info' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|unsafe-inline|unsafe-eval|upgrade-insecure-requests/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    const docs = await t.inject({
      method: 'GET',
      url: '/api/docs/static/index.html',
      headers: { authorization: await t.tokenFor([]) },
    });
    expect(String(docs.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(String(docs.headers['content-security-policy'])).not.toMatch(/https?:/);
  });

  it('never lets a revealed secret be cached', async () => {
    const h = await t.tokenFor(['cnv:proxies']);
    const p = (
      await t.inject({
        method: 'POST',
        url: '/api/proxies',
        headers: { authorization: h },
        payload: { IPAddress: '10.0.0.1', httpPort: 8080, password: 'reveal-me-123', proxyType: 'http' },
      })
    ).json().data;
    const res = await t.inject({
      method: 'POST',
      url: `/api/proxies/${p._id}/reveal`,
      headers: { authorization: h },
      payload: { field: 'password' },
    });
    expect(res.json().data.value).toBe('reveal-me-123');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('limits an expensive action per user: 10 a minute, then 429 with Retry-After and a message', async () => {
    const h = await t.tokenFor(['cnv:proxies']);
    const url = '/api/proxies/00000000-0000-4000-8000-000000000001/check';
    for (let i = 0; i < 10; i++) {
      expect((await t.inject({ method: 'POST', url, headers: { authorization: h } })).statusCode).toBe(404);
    }
    const res = await t.inject({ method: 'POST', url, headers: { authorization: h } });
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many requests for this action\. Try again in \d+ seconds?\.$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Another user is not affected.
    const other = await t.tokenFor(['cnv:proxies']);
    expect((await t.inject({ method: 'POST', url, headers: { authorization: other } })).statusCode).toBe(404);
  });

  it('limits sign-in requests per address: 30 a minute', async () => {
    const send = (ip: string) =>
      t.inject({ method: 'POST', url: '/auth/login', payload: { username: '' }, remoteAddress: ip });
    for (let i = 0; i < 30; i++) expect((await send('10.9.0.1')).statusCode).toBe(400);
    const res = await send('10.9.0.1');
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many sign-in attempts from your address\. Try again in \d+ seconds?\.$/);
    expect((await send('10.9.0.2')).statusCode).toBe(400);
  });

  // In batches, so the whole count lands well inside one minute's window even on a busy machine.
  const burst = async (n: number, send: () => Promise<{ statusCode: number }>) => {
    const codes: number[] = [];
    for (let i = 0; i < n; i += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, n - i) }, send));
      codes.push(...batch.map((r) => r.statusCode));
    }
    return codes;
  };

  it('limits requests per user: 600 a minute', async () => {
    const h = await t.tokenFor(['cnv']);
    const me = () =>
      t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: h }, remoteAddress: '10.8.0.1' });
    expect(new Set(await burst(600, me))).toEqual(new Set([200]));
    const res = await me();
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many requests\. Try again in \d+ seconds?\.$/);
  }, 120_000);

  it('limits requests per address: 1200 a minute', async () => {
    const health = () => t.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.8.0.2' });
    expect(new Set(await burst(1200, health))).toEqual(new Set([200]));
    const res = await health();
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many requests from your address/);
  }, 120_000);
});

describe('behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: '10.0.0.10' });
  });
  afterAll(async () => t?.close());

  it('takes the client address from X-Forwarded-For only when the trusted proxy sends it', async () => {
    const fail = (remoteAddress: string) =>
      t.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress,
        headers: { 'x-forwarded-for': '203.0.113.7' },
        payload: { username: 'nobody', password: 'wrong-password' },
      });
    expect((await fail('10.0.0.10')).statusCode).toBe(401);
    expect((await fail('10.0.0.99')).statusCode).toBe(401);
    const { auditLog } = await import('../db/schema/index.ts');
    const ips = (await t.c.database.db.select().from(auditLog)).map((r) => (r.details as { ip: string }).ip).sort();
    expect(ips).toEqual(['10.0.0.99', '203.0.113.7']);
  });
});

describe('slow clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ REQUEST_TIMEOUT_SECONDS: '1' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  it('cuts off a body that trickles in', async () => {
    const { port } = t.app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += String(d)));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && sent++ < 200) socket.write(' ');
    }, 100);
    await closed;
    clearInterval(drip);
    // 200 drips at 100 ms would take 20 s; the server closed it well before all of them were sent.
    expect(sent).toBeLessThan(200);
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });
});

describe('isExpensiveRoute', () => {
  it('knows the costly actions', () => {
    expect(isExpensiveRoute('POST', '/api/servers/:id/rsa-key/generate')).toBe(true);
    expect(isExpensiveRoute('POST', '/api/servers/:id/test-connection')).toBe(true);
    expect(isExpensiveRoute('POST', '/api/proxies/:id/check')).toBe(true);
    expect(isExpensiveRoute('GET', '/api/domains/export')).toBe(true);
    expect(isExpensiveRoute('GET', '/api/domains')).toBe(false);
  });
});

describe('the console page under the strict CSP', () => {
  let t: TestApp;
  let web: FastifyInstance;
  beforeAll(async () => {
    t = await createTestApp();
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-web-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<meta name="csp-nonce" content="__CSP_NONCE__" /><div id="root">');
    web = await buildApp(t.c, { logger: false, webDist: dist });
  });
  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it('allows inline styles only with a fresh nonce that the page names, never unsafe-inline', async () => {
    const nonces: string[] = [];
    for (const url of ['/', '/domains/x/edit-content-files']) {
      const res = await web.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).not.toMatch(/unsafe-inline/);
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce).toBeTruthy();
      expect(res.body).toContain(`content="${nonce}"`);
      nonces.push(nonce!);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('gives API answers the same strict policy without a nonce (they are never pages)', async () => {
    const res = await web.inject({ method: 'GET', url: '/api/brands' });
    expect(res.statusCode).toBe(401);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/style-src 'self'/);
    expect(csp).not.toMatch(/nonce|unsafe-inline/);
  });
});

describe('the API documentation (/api/docs)', () => {
  let priv: TestApp;
  let open: TestApp;
  beforeAll(async () => {
    priv = await createTestApp();
    open = await createTestApp({ API_DOCS_PUBLIC: 'true' });
  });
  afterAll(async () => {
    await priv?.close();
    await open?.close();
  });

  it('lists every route only to a signed-in caller, unless a setting makes it public', async () => {
    for (const url of ['/api/docs', '/api/docs/json', '/api/docs/yaml', '/api/docs/static/index.html']) {
      const anonymous = await priv.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.body).not.toContain('/api/users');
    }
    const signedIn = await priv.inject({
      method: 'GET',
      url: '/api/docs/json',
      headers: { authorization: await priv.tokenFor([]) },
    });
    expect(signedIn.statusCode).toBe(200);
    expect(Object.keys(signedIn.json().paths)).toContain('/api/users');
    expect((await open.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(200);
  });

  it('is public in the demo unless turned off', () => {
    expect(loadConfig({ DEMO: '1' }, { dotenv: false }).API_DOCS_PUBLIC).toBeUndefined();
    expect(loadConfig({ API_DOCS_PUBLIC: 'false' }, { dotenv: false }).API_DOCS_PUBLIC).toBe(false);
    expect(() => loadConfig({ API_DOCS_PUBLIC: 'maybe' }, { dotenv: false })).toThrow(/API_DOCS_PUBLIC/);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { buildApp } from '../app.ts';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { setProviderCallLogger } from '../integrations/provider-calls.ts';
import { systemActor } from './context.ts';

/** GET /metrics (token, names, labels), the provider-call log line, compression, and the web assets' caching. */
const TOKEN = 'metrics-token-for-tests-0123456789';
let sim: CloudflareSim;
let t: TestApp;
let admin: string;

beforeAll(async () => {
  sim = await startCloudflareSim();
  t = await createTestApp({ METRICS_TOKEN: TOKEN, CLOUDFLARE_API_URL: sim.url });
  admin = await t.tokenFor(['cnv']);
});
afterAll(async () => {
  setProviderCallLogger(null);
  await t?.close();
  await sim?.close();
});

const scrape = (authorization?: string) =>
  t.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

describe('GET /metrics', () => {
  it('wants the bearer token: none or a wrong one is a 401, and nothing is revealed', async () => {
    for (const auth of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await scrape(auth);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json().message).toMatch(/metrics token/);
      expect(res.body).not.toContain('fleetdesk_');
    }
  });

  it('is off (404) while METRICS_TOKEN is unset', async () => {
    const off = await createTestApp({ METRICS_TOKEN: '' });
    try {
      const res = await off.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toMatch(/METRICS_TOKEN/);
    } finally {
      await off.close();
    }
  });

  it('counts requests by route template and status, with latency histograms', async () => {
    await t.inject({ method: 'GET', url: '/api/brands?page=1', headers: { authorization: admin } });
    await t.inject({
      method: 'GET',
      url: `/api/brands/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`,
      headers: { authorization: admin },
    });
    await t.inject({ method: 'GET', url: '/api/brands' });
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body;
    expect(body).toMatch(/fleetdesk_http_requests_total\{method="GET",route="\/api\/brands",status="200"\} [1-9]/);
    expect(body).toMatch(/fleetdesk_http_requests_total\{method="GET",route="\/api\/brands",status="401"\} [1-9]/);
    // The template, never the id or the query string.
    expect(body).toMatch(/route="\/api\/brands\/:id",status="404"/);
    expect(body).not.toMatch(/route="[^"]*(\?|0000-4000)/);
    expect(body).toMatch(
      /fleetdesk_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/brands",status="200"\}/,
    );
    expect(body).toMatch(
      /fleetdesk_http_request_duration_seconds_count\{method="GET",route="\/api\/brands",status="200"\} [1-9]/,
    );
  });

  it('shows the database pool, jobs by queue and state, and the process', async () => {
    await t.c.repos.jobs.insert({ kind: 'servers.health-check', area: 'cnv:servers', payload: {}, state: 'failed' });
    const body = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(body).toMatch(/fleetdesk_db_pool_connections\{state="max"\} \d+/);
    expect(body).toMatch(/fleetdesk_db_pool_connections\{state="waiting"\} 0/);
    expect(body).toMatch(/fleetdesk_jobs\{queue="servers\.health-check",state="failed"\} 1/);
    expect(body).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(body).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(body).toMatch(/^process_resident_memory_bytes \d/m);
  });

  it('counts provider calls by provider, outcome and status, logs each once without credentials, and shows the Cloudflare budget left per cloud', async () => {
    const lines: Record<string, unknown>[] = [];
    setProviderCallLogger({ info: (o) => lines.push(o as Record<string, unknown>) });
    const token = 'cf-metrics-token-abcdef123456';
    sim.addAccount({ email: 'metrics@example.com', token, name: 'Metrics' });
    const cloud = await t.c.services.clouds.create({ email: 'metrics@example.com', token }, systemActor('test'));
    const creds = await t.c.services.clouds.credentials(cloud._id);
    await t.c.cloudflare.listAccounts(creds);
    await expect(t.c.cloudflare.listAccounts({ ...creds, token: 'not-a-known-token' })).rejects.toThrow(/Cloudflare/);
    setProviderCallLogger(null);

    const body = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(body).toMatch(/fleetdesk_provider_calls_total\{provider="cloudflare",outcome="ok",status="200"\} [1-9]/);
    expect(body).toMatch(
      /fleetdesk_provider_calls_total\{provider="cloudflare",outcome="http_error",status="(401|403)"\} [1-9]/,
    );
    expect(body).toMatch(/fleetdesk_provider_call_duration_seconds_count\{provider="cloudflare",outcome="ok"\} [1-9]/);
    const left = body.match(
      new RegExp(`fleetdesk_cloudflare_budget_left\\{cloud_id="${cloud._id}",email="metrics@example.com"\\} (\\d+)`),
    );
    expect(Number(left?.[1])).toBe(t.config.CLOUDFLARE_BUDGET_PER_5_MIN - 1);

    const ok = lines.find((l) => l.status === 200);
    expect(ok).toMatchObject({ provider: 'cloudflare', operation: 'GET /client/v4/accounts', outcome: 'ok' });
    expect(typeof ok!.ms).toBe('number');
    expect(lines.filter((l) => l.provider === 'cloudflare')).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(body).not.toContain(token);
  });
});

describe('compression and caching', () => {
  let web: Awaited<ReturnType<typeof buildApp>>;
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-dist-'));
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;

  beforeAll(async () => {
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>t</title>');
    fs.writeFileSync(path.join(dist, 'assets/app-abc123.js'), script);
    // What the build writes beside it; different from a fresh compression, so the test sees which one was sent.
    fs.writeFileSync(path.join(dist, 'assets/app-abc123.js.br'), zlib.brotliCompressSync('/* prebuilt br */'));
    fs.writeFileSync(path.join(dist, 'assets/app-abc123.js.gz'), zlib.gzipSync('/* prebuilt gz */'));
    fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    web = await buildApp(t.c, { logger: false, webDist: dist });
    await web.ready();
  });
  afterAll(async () => {
    await web?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('compresses API answers above the threshold with brotli or gzip, and leaves small ones alone', async () => {
    for (let i = 0; i < 25; i++) {
      await t.inject({
        method: 'POST',
        url: '/api/brands',
        headers: { authorization: admin },
        payload: { name: `Compressed brand ${i} ${'y'.repeat(40)}` },
      });
    }
    const br = await t.inject({
      method: 'GET',
      url: '/api/brands?page=1',
      headers: { authorization: admin, 'accept-encoding': 'br, gzip' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString()).data.items.length).toBeGreaterThan(5);
    const gz = await t.inject({
      method: 'GET',
      url: '/api/brands?page=1',
      headers: { authorization: admin, 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gz.rawPayload).toString()).data.items.length).toBeGreaterThan(5);
    const plain = await t.inject({ method: 'GET', url: '/api/brands?page=1', headers: { authorization: admin } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const small = await t.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'br, gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('streams the CSV export compressed', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/domains/export',
      headers: { authorization: admin, 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(res.rawPayload).toString()).toMatch(/^\uFEFF?[^\n]*Domain/i);
  });

  it('serves hashed assets immutable, pre-compressed when accepted, and index.html with no-cache', async () => {
    const br = await web.inject({ method: 'GET', url: '/assets/app-abc123.js', headers: { 'accept-encoding': 'br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe('/* prebuilt br */');
    const gz = await web.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe('/* prebuilt gz */');
    const none = await web.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.body).toBe(script);

    const other = await web.inject({ method: 'GET', url: '/favicon.svg' });
    expect(other.headers['cache-control']).toBe('no-cache');
    for (const url of ['/', '/domains', '/login']) {
      const page = await web.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('no-cache');
    }
  });
});

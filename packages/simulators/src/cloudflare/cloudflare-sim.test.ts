import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitFromEnv, seedCloudflareDemo, startCloudflareSim, type CloudflareSim } from './index.ts';

const TOKEN = 'tok_sim_0123456789abcdefghijklmnopqrstuvw';
let sim: CloudflareSim;
let accountId: string;

async function call(
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...opts.headers },
    body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML page
  }
  return { status: res.status, headers: res.headers, body };
}

beforeAll(async () => {
  sim = await startCloudflareSim();
  accountId = sim.addAccount({ email: 'sim@example.com', token: TOKEN, globalAPIKey: 'k'.repeat(37) }).accountId;
});

afterAll(async () => {
  await sim.close();
});

describe('cloudflare simulator: wire details', () => {
  it('serves under /client/v4 on loopback with the v4 envelope', async () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    const r = await call('GET', '/accounts');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.body).toMatchObject({ success: true, errors: [], messages: [], result_info: { page: 1, per_page: 20 } });
  });

  it('answers header problems with 6003 and its chain', async () => {
    const none = await call('GET', '/zones', { headers: { authorization: '' } });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ code: 6003, message: 'Invalid request headers' });
    const both = await call('GET', '/zones', { headers: { 'x-auth-email': 'sim@example.com', 'x-auth-key': 'x' } });
    expect(both.body.errors[0].code).toBe(6003);
    const basic = await call('GET', '/zones', { headers: { authorization: 'Basic abc' } });
    expect(basic.body.errors[0].error_chain).toEqual([
      { code: 6111, message: 'Invalid format for Authorization header' },
    ]);
  });

  it('answers unknown routes, bad ids, wrong methods and bad JSON like Cloudflare', async () => {
    const route = await call('GET', '/nothing/here');
    expect(route.body.errors.map((e: { code: number }) => e.code)).toEqual([7003, 7000]);
    const badId = await call('GET', '/zones/not-an-id');
    expect(badId.status).toBe(400);
    expect(badId.body.errors[0].message).toBe(
      'Could not route to /client/v4/zones/not-an-id, perhaps your object identifier is invalid?',
    );
    expect((await call('GET', `/zones/${'0'.repeat(32)}`)).status).toBe(404);
    expect((await call('PATCH', '/accounts')).status).toBe(405);
    const json = await call('POST', '/zones', { rawBody: '{nope' });
    expect(json.body.errors[0]).toEqual({ code: 6007, message: 'Malformed JSON in request body' });
  });

  it("hides other accounts' zones and refuses them with 10000", async () => {
    const other = sim.addAccount({ email: 'other@example.com', token: 'tok_other_000000000000000000000000000' });
    const { zoneId } = sim.addZone(other.accountId, 'not-yours.com');
    expect((await call('GET', '/zones?name=not-yours.com')).body.result).toEqual([]);
    const r = await call('GET', `/zones/${zoneId}`);
    expect(r.status).toBe(403);
    expect(r.body.errors[0].code).toBe(10000);
  });

  it('filters zones by name operators and status, and bounds per_page', async () => {
    sim.addZone(accountId, 'alpha.org', { status: 'active' });
    sim.addZone(accountId, 'beta.org');
    const ends = await call('GET', '/zones?name=ends_with:.org');
    expect(ends.body.result.map((z: { name: string }) => z.name).sort()).toEqual(['alpha.org', 'beta.org']);
    const active = await call('GET', '/zones?name=contains:.org&status=active');
    expect(active.body.result.map((z: { name: string }) => z.name)).toEqual(['alpha.org']);
    expect((await call('GET', '/zones?per_page=51')).status).toBe(400);
  });

  it('keeps name servers stable per account and zones pending by default', async () => {
    const a = await call('POST', '/zones', { body: { name: 'gamma.net', account: { id: accountId }, type: 'full' } });
    const b = await call('POST', '/zones', { body: { name: 'delta.net', account: { id: accountId } } });
    expect(a.body.result.status).toBe('pending');
    expect(a.body.result.name_servers).toEqual(b.body.result.name_servers);
    expect(a.body.result.activated_on).toBeNull();
    const other = await call('POST', '/zones', { body: { name: 'eps.net', account: { id: '1'.repeat(32) } } });
    expect(other.body.errors[0].code).toBe(1068);
    sim.setZoneStatus(a.body.result.id, 'active');
    expect((await call('GET', `/zones/${a.body.result.id}`)).body.result).toMatchObject({ status: 'active' });
  });

  it('enforces the CNAME and NS name rules', async () => {
    const { zoneId } = sim.addZone(accountId, 'rules.com');
    await call('POST', `/zones/${zoneId}/dns_records`, { body: { type: 'A', name: 'www', content: '192.0.2.1' } });
    await call('POST', `/zones/${zoneId}/dns_records`, { body: { type: 'A', name: 'www', content: '192.0.2.2' } });
    const cname = await call('POST', `/zones/${zoneId}/dns_records`, {
      body: { type: 'CNAME', name: 'www', content: 'rules.com' },
    });
    expect(cname.body.errors[0].code).toBe(81053);
    await call('POST', `/zones/${zoneId}/dns_records`, {
      body: { type: 'NS', name: 'sub', content: 'ns1.example.net' },
    });
    const ns = await call('POST', `/zones/${zoneId}/dns_records`, {
      body: { type: 'TXT', name: 'sub', content: 'x' },
    });
    expect(ns.body.errors[0].code).toBe(81056);
    const proxiedTxt = await call('POST', `/zones/${zoneId}/dns_records`, {
      body: { type: 'TXT', name: 't', content: 'x', proxied: true },
    });
    expect(proxiedTxt.body.errors[0].error_chain[0].code).toBe(9004);
    const newline = await call('POST', `/zones/${zoneId}/dns_records`, {
      body: { type: 'TXT', name: 'nl', content: '"v=1"\nevil.rules.com. 300 IN A 127.0.0.1' },
    });
    expect(newline.body.errors[0].error_chain[0].code).toBe(9009);
  });

  it('validates purge bodies and logs purges', async () => {
    const { zoneId } = sim.addZone(accountId, 'purge.com');
    expect((await call('POST', `/zones/${zoneId}/purge_cache`, { body: {} })).body.errors[0].code).toBe(1012);
    expect(
      (await call('POST', `/zones/${zoneId}/purge_cache`, { body: { files: ['https://purge.com/a'] } })).status,
    ).toBe(200);
    expect(sim.purgeLog.filter((p) => p.zoneId === zoneId)).toHaveLength(1);
  });

  it('injects failures: HTML 502, 429 with retry-after, slow answers, bad credentials', async () => {
    sim.fail({ kind: '5xx', status: 502 });
    const html = await call('GET', '/accounts');
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toContain('text/html');
    sim.fail({ kind: '429', retryAfter: 9 });
    const limited = await call('GET', '/accounts');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('9');
    expect(limited.body.errors[0].code).toBe(971);
    sim.fail({ kind: 'slow', delayMs: 150 });
    const t = Date.now();
    expect((await call('GET', '/accounts')).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    sim.fail({ kind: 'bad_credentials', count: 2 });
    expect((await call('GET', '/accounts')).status).toBe(403);
    expect((await call('GET', '/accounts')).status).toBe(403);
    expect((await call('GET', '/accounts')).status).toBe(200);
  });

  it('can rate-limit like Cloudflare when asked to', async () => {
    const limited = await startCloudflareSim({ rateLimit: { requests: 2, windowMs: 60_000 } });
    try {
      limited.addAccount({ email: 'rl@example.com', token: TOKEN });
      const get = () => fetch(`${limited.url}/zones`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      const third = await get();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('counts one budget per account (a token and the global key share it) on a compressed clock', async () => {
    const limited = await startCloudflareSim({ rateLimit: { requests: 3, windowMs: 400 } });
    try {
      const { accountId } = limited.addAccount({
        email: 'acc@example.com',
        token: TOKEN,
        globalAPIKey: 'gk-0123456789',
      });
      const byToken = () => fetch(`${limited.url}/zones`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const byKey = () =>
        fetch(`${limited.url}/zones`, {
          headers: { 'x-auth-email': 'acc@example.com', 'x-auth-key': 'gk-0123456789' },
        });
      expect((await byToken()).status).toBe(200);
      expect((await byKey()).status).toBe(200);
      expect((await byToken()).status).toBe(200);
      expect((await byKey()).status).toBe(429);
      expect(limited.usage().get(accountId)).toEqual({ requests: 3, rateLimited: 1 });
      // The window slides: once the first requests are older than it, the account may call again.
      await new Promise((r) => setTimeout(r, 450));
      expect((await byKey()).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('takes the rate limit from CLOUDFLARE_SIM_RATE_LIMIT', () => {
    expect(rateLimitFromEnv('120/10')).toEqual({ requests: 120, windowMs: 10_000 });
    expect(rateLimitFromEnv(' 5 / 0.5 ')).toEqual({ requests: 5, windowMs: 500 });
    expect(rateLimitFromEnv('')).toBeUndefined();
    expect(rateLimitFromEnv('lots')).toBeUndefined();
  });

  it('seeds a demo account with zones, records and a firewall rule', async () => {
    const demo = await startCloudflareSim();
    try {
      const seed = seedCloudflareDemo(demo, { email: 'demo@example.com', globalAPIKey: 'd'.repeat(37), token: TOKEN });
      expect(seed.zones).toHaveLength(3);
      const res = await fetch(`${demo.url}/zones`, {
        headers: { 'x-auth-email': 'demo@example.com', 'x-auth-key': 'd'.repeat(37) },
      });
      const body = (await res.json()) as { result: { status: string }[] };
      expect(body.result.map((z) => z.status).sort()).toEqual(['active', 'active', 'pending']);
      const first = seed.zones[0]!;
      const records = await fetch(`${demo.url}/zones/${first.zoneId}/dns_records`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(((await records.json()) as { result: unknown[] }).result.length).toBeGreaterThanOrEqual(4);
      const rules = await fetch(
        `${demo.url}/zones/${seed.zones[1]!.zoneId}/rulesets/phases/http_request_firewall_custom/entrypoint`,
        { headers: { authorization: `Bearer ${TOKEN}` } },
      );
      expect(rules.status).toBe(200);
    } finally {
      await demo.close();
    }
  });
});

describe('cloudflare simulator: rules are checked like the real API', () => {
  const put = (zoneId: string, rules: unknown[]) =>
    call('PUT', `/zones/${zoneId}/rulesets/phases/http_request_firewall_custom/entrypoint`, { body: { rules } });

  it('refuses unknown fields and logging on actions other than skip (20018), with the pointer', async () => {
    const { zoneId } = sim.addZone(accountId, 'rules-check.com');
    const unknown = await put(zoneId, [{ expression: 'true', action: 'block', colour: 'red' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ code: 20021, source: { pointer: '/rules/0/colour' } });
    const logging = await put(zoneId, [
      { expression: 'cf.client.bot', action: 'skip', action_parameters: { ruleset: 'current' } },
      { expression: 'true', action: 'block', logging: { enabled: true } },
    ]);
    expect(logging.status).toBe(400);
    expect(logging.body.errors[0]).toMatchObject({ code: 20018, source: { pointer: '/rules/1/logging' } });
    const skip = await put(zoneId, [
      { expression: 'true', action: 'skip', action_parameters: { ruleset: 'current' }, logging: { enabled: false } },
    ]);
    expect(skip.status).toBe(200);
  });

  it('keeps ratelimit and exposed_credential_check as sent', async () => {
    const { zoneId } = sim.addZone(accountId, 'rules-keep.com');
    const rule = {
      expression: 'http.request.uri.path eq "/login"',
      action: 'block',
      ratelimit: { characteristics: ['ip.src'], period: 60, requests_per_period: 10 },
      exposed_credential_check: { username_expression: 'a', password_expression: 'b' },
    };
    const r = await put(zoneId, [rule]);
    expect(r.status).toBe(200);
    expect(r.body.result.rules[0]).toMatchObject(rule);
    const bad = await put(zoneId, [{ ...rule, exposed_credential_check: { username_expression: 'a' } }]);
    expect(bad.body.errors[0].source.pointer).toBe('/rules/0/exposed_credential_check');
  });

  it("limits a DNS batch by the zone's plan: 200 on Free, 3,500 on paid plans", async () => {
    const { zoneId } = sim.addZone(accountId, 'plans.com');
    const posts = Array.from({ length: 201 }, (_, i) => ({ type: 'TXT', name: `r${i}`, content: 'v', ttl: 1 }));
    const free = await call('POST', `/zones/${zoneId}/dns_records/batch`, { body: { posts } });
    expect(free.status).toBe(400);
    expect((await call('GET', `/zones/${zoneId}`)).body.result.plan).toMatchObject({ legacy_id: 'free' });
    sim.setZonePlan(zoneId, 'business');
    expect((await call('GET', `/zones/${zoneId}`)).body.result.plan).toMatchObject({ legacy_id: 'business' });
    const paid = await call('POST', `/zones/${zoneId}/dns_records/batch`, { body: { posts } });
    expect(paid.status).toBe(200);
    expect(paid.body.result.posts).toHaveLength(201);
  });
});

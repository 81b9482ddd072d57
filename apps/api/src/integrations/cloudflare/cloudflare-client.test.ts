import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { RateLimitedError, UpstreamError } from '../../http/errors.ts';
import { createCloudflareClient, DnsBatchPartError, type CloudflareClientOptions } from './cloudflare-client.ts';
import type { CloudflareCredentials } from './types.ts';

const TOKEN = 'tok_0123456789abcdefghijABCDEFGHIJ0123456789';
const KEY = '0123456789abcdef0123456789abcdef01234';
const EMAIL = 'ops@example.com';

let sim: CloudflareSim;
let accountId: string;
const tokenCreds: CloudflareCredentials = { token: TOKEN };
const keyCreds: CloudflareCredentials = { email: EMAIL, globalAPIKey: KEY };
let waits: number[];

function client(extra: Partial<CloudflareClientOptions> = {}) {
  return createCloudflareClient({
    baseUrl: sim.url,
    timeoutMs: 5_000,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
}

async function budgetRefusal(p: Promise<unknown>): Promise<RateLimitedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RateLimitedError);
  return err as RateLimitedError;
}

async function upstreamError(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

function requestsSince(mark: number) {
  return sim.state.requests.slice(mark);
}

let zoneCounter = 0;
function uniqueZone(): string {
  zoneCounter += 1;
  return `zone-${zoneCounter}-${Date.now().toString(36)}.com`;
}

beforeAll(async () => {
  sim = await startCloudflareSim();
  accountId = sim.addAccount({ email: EMAIL, globalAPIKey: KEY, token: TOKEN, name: 'Ops' }).accountId;
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  waits = [];
  sim.clearFailures();
});

describe('authentication', () => {
  it('uses a Bearer token when a token is set, and finds the account id', async () => {
    const mark = sim.state.requests.length;
    const c = client();
    expect(await c.getAccountId(tokenCreds)).toBe(accountId);
    expect(requestsSince(mark).map((r) => [r.method, r.path, r.auth])).toEqual([
      ['GET', '/client/v4/accounts', 'token'],
    ]);
  });

  it('uses X-Auth-Email + X-Auth-Key without a token', async () => {
    const mark = sim.state.requests.length;
    const accounts = await client().listAccounts(keyCreds);
    expect(accounts.map((a) => a.id)).toEqual([accountId]);
    expect(requestsSince(mark)[0]?.auth).toBe('key');
  });

  it('prefers the token when both are set', async () => {
    const mark = sim.state.requests.length;
    await client().listZones({ ...keyCreds, token: TOKEN });
    expect(requestsSince(mark)[0]?.auth).toBe('token');
  });

  it('fails clearly, without a request, when the cloud has no credentials', async () => {
    const mark = sim.state.requests.length;
    const err = await upstreamError(client().listZones({ email: EMAIL, token: null, globalAPIKey: '' }));
    expect(err.message).toBe('Cloudflare: the cloud has neither an API token nor an email and global API key');
    expect(requestsSince(mark)).toHaveLength(0);
  });

  it('caches the account id per credentials and honours a configured one', async () => {
    const c = client();
    await c.getAccountId(keyCreds);
    const mark = sim.state.requests.length;
    expect(await c.getAccountId(keyCreds)).toBe(accountId);
    expect(await c.getAccountId({ ...tokenCreds, accountId: 'f'.repeat(32) })).toBe('f'.repeat(32));
    expect(requestsSince(mark)).toHaveLength(0);
  });

  it('says what to do when an account-owned token cannot list accounts (1001)', async () => {
    const token = 'acct_owned_token_0123456789abcdefghijkl';
    const other = sim.addAccount({ email: 'team@example.com', token, accountOwnedToken: true }).accountId;
    const err = await upstreamError(client().getAccountId({ token }));
    expect(err.message).toContain('1001');
    expect(err.message).toContain('set the account id');
    expect(await client().createZone({ token, accountId: other }, uniqueZone())).toMatchObject({ status: 'pending' });
  });

  it.each<[string, CloudflareCredentials, string]>([
    ['a wrong token', { token: 'tok_wrong_0000000000000000000000000000000' }, '10000 Authentication error'],
    ['a wrong global key', { email: EMAIL, globalAPIKey: 'f'.repeat(37) }, '9103 Unknown X-Auth-Key or X-Auth-Email'],
    ['a badly formed email', { email: 'nope', globalAPIKey: KEY }, '6003 Invalid request headers'],
  ])('reports %s plainly, without the secret', async (_label, creds, detail) => {
    const err = await upstreamError(client().listZones(creds));
    expect(err.message).toContain(`Cloudflare: authentication failed (${detail}`);
    expect(err.message).toContain("— check the cloud's API token or email and global API key");
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.status).toBe(502);
    for (const secret of [creds.token, creds.globalAPIKey]) if (secret) expect(err.message).not.toContain(secret);
  });

  it('reports injected bad credentials the same way', async () => {
    sim.fail({ kind: 'bad_credentials' });
    const err = await upstreamError(client().listZones(tokenCreds));
    expect(err.message).toMatch(/^Cloudflare: authentication failed \(10000 Authentication error\)/);
    expect(err.upstreamStatus).toBe(403);
    expect(err.upstreamCode).toBe(10000);
  });
});

describe('error reporting', () => {
  it("an HTML 403 from Cloudflare's edge says what it is, not that the token is wrong", async () => {
    sim.fail({ kind: 'edge_block' });
    const err = await upstreamError(client().listZones(tokenCreds));
    expect(err.message).toBe(
      'Cloudflare: HTTP 403 from Cloudflare\'s edge, not the API (an HTML page "Attention Required! | Cloudflare"): the request was blocked before it reached the API, for example because the address it comes from (the proxy\'s) is blocked; the API token was not checked',
    );
    expect(err.code).toBe('upstream_blocked');
    expect(err.message).not.toMatch(/authentication failed/);
  });

  it('a JSON 403 that is not about the credentials is a refusal, not an authentication failure', async () => {
    const fetchImpl = (async () =>
      new Response(
        JSON.stringify({
          success: false,
          errors: [{ code: 1015, message: 'Zone is on hold' }],
          messages: [],
          result: null,
        }),
        { status: 403, headers: { 'content-type': 'application/json' } },
      )) as unknown as CloudflareClientOptions['fetchImpl'];
    const err = await upstreamError(client({ fetchImpl }).getZone(tokenCreds, 'a'.repeat(32)));
    expect(err.message).toBe('Cloudflare: permission denied (1015 Zone is on hold)');
    expect(err.code).toBe('upstream_forbidden');
  });

  it("keeps Cloudflare's source.pointer, so the operator sees which rule was refused", async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const err = await upstreamError(
      c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', [
        { expression: 'true', action: 'block' },
        { expression: 'true', action: 'explode' },
      ]),
    );
    expect(err.message).toMatch(
      /^Cloudflare: 20021 'explode' is not a valid value for action .* \(at \/rules\/1\/action\)$/,
    );
  });

  it('a 429 on a write says nothing was changed, so it can be retried', async () => {
    sim.fail({ kind: '429', retryAfter: 120 });
    const err = await upstreamError(client().createZone({ ...tokenCreds, accountId }, uniqueZone()));
    expect(err.message).toBe(
      'Cloudflare: rate limited (971 Please wait and consider throttling your request speed); nothing was changed, so it can be retried; retry after 120 s',
    );
    expect(err.code).toBe('upstream_rate_limited');
  });
});

describe('zones', () => {
  it('creates a pending zone with nameservers, finds it by name, lists, gets and deletes it', async () => {
    const c = client();
    const name = uniqueZone();
    const zone = await c.createZone(tokenCreds, name.toUpperCase());
    expect(zone).toMatchObject({ name, status: 'pending', account: { id: accountId } });
    expect(zone.id).toMatch(/^[0-9a-f]{32}$/);
    expect(zone.name_servers).toHaveLength(2);
    for (const ns of zone.name_servers) expect(ns).toMatch(/^[a-z]+\.ns\.cloudflare\.com$/);

    expect((await c.findZoneByName(keyCreds, name))?.id).toBe(zone.id);
    expect(await c.findZoneByName(keyCreds, `missing-${name}`)).toBeNull();
    expect((await c.listZones(tokenCreds, { name })).map((z) => z.id)).toEqual([zone.id]);
    expect((await c.getZone(tokenCreds, zone.id)).name).toBe(name);

    expect(await c.deleteZone(tokenCreds, zone.id)).toEqual({ id: zone.id });
    const err = await upstreamError(c.getZone(tokenCreds, zone.id));
    expect(err.message).toMatch(/^Cloudflare: 7003 Could not route to .*; 7000 No route for that URI$/);
    expect(err.upstreamCode).toBe(7003);
  });

  it('maps a duplicate zone to 1061 and does not retry the POST', async () => {
    const c = client();
    const name = uniqueZone();
    await c.createZone(keyCreds, name);
    const mark = sim.state.requests.length;
    const err = await upstreamError(c.createZone(keyCreds, name));
    expect(err.message).toBe(`Cloudflare: 1061 ${name} already exists`);
    expect(err.upstreamStatus).toBe(400);
    expect(err.upstreamCode).toBe(1061);
    expect(requestsSince(mark).filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('lists every page of zones and filters by status', async () => {
    const { accountId: many } = sim.addAccount({
      email: 'many@example.com',
      token: 'tok_many_zones_000000000000000000000000',
    });
    for (let i = 0; i < 57; i++) sim.addZone(many, `bulk-${i}.example`, { status: i % 3 === 0 ? 'active' : 'pending' });
    const c = client();
    const creds = { token: 'tok_many_zones_000000000000000000000000' };
    expect(await c.listZones(creds)).toHaveLength(57);
    expect(await c.listZones(creds, { status: 'active' })).toHaveLength(19);
  });
});

describe('zone settings', () => {
  it('reads and changes ssl and tls_1_3', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    expect(await c.getSetting(tokenCreds, zone.id, 'ssl')).toMatchObject({ id: 'ssl', value: 'off' });
    expect(await c.setSetting(tokenCreds, zone.id, 'ssl', 'strict')).toMatchObject({ id: 'ssl', value: 'strict' });
    expect((await c.getSetting(keyCreds, zone.id, 'ssl')).value).toBe('strict');
    expect(await c.setSetting(tokenCreds, zone.id, 'tls_1_3', 'zrt')).toMatchObject({ id: 'tls_1_3', value: 'zrt' });
    const err = await upstreamError(c.setSetting(tokenCreds, zone.id, 'ssl', 'bogus' as 'full'));
    expect(err.message).toBe('Cloudflare: 1007 Invalid value for zone setting ssl');
  });
});

describe('dns records', () => {
  it('creates, gets, patches, puts and deletes one record', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const rec = await c.createDnsRecord(tokenCreds, zone.id, {
      type: 'A',
      name: 'www',
      content: '203.0.113.10',
      ttl: 1,
    });
    expect(rec).toMatchObject({ name: `www.${zone.name}`, proxied: false, proxiable: true, ttl: 1 });
    expect((await c.getDnsRecord(tokenCreds, zone.id, rec.id)).content).toBe('203.0.113.10');
    expect((await c.patchDnsRecord(tokenCreds, zone.id, rec.id, { proxied: true })).proxied).toBe(true);
    const put = await c.putDnsRecord(tokenCreds, zone.id, rec.id, {
      type: 'A',
      name: `www.${zone.name}`,
      content: '203.0.113.11',
      ttl: 300,
    });
    expect(put).toMatchObject({ id: rec.id, content: '203.0.113.11', ttl: 300, proxied: false });
    expect(await c.deleteDnsRecord(tokenCreds, zone.id, rec.id)).toEqual({ id: rec.id });

    const missing = await upstreamError(c.deleteDnsRecord(tokenCreds, zone.id, rec.id));
    expect(missing.message).toBe('Cloudflare: 81044 Record does not exist.');
  });

  it('validates like Cloudflare: duplicates, bad ttl, bad content', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const a = { type: 'A', name: '@', content: '198.51.100.1', ttl: 1 };
    await c.createDnsRecord(tokenCreds, zone.id, a);
    expect((await upstreamError(c.createDnsRecord(tokenCreds, zone.id, a))).message).toBe(
      'Cloudflare: 81057 Record already exists.',
    );
    const ttl = await upstreamError(c.createDnsRecord(tokenCreds, zone.id, { ...a, content: '198.51.100.2', ttl: 5 }));
    expect(ttl.message).toBe(
      'Cloudflare: 1004 DNS Validation Error (at /ttl): 9021 TTL must be between 60 and 86400 seconds, or 1 for Automatic.',
    );
    const ip = await upstreamError(c.createDnsRecord(tokenCreds, zone.id, { ...a, content: 'not-an-ip' }));
    expect(ip.upstreamCode).toBe(1004);
    const type = await upstreamError(c.createDnsRecord(tokenCreds, zone.id, { ...a, type: 'BOGUS' }));
    expect(type.message).toContain('9020 Invalid DNS record type');
  });

  it('lists every page when the zone has more than 100 records', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    for (let i = 0; i < 250; i++) {
      sim.addDnsRecord(zone.id, { type: 'TXT', name: `t${i}`, content: `value ${i}`, ttl: 1 });
    }
    sim.addDnsRecord(zone.id, { type: 'A', name: '@', content: '192.0.2.1', ttl: 1 });
    const mark = sim.state.requests.length;
    const all = await c.listDnsRecords(tokenCreds, zone.id);
    expect(all).toHaveLength(251);
    expect(new Set(all.map((r) => r.id)).size).toBe(251);
    const pages = requestsSince(mark);
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => new URLSearchParams(p.query).get('page'))).toEqual(['1', '2', '3']);
    expect(await c.listDnsRecords(tokenCreds, zone.id, { type: 'A' })).toHaveLength(1);
  });

  it('runs a batch in order deletes → patches → puts → posts', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const old = await c.createDnsRecord(tokenCreds, zone.id, { type: 'A', name: 'old', content: '192.0.2.1', ttl: 1 });
    const keep = await c.createDnsRecord(tokenCreds, zone.id, {
      type: 'A',
      name: 'keep',
      content: '192.0.2.2',
      ttl: 1,
    });
    const res = await c.batchDns(tokenCreds, zone.id, {
      deletes: [{ id: old.id }],
      patches: [{ id: keep.id, content: '192.0.2.3' }],
      // Re-creating the deleted name works because deletes run first.
      posts: [{ type: 'A', name: 'old', content: '192.0.2.1', ttl: 1 }],
    });
    expect(res.batches).toBe(1);
    expect(res.deletes.map((r) => r.id)).toEqual([old.id]);
    expect(res.patches[0]).toMatchObject({ id: keep.id, content: '192.0.2.3' });
    expect(res.posts[0]).toMatchObject({ name: `old.${zone.name}` });
    expect(await c.listDnsRecords(tokenCreds, zone.id)).toHaveLength(2);
  });

  it('applies nothing when one operation of the batch fails', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const a = await c.createDnsRecord(tokenCreds, zone.id, { type: 'A', name: 'a', content: '192.0.2.1', ttl: 1 });
    const b = await c.createDnsRecord(tokenCreds, zone.id, { type: 'A', name: 'b', content: '192.0.2.2', ttl: 1 });
    const before = await c.listDnsRecords(tokenCreds, zone.id);
    const mark = sim.state.requests.length;
    const err = await upstreamError(
      c.batchDns(tokenCreds, zone.id, {
        deletes: [{ id: a.id }],
        patches: [{ id: b.id, content: 'not-an-ip' }],
        posts: [{ type: 'TXT', name: 'new', content: 'x', ttl: 1 }],
      }),
    );
    expect(err.message).toContain('9005 Content for A record must be a valid IPv4 address.');
    expect(requestsSince(mark)).toHaveLength(1);
    expect(await c.listDnsRecords(tokenCreds, zone.id)).toEqual(before);
  });

  it('splits a change set larger than the batch limit and says which parts were applied', async () => {
    const c = client({ dnsBatchLimit: 2 });
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const posts = [1, 2, 3, 4, 5].map((i) => ({ type: 'TXT', name: `p${i}`, content: `v${i}`, ttl: 1 }));
    const res = await c.batchDns(tokenCreds, zone.id, { posts });
    expect(res.batches).toBe(3);
    expect(res.posts).toHaveLength(5);

    const err = await upstreamError(
      c.batchDns(tokenCreds, zone.id, {
        posts: [
          { type: 'TXT', name: 'q1', content: 'v', ttl: 1 },
          { type: 'TXT', name: 'q2', content: 'v', ttl: 1 },
          posts[0]!,
        ],
      }),
    );
    expect(err.message).toBe('Cloudflare: 81057 Record already exists. (at /posts/0) (in part 2 of 2)');
    // The error says what the applied part sent and got, so the caller can undo it.
    expect(err).toBeInstanceOf(DnsBatchPartError);
    const part = err as DnsBatchPartError;
    expect([part.part, part.parts]).toEqual([2, 2]);
    expect(part.appliedInput.posts?.map((p) => p.name)).toEqual(['q1', 'q2']);
    expect(part.applied.posts.map((r) => r.name)).toEqual([`q1.${zone.name}`, `q2.${zone.name}`]);
  });

  it('sends nothing for an empty change set', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const mark = sim.state.requests.length;
    const res = await c.batchDns(tokenCreds, zone.id, { deletes: [], patches: [], posts: [] });
    expect(res).toEqual({ deletes: [], patches: [], puts: [], posts: [], batches: 0 });
    expect(requestsSince(mark)).toHaveLength(0);
  });

  it("splits by the limit it is given, and reads the zone plan's limit (200 on Free, 3,500 on paid plans)", async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    expect(c.batchLimitFor(await c.getZone(tokenCreds, zone.id))).toBe(200);
    sim.setZonePlan(zone.id, 'pro');
    expect(c.batchLimitFor(await c.getZone(tokenCreds, zone.id))).toBe(3_500);
    expect(c.batchLimitFor({})).toBe(200);
    const posts = Array.from({ length: 250 }, (_, i) => ({ type: 'TXT', name: `r${i}`, content: 'v', ttl: 1 }));
    // A Pro zone takes 250 records in one batch; the simulator refuses more than the plan allows.
    expect((await c.batchDns(tokenCreds, zone.id, { posts }, { limit: 3_500 })).batches).toBe(1);
    sim.setZonePlan(zone.id, 'free');
    const more = Array.from({ length: 201 }, (_, i) => ({ type: 'TXT', name: `s${i}`, content: 'v', ttl: 1 }));
    const err = await upstreamError(c.batchDns(tokenCreds, zone.id, { posts: more }, { limit: 3_500 }));
    expect(err.message).toMatch(/9107 A batch may change at most 200 records/);
    expect((await c.batchDns(tokenCreds, zone.id, { posts: more }, { limit: 200 })).batches).toBe(2);
  });
});

describe('rulesets', () => {
  it('returns null for a missing entry point, creates it with PUT and keeps rule ids on update', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    expect(await c.getEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom')).toBeNull();

    const created = await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', [
      { description: 'Block bad IP', expression: 'ip.src eq 203.0.113.7', action: 'block' },
      {
        description: 'Challenge non-API',
        expression: 'not starts_with(http.request.uri.path, "/api/")',
        action: 'managed_challenge',
        enabled: false,
      },
    ]);
    expect(created).toMatchObject({ kind: 'zone', phase: 'http_request_firewall_custom', version: '1' });
    expect(created.rules.map((r) => [r.action, r.enabled])).toEqual([
      ['block', true],
      ['managed_challenge', false],
    ]);

    const fetched = await c.getEntrypointRuleset(keyCreds, zone.id, 'http_request_firewall_custom');
    expect(fetched?.id).toBe(created.id);
    // Send back what was read, reordered, minus one rule: read-only fields are dropped by the client.
    const updated = await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', [
      fetched!.rules[1]!,
    ]);
    expect(updated.version).toBe('2');
    expect(updated.rules.map((r) => r.id)).toEqual([created.rules[1]!.id]);

    const list = await c.listRulesets(tokenCreds, zone.id);
    expect(list.map((r) => r.phase)).toEqual(['http_request_firewall_custom']);

    const unknownZone = await upstreamError(
      c.getEntrypointRuleset(tokenCreds, 'c'.repeat(32), 'http_request_firewall_custom'),
    );
    expect(unknownZone.upstreamCode).toBe(7003);
  });

  it('writes single redirects and reports a bad rule with its pointer', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const rs = await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_dynamic_redirect', [
      {
        expression: '(http.host eq "old.example.com")',
        action: 'redirect',
        action_parameters: {
          from_value: {
            target_url: { value: 'https://example.com/new' },
            status_code: 301,
            preserve_query_string: true,
          },
        },
      },
    ]);
    expect(rs.rules[0]?.action_parameters).toMatchObject({ from_value: { status_code: 301 } });
    const err = await upstreamError(
      c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_dynamic_redirect', [
        { expression: 'true', action: 'block' },
      ]),
    );
    expect(err.message).toContain("'block' is not a valid value for action");
    expect(err.upstreamStatus).toBe(400);
  });
});

describe('foreign rules', () => {
  it('go back exactly as they came: every field kept, only read-only ones dropped', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    const foreign = {
      ref: 'dashboard-login-check',
      description: 'Leaked credentials',
      expression: 'http.request.uri.path eq "/login"',
      action: 'managed_challenge',
      exposed_credential_check: {
        username_expression: 'url_decode(http.request.body.form["user"][0])',
        password_expression: 'url_decode(http.request.body.form["pass"][0])',
      },
      ratelimit: { characteristics: ['ip.src'], period: 60, requests_per_period: 100, mitigation_timeout: 600 },
    };
    await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', [foreign]);
    const read = await c.getEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom');
    const mark = sim.state.requests.length;
    const again = await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', [
      ...read!.rules,
      { expression: 'ip.src eq 203.0.113.9', action: 'block' },
    ]);
    expect(requestsSince(mark)).toHaveLength(1);
    const { version: _v, last_updated: _l, ...kept } = again.rules[0]!;
    const { version: _v0, last_updated: _l0, ...before } = read!.rules[0]!;
    expect(kept).toEqual(before);
    expect(kept).toMatchObject(foreign);
  });
});

describe('cache purge', () => {
  it('purges everything', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());
    expect(await c.purgeEverything(tokenCreds, zone.id)).toEqual({ id: zone.id });
    expect(sim.purgeLog.at(-1)).toMatchObject({ zoneId: zone.id, body: { purge_everything: true } });
  });
});

describe('retries', () => {
  it('retries an idempotent call on 5xx and succeeds', async () => {
    sim.fail({ kind: '5xx', count: 2 });
    const mark = sim.state.requests.length;
    expect(await client().listAccounts(tokenCreds)).toHaveLength(1);
    expect(requestsSince(mark).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(waits).toHaveLength(2);
  });

  it('gives up after maxRetries with the last error (an edge HTML page here)', async () => {
    sim.fail({ kind: '5xx', count: 3, status: 502 });
    const mark = sim.state.requests.length;
    const err = await upstreamError(client().listAccounts(tokenCreds));
    expect(err.message).toBe('Cloudflare: HTTP 502 from the API (not a JSON answer)');
    expect(err.upstreamStatus).toBe(502);
    expect(requestsSince(mark)).toHaveLength(3);
  });

  it('honours retry-after on 429', async () => {
    sim.fail({ kind: '429', count: 1, retryAfter: 7 });
    expect(await client().listAccounts(keyCreds)).toHaveLength(1);
    expect(waits).toEqual([7000]);
  });

  it('fails clearly when 429 persists, or when retry-after is longer than it will wait', async () => {
    sim.fail({ kind: '429', count: 3, retryAfter: 1 });
    const err = await upstreamError(client().listAccounts(keyCreds));
    expect(err.message).toBe(
      'Cloudflare: rate limited (971 Please wait and consider throttling your request speed); retry after 1 s',
    );
    expect(err.code).toBe('upstream_rate_limited');

    sim.fail({ kind: '429', count: 1, retryAfter: 300 });
    const long = await upstreamError(client().listAccounts(keyCreds));
    expect(long.message).toContain('retry after 300 s');
    expect(waits).toEqual([1000, 1000]);
  });

  it('retries PUT but never POST or PATCH', async () => {
    const c = client();
    const zone = await c.createZone(tokenCreds, uniqueZone());

    sim.fail({ kind: '5xx', count: 1 });
    let mark = sim.state.requests.length;
    expect(await upstreamError(c.purgeEverything(tokenCreds, zone.id))).toMatchObject({ upstreamStatus: 500 });
    expect(requestsSince(mark)).toHaveLength(1);

    sim.fail({ kind: '429', count: 1 });
    mark = sim.state.requests.length;
    expect(await upstreamError(c.setSetting(tokenCreds, zone.id, 'ssl', 'full'))).toMatchObject({
      upstreamStatus: 429,
    });
    expect(requestsSince(mark)).toHaveLength(1);

    sim.fail({ kind: '5xx', count: 1 });
    mark = sim.state.requests.length;
    await c.putEntrypointRuleset(tokenCreds, zone.id, 'http_request_firewall_custom', []);
    expect(requestsSince(mark).map((r) => r.status)).toEqual([500, 200]);
  });
});

describe('request budget', () => {
  it("spends each operator's calls against their own share, read from the budget context", async () => {
    let owner = 'alice';
    const c = client({ budget: { requests: 4, windowMs: 60_000 }, budgetContext: () => ({ owner }) });
    await c.listAccounts(tokenCreds);
    await c.listAccounts(tokenCreds);
    const mark = sim.state.requests.length;
    const err = await budgetRefusal(c.listAccounts(tokenCreds));
    expect(err.message).toMatch(
      /^Cloudflare: your share of this account's request budget used up \(4 requests per 60 s, shared with the other operators\); try again in \d+ s$/,
    );
    // A rate limit like any other: 429 with Retry-After, not a 502 blaming Cloudflare.
    expect(err.status).toBe(429);
    expect(err.code).toBe('upstream_rate_limited');
    expect(Number(err.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(requestsSince(mark)).toHaveLength(0);
    owner = 'bob';
    expect(await c.listAccounts(tokenCreds)).toHaveLength(1);
  });

  it('fails at once, without a request, when the account used its budget; other accounts are unaffected', async () => {
    const c = client({ budget: { requests: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) await c.listZones(tokenCreds);
    const mark = sim.state.requests.length;
    const err = await budgetRefusal(c.listZones(tokenCreds));
    expect(err.message).toMatch(
      /^Cloudflare: request budget for this account used up \(3 requests per 60 s\); try again in \d+ s$/,
    );
    expect(err.code).toBe('upstream_rate_limited');
    expect(err.status).toBe(429);
    expect(requestsSince(mark)).toHaveLength(0);
    expect(await c.listZones(keyCreds)).toBeInstanceOf(Array);
  });

  it('counts retries and frees requests as the window slides', async () => {
    const c = client({ budget: { requests: 2, windowMs: 300 } });
    sim.fail({ kind: '5xx', count: 1 });
    await c.listAccounts(tokenCreds);
    await expect(c.listAccounts(tokenCreds)).rejects.toThrow(/request budget/);
    await new Promise((r) => setTimeout(r, 350));
    expect(await c.listAccounts(tokenCreds)).toHaveLength(1);
  });
});

describe('timeouts and connection failures', () => {
  it('times out a slow call with a 504-style UpstreamError', async () => {
    sim.fail({ kind: 'slow', delayMs: 1_000 });
    const started = Date.now();
    const err = await upstreamError(client({ timeoutMs: 150 }).listAccounts(tokenCreds));
    expect(Date.now() - started).toBeLessThan(900);
    expect(err.message).toBe('Cloudflare: timed out after 150 ms');
    expect(err.status).toBe(504);
    expect(err.code).toBe('upstream_timeout');
  });

  it('still answers when slow but within the timeout', async () => {
    sim.fail({ kind: 'slow', delayMs: 100 });
    expect(await client({ timeoutMs: 2_000 }).listAccounts(tokenCreds)).toHaveLength(1);
  });

  it('reports a refused connection', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const c = createCloudflareClient({ baseUrl: `http://127.0.0.1:${port}/client/v4`, timeoutMs: 2_000 });
    const err = await upstreamError(c.listZones(tokenCreds));
    expect(err.message).toMatch(/^Cloudflare: could not connect \(.*ECONNREFUSED.*\)$/);
    expect(err.code).toBe('upstream_unreachable');
    expect(err.message).not.toContain(TOKEN);
  });
});

describe('GraphQL Analytics (zone traffic)', () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

  it('reads the daily series of a zone: one POST /graphql, every day in order with its figures', async () => {
    const { zoneId } = sim.addZone(accountId, uniqueZone(), { status: 'active' });
    const mark = sim.state.requests.length;
    const days = await client().zoneTrafficDays(tokenCreds, zoneId, { since: day(-6), until: day(0) });
    expect(days.map((d) => d.at)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(day));
    for (const d of days) {
      expect(d.requests).toBeGreaterThan(0);
      expect(d.pageViews).toBeGreaterThan(0);
      expect(d.uniques).toBeGreaterThan(0);
      expect(d.statuses.reduce((n, s) => n + s.requests, 0)).toBe(d.requests);
    }
    expect(requestsSince(mark).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /client/v4/graphql']);
    // The same zone answers the same series (seeded), through the key credentials as well.
    expect(await client().zoneTrafficDays(keyCreds, zoneId, { since: day(-6), until: day(0) })).toEqual(days);
  });

  it('reads the hourly series', async () => {
    const { zoneId } = sim.addZone(accountId, uniqueZone(), { status: 'active' });
    const since = new Date(Date.now() - 30 * 3_600_000);
    since.setUTCMinutes(0, 0, 0);
    const until = new Date(since.getTime() + 24 * 3_600_000);
    const hours = await client().zoneTrafficHours(tokenCreds, zoneId, {
      since: since.toISOString(),
      until: until.toISOString(),
    });
    expect(hours).toHaveLength(24);
    expect(Date.parse(hours[0]!.at)).toBe(since.getTime());
  });

  it("turns GraphQL errors into UpstreamErrors naming Cloudflare and the refused node, and doesn't resend them", async () => {
    const unknown = await upstreamError(
      client().zoneTrafficDays(tokenCreds, 'f'.repeat(32), { since: day(-6), until: day(0) }),
    );
    expect(unknown.message).toMatch(
      /^Cloudflare analytics refused the query: zone 'f{32}' does not exist or the actor does not have access to the path \(at viewer\.zones\.0\)$/,
    );
    expect(unknown.code).toBe('upstream_refused');
    const { zoneId } = sim.addZone(accountId, uniqueZone(), { status: 'active' });
    const mark = sim.state.requests.length;
    const wide = await upstreamError(client().zoneTrafficDays(tokenCreds, zoneId, { since: day(-90), until: day(0) }));
    expect(wide.message).toMatch(/^Cloudflare analytics refused the query: cannot request a time range wider than/);
    expect(wide.message).toMatch(/\(at viewer\.zones\.0\.httpRequests1dGroups\)$/);
    expect(requestsSince(mark)).toHaveLength(1);
    const badDate = await upstreamError(
      client().zoneTrafficDays(tokenCreds, zoneId, { since: 'last week', until: day(0) }),
    );
    expect(badDate.message).toMatch(/^Cloudflare analytics refused the query: .*Date expects a date/);
  });

  it('bad credentials are the v4 authentication failure; a 5xx is retried; the call spends the budget', async () => {
    const { zoneId } = sim.addZone(accountId, uniqueZone(), { status: 'active' });
    const bad = await upstreamError(
      client().zoneTrafficDays({ token: 'tok_wrong_0123456789abcdefghijklmnop' }, zoneId, {
        since: day(-1),
        until: day(0),
      }),
    );
    expect(bad.message).toMatch(/^Cloudflare: authentication failed/);
    sim.fail({ kind: '5xx', count: 1, status: 500 });
    expect(await client().zoneTrafficDays(tokenCreds, zoneId, { since: day(-1), until: day(0) })).toHaveLength(2);
    const c = client({ budget: { requests: 1, windowMs: 60_000 } });
    await c.zoneTrafficDays(tokenCreds, zoneId, { since: day(-1), until: day(0) });
    const mark = sim.state.requests.length;
    await budgetRefusal(c.zoneTrafficDays(tokenCreds, zoneId, { since: day(-1), until: day(0) }));
    expect(requestsSince(mark)).toHaveLength(0);
  });
});

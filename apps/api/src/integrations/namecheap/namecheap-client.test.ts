import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators';
import { UpstreamError } from '../../http/errors.ts';
import { createNamecheapClient, splitDomain, type NamecheapClientOptions } from './index.ts';

let sim: NamecheapSim;
const KEY = 'nc-secret-key-0123456789';
const contact = {
  firstName: 'Dana',
  lastName: 'Registrant',
  address1: '1 Example Street',
  city: 'Lisbon',
  stateProvince: 'Lisboa',
  postalCode: '1000-001',
  country: 'PT',
  phone: '+351.210000000',
  email: 'dana@example.org',
};

beforeAll(async () => {
  sim = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
  sim.addAccount({ apiUser: 'acme', apiKey: KEY, balance: 100 });
  sim.addDomain('acme', 'alpha.com', { expires: '2027-03-04', created: '2024-03-04' });
  sim.addDomain('acme', 'пример.рф', { expires: '2026-12-31' });
  sim.addDomain('acme', 'aa.us.com');
  for (let i = 0; i < 130; i++) sim.addDomain('acme', `bulk-${String(i).padStart(3, '0')}.net`);
});
afterAll(async () => sim?.close());
afterEach(() => sim.clearFailures());

const creds = () => ({ endpointUrl: sim.url, apiUser: 'acme', apiKey: KEY });
const client = (o: Partial<NamecheapClientOptions> = {}) =>
  createNamecheapClient({ clientIp: '198.51.100.7', timeoutMs: 2000, sleep: async () => undefined, ...o });
const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(Error);
  return e as UpstreamError;
};

describe('Namecheap client against the simulator', () => {
  it('getInfo: status, expiration date as YYYY-MM-DD, name servers; IDN names go as punycode', async () => {
    const nc = client();
    expect(await nc.getInfo(creds(), 'Alpha.com')).toEqual({
      domainName: 'alpha.com',
      status: 'Ok',
      expirationDate: '2027-03-04',
      nameServers: ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'],
      isUsingOurDns: true,
    });
    const idn = await nc.getInfo(creds(), 'пример.рф');
    expect(idn.domainName).toBe('xn--e1afmkfd.xn--p1ai');
    expect(sim.requests.at(-1)?.params.domainname).toBe('xn--e1afmkfd.xn--p1ai');
    // The key never reaches the log, and ClientIp and UserName are sent.
    expect(sim.requests.at(-1)?.params).toMatchObject({ clientip: '198.51.100.7', username: 'acme' });
    expect(JSON.stringify(sim.requests)).not.toContain(KEY);
  });

  it('turns error numbers into messages that name Namecheap', async () => {
    const nc = client();
    const missing = await failure(nc.getInfo(creds(), 'nowhere.com'));
    expect(missing.message).toBe('Namecheap 2019166: Domain not found');
    expect(missing.upstreamCode).toBe(2019166);
    const other = await failure(nc.getInfo(creds(), 'google.com'));
    expect(other.message).toBe('Namecheap 2016166: Domain is not associated with your account');
  });

  it('a bad key: 1011102 with a clear message, and the key never in it', async () => {
    const bad = await failure(client().getInfo({ ...creds(), apiKey: 'wrong-key-123' }, 'alpha.com'));
    expect(bad.message).toBe('Namecheap 1011102: API key is invalid or API access has not been enabled');
    expect(bad.code).toBe('upstream_auth_failed');
    expect(bad.status).toBe(502);
    const ip = await failure(client({ clientIp: '203.0.113.9' }).getInfo(creds(), 'alpha.com'));
    expect(ip.message).toContain('Namecheap 1011150');
    expect(ip.message).toContain('NAMECHEAP_CLIENT_IP is 203.0.113.9');
    const noIp = await failure(client({ clientIp: undefined }).getInfo(creds(), 'alpha.com'));
    expect(noIp.message).toMatch(/^Namecheap: NAMECHEAP_CLIENT_IP is not set/);
  });

  it('pages the domain list to the end, past 100', async () => {
    const nc = client();
    const before = sim.requests.length;
    const all = await nc.getAll(creds());
    expect(all).toHaveLength(133);
    expect(new Set(all.map((d) => d.domainName)).size).toBe(133);
    expect(all.map((d) => d.domainName)).toContain('bulk-129.net');
    const pages = sim.requests.slice(before).map((r) => r.params.page);
    expect(pages).toEqual(['1', '2']);
    const page = await nc.getListPage(creds(), { page: 2, pageSize: 20, search: 'bulk-1' });
    expect(page.totalItems).toBe(30);
    expect(page.items[0]?.domainName).toBe('bulk-120.net');
    const idn = await nc.getListPage(creds(), { search: 'пример' });
    expect(idn.items.map((d) => d.domainName)).toEqual(['xn--e1afmkfd.xn--p1ai']);
  });

  it('create sends the contact in all four roles with the name servers, and shows the charge', async () => {
    const nc = client();
    const r = await nc.create(creds(), {
      domainName: 'fresh-name.com',
      years: 2,
      contact,
      nameServers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
    });
    expect(r).toMatchObject({ domainName: 'fresh-name.com', registered: true, chargedAmount: '21.74' });
    expect(r.orderId).toEqual(expect.any(Number));
    const sent = sim.requests.at(-1)!.params;
    for (const role of ['registrant', 'tech', 'admin', 'auxbilling']) {
      expect(sent[`${role}phone`]).toBe('+351.210000000');
      expect(sent[`${role}stateprovince`]).toBe('Lisboa');
    }
    expect(sim.domain('acme', 'fresh-name.com')?.nameServers).toEqual([
      'ada.ns.cloudflare.com',
      'bob.ns.cloudflare.com',
    ]);
    const taken = await failure(nc.create(creds(), { domainName: 'fresh-name.com', years: 1, contact }));
    expect(taken.message).toMatch(/^Namecheap 3019166: /);
    const poor = await failure(nc.create(creds(), { domainName: 'very-expensive.io', years: 10, contact }));
    expect(poor.message).toMatch(/^Namecheap 2528166: Insufficient funds/);
  });

  it('dns.setCustom and dns.getList split SLD and TLD on the public suffix', async () => {
    expect(splitDomain('shop.example.co.uk'.replace('shop.', ''))).toEqual({ sld: 'example', tld: 'co.uk' });
    expect(splitDomain('пример.рф')).toEqual({ sld: 'xn--e1afmkfd', tld: 'xn--p1ai' });
    // Namecheap sells names under private suffixes (its own domains.create example is aa.us.com) and splits them
    // as its SDK does, on a suffix list that includes them.
    expect(splitDomain('aa.us.com')).toEqual({ sld: 'aa', tld: 'us.com' });
    expect(splitDomain('shop.uk.com')).toEqual({ sld: 'shop', tld: 'uk.com' });
    expect(splitDomain('brand.gb.net')).toEqual({ sld: 'brand', tld: 'gb.net' });
    expect(splitDomain('example.com.au')).toEqual({ sld: 'example', tld: 'com.au' });
    expect(splitDomain('bücher.us.com')).toEqual({ sld: 'xn--bcher-kva', tld: 'us.com' });
    expect(() => splitDomain('www.aa.us.com')).toThrow(/not a registrable domain name/);
    expect(() => splitDomain('us.com')).toThrow(/not a registrable domain name/);
    await client().setCustomNameServers(creds(), 'aa.us.com', ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com']);
    expect(sim.requests.at(-1)?.params).toMatchObject({ sld: 'aa', tld: 'us.com' });
    const nc = client();
    expect(await nc.getDnsList(creds(), 'alpha.com')).toEqual({
      domainName: 'alpha.com',
      isUsingOurDns: true,
      nameServers: ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'],
    });
    expect(
      await nc.setCustomNameServers(creds(), 'alpha.com', ['ADA.ns.cloudflare.com', 'bob.ns.cloudflare.com']),
    ).toEqual({
      domainName: 'alpha.com',
      updated: true,
    });
    expect((await nc.getDnsList(creds(), 'alpha.com')).nameServers).toEqual([
      'ada.ns.cloudflare.com',
      'bob.ns.cloudflare.com',
    ]);
    expect(sim.requests.at(-2)?.params).toMatchObject({ sld: 'alpha', tld: 'com' });
    expect((await nc.check(creds(), ['alpha.com', 'brand-new.org'])).map((r) => r.available)).toEqual([false, true]);
  });

  it('backs off and retries after HTTP 405 and error 500000, a bounded number of times', async () => {
    const waits: number[] = [];
    const nc = client({ sleep: async (ms) => void waits.push(ms), rateLimitRetries: 2, backoffMs: 1000 });
    sim.fail({ kind: '405' });
    sim.fail({ kind: '500000' });
    expect((await nc.getInfo(creds(), 'alpha.com')).domainName).toBe('alpha.com');
    expect(waits).toEqual([1000, 2000]);
    sim.fail({ kind: '405', count: 3 });
    const limited = await failure(nc.getInfo(creds(), 'alpha.com'));
    expect(limited.message).toBe('Namecheap: rate limited (HTTP 405) after 3 attempts');
    expect(limited.code).toBe('upstream_rate_limited');
    // A create is never resent on 500000: it may have run.
    sim.fail({ kind: '500000' });
    const once = await failure(nc.create(creds(), { domainName: 'never-twice.com', years: 1, contact }));
    expect(once.message).toBe('Namecheap 500000: Too many requests');
  });

  it('keeps to the per-account rate: waits for a free slot, or fails with 429 when the wait is too long', async () => {
    let clock = 1_000_000;
    const waits: number[] = [];
    const nc = client({
      callsPerMinute: 3,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
      maxQueueWaitMs: 61_000,
    });
    for (let i = 0; i < 4; i++) await nc.getInfo(creds(), 'alpha.com');
    // A second past the window: the first call, counted when sent, has left Namecheap's window when the fourth
    // arrives (sent at exactly 60 s it could arrive while Namecheap still counted the first: error 500000).
    expect(waits).toEqual([61_000]);
    const strict = client({ callsPerMinute: 1, now: () => clock, maxQueueWaitMs: 1000 });
    await strict.getInfo(creds(), 'alpha.com');
    const err = await failure(strict.getInfo(creds(), 'alpha.com'));
    expect(err.status).toBe(429);
    expect(err.message).toBe('Namecheap: the 1 calls a minute allowed for this account are used up; try again in 61 s');
  });

  it("keeps a compressed window: its budget refills within it, and waits past a sixth of it are the caller's", async () => {
    let clock = 2_000_000;
    const waits: number[] = [];
    const nc = client({
      callsPerMinute: 2,
      budgetWindowMs: 6000,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    await nc.getInfo(creds(), 'alpha.com');
    clock += 5500;
    await nc.getInfo(creds(), 'alpha.com');
    // The first slot frees 0.5 s later (and the margin of a sixtieth of the window, 0.1 s): within a sixth of the
    // window (1 s), so the client waits for it.
    await nc.getInfo(creds(), 'alpha.com');
    expect(waits).toEqual([600]);
    // The next frees 5.5 s later: longer than a sixth of the window, so it is a 429 with the wait.
    const err = await failure(nc.getInfo(creds(), 'alpha.com'));
    expect(err.status).toBe(429);
    expect(err.message).toBe('Namecheap: the 2 calls per 6 s allowed for this account are used up; try again in 6 s');
  });

  it.each([
    [undefined, 'Namecheap: rate limited (HTTP 200, error 500000) after 2 attempts'],
    ['500000' as const, 'Namecheap: rate limited (HTTP 200, error 500000) after 2 attempts'],
    ['405' as const, 'Namecheap: rate limited (HTTP 405) after 2 attempts'],
  ])('the simulator limits calls per account and answers the limit as %s (default 500000)', async (answer, message) => {
    const limited = await startNamecheapSim({
      rateLimit: { requests: 2, windowMs: 60_000 },
      ...(answer ? { rateLimitAnswer: answer } : {}),
    });
    try {
      limited.addAccount({ apiUser: 'acme', apiKey: KEY });
      limited.addDomain('acme', 'alpha.com');
      const waits: number[] = [];
      const nc = client({ sleep: async (ms) => void waits.push(ms), rateLimitRetries: 1 });
      const c = { ...creds(), endpointUrl: limited.url };
      await nc.getInfo(c, 'alpha.com');
      await nc.getInfo(c, 'alpha.com');
      const e = await failure(nc.getInfo(c, 'alpha.com'));
      expect(e.message).toBe(message);
      expect(e.code).toBe('upstream_rate_limited');
      expect(waits).toEqual([2000]);
    } finally {
      await limited.close();
    }
  });

  it("getPricing: the REGISTER prices of one TLD, per duration, in the answer's currency; the simulator refuses what Namecheap does", async () => {
    const nc = client();
    const rows = await nc.getPricing(creds(), { productType: 'DOMAIN', actionName: 'REGISTER', productName: 'com' });
    expect(sim.requests.at(-1)).toMatchObject({
      command: 'namecheap.users.getpricing',
      params: { producttype: 'DOMAIN', actionname: 'REGISTER', productname: 'com' },
    });
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({
      productType: 'DOMAIN',
      category: 'REGISTER',
      product: 'com',
      duration: 1,
      durationType: 'YEAR',
      price: 10.87,
      additionalCost: 0,
      currency: 'USD',
    });
    // A TLD Namecheap does not sell: no Product row, not an error.
    expect(await nc.getPricing(creds(), { productType: 'DOMAIN', actionName: 'REGISTER', productName: 'zz' })).toEqual(
      [],
    );
    // The answer's own shape as Namecheap documents it (lower-case names seen too), with the ICANN fee per year.
    const documented = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(
          '<?xml version="1.0" encoding="UTF-8"?><ApiResponse xmlns="http://api.namecheap.com/xml.response" Status="OK"><Errors />' +
            '<RequestedCommand>namecheap.users.getPricing</RequestedCommand><CommandResponse Type="namecheap.users.getPricing">' +
            '<UserGetPricingResult><ProductType Name="domains"><ProductCategory Name="register"><Product Name="com">' +
            '<Price Duration="1" DurationType="YEAR" Price="8.88" AdditionalCost="0.18" RegularPrice="10.98" YourPrice="8.88" YourAdditonalCost="0.18" Currency="USD" />' +
            '<Price Duration="2" DurationType="YEAR" Price="12.88" RegularPrice="12.88" YourPrice="12.88" CouponPrice="" Currency="USD" />' +
            '</Product></ProductCategory></ProductType></UserGetPricingResult></CommandResponse></ApiResponse>',
        );
    });
    await new Promise<void>((r) => documented.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(documented.address() as AddressInfo).port}/xml.response`;
      const doc = await nc.getPricing(
        { ...creds(), endpointUrl: url },
        { productType: 'DOMAIN', actionName: 'REGISTER', productName: 'com' },
      );
      expect(doc.map((r) => [r.category, r.product, r.duration, r.price, r.additionalCost, r.currency])).toEqual([
        ['REGISTER', 'com', 1, 8.88, 0.18, 'USD'],
        ['REGISTER', 'com', 2, 12.88, 0, 'USD'],
      ]);
    } finally {
      await new Promise((r) => documented.close(r));
    }
    // Refusals, through the wire: no ProductType, one Namecheap does not list, a bad action, a promotion code.
    const raw = async (params: Record<string, string>) => {
      const body = new URLSearchParams({
        ApiUser: 'acme',
        ApiKey: KEY,
        UserName: 'acme',
        ClientIp: '198.51.100.7',
        Command: 'namecheap.users.getPricing',
        ...params,
      });
      return (await fetch(sim.url, { method: 'POST', body })).text();
    };
    expect(await raw({})).toMatch(/Status="ERROR".*<Error Number="2010324">Parameter is missing: ProductType/s);
    expect(await raw({ ProductType: 'HOSTING' })).toContain('<Error Number="2011298">');
    expect(await raw({ ProductType: 'DOMAIN', ActionName: 'BUY' })).toContain('<Error Number="2011280">');
    expect(await raw({ ProductType: 'DOMAIN', PromotionCode: 'FREE' })).toContain('<Error Number="2011170">');
    // A failure reads as one naming Namecheap.
    sim.fail({ kind: '5xx', command: 'namecheap.users.getpricing' });
    const e = await failure(
      nc.getPricing(creds(), { productType: 'DOMAIN', actionName: 'REGISTER', productName: 'com' }),
    );
    expect(e.message).toBe('Namecheap: HTTP 502 from the API');
  });

  it('HTML pages, 5xx, timeouts and refused connections become errors naming Namecheap', async () => {
    const nc = client({ timeoutMs: 300 });
    sim.fail({ kind: 'html' });
    expect((await failure(nc.getInfo(creds(), 'alpha.com'))).message).toBe(
      'Namecheap: the answer was not Namecheap XML (HTTP 200)',
    );
    sim.fail({ kind: '5xx' });
    expect((await failure(nc.getInfo(creds(), 'alpha.com'))).message).toBe('Namecheap: HTTP 502 from the API');
    sim.fail({ kind: 'slow', delayMs: 1000 });
    const slow = await failure(nc.getInfo(creds(), 'alpha.com'));
    expect(slow.message).toBe('Namecheap: timed out after 300 ms');
    expect(slow.status).toBe(504);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await failure(
      nc.getInfo({ ...creds(), endpointUrl: `http://127.0.0.1:${port}/xml.response` }, 'alpha.com'),
    );
    expect(refused.message).toMatch(/^Namecheap: could not connect \(ECONNREFUSED/);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@fleetdesk/contract';
import { cloudflareTxtLookup } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { startGoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { useAdminCalls } from '../../test/fixtures.ts';
import { useVerifyingSims } from '../../test/verifying-sims.ts';

let seq = 0;

const { t, sims } = useVerifyingSims(startGoogleSearchSim, ({ engine }) => ({
  GOOGLE_SEARCH_CONSOLE_API_URL: engine.url,
  GOOGLE_SITE_VERIFICATION_API_URL: engine.siteVerificationUrl,
  GOOGLE_SEARCH_TIMEOUT_SECONDS: '5',
}));
const { call, create } = useAdminCalls(t);
const unique = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 7)}`;
const ACC = '/api/google-search/accounts';

/** A service account in the simulator and the console account holding its key. */
async function account(name = 'Main') {
  const key = sims.engine.createServiceAccount(unique('sa-'));
  const a = await create('google-search/accounts', { name, serviceAccountKey: JSON.stringify(key) });
  return { a, key };
}

/** A domain of a cloud whose zone is in the Cloudflare simulator. */
async function zonedDomain(name: string) {
  const cfToken = unique('cf-token-');
  sims.cf.addAccount({ email: `${unique('o')}@example.com`, token: cfToken });
  const cloud = await create('clouds', { email: `${unique('c')}@example.com`, token: cfToken });
  const d = await create('domains', { domainName: name, status: 'active', cloudId: cloud._id });
  const zone = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
  expect(zone.statusCode, zone.body).toBe(200);
  return d;
}

/** A domain with a verified domain property on a new account. */
async function verifiedDomain(name: string) {
  const { a, key } = await account();
  const d = await zonedDomain(name);
  const add = await call('PUT', `/api/domains/${d._id}/google-search/property`, { accountId: a._id, kind: 'domain' });
  expect(add.statusCode, add.body).toBe(200);
  const v = await call('POST', `/api/domains/${d._id}/google-search/verify`);
  expect(v.statusCode, v.body).toBe(200);
  return { a, key, d, base: `/api/domains/${d._id}/google-search` };
}

describe('google accounts', () => {
  it('checks the key on save: its shape, then a token request, each as the key field’s error', async () => {
    const bad = async (payload: object) => {
      const res = await call('POST', ACC, payload);
      expect(res.statusCode, res.body).toBe(400);
      return res.json().fields as Record<string, string>;
    };
    expect((await bad({ name: '', serviceAccountKey: '{}' })).name).toBe('Name is required');
    expect((await bad({ name: 'A' })).serviceAccountKey).toBe('The service account key is required');
    expect((await bad({ name: 'A', serviceAccountKey: 'not json' })).serviceAccountKey).toBe(
      'The key must be the JSON key file of a service account',
    );
    const key = sims.engine.createServiceAccount(unique('sa-'));
    expect(
      (await bad({ name: 'A', serviceAccountKey: JSON.stringify({ ...key, type: 'user' }) })).serviceAccountKey,
    ).toBe('The key must be of type "service_account"');
    const brokenPem = { ...key, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' };
    expect((await bad({ name: 'A', serviceAccountKey: JSON.stringify(brokenPem) })).serviceAccountKey).toBe(
      'The private_key cannot be read as a PEM private key',
    );
    // A well-formed key Google does not know (another RSA key under the same id): the token request is refused.
    const stranger = sims.engine.createServiceAccount(unique('sa-'));
    const forged = { ...key, private_key: stranger.private_key };
    expect((await bad({ name: 'A', serviceAccountKey: JSON.stringify(forged) })).serviceAccountKey).toBe(
      'Google refused the service account key: invalid_grant: Invalid JWT Signature.',
    );
    // A token endpoint that is not Google's (the simulator's under another name): the assertion's aud is refused.
    const elsewhere = { ...key, token_uri: key.token_uri.replace('127.0.0.1', 'localhost') };
    expect((await bad({ name: 'A', serviceAccountKey: JSON.stringify(elsewhere) })).serviceAccountKey).toMatch(
      /^Google refused the service account key: invalid_grant: Invalid JWT: the aud claim must be/,
    );
  });

  it('stores the key sealed, shows its client_email and project, and keeps it unless a new one is given', async () => {
    const { a, key } = await account();
    expect(a).toMatchObject({
      googleSearchAccountNo: expect.any(Number),
      name: 'Main',
      clientEmail: key.client_email,
      projectId: 'fleetdesk-sim',
      serviceAccountKey: SECRET_MASK,
    });
    expect(JSON.stringify(a)).not.toContain('PRIVATE KEY');
    for (const payload of [{ name: 'Renamed' }, { serviceAccountKey: SECRET_MASK }, { serviceAccountKey: '' }]) {
      const upd = await call('PATCH', `${ACC}/${a._id}`, payload);
      expect(upd.statusCode, upd.body).toBe(200);
      expect(upd.json().data.clientEmail).toBe(key.client_email);
    }
    // No reveal: the key is never shown again.
    expect((await call('POST', `${ACC}/${a._id}/reveal`, { field: 'serviceAccountKey' })).statusCode).toBe(404);
    const other = sims.engine.createServiceAccount(unique('sa-'));
    const changed = await call('PUT', `${ACC}/${a._id}`, { name: 'Renamed', serviceAccountKey: JSON.stringify(other) });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data.clientEmail).toBe(other.client_email);
    const list = (await call('GET', `${ACC}?search=renam`)).json().data;
    expect(list).toMatchObject({ itemsCount: 1, items: [{ name: 'Renamed', serviceAccountKey: SECRET_MASK }] });
    const logs = t.logs.join('\n');
    expect(logs).not.toContain(key.private_key.split('\n')[1]);
    expect(logs).not.toContain(other.private_key.split('\n')[1]);
  });

  it('refuses a personal API token that changes where the key is sent', async () => {
    const { a, key } = await account();
    const session = await t.tokenFor(['cnv:google-search']);
    const res = await t.inject({
      method: 'POST',
      url: '/auth/tokens',
      headers: { authorization: session },
      payload: { name: 'ci', rules: ['cnv:google-search'], expiresInDays: 30 },
    });
    const bearer = `Bearer ${res.json().data.token as string}`;
    const moved = { ...key, token_uri: 'https://tokens.example/token' };
    const upd = await t.inject({
      method: 'PATCH',
      url: `${ACC}/${a._id}`,
      headers: { authorization: bearer },
      payload: { serviceAccountKey: JSON.stringify(moved) },
    });
    expect(upd.statusCode, upd.body).toBe(403);
    expect(upd.json().message).toBe(
      'An API token cannot change where a stored credential is sent (serviceAccountKey.token_uri)',
    );
  });

  it('cannot delete an account that holds a domain’s property', async () => {
    const { a, d } = await verifiedDomain(`${unique('inuse')}.example`);
    const del = await call('DELETE', `${ACC}/${a._id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toBe(`This Google account cannot be deleted: it is used by 1 domain (${d.domainName})`);
  });
});

describe("a domain's property", () => {
  it('adds a domain property, verifies it through a TXT record in the Cloudflare zone, and removes it', async () => {
    const { a, key } = await account();
    const name = `${unique('dns')}.example`;
    const d = await zonedDomain(name);
    const base = `/api/domains/${d._id}/google-search`;
    expect((await call('GET', base)).json().data).toEqual({
      domainName: name,
      hasZone: true,
      hasServer: false,
      property: null,
    });
    // Nothing to verify yet.
    const early = await call('POST', `${base}/verify`);
    expect(early.statusCode).toBe(400);
    expect(early.json().message).toBe('The domain has no Google Search Console property: add one first');
    const badKind = await call('PUT', `${base}/property`, { accountId: a._id, kind: 'prefix' });
    expect(badKind.statusCode).toBe(400);
    expect(badKind.json().fields.kind).toBe('Kind must be domain or url');

    const added = await call('PUT', `${base}/property`, { accountId: a._id, kind: 'domain' });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().data.property).toMatchObject({
      siteUrl: `sc-domain:${name}`,
      kind: 'domain',
      permissionLevel: 'siteUnverifiedUser',
      verified: false,
      clientEmail: key.client_email,
    });
    // Another account for the same domain is refused until the property is removed.
    const { a: other } = await account('Other');
    expect((await call('PUT', `${base}/property`, { accountId: other._id, kind: 'domain' })).statusCode).toBe(409);

    const v = await call('POST', `${base}/verify`);
    expect(v.statusCode, v.body).toBe(200);
    const out = v.json().data;
    expect(out).toMatchObject({
      method: 'DNS_TXT',
      siteUrl: `sc-domain:${name}`,
      owners: [key.client_email],
      permissionLevel: 'siteOwner',
    });
    const token = /"(google-site-verification=[0-9a-f]+)"/.exec(out.placed)![1]!;
    const records = (await call('GET', `/api/domains/${d._id}/cloud-flare/dns_records`)).json();
    expect(JSON.stringify(records)).toContain(token);
    expect((await call('GET', base)).json().data.property).toMatchObject({
      verified: true,
      permissionLevel: 'siteOwner',
    });
    // Again: the record is there already, the answer the same.
    expect((await call('POST', `${base}/verify`)).statusCode).toBe(200);

    // The account's properties as Google lists them.
    const sites = await call('GET', `${ACC}/${a._id}/sites`);
    expect(sites.statusCode, sites.body).toBe(200);
    expect(sites.json().data).toEqual([{ siteUrl: `sc-domain:${name}`, permissionLevel: 'siteOwner' }]);
    expect((await call('GET', `${ACC}/00000000-0000-4000-8000-000000000000/sites`)).statusCode).toBe(404);

    const removed = await call('DELETE', `${base}/property`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data.property).toBeNull();
    expect(sims.engine.properties.get(`sc-domain:${name}`)).toBeUndefined();
  });

  it('verifies a URL-prefix property through a file written to the site over SFTP', async () => {
    const { a, key } = await account();
    const server = await create('servers', { IPAddress: '127.0.0.1', sshPort: sims.sshHost.port, domainsPath: '/www' });
    const rsa = await call('POST', `/api/servers/${server._id}/rsa-key`, { rsaKey: sims.sshKey.privateKey });
    expect(rsa.statusCode, rsa.body).toBe(200);
    const name = `${unique('file')}.example`;
    fs.mkdirSync(path.join(sims.sshHost.rootDir, 'www', name));
    const d = await create('domains', { domainName: name, status: 'active', serverId: server._id });
    const base = `/api/domains/${d._id}/google-search`;
    expect((await call('PUT', `${base}/property`, { accountId: a._id, kind: 'url' })).statusCode).toBe(200);
    const v = await call('POST', `${base}/verify`);
    expect(v.statusCode, v.body).toBe(200);
    const out = v.json().data;
    expect(out).toMatchObject({ method: 'FILE', siteUrl: `https://${name}/`, owners: [key.client_email] });
    expect(out.placed).toMatch(/^google[0-9a-f]+\.html$/);
    const written = fs.readFileSync(path.join(sims.sshHost.rootDir, 'www', name, out.placed), 'utf8');
    expect(written).toBe(`google-site-verification: ${out.placed}`);
    expect((await call('GET', base)).json().data.property).toMatchObject({ kind: 'url', verified: true });
  });

  it('says what is missing: a zone for a domain property, a token Google does not find', async () => {
    const { a } = await account();
    const d = await create('domains', { domainName: `${unique('bare')}.example`, status: 'active' });
    const base = `/api/domains/${d._id}/google-search`;
    expect((await call('PUT', `${base}/property`, { accountId: a._id, kind: 'domain' })).statusCode).toBe(200);
    const noZone = await call('POST', `${base}/verify`);
    expect(noZone.statusCode).toBe(400);
    expect(noZone.json().message).toBe(
      'Verifying a domain property puts a TXT record in its Cloudflare zone: create or link the zone first',
    );
    // A zone whose records Google cannot see (the lookup answers nothing): Google's 400 INVALID_ARGUMENT.
    const z = await zonedDomain(`${unique('hidden')}.example`);
    const zb = `/api/domains/${z._id}/google-search`;
    expect((await call('PUT', `${zb}/property`, { accountId: a._id, kind: 'domain' })).statusCode).toBe(200);
    sims.engine.setDnsTxtLookup(() => []);
    try {
      const res = await call('POST', `${zb}/verify`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'google.INVALID_ARGUMENT',
        message: expect.stringMatching(/^Google Search Console: INVALID_ARGUMENT: The necessary verification token/),
      });
    } finally {
      sims.engine.setDnsTxtLookup(cloudflareTxtLookup(sims.cf));
    }
    const unknown = await call('PUT', `${zb}/property`, {
      accountId: '00000000-0000-4000-8000-000000000000',
      kind: 'domain',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().fields.accountId).toBe('Google account not found');
  });

  it('answers PERMISSION_DENIED as a bad gateway naming Google, not as the operator’s 403', async () => {
    const { a } = await account();
    const d = await zonedDomain(`${unique('unverified')}.example`);
    const base = `/api/domains/${d._id}/google-search`;
    expect((await call('PUT', `${base}/property`, { accountId: a._id, kind: 'domain' })).statusCode).toBe(200);
    const res = await call('GET', `${base}/sitemaps`);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'google.PERMISSION_DENIED',
      message: expect.stringMatching(
        /^Google Search Console: PERMISSION_DENIED: User does not have sufficient permission for site 'sc-domain:/,
      ),
    });
  });
});

describe('what an attacker tries', () => {
  it('a burst of adds with two accounts leaves one property, added in Search Console by one account only', async () => {
    const [{ a: one, key: k1 }, { a: two, key: k2 }] = await Promise.all([account('One'), account('Two')]);
    const name = `${unique('race')}.example`;
    const d = await zonedDomain(name);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('PUT', `/api/domains/${d._id}/google-search/property`, {
          accountId: (i % 2 ? two : one)._id,
          kind: 'domain',
        }),
      ),
    );
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(4);
    expect(codes.filter((c) => c === 409)).toHaveLength(4);
    const winner = answers.find((r) => r.statusCode === 200)!.json().data.property;
    const winnerKey = winner.accountId === one._id ? k1 : k2;
    expect([...sims.engine.properties.get(`sc-domain:${name}`)!.addedBy]).toEqual([winnerKey.client_email]);
    const adds = await call('GET', `/api/audit-log?entity=domains&entityId=${d._id}&action=google_add_property`);
    expect(new Set(adds.json().data.items.map((e: { details: { accountId: string } }) => e.details.accountId))).toEqual(
      new Set([winner.accountId]),
    );
  });

  it('takes ids in any case, refuses NUL bytes and addresses outside the property, and never echoes the key', async () => {
    const { a, d, base, key } = await verifiedDomain(`${unique('edge')}.example`);
    const upper = await call('GET', `/api/domains/${d._id.toUpperCase()}/google-search`);
    expect(upper.statusCode, upper.body).toBe(200);
    expect(upper.json().data.property.accountId).toBe(a._id);
    for (const url of [
      `https://${d.domainName}/\u0000sitemap.xml`,
      `https://${d.domainName}.evil.example/sitemap.xml`,
      `https://evil.example/${d.domainName}/sitemap.xml`,
      'file:///etc/passwd',
      `https://${d.domainName}/${'x'.repeat(3_000)}`,
    ]) {
      const res = await call('POST', `${base}/sitemaps`, { url });
      expect(res.statusCode, `${url.slice(0, 60)}: ${res.body}`).toBe(400);
      expect(res.json().message).toBeTruthy();
      expect((await call('POST', `${base}/inspect`, { url })).statusCode).toBe(400);
    }
    const nul = await call('PATCH', `${ACC}/${a._id}`, { name: 'a\u0000b' });
    expect(nul.statusCode).toBe(400);
    const shown = await call('GET', `${ACC}/${a._id.toUpperCase()}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(key.private_key.split('\n')[1]);
    expect(shown.json().data.serviceAccountKey).toBe(SECRET_MASK);
  });
});

describe('sitemaps, inspection and analytics', () => {
  it('submits, lists with Google’s status and errors, and deletes sitemaps', async () => {
    const name = `${unique('maps')}.example`;
    const { base } = await verifiedDomain(name);
    fs.mkdirSync(path.join(sims.sshHost.rootDir, 'www', name), { recursive: true });
    fs.writeFileSync(
      path.join(sims.sshHost.rootDir, 'www', name, 'sitemap.xml'),
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://${name}/</loc></url><url><loc>https://${name}/a</loc></url></urlset>`,
    );
    expect((await call('GET', `${base}/sitemaps`)).json().data).toEqual([]);
    const sub = await call('POST', `${base}/sitemaps`, { url: `https://${name}/sitemap.xml` });
    expect(sub.statusCode, sub.body).toBe(200);
    expect(sub.json().data).toEqual([
      expect.objectContaining({
        path: `https://${name}/sitemap.xml`,
        isPending: false,
        type: 'sitemap',
        errors: '0',
        warnings: '0',
        contents: [{ type: 'web', submitted: '2', indexed: expect.any(String) }],
      }),
    ]);
    // A sitemap the site does not serve: Google reports an error for it.
    const missing = await call('POST', `${base}/sitemaps`, { url: `https://${name}/missing.xml` });
    expect(missing.json().data.find((s: { path: string }) => s.path.endsWith('missing.xml'))).toMatchObject({
      errors: '1',
    });
    const outside = await call('POST', `${base}/sitemaps`, { url: 'https://elsewhere.example/sitemap.xml' });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().fields.url).toBe(
      `https://elsewhere.example/sitemap.xml is not within the property sc-domain:${name}`,
    );
    expect((await call('POST', `${base}/sitemaps`, { url: 'ftp://x' })).json().fields.url).toBe(
      'Sitemap url must be an http or https URL',
    );
    const del = await call('DELETE', `${base}/sitemaps?url=${encodeURIComponent(`https://${name}/missing.xml`)}`);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().data.map((s: { path: string }) => s.path)).toEqual([`https://${name}/sitemap.xml`]);
    const again = await call('DELETE', `${base}/sitemaps?url=${encodeURIComponent(`https://${name}/missing.xml`)}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('google.NOT_FOUND');
  });

  it('inspects a URL: index status, last crawl, canonical and mobile usability', async () => {
    const name = `${unique('inspect')}.example`;
    const { base } = await verifiedDomain(name);
    sims.engine.seedAnalytics(name, { days: 28 });
    const known = await call('POST', `${base}/inspect`, { url: `https://${name}/` });
    expect(known.statusCode, known.body).toBe(200);
    expect(known.json().data).toMatchObject({
      inspectionResultLink: expect.stringContaining('https://search.google.com/search-console/inspect'),
      indexStatusResult: {
        verdict: 'PASS',
        coverageState: 'Indexed, not submitted in sitemap',
        lastCrawlTime: expect.any(String),
        googleCanonical: `https://${name}/`,
      },
      mobileUsabilityResult: { verdict: 'PASS' },
    });
    const unknown = (await call('POST', `${base}/inspect`, { url: `https://${name}/never-seen` })).json().data;
    expect(unknown.indexStatusResult).toMatchObject({ verdict: 'NEUTRAL', coverageState: 'URL is unknown to Google' });
    expect(unknown.mobileUsabilityResult).toBeUndefined();
    const outside = await call('POST', `${base}/inspect`, { url: 'https://elsewhere.example/' });
    expect(outside.statusCode).toBe(400);
    expect((await call('POST', `${base}/inspect`, {})).json().fields.url).toBe('Url is required');
    // The per-site quota: 429 RESOURCE_EXHAUSTED, with a Retry-After.
    sims.engine.setQuota({ inspectionsPerMinute: 2 });
    try {
      const refused = await call('POST', `${base}/inspect`, { url: `https://${name}/` });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.json()).toMatchObject({
        code: 'google.RESOURCE_EXHAUSTED',
        message: expect.stringMatching(/^Google Search Console: RESOURCE_EXHAUSTED: Quota exceeded/),
      });
    } finally {
      sims.engine.setQuota({ inspectionsPerMinute: 600 });
    }
  });

  it('reads 28 days of clicks, impressions, CTR and position, and the top queries and pages', async () => {
    const name = `${unique('stats')}.example`;
    const { base } = await verifiedDomain(name);
    sims.engine.seedAnalytics(name, { days: 28 });
    const res = await call('GET', `${base}/analytics`);
    expect(res.statusCode, res.body).toBe(200);
    const a = res.json().data;
    expect(a.endDate).toBe(new Date().toISOString().slice(0, 10));
    // Google's last two days are not in yet: 26 of the 28 days have rows, in date order.
    expect(a.days).toHaveLength(26);
    expect([...a.days].sort((x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1))).toEqual(a.days);
    const sum = (rows: { clicks: number }[]) => rows.reduce((s, r) => s + r.clicks, 0);
    expect(sum(a.queries)).toBe(sum(a.days));
    expect(sum(a.pages)).toBe(sum(a.days));
    for (const r of [...a.days, ...a.queries, ...a.pages]) {
      expect(r.ctr).toBeCloseTo(r.impressions ? r.clicks / r.impressions : 0, 6);
      expect(r.position).toBeGreaterThan(0);
    }
    expect(a.pages[0].key).toMatch(new RegExp(`^https://${name.replace(/\./g, '\\.')}/`));
    expect(a.queries.map((q: { clicks: number }) => q.clicks)).toEqual(
      [...a.queries.map((q: { clicks: number }) => q.clicks)].sort((x, y) => y - x),
    );
    // The per-site per-minute quota of Search Analytics: the three queries of one read, then refused.
    sims.engine.setQuota({ analyticsPerMinute: 4 });
    try {
      const refused = await call('GET', `${base}/analytics`);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('google.RESOURCE_EXHAUSTED');
    } finally {
      sims.engine.setQuota({ analyticsPerMinute: 1200 });
    }
  });

  it('names Google when it fails: an HTML page, a 5xx, a revoked token renewed once', async () => {
    const name = `${unique('fail')}.example`;
    const { base } = await verifiedDomain(name);
    sims.engine.fail({ kind: 'html' });
    const html = await call('POST', `${base}/inspect`, { url: `https://${name}/` });
    expect(html.statusCode).toBe(502);
    expect(html.json().message).toBe('Google Search Console answered 502 with something other than JSON');
    // A POST is not sent again (it may have done its work).
    sims.engine.fail({ kind: '5xx' });
    const down = await call('POST', `${base}/inspect`, { url: `https://${name}/` });
    expect(down.statusCode).toBe(502);
    expect(down.json().message).toBe('Google Search Console: UNAVAILABLE: The service is currently unavailable.');
    // A GET is tried again: two failures, then the answer.
    sims.engine.fail({ kind: '5xx', count: 2 });
    expect((await call('GET', `${base}/sitemaps`)).statusCode).toBe(200);
    const issued = sims.engine.tokensIssued;
    sims.engine.revokeTokens();
    expect((await call('GET', `${base}/sitemaps`)).statusCode).toBe(200);
    expect(sims.engine.tokensIssued).toBe(issued + 1);

    // An add Google refuses keeps nothing: the domain is still without a property.
    const { a } = await account();
    const other = await zonedDomain(`${unique('fail')}.example`);
    // The PUT is tried three times (two retries), each answered 503.
    sims.engine.fail({ kind: '5xx', count: 3 });
    const add = await call('PUT', `/api/domains/${other._id}/google-search/property`, {
      accountId: a._id,
      kind: 'domain',
    });
    expect(add.statusCode).toBe(502);
    expect((await call('GET', `/api/domains/${other._id}/google-search`)).json().data.property).toBeNull();
  });
});

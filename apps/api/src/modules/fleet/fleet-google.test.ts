import { describe, expect, it } from 'vitest';
import type { FleetItem, FleetPlan } from '@fleetdesk/contract';
import { startGoogleSearchSim, type GoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { cloudflareTxtLookup } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { cloudOnSim, useFleetApp } from '../../test/fixtures.ts';
import { createAccountPacer } from './fleet.google.ts';

// Google Search Console over a fleet selection (decision 081): planned per domain from what Google reads now, run
// through the Google service, read back from the simulator.
let g: GoogleSearchSim;
/** What the sites serve to Google's sitemap reads: `host/name` → body. */
const served = new Map<string, string>();
const { t, sim, call, create, unique, waitPlan } = useFleetApp(
  () => ({
    GOOGLE_SEARCH_CONSOLE_API_URL: g.url,
    GOOGLE_SITE_VERIFICATION_API_URL: g.siteVerificationUrl,
    GOOGLE_SEARCH_TIMEOUT_SECONDS: '5',
  }),
  {
    before: async (cf) => {
      g = await startGoogleSearchSim({
        dnsTxtLookup: cloudflareTxtLookup(cf),
        fileLookup: (host, name) => served.get(`${host}/${name}`),
      });
    },
    after: async () => g?.close(),
  },
);

async function zoned(name: string) {
  const { cloud } = await cloudOnSim(sim, create);
  const d = await create('domains', { domainName: name, status: 'active', cloudId: cloud._id });
  expect((await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`)).statusCode).toBe(200);
  return d._id;
}
const rowsOf = async (id: string) => {
  const items = (await call('GET', `/api/fleet/plans/${id}/items`)).json().data.items as FleetItem[];
  return Object.fromEntries(items.map((i) => [i.domainName, [i.outcome, i.status, i.before, i.after, i.reason]]));
};
async function plan(ids: string[], action: object) {
  const res = await call('POST', '/api/fleet/plans', { selection: { ids }, action });
  expect(res.statusCode, res.body).toBe(201);
  return waitPlan(res.json().data._id, ['planned', 'failed']);
}
async function run(p: FleetPlan) {
  expect((await call('POST', `/api/fleet/plans/${p._id}/run`)).statusCode).toBe(200);
  return waitPlan(p._id, ['completed', 'completed_with_failures', 'failed']);
}

describe('Google over a fleet selection', () => {
  it('adds and verifies the properties (one already verified is "same"), then submits the sitemaps', async () => {
    const key = g.createServiceAccount(unique('sa'));
    const accountId = (
      await create('google-search/accounts', { name: unique('Google'), serviceAccountKey: JSON.stringify(key) })
    )._id;
    const names = [1, 2, 3].map(() => `${unique('gfleet')}.com`);
    const ids = [];
    for (const n of names) ids.push(await zoned(n));
    const bare = await create('domains', { domainName: `${unique('gbare')}.com`, status: 'active' });
    // The first is verified already, through the domain's Google tab.
    const add = await call('PUT', `/api/domains/${ids[0]}/google-search/property`, { accountId, kind: 'domain' });
    expect(add.statusCode, add.body).toBe(200);
    expect((await call('POST', `/api/domains/${ids[0]}/google-search/verify`)).statusCode).toBe(200);

    const verify = await plan([...ids, bare._id], { kind: 'google_verify', accountId });
    expect(verify.state).toBe('planned');
    const planned = await rowsOf(verify._id);
    expect(planned[names[0]!]).toEqual([
      'same',
      'pending',
      `sc-domain:${names[0]}: siteOwner`,
      `sc-domain:${names[0]}: siteOwner`,
      null,
    ]);
    for (const n of names.slice(1))
      expect(planned[n]).toEqual(['change', 'pending', 'no property', `sc-domain:${n} verified`, null]);
    expect(planned[bare.domainName as string]?.[0]).toBe('refused');
    expect(planned[bare.domainName as string]?.[4]).toBe(
      'Verifying needs a Cloudflare zone (a TXT record) or a server (a file)',
    );
    const verified = await run(verify);
    expect(verified.state, JSON.stringify(await rowsOf(verify._id))).toBe('completed');
    for (const n of names) expect([...(g.owners.get(`INET_DOMAIN ${n}`) ?? [])]).toEqual([key.client_email]);
    for (const n of names) expect(g.properties.get(`sc-domain:${n}`)!.addedBy.has(key.client_email)).toBe(true);

    // Sitemaps: the bare domain has no property; the others are submitted and read.
    for (const n of names) served.set(`${n}/sitemap.xml`, `<urlset><url><loc>https://${n}/</loc></url></urlset>`);
    const sitemaps = await plan([...ids, bare._id], { kind: 'google_sitemap' });
    const rows = await rowsOf(sitemaps._id);
    for (const n of names)
      expect(rows[n]).toEqual([
        'change',
        'pending',
        `https://${n}/sitemap.xml not submitted`,
        `https://${n}/sitemap.xml submitted`,
        null,
      ]);
    expect(rows[bare.domainName as string]?.[4]).toBe('The domain has no Google Search Console property');
    expect((await run(sitemaps)).state).toBe('completed');
    for (const n of names)
      expect(g.properties.get(`sc-domain:${n}`)!.sitemaps.get(`https://${n}/sitemap.xml`)).toMatchObject({
        errors: 0,
      });
    // Planned again: nothing left to do.
    const again = await rowsOf((await plan(ids, { kind: 'google_sitemap' }))._id);
    for (const n of names) expect(again[n]?.[0]).toBe('same');
  }, 90_000);

  it('refuses another account’s property, and the actions to a user without the Google area', async () => {
    const [k1, k2] = [g.createServiceAccount(unique('sa')), g.createServiceAccount(unique('sa'))];
    const a1 = (await create('google-search/accounts', { name: unique('G1'), serviceAccountKey: JSON.stringify(k1) }))
      ._id;
    const a2 = (await create('google-search/accounts', { name: unique('G2'), serviceAccountKey: JSON.stringify(k2) }))
      ._id;
    const name = `${unique('gother')}.com`;
    const id = await zoned(name);
    expect(
      (await call('PUT', `/api/domains/${id}/google-search/property`, { accountId: a1, kind: 'domain' })).statusCode,
    ).toBe(200);
    const p = await plan([id], { kind: 'google_verify', accountId: a2 });
    expect((await rowsOf(p._id))[name]).toEqual([
      'refused',
      'pending',
      null,
      null,
      `The domain already has the property sc-domain:${name} of another Google account`,
    ]);
    const domainsOnly = await t.tokenFor(['cnv:domains'], { username: unique('gops').slice(0, 20) });
    for (const action of [{ kind: 'google_verify', accountId: a1 }, { kind: 'google_sitemap' }]) {
      const res = await call('POST', '/api/fleet/plans', { selection: { ids: [id] }, action }, domainsOnly);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().message).toBe('Google Search Console actions need the Google Search Console area');
    }
  });
});

describe('the per-account pacer', () => {
  it('spaces the steps of one account and lets another account go at once', async () => {
    let clock = 0;
    const pace = createAccountPacer(1000, () => clock);
    const started: string[] = [];
    const step = async (acc: string) => {
      await pace(acc);
      started.push(`${acc}@${clock}`);
    };
    await step('a');
    const second = step('a');
    await step('b');
    expect(started).toEqual(['a@0', 'b@0']);
    clock = 1000;
    await second;
    expect(started).toEqual(['a@0', 'b@0', 'a@1000']);
  });
});
